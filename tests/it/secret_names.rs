//! The redaction rule over every parameter name of the real-world corpus: the names it calls
//! secret are the list in `secret_names.txt`, reviewed by hand. A change to the rule that masks
//! a new name (or stops masking one) shows here as a difference to review, not as a surprise in
//! someone's record. Skipped where there is no corpus (support/corpus.rs).

use std::collections::BTreeSet;

use serde_json::Value;
use tooldeck::catalog::{LoadOptions, load_paths};

#[path = "support/corpus.rs"]
mod corpus_dir;

/// The reviewed list: one name a line, `#` comments.
const REVIEWED: &str = include_str!("secret_names.txt");

/// Every property name at any depth of `schema` (properties, items, combinators, definitions).
fn property_names(schema: &Value, names: &mut BTreeSet<String>) {
    let Value::Object(map) = schema else {
        if let Value::Array(items) = schema {
            items.iter().for_each(|item| property_names(item, names));
        }
        return;
    };
    for (key, child) in map {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                if let Value::Object(properties) = child {
                    for (name, schema) in properties {
                        if key == "properties" {
                            names.insert(name.clone());
                        }
                        property_names(schema, names);
                    }
                }
            }
            "items" | "additionalProperties" | "anyOf" | "oneOf" | "allOf" | "not" | "prefixItems" => {
                property_names(child, names);
            }
            _ => {}
        }
    }
}

#[test]
fn the_corpus_secret_parameter_names_are_the_reviewed_ones() {
    let Some(root) = corpus_dir::find() else { return };
    let loaded = load_paths(&[root], &LoadOptions::default());
    let mut names = BTreeSet::new();
    for tool in loaded.catalog.tools() {
        property_names(&tool.input_schema, &mut names);
    }
    assert!(names.len() > 500, "the corpus holds hundreds of parameter names, found {}", names.len());
    let secret: BTreeSet<String> = names.iter().filter(|n| tooldeck::redact::is_secret_name(n)).cloned().collect();
    let reviewed: BTreeSet<String> = REVIEWED
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect();
    let new: Vec<&String> = secret.difference(&reviewed).collect();
    let gone: Vec<&String> = reviewed.difference(&secret).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "the rule now calls secret (review, then add to secret_names.txt): {new:?}\nno longer secret: {gone:?}"
    );
}
