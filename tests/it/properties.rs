//! Property tests (proptest): the parsers and mappings that read outside input never panic and
//! keep their promises on generated input. Each property runs 256 cases unless it says fewer;
//! `PROPTEST_CASES=N` changes that. Failures are not persisted to files: a failing case found
//! here becomes a plain unit test beside the code it is about.

#[path = "properties/cases.rs"]
mod cases;
#[path = "properties/definitions.rs"]
mod definitions;
#[path = "properties/envelope.rs"]
mod envelope;
#[path = "properties/form.rs"]
mod form;
#[path = "properties/json5.rs"]
mod json5;
#[path = "properties/strategies.rs"]
mod strategies;

use proptest::test_runner::Config as ProptestConfig;

/// `cases` per property unless `PROPTEST_CASES` says otherwise; no failure files written.
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(cases);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}
