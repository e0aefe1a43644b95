//! The built-in demo server through real HTTP on 127.0.0.1: every route and every kind of answer
//! the sample tools give.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use tooldeck::catalog::{LoadOptions, Severity, load_samples, load_text};
use tooldeck::invoke::mock::{MAX_ARTIFACTS, MockServer};

async fn server() -> MockServer {
    let loaded = load_samples(&LoadOptions::default());
    MockServer::start(loaded.catalog, 0).await.expect("binds a free port on 127.0.0.1")
}

fn client() -> reqwest::Client {
    tooldeck::invoke::http::client_builder().timeout(Duration::from_secs(20)).build().unwrap()
}

fn content_type(response: &reqwest::Response) -> String {
    response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
}

/// POSTs a call to `/tools/call`; returns the status and the JSON body (checking it is labelled JSON).
async fn call(server: &MockServer, tool: &str, input: Value, tokens: &[(&str, &str)]) -> (StatusCode, Value) {
    let authorization: Vec<Value> = tokens.iter().map(|(id, token)| json!({"id": id, "token": token})).collect();
    let body = json!({"request": {"call_id": format!("call-{}", tool.replace(['@', '.'], "-")), "tool_id": tool,
        "input": input, "context": {"authorization": authorization}}});
    post(server, "/tools/call", body.to_string()).await
}

async fn post(server: &MockServer, path: &str, body: String) -> (StatusCode, Value) {
    let response = client()
        .post(format!("{}{path}", server.url()))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    assert_eq!(content_type(&response), "application/json");
    (status, response.json().await.unwrap())
}

/// The earlier OTC draft's result envelope: only its four keys, and an `output` (when there is one) of exactly one kind.
fn assert_envelope(body: &Value, call_id: &str) {
    let object = body.as_object().expect("an object");
    for key in object.keys() {
        assert!(["invocation_id", "finished_at", "success", "output"].contains(&key.as_str()), "{key} in {body}");
    }
    assert_eq!(body["invocation_id"], call_id);
    let finished = body["finished_at"].as_str().expect("finished_at");
    assert!(finished.len() == 24 && finished.ends_with('Z') && finished.as_bytes()[10] == b'T', "{finished}");
    assert!(body["success"].is_boolean());
    if let Some(output) = body.get("output") {
        assert_eq!(output.as_object().map(|o| o.len()), Some(1), "{output}");
    }
}

#[tokio::test]
async fn health_and_index() {
    let server = server().await;
    assert!(server.url().starts_with("http://127.0.0.1:"));
    assert_eq!(server.addr().ip().to_string(), "127.0.0.1");
    let response = client().get(format!("{}/health", server.url())).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(content_type(&response), "application/json");
    assert_eq!(response.json::<Value>().await.unwrap(), json!({"status": "ok"}));

    let response = client().get(format!("{}/no/such/route", server.url())).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(content_type(&response), "application/json");
    let response = client().get(format!("{}/tools/call", server.url())).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(content_type(&response), "application/json");
}

