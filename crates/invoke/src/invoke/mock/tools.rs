//! What each sample tool answers. Every tool always answers in the same shape, and between them
//! they cover every response kind a client has to recognise (the OTC 1.0 specification's):
//!
//! | tool | answer |
//! |---|---|
//! | `Math.Add@1.0.0` | OTC 1.0 success, `value` = a + b |
//! | `Demo.AlwaysFails@1.0.0` | OTC 1.0 failure, `message` + `developer_message`, `can_retry`, `retry_after_ms` |
//! | `Demo.SlowCount@1.0.0` | OTC 1.0 success `{"counted": seconds}` after `seconds` seconds |
//! | `Sms.SendText@1.1.0` | OTC 1.0 success (the demo server has the secret it needs) |
//! | `Slack.SendMessage@0.2.0` | no token: `400 missing_requirements`; with one: OTC 1.0 success |
//! | `Gmail.ListEmails@1.0.0` | no token: envelope `requires_authorization`; with one: envelope value |
//! | `Reports.ExportCsv@1.0.0` | envelope `artifact`, `text/csv`; `to` before `from`: envelope error |
//! | `servicedesk.errorRateChart` | envelope `artifact`, `application/json` |
//! | `maps.showMapAtAddressAndZoom` | envelope `artifact`, `image/png` |
//! | `cancel_calendar_event` | envelope error unless `event_id` starts with `evt_` |
//! | `convert_currency` | envelope value; an unknown currency code is an envelope error |
//! | `write_file` | envelope without `output`: the tool returned nothing |
//! | `sum` | envelope value, a bare number |
//! | everything else | envelope value derived from the input, or an echo of it |
//!
//! Any other tool with an authorization requirement answers like Gmail until a token is given.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Call, Reply, Shared, civil_from_days, days_from_civil, png};
use crate::catalog::Tool;

/// The tool whose missing authorization is reported in the OTC `400 missing_requirements` form;
/// the others use the earlier OTC draft's `requires_authorization` output, so a client sees both.
const OTC_AUTH_FORM: &str = "Slack.SendMessage@0.2.0";

pub(super) async fn answer(shared: &Shared, tool: &Tool, call: &Call) -> Reply {
    if let Some(prompt) = authorization_prompt(shared, tool, call) {
        return prompt;
    }
    let input = &call.input;
    match tool.id.as_str() {
        "Math.Add@1.0.0" => Reply::Value(add(&input["a"], &input["b"])),
        "Demo.AlwaysFails@1.0.0" => {
            let reason = input["reason"].as_str().unwrap_or("simulated failure");
            Reply::Failure {
                message: "The demo tool failed, as it always does. Try again in a moment.".into(),
                developer_message: format!("Demo.AlwaysFails never succeeds (reason given: {reason})"),
                can_retry: true,
                retry_after_ms: Some(2000),
            }
        }
        "Demo.SlowCount@1.0.0" => slow_count(input).await,
        "Sms.SendText@1.1.0" => {
            let body = input["body"].as_str().unwrap_or_default();
            let segments = body.chars().count().div_ceil(160).max(1);
            let mut random = Rng(hash(&input.to_string()));
            let sid = format!("SM{:016x}{:016x}", random.next(), random.next());
            Reply::Value(json!({"sid": sid, "status": "queued", "segments": segments}))
        }
        "Slack.SendMessage@0.2.0" => Reply::Value(slack_message(input)),
        "Gmail.ListEmails@1.0.0" => Reply::envelope_value(emails(input)),
        "Reports.ExportCsv@1.0.0" => export_csv(shared, call),
        "servicedesk.errorRateChart" => error_rate_chart(shared, call),
        "maps.showMapAtAddressAndZoom" => map_image(shared, call),
        "weather" | "get_weather" => Reply::envelope_value(weather(input)),
        "sum" => {
            let total = input["a"].as_f64().unwrap_or(0.0) + input["b"].as_f64().unwrap_or(0.0);
            let total = if input["round"].as_bool() == Some(true) { total.round() } else { total };
            Reply::envelope_value(number(total))
        }
        "convert_currency" => convert_currency(input),
        "create_calendar_event" => {
            let event_id = format!("evt_{:012x}", hash(&input.to_string()) >> 16);
            let mut event = json!({"event_id": event_id, "title": input["title"], "start": input["start"], "end": input["end"], "status": "confirmed"});
            if input["add_video_call"].as_bool() != Some(false) {
                event["video_call_url"] = json!(format!("https://meet.example.com/{event_id}"));
            }
            Reply::envelope_value(event)
        }
        "cancel_calendar_event" => {
            let event_id = input["event_id"].as_str().unwrap_or_default();
            if event_id.starts_with("evt_") {
                Reply::envelope_value(json!({"event_id": event_id, "cancelled": true, "attendees_notified": true}))
            } else {
                Reply::envelope_error(
                    format!("There is no event with the id \"{event_id}\"."),
                    "cancel_calendar_event: event ids from create_calendar_event start with \"evt_\"",
                )
            }
        }
        "write_file" => Reply::Envelope { success: true, output: None },
        "list_directory" => Reply::envelope_value(list_directory(input)),
        "git_log" => Reply::envelope_value(git_log(input)),
        _ => Reply::envelope_value(json!({
            "tool": tool.id,
            "received": input,
            "note": "demo answer from tooldeck's built-in server",
        })),
    }
}

