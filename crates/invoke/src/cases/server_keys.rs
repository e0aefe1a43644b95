//! The server a saved case goes to, as a case file's top-level keys (`endpoint` with
//! `call_path`, `mcp`, or `mcp_url`; `headers`; `timeout`), so `tooldeck test` on the file
//! calls the same server. A header value is written as the `${ENV}` placeholder it came from,
//! never as a secret: a secret that came from nowhere in the environment is left out, and said.
//! A secret in the server's URL (its password, an `api_key=` query value) or command (a
//! `--api-key` option's value) is written as the variable that holds it, else as a `${VAR}`
//! named for it that the person is told to set.

use serde_json::{Map, Value, json};

use crate::invoke::endpoint::EndpointOptions;

/// What a case file needs to reach the server, and the headers left out (by name).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaseServer {
    pub keys: Map<String, Value>,
    pub left_out: Vec<String>,
    /// Variables the file now names for secrets that came from nowhere in the environment.
    pub to_set: Vec<String>,
}

/// The case-file keys for `options` (resolved: a named endpoint is its URL by now); `env` is
/// the environment, to find where a header's literal value came from.
pub fn case_server(options: &EndpointOptions, env: &[(String, String)]) -> CaseServer {
    let mut server = CaseServer::default();
    let mut to_set = Vec::new();
    let mut replace = |name: &str, value: &str| secret_placeholder(name, value, env, &mut to_set);
    let keys = &mut server.keys;
    if let Some(command) = &options.mcp {
        keys.insert("mcp".into(), json!(crate::redact::command_with(command, &mut replace)));
    } else if let Some(url) = &options.mcp_url {
        keys.insert("mcp_url".into(), json!(crate::redact::url_with(url, &mut replace)));
    } else if let Some(url) = &options.endpoint {
        keys.insert("endpoint".into(), json!(crate::redact::url_with(url, &mut replace)));
        if let Some(path) = &options.call_path {
            keys.insert("call_path".into(), json!(path));
        }
    } else {
        // The built-in demo server: `tooldeck test` starts it for a file that names none.
        return server;
    }
    let mut headers = Map::new();
    for line in &options.headers {
        let Some((name, value)) = line.split_once(':') else { continue };
        let (name, value) = (name.trim(), value.trim());
        match placeholder(value, env) {
            Some(text) => {
                headers.insert(name.to_string(), json!(text));
            }
            None if crate::redact::is_secret_name(name)
                || options.secret_headers.iter().any(|s| s.eq_ignore_ascii_case(name)) =>
            {
                server.left_out.push(name.to_string());
            }
            None => {
                headers.insert(name.to_string(), json!(value));
            }
        }
    }
    if !headers.is_empty() {
        keys.insert("headers".into(), Value::Object(headers));
    }
    if let Some(timeout) = options.timeout {
        keys.insert("timeout".into(), json!(timeout));
    }
    server.to_set = to_set;
    server
}

/// A secret of the server's URL or command as a case file writes it: `${VAR}` for the variable
/// that holds it, else for one named after where it was (`TOOLDECK_API_KEY`), noted in `to_set`.
fn secret_placeholder(name: &str, value: &str, env: &[(String, String)], to_set: &mut Vec<String>) -> String {
    if value.starts_with("${") && value.ends_with('}') {
        return value.to_string();
    }
    let held = env.iter().filter(|(var, v)| !var.is_empty() && !v.is_empty() && v == value).map(|(var, _)| var).min();
    let var = match held {
        Some(var) => var.clone(),
        None => {
            let stem: String = name
                .trim_start_matches('-')
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' })
                .collect();
            let var = format!("TOOLDECK_{stem}");
            if !to_set.contains(&var) {
                to_set.push(var.clone());
            }
            var
        }
    };
    format!("${{{var}}}")
}

