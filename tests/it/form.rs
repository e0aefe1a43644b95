//! The form core through its public API: every JSON Schema construct builds a widget, every
//! instance valid under a schema goes form → JSON unchanged, edits do what the keys promise,
//! validation errors land on their own fields, and the tile line reads as gloodata shows it.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use tooldeck::catalog::{
    Format, LoadOptions, Source, Syntax, Tool, ToolUi, Widget as Cue, load_paths, load_samples, load_text,
};
use tooldeck::form::{Field, Form, Widget};

/// A tool with exactly this input schema (no catalog normalisation) and no UI cues.
fn tool(schema: Value) -> Tool {
    Tool {
        id: "test".into(),
        name: "test".into(),
        title: None,
        description: None,
        format: Format::JsonSchema,
        source: Source::file("<test>", 1),
        input_schema: schema,
        output_schema: None,
        ui: ToolUi::default(),
        examples: Vec::new(),
        requirements: Default::default(),
        annotations: None,
        task_support: None,
        written: Default::default(),
    }
}

/// The one tool a document defines, loaded as the app loads it (JSON5 by the label's extension).
fn load_one(label: &str, text: &str) -> Tool {
    let syntax = if label.ends_with(".json5") { Syntax::Json5 } else { Syntax::Json };
    let (mut tools, diagnostics) = load_text(label, text, &LoadOptions { syntax, ..LoadOptions::default() });
    assert!(diagnostics.iter().all(|d| d.severity != tooldeck::catalog::Severity::Error), "{diagnostics:#?}");
    assert_eq!(tools.len(), 1, "{label}");
    tools.remove(0)
}

/// An OpenAI function tool with this parameters schema, through the catalog.
fn openai(parameters: Value) -> Tool {
    let text = json!([{"type": "function", "function": {"name": "f", "parameters": parameters}}]).to_string();
    load_one("f.tools.json", &text)
}

fn sample(id: &str) -> Tool {
    let loaded = load_samples(&LoadOptions::default());
    loaded.catalog.find(id).unwrap_or_else(|| panic!("no sample tool {id}")).clone()
}

fn is_valid(schema: &Value, instance: &Value) -> bool {
    jsonschema::options().should_validate_formats(true).build(schema).expect("schema compiles").is_valid(instance)
}

/// Every instance must be valid under the schema, and must come back out of the form unchanged
/// and without a single error, twice over (the second time from a form that already held one).
#[track_caller]
fn round_trips(tool: &Tool, instances: &[Value]) {
    let mut form = Form::new(tool);
    for instance in instances {
        assert!(is_valid(&tool.input_schema, instance), "test instance is not valid: {instance}");
        form.set_arguments(instance);
        assert_eq!(form.arguments(), instance, "round trip of {instance}");
        assert_eq!(form.validation.error_count, 0, "{instance}: {:#?}", form.validation.errors);
        let mut fresh = Form::new(tool);
        fresh.set_arguments(instance);
        assert_eq!(fresh.arguments(), instance, "round trip of {instance} in a fresh form");
    }
}

/// The path of the row whose JSON pointer is `pointer` (the deepest when a variant shares it).
#[track_caller]
fn path(form: &Form, pointer: &str) -> Vec<usize> {
    let index = form.row_index()[pointer];
    form.rows()[index].path.clone()
}

#[track_caller]
fn field<'a>(form: &'a Form, pointer: &str) -> &'a Field {
    form.field(&path(form, pointer)).expect("the row's field")
}

/// The row path of the variant picker at `pointer` (its inner field shares the pointer).
#[track_caller]
fn variant_path(form: &Form, pointer: &str) -> Vec<usize> {
    form.rows()
        .into_iter()
        .find(|r| r.pointer == pointer && matches!(form.field(&r.path).unwrap().widget, Widget::Variant { .. }))
        .unwrap_or_else(|| panic!("no variant at {pointer}"))
        .path
}

fn type_text(form: &mut Form, pointer: &str, text: &str) {
    let at = path(form, pointer);
    assert!(form.edit_text(&at, |input, _| {
        input.clear();
        input.insert_str(text, true);
    }));
}

fn is_raw(field: &Field) -> bool {
    matches!(field.widget, Widget::Raw { .. })
}

/// Depth-first search for a raw JSON field anywhere below `field`.
fn any_raw(field: &Field) -> bool {
    is_raw(field) || field.children().into_iter().any(any_raw)
}

#[path = "support/corpus.rs"]
mod corpus_dir;
#[path = "form/editing.rs"]
mod editing;
#[path = "form/round_trip.rs"]
mod round_trip;
#[path = "form/validation.rs"]
mod validation;
#[path = "form/widgets.rs"]
mod widgets;
