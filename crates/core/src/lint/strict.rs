//! OpenAI's strict mode (the Structured Outputs guide, "Supported schemas"), checked on the
//! schema as it is sent (`$ref`s and `$defs` are allowed there, so they are not inlined first).
//! A tool that asks for strict mode itself (`strict: true`) has these findings as errors.

use serde_json::{Map, Value};

use super::grouped::Grouped;
use super::tips::shown_pointer;
use super::walk::{Visit, is_object, walk};
use super::{Part, Sink};
use crate::catalog::schema::escape_pointer;

/// Keywords strict mode refuses (see the providers module's comment for which the guide names).
const STRICT_UNSUPPORTED: &[&str] = &[
    "allOf",
    "not",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
    "oneOf",
    "minLength",
    "maxLength",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
];
const STRICT_FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// What one walk over the schema gathers for the strict rules.
#[derive(Default)]
struct Tally {
    keywords: Grouped,
    formats: Grouped,
    untyped: Grouped,
    properties: usize,
    deepest: usize,
    enum_values: usize,
    characters: usize,
    big_enum: Option<String>,
    /// Each object: its pointer, its optional properties, whether it is closed.
    objects: Vec<(String, Vec<String>, bool)>,
}

pub fn check(sink: &mut Sink) {
    let schema = sink.tool.sent_input_schema();
    if sink.on("openai-strict/root") && schema.get("anyOf").is_some() {
        sink.push(
            "openai-strict/root",
            Part::Input,
            "/anyOf",
            "the input schema is an `anyOf` at its root; strict mode needs a plain object there".into(),
            "make the root an object with properties; put the alternatives inside one property".into(),
        );
    }
    let mut tally = Tally::default();
    walk(schema, &mut |visit: &Visit| tally.visit(visit));
    optional_properties(sink, &tally);
    open_objects(sink, &tally);
    limits(sink, &tally);
    keywords_and_formats(sink, tally.keywords, tally.formats);
    untyped(sink, tally.untyped);
}

