//! Gemini's `FunctionDeclaration.parameters`: the `Schema` object, "a select subset of an
//! OpenAPI 3.0 schema object", checked on the schema as it is sent (`$ref`s not inlined).

use serde_json::Value;

use super::grouped::Grouped;
use super::walk::{Visit, types, walk};
use super::{Part, Sink};
use crate::catalog::schema::escape_pointer;

/// The fields of the Gemini API's `Schema` object.
const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Keywords `parameters` refuses but `parametersJsonSchema` (JSON Schema) takes: clients that
/// send that field are fine, so these are summarised, not listed per tool.
const JSON_SCHEMA_ONLY: &[&str] = &["$schema", "additionalProperties"];

/// What Gemini answers for a field of `parameters` it does not know.
fn unknown_name(keyword: &str) -> String {
    format!(
        "Invalid JSON payload received. Unknown name \"{keyword}\" at 'tools[0].function_declarations[0].parameters': Cannot find field."
    )
}

#[derive(Default)]
struct Found {
    keywords: Grouped,
    json_schema_only: Grouped,
    type_lists: Grouped,
    enums: Grouped,
    formats: Grouped,
}

pub fn check(sink: &mut Sink) {
    let mut found = Found::default();
    walk(sink.tool.sent_input_schema(), &mut |visit: &Visit| {
        for key in visit.schema.keys().filter(|k| !GEMINI_FIELDS.contains(&k.as_str())) {
            let at = format!("{}/{}", visit.pointer, escape_pointer(key));
            if JSON_SCHEMA_ONLY.contains(&key.as_str()) {
                found.json_schema_only.add(key, &at);
            } else {
                found.keywords.add(key, &at);
            }
        }
        if let Some(Value::Array(_)) = visit.schema.get("type") {
            found.type_lists.add("type", &format!("{}/type", visit.pointer));
        }
        if let Some(Value::Array(members)) = visit.schema.get("enum")
            && members.iter().any(|m| !m.is_string())
        {
            found.enums.add("enum", &format!("{}/enum", visit.pointer));
        }
        if let Some(Value::String(format)) = visit.schema.get("format")
            && types(visit.schema) == ["string"]
            && format != "enum"
            && format != "date-time"
        {
            found.formats.add(format, &format!("{}/format", visit.pointer));
        }
    });
    keywords(sink, found.keywords, "gemini/keyword");
    keywords(sink, found.json_schema_only, "gemini/json-schema-only");
    for (_, pointer, n) in found.type_lists.seen {
        sink.push(
            "gemini/type-list",
            Part::Input,
            &pointer,
            format!("`type` is a list{}; Gemini's `type` is a single type", Grouped::places(n)),
            "use one type, with \"nullable\": true for null".into(),
        );
    }
    for (_, pointer, n) in found.enums.seen {
        sink.push(
            "gemini/enum",
            Part::Input,
            &pointer,
            format!("an enum with members that are not strings{}; Gemini's `enum` holds strings", Grouped::places(n)),
            "make the members strings (\"1\", \"2\"), or drop the enum and state the values in the description".into(),
        );
    }
    for (format, pointer, n) in found.formats.seen {
        sink.push(
            "gemini/format",
            Part::Input,
            &pointer,
            format!("string format \"{format}\"{}; Gemini refuses it (\"only 'enum' and 'date-time' are supported for STRING type\")", Grouped::places(n)),
            format!("drop `format: {format}` and say \"a {format}\" in the description"),
        );
    }
}

fn keywords(sink: &mut Sink, found: Grouped, rule: &'static str) {
    for (keyword, pointer, n) in found.seen {
        let (why, fix) = if rule == "gemini/keyword" {
            (
                format!("Gemini refuses the request (\"{}\")", unknown_name(&keyword)),
                if keyword.starts_with('$') && keyword != "$schema" {
                    "inline the definitions (no `$ref`/`$defs`), or send the schema as `parametersJsonSchema`"
                        .to_string()
                } else {
                    format!("remove `{keyword}`, or send the schema as `parametersJsonSchema`, which takes JSON Schema")
                },
            )
        } else {
            (
                "`parametersJsonSchema` accepts it, `parameters` does not".to_string(),
                format!("send the schema as `parametersJsonSchema`, or remove `{keyword}`"),
            )
        };
        sink.push(
            rule,
            Part::Input,
            &pointer,
            format!(
                "`{keyword}`{} is not a field of Gemini's `parameters` schema (an OpenAPI subset); {why}",
                Grouped::places(n)
            ),
            fix,
        );
    }
}