/// The prompt for the first provider the call has no token for, if any.
fn authorization_prompt(shared: &Shared, tool: &Tool, call: &Call) -> Option<Reply> {
    let missing: Vec<_> = tool.requirements.authorization.iter().filter(|a| call.token(&a.id).is_none()).collect();
    let first = missing.first()?;
    if tool.id == OTC_AUTH_FORM {
        let requirements: Vec<Value> =
            missing.iter().map(|a| json!({"id": a.id, "url": shared.authorize_url(a)})).collect();
        let body = json!({
            "message": format!("{} needs your authorization with {}.", tool.name, first.id),
            "developer_message": format!("no token for provider \"{}\" in request.context.authorization; the demo accepts any non-empty token, e.g. \"demo-{}\"", first.id, first.id),
            "missing_requirements": {"authorization": requirements},
        });
        return Some(Reply::Raw(axum::http::StatusCode::BAD_REQUEST, body));
    }
    let mut oauth2 = json!({ "url": shared.authorize_url(first) });
    if !first.scopes.is_empty() {
        oauth2["scope"] = json!(first.scopes.join(" "));
    }
    let message =
        format!("{} needs your authorization with {} (demo: use the token demo-{}).", tool.name, first.id, first.id);
    Some(Reply::Envelope {
        success: false,
        output: Some(json!({"requires_authorization": {"message": message, "oauth2": oauth2}})),
    })
}

/// Integers stay integers when the sum fits; anything else is added as floating point.
fn add(a: &Value, b: &Value) -> Value {
    match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) if x.checked_add(y).is_some() => json!(x + y),
        _ => number(a.as_f64().unwrap_or(0.0) + b.as_f64().unwrap_or(0.0)),
    }
}

