//! `tooldeck eval`: does a model pick a server's tools and fill them right? Each case's prompt
//! goes to a model that sees the server's tools; its calls run on the real server until it
//! answers in text, and are judged by the tools' schemas (`call_match`). Scores over iterations,
//! cassettes that replay a run with no model and no key, and `compare`, which ties a drop in
//! score to the definition change behind it. The model client lives here, apart from the other
//! rooms: evals → invoke → core.

// The lower crates' modules under their usual names.
pub use tooldeck_invoke::{cases, catalog, diff, files, form, invoke, json_out, redact, sync, text, wire};

pub mod agent;
pub mod cassette;
pub mod compare;
pub mod file;
pub mod from_record;
pub mod provider;
pub mod report;
pub mod run;
pub mod score;
