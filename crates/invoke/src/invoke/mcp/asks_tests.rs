//! Unit tests of `asks`: headless answers, the loop guard, the person's channel, bad input.
use super::*;

fn form() -> Ask {
    Ask::Form { message: "who?".into(), schema: json!({"type": "object", "properties": {"name": {"type": "string"}}}) }
}

#[tokio::test]
async fn headless_answers_and_declines_by_default_with_a_warning() {
    let asks = Asks::default();
    assert_eq!(asks.ask(form()).await, AskReply::Decline);
    let asked = asks.take_asked();
    assert!(asked[0].warning().unwrap().contains("--elicit-json"), "{:?}", asked[0].warning());
    let asks = Asks::headless(
        Headless { elicit: Some(ElicitAnswer::Accept(json!({"name": "Ada"}))), ..Default::default() },
        vec![],
    );
    assert_eq!(asks.ask(form()).await, AskReply::Accept(Some(json!({"name": "Ada"}))));
    assert_eq!(asks.take_asked()[0].warning(), None);
    let sampled = Asks::headless(Headless { sample_text: Some("hi".into()), ..Default::default() }, vec![]);
    let reply = sampled.ask(Ask::Sample { request: json!({}), cut: false }).await;
    assert!(matches!(reply, AskReply::Sampled { ref text, .. } if text == "hi"), "{reply:?}");
}

/// A URL question nobody answered is said with its link masked, in the message too (the warning
/// goes to the terminal and into `call`'s JSON).
#[tokio::test]
async fn an_unanswered_url_question_is_said_masked() {
    let asks = Asks::default();
    let link = "https://auth.example/login?api_key=S3CRET&state=1";
    let ask = Ask::Url { message: format!("open {link}"), url: link.into(), elicitation_id: "e1".into() };
    asks.ask(ask).await;
    let warning = asks.take_asked()[0].warning().expect("said");
    assert!(
        warning.starts_with("the server asked to visit https://auth.example/login?api_key=••••&state=1"),
        "{warning}"
    );
    assert!(!warning.contains("S3CRET"), "{warning}");
}

#[tokio::test]
async fn a_server_that_asks_in_a_loop_is_refused() {
    let asks = Asks::headless(Headless { elicit: Some(ElicitAnswer::Cancel), ..Default::default() }, vec![]);
    asks.call_started();
    for _ in 0..MAX_ASKS_PER_CALL {
        assert_eq!(asks.ask(form()).await, AskReply::Cancel);
    }
    assert_eq!(asks.ask(form()).await, AskReply::Decline);
    for _ in 0..1000 {
        assert_eq!(asks.ask(form()).await, AskReply::Decline);
    }
    let asked = asks.take_asked();
    assert_eq!(asked.len(), MAX_ASKS_PER_CALL + 1, "past the first refusal, asks are counted, not kept");
    let last = asked.last().unwrap();
    assert!(last.warning().unwrap().contains("more than"), "{:?}", last.warning());
    assert_eq!(asks.refused_unkept(), 1000);
    assert!(asks.unkept_warning().unwrap().starts_with("1000 more asks"), "{:?}", asks.unkept_warning());
}

#[tokio::test]
async fn a_person_answers_through_the_channel() {
    let asks = Asks::default();
    let (tx, mut rx) = mpsc::unbounded_channel();
    asks.ask_person(tx);
    let person = tokio::spawn(async move {
        let pending = rx.recv().await.unwrap();
        assert_eq!(pending.ask, form());
        pending.reply.send(AskReply::Cancel).unwrap();
    });
    assert_eq!(asks.ask(form()).await, AskReply::Cancel);
    person.await.unwrap();
}

#[test]
fn flat_schemas_only_and_roots_are_file_uris() {
    assert_eq!(not_flat(&json!({"type": "object", "properties": {"a": {"type": "string"}}})), None);
    let nested = json!({"type": "object", "properties": {"a": {"type": "object"}}});
    assert!(not_flat(&nested).unwrap().contains("\"a\""));
    let root = root("/tmp/some dir");
    assert_eq!(root.uri, "file:///tmp/some%20dir");
    assert_eq!(root.name.as_deref(), Some("some dir"));
    assert_eq!(super::root("file:///x").uri, "file:///x");
}

#[test]
fn a_huge_sampling_request_is_cut_to_show() {
    let big = "x".repeat(10 * 1024 * 1024);
    let request = json!({"maxTokens": 5, "messages": [{"role": "user", "content": {"type": "text", "text": big}}]});
    let cut = cut_request(request);
    assert!(cut.to_string().len() < MAX_SHOWN_BYTES);
    assert_eq!(cut["maxTokens"], 5);
}

#[test]
fn url_elicitation_errors_become_asks() {
    let data =
        json!({"elicitations": [{"mode": "url", "url": "https://x/auth", "message": "log in", "elicitationId": "e1"}]});
    assert_eq!(
        url_elicitations(&data),
        [Ask::Url { message: "log in".into(), url: "https://x/auth".into(), elicitation_id: "e1".into() }]
    );
}

#[tokio::test]
async fn an_elicit_answer_the_form_refuses_is_cancelled_naming_each_field() {
    let schema = json!({"type": "object", "required": ["name", "age"], "properties": {
        "name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}}});
    let ask = Ask::Form { message: "who?".into(), schema };
    let given = json!({"age": "forty"});
    let asks = Asks::headless(Headless { elicit: Some(ElicitAnswer::Accept(given)), ..Default::default() }, vec![]);
    assert_eq!(asks.ask(ask.clone()).await, AskReply::Cancel, "not sent as it is");
    let asked = asks.take_asked();
    let warning = asked[0].warning().expect("said");
    assert!(warning.contains(MISMATCH) && warning.contains("age: ") && warning.contains("name: required"), "{warning}");
    assert_eq!(asked_json(&asked[0])["mismatch"].as_str(), asked[0].note.as_deref());
    // What fits is sent, and carries no mismatch.
    let given = json!({"name": "Ada", "age": 36});
    let asks =
        Asks::headless(Headless { elicit: Some(ElicitAnswer::Accept(given.clone())), ..Default::default() }, vec![]);
    assert_eq!(asks.ask(ask).await, AskReply::Accept(Some(given)));
    assert!(asked_json(&asks.take_asked()[0]).get("mismatch").is_none());
}
