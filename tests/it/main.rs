//! The integration tests, in one binary: linking tokio, reqwest, rmcp and axum once rather than
//! once per topic. One module per topic; `support/` is what several of them share.

mod architecture;
mod asks_screens;
mod call_cli;
mod cases;
mod cli;
mod diff;
mod form;
mod formats;
mod hostile;
mod lint;
mod mcp;
mod mock_server;
mod properties;
mod pty;
mod reading;
mod screens;
mod server_pane;
mod trust;
mod diff_meaning;
mod fuzz;
mod key_names;
mod keys_pty;
mod lint_providers;
mod oauth;
mod resources_prompts;
mod servers;
mod servers_screens;
mod trust_round2;