/// `value` as it may be written: already a `${VAR}` placeholder, or a variable's value (whole,
/// or after a scheme word like `Bearer `) written as that variable. `None`: it came from
/// nowhere in the environment. Short values ("1", "blue") are taken as typed, not looked up.
fn placeholder(value: &str, env: &[(String, String)]) -> Option<String> {
    if value.contains("${") {
        return Some(value.to_string());
    }
    let named = |text: &str| {
        env.iter().filter(|(name, v)| v.len() >= 6 && v == text && !name.is_empty()).map(|(name, _)| name.clone()).min()
    };
    if let Some(name) = named(value) {
        return Some(format!("${{{name}}}"));
    }
    let (scheme, rest) = value.split_once(' ')?;
    named(rest.trim()).map(|name| format!("{scheme} ${{{name}}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(f: impl FnOnce(&mut EndpointOptions)) -> EndpointOptions {
        let mut options = EndpointOptions::default();
        f(&mut options);
        options
    }

    #[test]
    fn each_kind_of_server_is_written_as_the_case_file_names_it() {
        let mcp = case_server(&options(|o| o.mcp = Some("node s.js".into())), &[]);
        assert_eq!(Value::Object(mcp.keys), json!({"mcp": "node s.js"}));
        let otc = options(|o| {
            o.endpoint = Some("http://h:1".into());
            o.call_path = Some("/execute".into());
        });
        assert_eq!(
            Value::Object(case_server(&otc, &[]).keys),
            json!({"endpoint": "http://h:1", "call_path": "/execute"})
        );
        assert!(case_server(&EndpointOptions::default(), &[]).keys.is_empty(), "the demo server");
    }

    #[test]
    fn headers_are_placeholders_never_tokens() {
        let env = [("API_TOKEN".to_string(), "s3cret".to_string()), ("TEAM".to_string(), "blue".to_string())];
        let given = options(|o| {
            o.mcp_url = Some("http://h/mcp".into());
            o.headers = vec![
                "Authorization: Bearer s3cret".into(),
                "X-Team: blue".into(),
                "X-Kept: ${KEPT}".into(),
                "X-Api-Key: literal-key".into(),
                "Accept: text/plain".into(),
            ];
        });
        let server = case_server(&given, &env);
        assert_eq!(
            server.keys["headers"],
            json!({"Authorization": "Bearer ${API_TOKEN}", "X-Team": "blue", "X-Kept": "${KEPT}", "Accept": "text/plain"})
        );
        assert_eq!(server.left_out, ["X-Api-Key"]);
        assert!(!Value::Object(server.keys).to_string().contains("s3cret"));
    }

    #[test]
    fn secrets_in_urls_and_commands_are_placeholders() {
        let env = [("MCP_PASSWORD".to_string(), "PW".to_string())];
        let url = case_server(&options(|o| o.endpoint = Some("http://user:PW@h:1/x?api_key=K3Y&q=1".into())), &env);
        assert_eq!(url.keys["endpoint"], json!("http://user:${MCP_PASSWORD}@h:1/x?api_key=${TOOLDECK_API_KEY}&q=1"));
        assert_eq!(url.to_set, ["TOOLDECK_API_KEY"]);
        let mcp_url = case_server(&options(|o| o.mcp_url = Some("http://h/mcp?token=T0K".into())), &[]);
        assert_eq!(mcp_url.keys["mcp_url"], json!("http://h/mcp?token=${TOOLDECK_TOKEN}"));
        let command = "node s.js --api-key=S3CR3T --password 'A B' --port 1";
        let mcp = case_server(&options(|o| o.mcp = Some(command.into())), &[]);
        let written = mcp.keys["mcp"].as_str().expect("a command");
        assert_eq!(written, r#"node s.js "--api-key=${TOOLDECK_API_KEY}" --password "${TOOLDECK_PASSWORD}" --port 1"#);
        assert_eq!(mcp.to_set, ["TOOLDECK_API_KEY", "TOOLDECK_PASSWORD"]);
        // The command reads back whole once the variables are set.
        let expanded = written.replace("${TOOLDECK_API_KEY}", "S3CR3T").replace("${TOOLDECK_PASSWORD}", "A B");
        assert_eq!(
            shlex::split(&expanded).expect("words"),
            ["node", "s.js", "--api-key=S3CR3T", "--password", "A B", "--port", "1"]
        );
    }
}
