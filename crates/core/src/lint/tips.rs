//! PIE's tool-parameter tips for writing tools a model can use: required parameters first, sensible
//! defaults, clear enums, complete descriptions, flat when possible.

use serde_json::{Map, Value};

use super::text::{informative_words, mentions, name_words, says_what_absence_means, text_of, words};
use super::walk::{Visit, is_object, types, walk};
use super::{Part, Sink};
use crate::catalog::schema::escape_pointer;

pub fn check(sink: &mut Sink) {
    let tool = sink.tool;
    tool_description(sink);
    let mut deep: Vec<String> = Vec::new();
    walk(&tool.input_schema, &mut |visit| {
        if visit.in_definitions {
            return;
        }
        if is_object(visit.schema) && !visit.branch {
            required_first(sink, visit);
        }
        if let Some(property) = visit.property.filter(|_| !visit.branch) {
            parameter_description(sink, visit, property.name);
            if !property.required {
                optional_absence(sink, visit, property.name);
            }
        }
        opaque_enum(sink, visit);
        if is_object(visit.schema)
            && visit.objects_above == 3
            && !deep.iter().any(|d| visit.pointer.starts_with(d.as_str()))
        {
            deep.push(visit.pointer.to_string());
        }
    });
    if let Some(first) = deep.first() {
        let more = match deep.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        sink.push(
            "tips/deep-nesting",
            Part::Input,
            first,
            format!(
                "an object nested three objects deep at {}{more}: nested objects are harder for a model to fill",
                shown_pointer(first)
            ),
            "flatten it: lift its fields into the object above, or into top-level parameters".into(),
        );
    }
}

/// `/properties/a/properties/b` → `a.b`, for messages.
pub fn shown_pointer(pointer: &str) -> String {
    let mut shown = String::new();
    let mut segments = pointer.split('/').skip(1).peekable();
    while let Some(segment) = segments.next() {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        match segment.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                if let Some(name) = segments.next() {
                    if !shown.is_empty() {
                        shown.push('.');
                    }
                    shown.push_str(&name.replace("~1", "/").replace("~0", "~"));
                }
            }
            "items" => shown.push_str("[]"),
            _ => {
                if !shown.is_empty() {
                    shown.push('.');
                }
                shown.push_str(&segment);
            }
        }
    }
    if shown.is_empty() { "the top level".into() } else { format!("\"{shown}\"") }
}

fn tool_description(sink: &mut Sink) {
    let tool = sink.tool;
    let Some(description) = tool.description.as_deref().filter(|d| !d.trim().is_empty()) else {
        sink.push(
            "tips/missing-description",
            Part::Tool,
            "",
            format!("tool \"{}\" has no description: a model chooses tools by their descriptions", tool.name),
            "add a description saying what the tool does, when to use it and what it returns".into(),
        );
        return;
    };
    let count = words(description).len();
    if count < 3 || informative_words(description, &tool.name) == 0 {
        sink.push(
            "tips/short-description",
            Part::Description,
            "",
            format!(
                "tool \"{}\" is described as \"{}\", which barely says more than its name",
                tool.name,
                clip(description)
            ),
            "say what the tool does, when to use it and what it returns, in a sentence or two".into(),
        );
    }
}

fn required_first(sink: &mut Sink, visit: &Visit) {
    let Some(Value::Object(properties)) = visit.schema.get("properties") else { return };
    let required: Vec<&str> = match visit.schema.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => return,
    };
    let mut first_optional = None;
    for name in properties.keys() {
        let is_required = required.contains(&name.as_str());
        match (is_required, first_optional) {
            (false, None) => first_optional = Some(name),
            (true, Some(optional)) => {
                let pointer = format!("{}/properties/{}", visit.pointer, escape_pointer(name));
                let place =
                    if visit.is_root() { String::new() } else { format!(" in {}", shown_pointer(visit.pointer)) };
                sink.push(
                    "tips/required-after-optional",
                    Part::Input,
                    &pointer,
                    format!("required parameter \"{name}\" comes after optional \"{optional}\"{place}"),
                    format!("list the required parameters (\"{name}\" first among them) before the optional ones"),
                );
                return;
            }
            _ => {}
        }
    }
}

fn parameter_description(sink: &mut Sink, visit: &Visit, name: &str) {
    let Some(description) = text_of(visit.schema) else {
        sink.push(
            "tips/missing-description",
            Part::Input,
            visit.pointer,
            format!("parameter {} has no description", shown_pointer(visit.pointer)),
            format!("describe \"{name}\": what it is, which values are valid, an example"),
        );
        return;
    };
    // Only values with a syntax need the description to spell it out: a repository owner or an
    // issue title is understood from two words, a search query or a date is not.
    let states_values = ["enum", "const", "format", "pattern"].iter().any(|k| visit.schema.contains_key(*k))
        || visit.schema.get("items").and_then(Value::as_object).is_some_and(|i| i.contains_key("enum"))
        || is_object(visit.schema)
        || types(visit.schema).iter().any(|t| !matches!(*t, "string" | "array" | "null"));
    if states_values || !name_words(name).iter().any(|w| SYNTAX.contains(&w.as_str())) {
        return;
    }
    let informative = informative_words(description, name);
    if informative == 0 || words(description).len() <= 3 {
        let why = if informative == 0 { "only repeats its name" } else { "does not say which values are valid" };
        sink.push(
            "tips/short-description",
            Part::Input,
            visit.pointer,
            format!(
                "parameter {} is described as \"{}\", which {why}",
                shown_pointer(visit.pointer),
                clip(description)
            ),
            format!("say which values \"{name}\" takes (its syntax or format) and give an example"),
        );
    }
}