/// A whole float as an integer (`3` rather than `3.0`); a non-finite one as null.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9e15 {
        return json!(x as i64);
    }
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// Sleeps `seconds` one second at a time, so a cancelled call (the client hanging up) stops at
/// the next step. Progress has no standard form in OTC over HTTP, so none is sent here; it is the
/// MCP side (`notifications/progress`) that reports it.
async fn slow_count(input: &Value) -> Reply {
    let seconds = input["seconds"].as_u64().unwrap_or(5).clamp(1, 30);
    for _ in 0..seconds {
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Reply::Value(json!({ "counted": seconds }))
}

fn slack_message(input: &Value) -> Value {
    let channel = input["channel"].as_str().unwrap_or("general");
    let mut text = String::new();
    if input["priority"].as_str() == Some("urgent") {
        text.push_str(":rotating_light: <!channel> ");
    }
    for user in input["mentions"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        text.push_str(&format!("<@{user}> "));
    }
    text.push_str(input["message"].as_str().unwrap_or_default());
    let h = hash(&input.to_string());
    let ts = format!("{}.{:06}", 1_700_000_000 + h % 50_000_000, h % 1_000_000);
    json!({
        "ok": true,
        "channel": channel,
        "ts": ts,
        "message": {"text": text, "user": "U0DEMOUSER", "type": "message"},
        "permalink": format!("https://demo.slack.example/archives/{channel}/p{}", ts.replace('.', "")),
    })
}

fn emails(input: &Value) -> Value {
    const INBOX: [(&str, &str, &str, &str); 5] = [
        (
            "billing@example.com",
            "Your invoice INV-2025-0412 is ready",
            "Hi, your invoice for April is attached. Amount due: $48.00 by May 15.",
            "2025-05-02T08:14:00Z",
        ),
        (
            "maria.lopez@example.org",
            "Re: Q3 planning doc",
            "Thanks! I left comments on sections 2 and 4; can we go through them on Thursday?",
            "2025-05-01T17:42:10Z",
        ),
        (
            "noreply@github.com",
            "[tooldeck] CI passed on main",
            "All checks have passed for commit 3f9c2e1: build, test, clippy.",
            "2025-05-01T11:03:55Z",
        ),
        (
            "team@newsletter.example.net",
            "This week in Rust tooling",
            "Terminal UIs, async runtimes and a deep dive into JSON Schema validation.",
            "2025-04-30T06:00:00Z",
        ),
        (
            "dan@example.com",
            "Lunch on Friday?",
            "There is a new ramen place near the office, want to try it at 12:30?",
            "2025-04-29T13:27:31Z",
        ),
    ];
    let max = usize::try_from(input["max_results"].as_u64().unwrap_or(10)).unwrap_or(10);
    let emails: Vec<Value> = INBOX
        .iter()
        .take(max)
        .enumerate()
        .map(|(i, (from, subject, snippet, at))| {
            json!({"id": format!("18f{:05x}a{i}", 0x2c4e1 + i), "thread_id": format!("18f{:05x}00", 0x2c4e1 + i),
                "from": from, "subject": subject, "snippet": snippet, "received_at": at})
        })
        .collect();
    json!({"emails": emails, "next_page_token": Value::Null})
}

fn weather(input: &Value) -> Value {
    const CONDITIONS: [&str; 6] = ["sunny", "partly cloudy", "overcast", "light rain", "showers", "windy"];
    let place = input["city"].as_str().or_else(|| input["location"].as_str()).unwrap_or("Lisbon");
    let h = hash(&format!("{place}{}", input["year"]));
    let celsius = ((h % 400) as f64 - 50.0) / 10.0;
    let conditions = CONDITIONS[(h >> 20) as usize % CONDITIONS.len()];
    let mut value = json!({"city": place, "temperature_c": celsius, "conditions": conditions});
    if let Some(year) = input.get("year") {
        value["year"] = year.clone();
    }
    if let Some(unit) = input["unit"].as_str() {
        let shown = if unit == "fahrenheit" { (celsius * 9.0 / 5.0 + 32.0).round() } else { celsius };
        value["temperature"] = number(shown);
        value["unit"] = json!(unit);
    }
    value
}

fn convert_currency(input: &Value) -> Reply {
    // Units of each currency per US dollar; fixed so answers are reproducible.
    const PER_USD: [(&str, f64); 8] = [
        ("USD", 1.0),
        ("EUR", 0.92),
        ("GBP", 0.79),
        ("JPY", 151.2),
        ("CAD", 1.36),
        ("CHF", 0.9),
        ("AUD", 1.52),
        ("BRL", 5.05),
    ];
    let rate_of = |key: &str| {
        let code = input[key].as_str().unwrap_or_default();
        PER_USD.iter().find(|(c, _)| *c == code).map(|&(_, r)| r).ok_or(code)
    };
    match (rate_of("from"), rate_of("to")) {
        (Ok(from), Ok(to)) => {
            let amount = input["amount"].as_f64().unwrap_or(0.0);
            let rate = (to / from * 1e6).round() / 1e6;
            let converted = (amount * rate * 100.0).round() / 100.0;
            Reply::envelope_value(
                json!({"amount": input["amount"], "from": input["from"], "to": input["to"], "rate": rate, "converted": converted}),
            )
        }
        (Err(code), _) | (_, Err(code)) => Reply::envelope_error(
            format!("The currency \"{code}\" is not supported."),
            format!("convert_currency (demo) knows {}", PER_USD.map(|(c, _)| c).join(", ")),
        ),
    }
}

fn list_directory(input: &Value) -> Value {
    let mut entries = vec![
        json!({"name": "Cargo.toml", "kind": "file", "size": 1534}),
        json!({"name": "README.md", "kind": "file", "size": 4210}),
        json!({"name": "src", "kind": "directory", "size": 0}),
        json!({"name": "tests", "kind": "directory", "size": 0}),
        json!({"name": "target", "kind": "symlink", "size": 0}),
    ];
    if input["include_hidden"].as_bool() == Some(true) {
        entries.insert(0, json!({"name": ".gitignore", "kind": "file", "size": 8}));
        entries.insert(0, json!({"name": ".git", "kind": "directory", "size": 0}));
    }
    json!({"path": input["path"].as_str().unwrap_or("."), "entries": entries})
}

fn git_log(input: &Value) -> Value {
    const LOG: [(&str, &str, &str, u32); 4] = [
        ("Ada Lovelace", "ada@example.com", "Add the demo server", 6),
        ("Grace Hopper", "grace@example.com", "Validate input before sending", 3),
        ("Ada Lovelace", "ada@example.com", "Show artifacts with their size", 2),
        ("Linus Example", "linus@example.com", "Initial commit", 41),
    ];
    let max = usize::try_from(input["max_count"].as_u64().unwrap_or(20)).unwrap_or(20);
    let commits: Vec<Value> = LOG
        .iter()
        .enumerate()
        .filter(|(_, (author, email, ..))| {
            input["author"].as_str().is_none_or(|a| author.contains(a) || email.contains(a))
        })
        .take(max)
        .map(|(i, &(author, email, subject, files))| {
            let mut random = Rng(hash(subject));
            let sha = format!("{:016x}{:016x}{:08x}", random.next(), random.next(), random.next() >> 32);
            json!({"sha": sha, "author": author, "email": email,
                "date": format!("2025-04-{:02}T10:{:02}:00Z", 28 - i, 5 * i), "subject": subject, "files_changed": files})
        })
        .collect();
    json!({"branch": "main", "truncated": max < LOG.len(), "commits": commits})
}

/// A table of up to 20 rows for the report and date range asked for.
fn export_csv(shared: &Shared, call: &Call) -> Reply {
    let input = &call.input;
    let (Some(from), Some(to)) = (parse_date(&input["from"]), parse_date(&input["to"])) else {
        return Reply::envelope_error(
            "`from` and `to` must be dates (YYYY-MM-DD).",
            "Reports.ExportCsv: unparsable date",
        );
    };
    if to < from {
        return Reply::envelope_error(
            "The report range is empty: `to` is before `from`.",
            format!("Reports.ExportCsv: from={} to={}", input["from"], input["to"]),
        );
    }
    let report = input["report"].as_str().unwrap_or("sales_by_day");
    let mut random = Rng(hash(&input.to_string()));
    let mut csv = String::new();
    let header = input["include_header"].as_bool() != Some(false);
    let rows = usize::try_from((to - from + 1).min(20)).unwrap_or(20);
    let date = |i: usize| date_string(from + i64::try_from(i).unwrap_or_default());
    match report {
        "signups_by_country" => {
            const COUNTRIES: [&str; 20] = [
                "US", "DE", "GB", "FR", "BR", "IN", "JP", "CA", "ES", "IT", "NL", "SE", "PL", "MX", "AU", "KR", "PT",
                "AR", "NG", "ZA",
            ];
            if header {
                csv.push_str("country,signups,paid_conversions\n");
            }
            for country in COUNTRIES {
                let signups = 20 + random.below(2000);
                csv.push_str(&format!("{country},{signups},{}\n", random.below(signups / 10 + 1)));
            }
        }
        "refunds" => {
            const REASONS: [&str; 4] = ["damaged in transit", "wrong size", "duplicate order", "changed mind"];
            if header {
                csv.push_str("date,order_id,amount_usd,reason\n");
            }
            for i in 0..rows {
                let cents = 500 + random.below(25_000);
                let reason = REASONS[usize::try_from(random.below(4)).unwrap_or_default()];
                csv.push_str(&format!(
                    "{},A-{},{}.{:02},\"{reason}\"\n",
                    date(i),
                    10_000 + random.below(90_000),
                    cents / 100,
                    cents % 100
                ));
            }
        }
        _ => {
            if header {
                csv.push_str("date,orders,revenue_usd\n");
            }
            for i in 0..rows {
                let orders = 40 + random.below(160);
                let cents = orders * (2_000 + random.below(3_000));
                csv.push_str(&format!("{},{orders},{}.{:02}\n", date(i), cents / 100, cents % 100));
            }
        }
    }
    let description = format!("{} report, {} to {}", report.replace('_', " "), date(0), date_string(to));
    artifact(shared, call, "csv", "text/csv", csv.into_bytes(), description)
}

fn error_rate_chart(shared: &Shared, call: &Call) -> Reply {
    let input = &call.input;
    let service = input["service"].as_str().unwrap_or("api");
    let hours = input["hours"].as_u64().unwrap_or(24).clamp(1, 168);
    let percent = input["percent"].as_bool() == Some(true);
    let mut random = Rng(hash(&input.to_string()));
    let points: Vec<Value> = (0..hours)
        .rev()
        .map(|ago| {
            let raw = random.below(400);
            let value = if percent { number(raw as f64 / 100.0) } else { json!(raw / 10) };
            json!({ "hours_ago": ago, "value": value })
        })
        .collect();
    let unit = if percent { "percent of requests" } else { "5xx responses per minute" };
    let chart = json!({"service": service, "hours": hours, "unit": unit, "points": points});
    let bytes = serde_json::to_vec_pretty(&chart).unwrap_or_default();
    let description = format!("Error rate of {service} over the last {hours} hours ({unit}), one point per hour");
    artifact(shared, call, "json", "application/json", bytes, description)
}

/// A 64×64 "map": a background colour picked by the address, a pin in the middle sized by zoom.
fn map_image(shared: &Shared, call: &Call) -> Reply {
    const SIZE: u32 = 64;
    let address = call.input["address"].as_str().unwrap_or("Lisbon");
    let zoom = u32::try_from(call.input["zoom"].as_u64().unwrap_or(12).min(19)).unwrap_or(12);
    let h = hash(address).to_le_bytes();
    // Light, muted land colours so the dark pin stands out.
    let land = [160 + h[0] % 80, 170 + h[1] % 70, 140 + h[2] % 80];
    let pin = 2 + zoom / 2;
    let centre = SIZE / 2;
    let bytes = png::encode_rgb(SIZE, SIZE, |x, y| {
        if x.abs_diff(centre) <= pin && y.abs_diff(centre) <= pin { [200, 40, 40] } else { land }
    });
    let description = format!("Map of {address} at zoom {zoom} ({SIZE}×{SIZE} demo image)");
    artifact(shared, call, "png", "image/png", bytes, description)
}

/// Stores the bytes and answers with the earlier OTC draft's `artifact` output pointing at them.
fn artifact(
    shared: &Shared,
    call: &Call,
    extension: &str,
    content_type: &'static str,
    bytes: Vec<u8>,
    description: String,
) -> Reply {
    let (url, size) = shared.store(&call.call_id, extension, content_type, bytes);
    let artifact =
        json!({"url": url, "content_type": content_type, "size": size, "meta": {"description": description}});
    Reply::Envelope { success: true, output: Some(json!({ "artifact": artifact })) }
}

/// `YYYY-MM-DD` → days since 1970-01-01.
fn parse_date(value: &Value) -> Option<i64> {
    let mut parts = value.as_str()?.splitn(3, '-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: u32 = parts.next()?.parse().ok()?;
    let day: u32 = parts.next()?.parse().ok()?;
    days_from_civil(year, month, day)
}

/// Days since 1970-01-01 → `YYYY-MM-DD` (past the calendar's years, the day count).
fn date_string(days: i64) -> String {
    civil_from_days(days).map_or_else(|| days.to_string(), |(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
}

/// FNV-1a: a stable hash (unlike `std`'s, which is seeded per process) so answers repeat.
fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// SplitMix64: numbers that look random but repeat for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// In `0..bound` (the slight modulo bias does not matter for demo data).
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound.max(1)
    }
}
