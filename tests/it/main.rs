//! The integration tests, in one binary: linking tokio, reqwest, rmcp and axum once rather than
//! once per topic. One module per topic; `support/` is what several of them share.

// Topics that once were binaries of their own still name their shared helpers by path.
#![allow(clippy::duplicate_mod)]

mod apps;
mod apps_tui;
mod architecture;
mod asks_screens;
mod attach;
mod attach_breakpoints;
mod call_cli;
mod cases;
mod cli;
mod diff;
mod diff_meaning;
mod errors_said;
mod eval_app;
mod eval_screens;
mod evals;
mod faces_app;
mod first_hour_pty;
mod form;
mod formats;
mod fuzz;
mod fuzz_patterns;
mod fuzz_precision;
mod fuzz_screens;
mod hostile;
mod key_names;
mod keys_pty;
mod keys_pty_panes;
mod lint;
mod lint_providers;
mod mcp;
mod mock_server;
mod oauth;
mod oauth_bad;
mod properties;
mod proxy;
mod proxy_breakpoints;
mod proxy_faults;
mod pty;
mod reading;
mod resources_prompts;
mod screens;
mod secret_names;
mod server_pane;
mod server_reading;
mod servers;
mod servers_screens;
mod tall_items;
mod trust;
mod trust_round2;
mod trust_round3_auth;
mod trust_round3_linear;
mod trust_round3_output;
mod trust_round3_wire;
mod watch;
mod watch_app;