/// Name words of parameters whose values follow a syntax a model has to be told.
const SYNTAX: &[&str] = &[
    "query",
    "q",
    "filter",
    "filters",
    "search",
    "expression",
    "expr",
    "regex",
    "sql",
    "jql",
    "cql",
    "date",
    "time",
    "datetime",
    "timestamp",
    "since",
    "until",
    "before",
    "after",
    "range",
    "sort",
    "order",
    "orderby",
    "cron",
    "duration",
    "selector",
    "glob",
];

fn optional_absence(sink: &mut Sink, visit: &Visit, name: &str) {
    let schema = visit.schema;
    // Only a choice among values needs its default said: a count, a limit, an enum. Leaving out
    // free text, a flag or an object means "none", by every convention a model knows.
    let chooses = types(schema).iter().any(|t| matches!(*t, "integer" | "number"))
        || schema.contains_key("enum")
        || schema.get("items").and_then(Value::as_object).is_some_and(|i| i.contains_key("enum"));
    // An identifier left out is no identifier ("after_id": from the start).
    let identifier = name_words(name).last().is_some_and(|w| matches!(w.as_str(), "id" | "ids" | "uuid" | "key"));
    if !chooses || identifier || schema.contains_key("default") || schema.contains_key("const") {
        return;
    }
    match text_of(schema) {
        Some(text) if says_what_absence_means(text) => return,
        // No text at all is tips/missing-description's finding; one is enough.
        None if sink.on("tips/missing-description") => return,
        _ => {}
    }
    sink.push(
        "tips/undocumented-optional",
        Part::Input,
        visit.pointer,
        format!("optional parameter {} does not say what happens when it is left out", shown_pointer(visit.pointer)),
        format!("add a \"default\" to \"{name}\", or say in its description what leaving it out means"),
    );
}

/// An enum member a reader cannot understand on its own: one letter or one digit ("D", "2"),
/// as text or as a number. Longer values (ISO codes, "15" minutes) mean something by themselves.
fn opaque(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.as_i64().is_some_and(|n| (0..10).contains(&n)),
        Value::String(s) => s.chars().count() == 1 && s.chars().all(char::is_alphanumeric),
        _ => false,
    }
}

fn opaque_enum(sink: &mut Sink, visit: &Visit) {
    let Some(Value::Array(members)) = visit.schema.get("enum") else { return };
    let codes: Vec<&Value> = members.iter().filter(|m| opaque(m)).collect();
    if codes.is_empty() {
        return;
    }
    if labelled(sink, visit.schema, visit.pointer) {
        return;
    }
    let text = text_of(visit.schema).unwrap_or_default();
    let unexplained: Vec<String> = codes
        .iter()
        .map(|m| match m {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    // A description that explains one code ("1 = low, ...", "from 1 to 5") explains the scale.
    if unexplained.iter().any(|code| mentions(text, code)) {
        return;
    }
    let shown: Vec<String> = unexplained.iter().take(5).map(|c| format!("\"{c}\"")).collect();
    let more = if unexplained.len() > 5 { ", ..." } else { "" };
    sink.push(
        "tips/opaque-enum",
        Part::Input,
        &format!("{}/enum", visit.pointer),
        format!("enum at {} has codes nothing explains: {}{more}", shown_pointer(visit.pointer), shown.join(", ")),
        "use descriptive values, or say in the description what each code means (\"1 = low, 2 = high\")".into(),
    );
}

/// Labels for enum values given beside the schema: Apify `enumTitles`, the `x-enum*` spellings,
/// or the field cues a format gave (gloodata enum entries).
fn labelled(sink: &Sink, schema: &Map<String, Value>, pointer: &str) -> bool {
    const LABEL_KEYS: &[&str] = &[
        "enumTitles",
        "enumNames",
        "enumDescriptions",
        "x-enumNames",
        "x-enum-varnames",
        "x-enumDescriptions",
        "x-enum-descriptions",
        "markdownEnumDescriptions",
    ];
    if LABEL_KEYS.iter().any(|k| schema.get(*k).is_some_and(|v| !v.is_null())) {
        return true;
    }
    // Cues are keyed by the argument's pointer ("/address/zip"), the schema's pointer without
    // its `properties` steps.
    let argument: Option<String> = {
        let mut out = String::new();
        let mut segments = pointer.split('/').skip(1);
        let mut ok = true;
        while let Some(segment) = segments.next() {
            match (segment, segments.next()) {
                ("properties", Some(name)) => {
                    out.push('/');
                    out.push_str(name);
                }
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        ok.then_some(out)
    };
    argument.and_then(|a| sink.tool.ui.fields.get(&a)).is_some_and(|cue| !cue.enum_labels.is_empty())
}

pub fn clip(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 60 { format!("{}...", flat.chars().take(57).collect::<String>()) } else { flat }
}