#[tokio::test]
async fn tools_lists_every_sample_and_reads_back_as_otc() {
    let server = server().await;
    let response = client().get(format!("{}/tools", server.url())).send().await.unwrap();
    assert_eq!(content_type(&response), "application/json");
    let text = response.text().await.unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    let listed: Vec<&str> = body["tools"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    let samples = load_samples(&LoadOptions::default()).catalog;
    let ids: Vec<&str> = samples.tools().iter().map(|t| t.id.as_str()).collect();
    assert_eq!(listed, ids);

    let gmail = body["tools"].as_array().unwrap().iter().find(|t| t["id"] == "Gmail.ListEmails@1.0.0").unwrap();
    assert_eq!(gmail["version"], "1.0.0");
    assert_eq!(gmail["requirements"]["authorization"][0]["id"], "google");
    assert_eq!(
        gmail["requirements"]["authorization"][0]["oauth2"]["scopes"],
        json!(["https://www.googleapis.com/auth/gmail.readonly"])
    );
    let sms = body["tools"].as_array().unwrap().iter().find(|t| t["id"] == "Sms.SendText@1.1.0").unwrap();
    assert_eq!(sms["requirements"]["secrets"], json!([{"id": "TWILIO_API_KEY"}]));

    // tooldeck's own loader reads the list back with the same ids (as it will with `--endpoint`).
    let (tools, diagnostics) = load_text("GET /tools", &text, &LoadOptions::default());
    assert!(diagnostics.iter().all(|d| d.severity != Severity::Error), "{diagnostics:?}");
    assert_eq!(tools.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ids);
}

#[tokio::test]
async fn a_value_in_both_forms_and_on_both_paths() {
    let server = server().await;
    let (status, body) = call(&server, "Math.Add@1.0.0", json!({"a": 2, "b": 3}), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["call_id"], "call-Math-Add-1-0-0");
    assert_eq!(body["result"]["success"], true);
    assert_eq!(body["result"]["value"], 5);
    assert!(body["result"]["duration"].is_u64());

    let request = json!({"request": {"call_id": "x1", "tool_id": "Math.Add@1.0.0", "input": {"a": 0.5, "b": 1}}});
    let (status, body) = post(&server, "/execute", request.to_string()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["value"], 1.5);

    let (status, body) = call(&server, "weather", json!({"city": "Lisbon", "year": 1998}), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_envelope(&body, "call-weather");
    assert_eq!(body["success"], true);
    let value = &body["output"]["value"];
    assert_eq!((value["city"].as_str(), value["year"].as_i64()), (Some("Lisbon"), Some(1998)));
    assert!(value["temperature_c"].is_number() && value["conditions"].is_string());
    let (_, again) = call(&server, "weather", json!({"city": "Lisbon", "year": 1998}), &[]).await;
    assert_eq!(again["output"], body["output"], "answers repeat for the same input");

    let (_, body) = call(&server, "get_weather", json!({"location": "Austin, TX", "unit": "fahrenheit"}), &[]).await;
    assert_eq!(body["output"]["value"]["unit"], "fahrenheit");

    let (_, body) = call(&server, "search_products", json!({"query": "lamp"}), &[]).await;
    assert_envelope(&body, "call-search_products");
    assert_eq!(body["output"]["value"]["received"], json!({"query": "lamp"}));

    let (_, body) = call(&server, "write_file", json!({"path": "a.txt", "content": "hi"}), &[]).await;
    assert_envelope(&body, "call-write_file");
    assert_eq!((body["success"].as_bool(), body.get("output")), (Some(true), None));

    let (_, body) = call(&server, "cancel_calendar_event", json!({"event_id": "nope"}), &[]).await;
    assert_envelope(&body, "call-cancel_calendar_event");
    assert_eq!(body["success"], false);
    assert!(body["output"]["error"]["message"].is_string() && body["output"]["error"]["developer_message"].is_string());
}

#[tokio::test]
async fn invalid_input_is_a_422_by_parameter() {
    let server = server().await;
    let (status, body) = call(&server, "Math.Add@1.0.0", json!({"a": "two"}), &[]).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["message"], "invalid input");
    let errors = body["parameter_errors"].as_object().unwrap();
    assert_eq!(errors.keys().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(errors["b"], "required");

    let (status, body) = call(&server, "Demo.SlowCount@1.0.0", json!({"seconds": 31}), &[]).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["parameter_errors"]["seconds"].as_str().unwrap().contains("31"));

    // Formats are checked; a nested problem lands on its top-level parameter, with its path.
    let (status, body) = call(
        &server,
        "Reports.ExportCsv@1.0.0",
        json!({"report": "refunds", "from": "yesterday", "to": "2024-01-01"}),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["parameter_errors"]["from"].is_string(), "{body}");
    let (_, body) = call(&server, "get_weather", json!({"location": "Oslo", "unit": "kelvin", "extra": 1}), &[]).await;
    let errors = body["parameter_errors"].as_object().unwrap();
    assert!(errors.contains_key("unit") && errors.contains_key("extra"), "{body}");
    let (_, body) = call(&server, "search_products", json!({"query": "x", "priceRange": {"min": "cheap"}}), &[]).await;
    assert!(body["parameter_errors"]["priceRange"].as_str().unwrap().starts_with("/priceRange/min: "), "{body}");
}

#[tokio::test]
async fn oauth_in_the_envelope_form_then_success_with_a_token() {
    let server = server().await;
    let (status, body) = call(&server, "Gmail.ListEmails@1.0.0", json!({"max_results": 3}), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_envelope(&body, "call-Gmail-ListEmails-1-0-0");
    assert_eq!(body["success"], false);
    let prompt = &body["output"]["requires_authorization"];
    assert!(prompt["message"].as_str().unwrap().contains("demo-google"));
    let url = prompt["oauth2"]["url"].as_str().unwrap();
    assert_eq!(
        url,
        format!(
            "{}/oauth/authorize?provider=google&scope=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fgmail.readonly",
            server.url()
        )
    );
    assert_eq!(prompt["oauth2"]["scope"], "https://www.googleapis.com/auth/gmail.readonly");

    let page = client().get(url).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(content_type(&page).starts_with("text/html"));
    let html = page.text().await.unwrap();
    assert!(html.contains("Authorize google (demo)") && html.contains("demo-google"), "{html}");

    // A token for another provider, or an empty one, does not count.
    let (_, body) = call(&server, "Gmail.ListEmails@1.0.0", json!({}), &[("slack", "x"), ("google", " ")]).await;
    assert!(body["output"]["requires_authorization"].is_object());

    let (status, body) =
        call(&server, "Gmail.ListEmails@1.0.0", json!({"max_results": 3}), &[("google", "demo-google")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_envelope(&body, "call-Gmail-ListEmails-1-0-0");
    assert_eq!(body["success"], true);
    let emails = body["output"]["value"]["emails"].as_array().unwrap();
    assert_eq!(emails.len(), 3);
    assert!(emails.iter().all(|e| e["id"].is_string() && e["from"].is_string() && e["subject"].is_string()));
}

#[tokio::test]
async fn oauth_in_the_missing_requirements_form_then_success_with_a_token() {
    let server = server().await;
    let input = json!({"channel": "general", "message": "hello", "priority": "urgent", "mentions": ["U1"]});
    let (status, body) = call(&server, "Slack.SendMessage@0.2.0", input.clone(), &[]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["message"].is_string() && body["developer_message"].is_string());
    let missing = &body["missing_requirements"]["authorization"];
    assert_eq!(missing[0]["id"], "slack");
    assert_eq!(
        missing[0]["url"],
        format!("{}/oauth/authorize?provider=slack&scope=chat%3Awrite%20channels%3Aread%20users%3Aread", server.url())
    );

    let (status, body) = call(&server, "Slack.SendMessage@0.2.0", input, &[("slack", "demo-slack")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["success"], true);
    assert_eq!(body["result"]["value"]["message"]["text"], ":rotating_light: <!channel> <@U1> hello");
}

#[tokio::test]
async fn the_failing_tool_fails_with_both_messages() {
    let server = server().await;
    let (status, body) = call(&server, "Demo.AlwaysFails@1.0.0", json!({"reason": "testing"}), &[]).await;
    assert_eq!(status, StatusCode::OK);
    let result = &body["result"];
    assert_eq!(
        (result["call_id"].as_str(), result["success"].as_bool()),
        (Some("call-Demo-AlwaysFails-1-0-0"), Some(false))
    );
    assert!(result.get("value").is_none());
    let error = &result["error"];
    assert!(error["message"].as_str().unwrap().len() > 10);
    assert!(error["developer_message"].as_str().unwrap().contains("testing"));
    assert_eq!((error["can_retry"].as_bool(), error["retry_after_ms"].as_u64()), (Some(true), Some(2000)));
}

/// Calls `tool`, checks the artifact envelope, fetches the artifact and checks its type and size.
async fn fetch_artifact(server: &MockServer, tool: &str, input: Value, content_type_expected: &str) -> Vec<u8> {
    let (status, body) = call(server, tool, input, &[]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let call_id = format!("call-{}", tool.replace(['@', '.'], "-"));
    assert_envelope(&body, &call_id);
    assert_eq!(body["success"], true);
    let artifact = &body["output"]["artifact"];
    let url = artifact["url"].as_str().unwrap();
    assert!(url.starts_with(&format!("{}/artifacts/{call_id}.", server.url())), "{url}");
    assert_eq!(artifact["content_type"], content_type_expected);
    assert!(!artifact["meta"]["description"].as_str().unwrap().is_empty());
    let response = client().get(url).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(content_type(&response), content_type_expected);
    let bytes = response.bytes().await.unwrap().to_vec();
    assert_eq!(artifact["size"].as_u64(), Some(bytes.len() as u64));
    bytes
}

#[tokio::test]
async fn csv_json_and_png_artifacts_are_served_as_declared() {
    let server = server().await;
    let input = json!({"report": "sales_by_day", "from": "2024-02-20", "to": "2024-06-30"});
    let csv = String::from_utf8(fetch_artifact(&server, "Reports.ExportCsv@1.0.0", input, "text/csv").await).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 21, "{csv}");
    assert_eq!(lines[0], "date,orders,revenue_usd");
    assert!(lines[10].starts_with("2024-02-29,"), "leap day: {}", lines[10]);
    assert!(lines.iter().all(|l| l.split(',').count() == 3));

    let input = json!({"report": "refunds", "from": "2024-01-01", "to": "2024-01-03", "include_header": false});
    let csv = String::from_utf8(fetch_artifact(&server, "Reports.ExportCsv@1.0.0", input, "text/csv").await).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");

    let input = json!({"report": "refunds", "from": "2024-01-03", "to": "2024-01-01"});
    let (_, body) = call(&server, "Reports.ExportCsv@1.0.0", input, &[]).await;
    assert_eq!((body["success"].as_bool(), body["output"]["error"]["message"].is_string()), (Some(false), true));

    let input = json!({"service": "web", "hours": 6, "percent": true});
    let bytes = fetch_artifact(&server, "servicedesk.errorRateChart", input, "application/json").await;
    let chart: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(chart["service"], "web");
    assert_eq!(chart["points"].as_array().unwrap().len(), 6);

    let input = json!({"address": "Cairo", "zoom": 12});
    let png = fetch_artifact(&server, "maps.showMapAtAddressAndZoom", input, "image/png").await;
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&png[8..16], b"\0\0\0\x0dIHDR");
    assert_eq!(&png[16..29], &[0, 0, 0, 64, 0, 0, 0, 64, 8, 2, 0, 0, 0]);
    let mut at = 8;
    let mut chunks = Vec::new();
    while at < png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
        assert_eq!(crc, crc32(&png[at + 4..at + 8 + len]), "chunk at {at}");
        chunks.push(String::from_utf8_lossy(&png[at + 4..at + 8]).into_owned());
        at += 12 + len;
    }
    assert_eq!(chunks, ["IHDR", "IDAT", "IEND"]);

    let response = client().get(format!("{}/artifacts/nothing.csv", server.url())).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(content_type(&response), "application/json");
}

/// Bitwise CRC-32, independent of the server's table-driven one.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[tokio::test]
async fn only_the_newest_artifacts_are_kept() {
    let server = server().await;
    let mut urls = Vec::new();
    for i in 0..=MAX_ARTIFACTS {
        let body = json!({"request": {"call_id": format!("a{i}"), "tool_id": "servicedesk.errorRateChart", "input": {"hours": 1}}});
        let (_, answer) = post(&server, "/tools/call", body.to_string()).await;
        urls.push(answer["output"]["artifact"]["url"].as_str().unwrap().to_string());
    }
    let first = client().get(&urls[0]).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::NOT_FOUND);
    let second = client().get(&urls[1]).send().await.unwrap();
    assert_eq!(second.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_slow_tool_takes_its_time() {
    let server = server().await;
    let started = Instant::now();
    let (status, body) = call(&server, "Demo.SlowCount@1.0.0", json!({"seconds": 1}), &[]).await;
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["value"], json!({"counted": 1}));
    assert!(body["result"]["duration"].as_u64().unwrap() >= 1000);
}

#[tokio::test]
async fn unknown_tools_and_malformed_requests() {
    let server = server().await;
    let (status, body) = call(&server, "No.Such@1.0.0", json!({}), &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body["message"].as_str().unwrap().contains("unknown tool"));

    for bad in [
        "not json".to_string(),
        json!({"call_id": "c", "tool_id": "Math.Add@1.0.0", "input": {}}).to_string(),
        json!({"request": {"tool_id": "Math.Add@1.0.0"}}).to_string(),
        json!({"request": {"call_id": "c", "tool_id": "Math.Add@1.0.0", "input": [1, 2]}}).to_string(),
    ] {
        let (status, body) = post(&server, "/tools/call", bad.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(body["message"].is_string() && body["developer_message"].is_string(), "{body}");
    }
}

#[tokio::test]
async fn shutdown_frees_the_port() {
    let server = server().await;
    let url = format!("{}/health", server.url());
    assert!(client().get(&url).send().await.is_ok());
    server.shutdown().await;
    assert!(client().get(&url).send().await.is_err(), "nothing listens after shutdown");

    // A fixed port works too, and dropping the server stops it.
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let fixed = MockServer::start(load_samples(&LoadOptions::default()).catalog, port).await.unwrap();
    assert_eq!(fixed.url(), format!("http://127.0.0.1:{port}"));
    drop(fixed);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(client().get(format!("http://127.0.0.1:{port}/health")).send().await.is_err());
}
