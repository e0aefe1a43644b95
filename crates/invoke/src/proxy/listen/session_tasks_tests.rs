//! A session's tasks end with it: one blocked sending to a client that does not read is stopped
//! by `Session::end`, and nothing it ran still holds the session.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::json;

use super::session::{Session, SessionDeliver};
use crate::proxy::intercept::{Deliver, Faults, Interceptor};
use crate::wire::Tap;

const SENT: usize = 2048;

#[tokio::test]
async fn ending_a_session_stops_its_tasks() {
    let tap = Tap::none();
    let interceptor =
        Arc::new(Interceptor::new(Faults::new(Vec::new(), 1), Arc::default(), tap.handle(), Arc::new(|_| {})));
    // `cat` says nothing and never exits by itself: its session's tasks wait on it.
    let session = Session::start("cat", tap.handle(), interceptor, || {}).expect("cat starts");
    let mut unread = session.open_post(&[json!(1)], &[], true);
    let deliver = SessionDeliver { session: Arc::clone(&session), from_the_server: true };
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/message"});
    // Far more than the stream holds: the deliveries past it wait for a reader that never comes.
    for _ in 0..SENT {
        deliver.forward(Bytes::from(notification.to_string()), &notification);
    }
    drop(deliver);
    session.end().await;
    // The stopped tasks go at their next poll; one that could finish its send then would (the
    // stop waits for nothing), so the stream is read only once they have gone.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut delivered = 0;
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while unread.recv().await.is_some() {
            delivered += 1;
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream never ended: a delivery still holds it");
    assert!(delivered < SENT, "the blocked deliveries were stopped, not sent ({delivered})");
    for _ in 0..100 {
        if Arc::strong_count(&session) == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("a task still holds the session");
}
