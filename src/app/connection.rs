//! The server calls go to: its label for the screen, the tokens the user gave it (memory only),
//! and whether its tools are still being listed (the app draws before the server answers).

use std::collections::{BTreeMap, BTreeSet};

use super::{Effect, Popup, Reply, ServerEffect};
use crate::form::TextInput;
use crate::invoke::mcp::http::MCP_PROVIDER;

/// Where calls go, the tokens given for it, whether its tools are being listed.
/// Its fields are private: read through getters, changed only through its methods.
#[derive(Debug)]
pub struct ServerState {
    /// Where calls go, for the status line ("demo server", "http://...").
    endpoint: String,
    /// Tokens the user gave, by provider, kept in memory only.
    tokens: BTreeMap<String, String>,
    /// Tools that asked for a provider's token without declaring it (the server's prompt said
    /// so): they receive it too.
    asked_by: BTreeMap<String, BTreeSet<String>>,
    /// The server was asked for its tools and has not answered yet (`listing()`).
    listing: bool,
    /// The server was restarted and its tools are being listed again: the listing's status
    /// line says both.
    reconnected: bool,
    /// Whether the server lists its own tools (MCP), once the runtime has said where calls go:
    /// an Open Tool Calling server (the demo server among them) is called with the tools of the
    /// files, and keeps no session to restart.
    lists_tools: Option<bool>,
}

impl Default for ServerState {
    fn default() -> ServerState {
        ServerState {
            endpoint: String::from("demo server"),
            tokens: BTreeMap::new(),
            asked_by: BTreeMap::new(),
            listing: false,
            reconnected: false,
            lists_tools: None,
        }
    }
}

impl ServerState {
    /// Where calls go, for the status line ("demo server", "http://...").
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Where calls go, known before the first frame; a named server is then asked for its
    /// tools.
    pub fn named(&mut self, label: String, lists_tools: bool) -> Reply {
        self.listing = lists_tools;
        self.lists_tools = Some(lists_tools);
        let reply = if lists_tools {
            Reply::effect(Effect::Server(ServerEffect::ListTools))
                .with_status(format!("connecting to {label} and listing its tools…"))
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
            why: Some(format!(
                "{url} wants authorization (HTTP 401{asks}). Type its bearer token, or leave it empty to sign in (OAuth, in the browser):"
            )),
        }
    }

    /// The server is known not to list its own tools: it keeps no session to restart (the demo
    /// server), or no server was named at all (a record opened alone).
    pub fn keeps_no_session(&self) -> bool {
        self.lists_tools == Some(false)
    }

    /// The server was asked for its tools and has not answered yet.
    pub fn listing(&self) -> bool {
        self.listing
    }

    /// The server is asked for its tools (again).
    pub fn start_listing(&mut self) {
        self.listing = true;
    }

    /// The server was started again: its tools are listed again, and the listing's status
    /// line says it was reconnected.
    pub fn reconnected(&mut self) {
        self.reconnected = true;
    }

    /// Whether the listing being answered follows a reconnection; asked once.
    pub fn take_reconnected(&mut self) -> bool {
        std::mem::take(&mut self.reconnected)
    }

    /// The listing was answered (with tools, or why there are none).
    pub fn listed(&mut self) {
        self.listing = false;
    }

    /// Keeps a token for `provider`, given when `tool` asked for it; the server's own (MCP over
    /// HTTP) goes to it too, and its tools are listed again: it may have some to show only now.
    pub fn give_token(&mut self, provider: String, token: String, tool: Option<String>) -> Reply {
        if let Some(tool) = tool {
            self.asked_by.entry(provider.clone()).or_default().insert(tool);
        }
        let mut reply = Reply::default();
        if provider == MCP_PROVIDER {
            reply = Reply::effect(Effect::Server(ServerEffect::Authorize {
                provider: provider.clone(),
                token: token.clone(),
            }))
            .with_status("token given to the server; listing its tools again");
            self.listing = true;
        }
        self.tokens.insert(provider, token);
        reply
    }

    /// The tokens a call of `tool` carries: for the providers it declares, or that the server
    /// asked it for (one rule with `tooldeck call` and `test`: `invoke::endpoint::tokens_for`).
    pub fn tokens_for(&self, tool: Option<&crate::catalog::Tool>) -> Vec<(String, String)> {
        let all: Vec<(String, String)> = self.tokens.iter().map(|(p, t)| (p.clone(), t.clone())).collect();
        let declared = crate::invoke::endpoint::tokens_for(tool, &all);
        let asked = |provider: &str| {
            tool.is_some_and(|tool| self.asked_by.get(provider).is_some_and(|tools| tools.contains(&tool.id)))
        };
        all.into_iter().filter(|token| declared.contains(token) || asked(&token.0)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_goes_only_to_tools_that_declare_or_asked_for_its_provider() {
        let samples = crate::catalog::load_samples(&Default::default()).catalog;
        let gmail = samples.get("Gmail.ListEmails@1.0.0").expect("a sample that needs google");
        let add = samples.get("Math.Add@1.0.0").expect("a sample that needs nothing");
        let mut server = ServerState::default();
        let _ = server.give_token("google".into(), "T".into(), Some(gmail.id.clone()));
        assert_eq!(server.tokens_for(Some(gmail)), [("google".to_string(), "T".to_string())]);
        assert!(server.tokens_for(Some(add)).is_empty(), "Math.Add declares no google requirement");
        // A server may ask for a provider the tool never declared: that tool gets it, no other.
        let _ = server.give_token("ad-hoc".into(), "A".into(), Some(add.id.clone()));
        assert_eq!(server.tokens_for(Some(add)), [("ad-hoc".to_string(), "A".to_string())]);
        assert_eq!(server.tokens_for(Some(gmail)), [("google".to_string(), "T".to_string())]);
    }
}
