//! The server calls go to: its label for the screen, the tokens the user gave it (memory only),
//! and whether its tools are still being listed (the app draws before the server answers).

use std::collections::BTreeMap;

use super::{Effect, Popup, Reply};
use crate::form::TextInput;
use crate::invoke::mcp_http::MCP_PROVIDER;

#[derive(Debug)]
pub struct Server {
    /// Where calls go, for the status line ("demo server", "http://...").
    pub endpoint: String,
    /// Tokens the user gave, by provider, kept in memory only.
    tokens: BTreeMap<String, String>,
    /// The server was asked for its tools and has not answered yet.
    pub listing: bool,
}

impl Default for Server {
    fn default() -> Server {
        Server { endpoint: String::from("demo server"), tokens: BTreeMap::new(), listing: false }
    }
}

impl Server {
    /// Where calls go, known before the first frame; a named server is then asked for its
    /// tools.
    pub fn named(&mut self, label: String, lists_tools: bool) -> Reply {
        self.listing = lists_tools;
        let reply = if lists_tools {
            Reply::effect(Effect::ListServerTools).with_status(format!("connecting to {label} and listing its tools…"))
        } else {
            Reply::default()
        };
        self.endpoint = label;
        reply
    }

    /// The listing was answered with 401: ask for the server's token straight away.
    pub fn wants_token(&mut self, url: &str, challenge: Option<&str>) -> Popup {
        self.listing = false;
        let asks = challenge.map(|c| format!(", WWW-Authenticate: {c}")).unwrap_or_default();
        Popup::TokenPrompt {
            provider: MCP_PROVIDER.to_string(),
            input: TextInput::default(),
            why: Some(format!("{url} wants authorization (HTTP 401{asks}). Type its bearer token:")),
        }
    }

    /// The listing was answered (with tools, or why there are none).
    pub fn listed(&mut self) {
        self.listing = false;
    }

    /// Keeps a token for `provider`; the server's own (MCP over HTTP) goes to it too, and its
    /// tools are listed again: it may have some to show only now.
    pub fn give_token(&mut self, provider: String, token: String) -> Reply {
        let mut reply = Reply::default();
        if provider == MCP_PROVIDER {
            reply = Reply::effect(Effect::Authorize { provider: provider.clone(), token: token.clone() })
                .with_status("token given to the server; listing its tools again");
            self.listing = true;
        }
        self.tokens.insert(provider, token);
        reply
    }

    /// The tokens a call carries.
    pub fn tokens(&self) -> Vec<(String, String)> {
        self.tokens.iter().map(|(p, t)| (p.clone(), t.clone())).collect()
    }
}