impl Tally {
    fn visit(&mut self, visit: &Visit) {
        let schema = visit.schema;
        for key in schema.keys().filter(|k| STRICT_UNSUPPORTED.contains(&k.as_str())) {
            self.keywords.add(key, &format!("{}/{}", visit.pointer, escape_pointer(key)));
        }
        if let Some(Value::String(f)) = schema.get("format")
            && !STRICT_FORMATS.contains(&f.as_str())
        {
            self.formats.add(f, &format!("{}/format", visit.pointer));
        }
        // A definition is only a target of `$ref`s; `anyOf` and `$ref` stand in for a type.
        let typed = ["type", "$ref", "anyOf", "enum", "const"].iter().any(|k| schema.contains_key(*k));
        if !typed && !visit.in_definitions && !visit.branch && !visit.is_root() {
            self.untyped.add("type", visit.pointer);
        }
        if let Some(Value::Object(props)) = schema.get("properties") {
            self.properties += props.len();
            self.characters += props.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = schema.get(key) {
                self.characters += defs.keys().map(|k| k.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::Array(members)) = schema.get("enum") {
            self.enum_values += members.len();
            let length: usize = members.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum();
            self.characters += length;
            if members.len() > 250 && length > 15_000 && self.big_enum.is_none() {
                self.big_enum = Some(visit.pointer.to_string());
            }
        }
        if let Some(Value::String(c)) = schema.get("const") {
            self.characters += c.chars().count();
        }
        if is_object(schema) {
            self.deepest = self.deepest.max(visit.objects_above + 1);
            self.objects.push(object_shape(schema, visit.pointer));
        }
    }
}

fn object_shape(schema: &Map<String, Value>, pointer: &str) -> (String, Vec<String>, bool) {
    let required: Vec<&str> = match schema.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let optional: Vec<String> = match schema.get("properties") {
        Some(Value::Object(props)) => props.keys().filter(|k| !required.contains(&k.as_str())).cloned().collect(),
        _ => Vec::new(),
    };
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    (pointer.to_string(), optional, closed)
}

fn optional_properties(sink: &mut Sink, tally: &Tally) {
    let with_optional: Vec<&(String, Vec<String>, bool)> =
        tally.objects.iter().filter(|(_, o, _)| !o.is_empty()).collect();
    let Some((pointer, optional, _)) = with_optional.first() else { return };
    let shown: Vec<String> = optional.iter().take(6).map(|n| format!("\"{n}\"")).collect();
    let more = if optional.len() > 6 { format!(" and {} more", optional.len() - 6) } else { String::new() };
    let others = match with_optional.len() {
        1 => String::new(),
        n => format!(" (and optional properties in {} more objects)", n - 1),
    };
    sink.push(
        "openai-strict/optional-property",
        Part::Input,
        pointer,
        format!(
            "at {}, {}{more} not in `required`{others}; strict mode needs every property required (OpenAI: \"'required' is required to be supplied and to be an array including every key in properties\")",
            shown_pointer(pointer),
            shown.join(", ")
        ),
        "list every property in `required`; give the optional ones a null type ([\"string\", \"null\"])".into(),
    );
}

fn open_objects(sink: &mut Sink, tally: &Tally) {
    let open: Vec<&str> = tally.objects.iter().filter(|(_, _, closed)| !closed).map(|(p, _, _)| p.as_str()).collect();
    let Some(first) = open.first() else { return };
    let shown: Vec<String> = open.iter().take(4).map(|p| shown_pointer(p)).collect();
    let more = if open.len() > 4 { format!(" and {} more", open.len() - 4) } else { String::new() };
    sink.push(
        "openai-strict/open-object",
        Part::Input,
        first,
        format!(
            "{} {} ({}{more}) {} not say `additionalProperties: false`, which strict mode needs (OpenAI: \"'additionalProperties' is required to be supplied and to be false\")",
            open.len(),
            if open.len() == 1 { "object" } else { "objects" },
            shown.join(", "),
            if open.len() == 1 { "does" } else { "do" }
        ),
        "add \"additionalProperties\": false to every object".into(),
    );
}

fn keywords_and_formats(sink: &mut Sink, keywords: Grouped, formats: Grouped) {
    for (keyword, pointer, n) in keywords.seen {
        sink.push(
            "openai-strict/keyword",
            Part::Input,
            &pointer,
            format!("`{keyword}`{} is not supported in strict mode", Grouped::places(n)),
            format!("remove `{keyword}` (check it in the tool itself), or do not mark the tool strict"),
        );
    }
    for (format, pointer, n) in formats.seen {
        sink.push(
            "openai-strict/format",
            Part::Input,
            &pointer,
            format!(
                "format \"{format}\"{} is not one strict mode supports ({})",
                Grouped::places(n),
                STRICT_FORMATS.join(", ")
            ),
            "drop the format and describe it in the description, or use a supported one".into(),
        );
    }
}

fn untyped(sink: &mut Sink, untyped: Grouped) {
    for (_, pointer, n) in untyped.seen {
        sink.push(
            "openai-strict/untyped",
            Part::Input,
            &pointer,
            format!(
                "{}{} has no `type`; strict mode refuses it (OpenAI: \"schema must have a 'type' key\")",
                shown_pointer(&pointer),
                if n > 1 { format!(" (and {} more places)", n - 1) } else { String::new() }
            ),
            "give every property and `items` a type (\"items\": {} accepts anything, which strict mode cannot)".into(),
        );
    }
}

fn limits(sink: &mut Sink, tally: &Tally) {
    let mut over = Vec::new();
    if tally.properties > 5_000 {
        over.push(format!("{} properties (limit 5,000)", tally.properties));
    }
    if tally.deepest > 10 {
        over.push(format!("{} levels of nesting (limit 10)", tally.deepest));
    }
    if tally.enum_values > 1_000 {
        over.push(format!("{} enum values (limit 1,000)", tally.enum_values));
    }
    if tally.characters > 120_000 {
        over.push(format!("{} characters of names and enum values (limit 120,000)", tally.characters));
    }
    if let Some(pointer) = &tally.big_enum {
        over.push(format!("an enum at {} of over 250 values and 15,000 characters", shown_pointer(pointer)));
    }
    if !over.is_empty() {
        sink.push(
            "openai-strict/limits",
            Part::Input,
            tally.big_enum.as_deref().unwrap_or(""),
            format!("the input schema is over strict mode's limits: {}", over.join(", ")),
            "split the tool, or shorten its enums".into(),
        );
    }
}
