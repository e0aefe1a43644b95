use super::*;

#[test]
fn a_seconds_drops_are_counted_and_said_once_when_it_ends() {
    let start = Instant::now();
    let mut rate = Rate::new(start);
    let over = (0..300).filter(|_| rate.count()).count() as u64;
    assert_eq!(over, 300 - MAX_PER_SECOND);
    assert_eq!(rate.roll(start + Duration::from_millis(999)), None, "the second has not ended");
    assert_eq!(rate.roll(start + Duration::from_secs(1)), Some(over));
    assert_eq!(rate.roll(start + Duration::from_secs(3)), None, "said once");
    assert!(!rate.count(), "a new second starts from nothing");
}

#[test]
fn only_web_and_mail_links_may_open() {
    for bad in ["javascript:alert(1)", "file:///etc/passwd", "mailto:", "data:text/html,x", "vscode://x"] {
        assert!(!super::may_open(bad), "{bad}");
    }
    for good in ["https://example.com/a", "http://127.0.0.1:3/", "mailto:a@example.com"] {
        assert!(super::may_open(good), "{good}");
    }
}

fn bridge(init_wait: Duration) -> (Arc<Bridge>, mpsc::Receiver<AppEvent>) {
    let text = json!({"name": "show", "parameters": {"type": "object"}});
    let (mut tools, _) = crate::catalog::load_text("t.json", &text.to_string(), &Default::default());
    let tool = tools.remove(0);
    let otc = crate::invoke::otc::OtcEndpoint::new("http://127.0.0.1:9", "/call", Vec::new(), Duration::from_secs(1));
    let setup = BridgeSetup {
        endpoint: Arc::new(Endpoint::Otc(otc.expect("an endpoint"))),
        tool: tool.clone(),
        tools: vec![tool],
        input: json!({}),
        result: json!({}),
        host_context: json!({}),
        init_wait,
    };
    let (events, heard) = mpsc::channel(16);
    (Bridge::new(setup, events), heard)
}

#[tokio::test]
async fn an_app_that_ended_says_nothing_of_its_handshake_later() {
    let (bridge, mut heard) = bridge(Duration::from_millis(30));
    bridge.handle(json!({"jsonrpc": "2.0", "method": "tooldeck/loaded"})).await;
    bridge.teardown("closed", Duration::from_millis(10)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    while let Ok(event) = heard.try_recv() {
        assert!(!matches!(event, AppEvent::NoInitialize { .. }), "the timer outlived the app");
    }
}

#[tokio::test]
async fn the_bridges_timers_do_not_keep_it() {
    let (bridge, _heard) = bridge(Duration::from_secs(30));
    bridge.handle(json!({"jsonrpc": "2.0", "method": "tooldeck/loaded"})).await;
    for _ in 0..MAX_PER_SECOND + 1 {
        bridge.handle(json!({"jsonrpc": "2.0", "method": "notifications/message"})).await;
    }
    let gone = Arc::downgrade(&bridge);
    drop(bridge);
    assert!(gone.upgrade().is_none(), "a timer still holds the bridge");
}
