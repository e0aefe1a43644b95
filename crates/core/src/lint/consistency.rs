//! A definition that contradicts itself: defaults, examples and enum members its own schema
//! rejects, descriptions that name another default, impossible bounds, broken patterns, unknown
//! formats, `required` names that are not there, objects with no shape.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::text::{same_default, stated_default};
use super::tips::{clip, shown_pointer};
use super::walk::{Visit, is_object, types, walk};
use super::{Part, Sink};
use crate::catalog::schema::value_has_type;
use crate::catalog::tool::Example;

pub fn check(sink: &mut Sink) {
    let tool = sink.tool;
    walk(&tool.input_schema, &mut |visit| check_schema(sink, visit, Part::Input, &tool.input_schema));
    if let Some(output) = &tool.output_schema {
        walk(output, &mut |visit| check_schema(sink, visit, Part::Output, output));
    }
    example_arguments(sink);
}

fn check_schema(sink: &mut Sink, visit: &Visit, part: Part, root: &Value) {
    let schema = visit.schema;
    if let Some(default) = schema.get("default")
        && sink.on(if default.is_null() { "schema/null-default" } else { "schema/invalid-default" })
        && let Err(why) = fits(default, schema, &["default", "examples", "example"], root)
    {
        let at = format!("{}/default", visit.pointer);
        if default.is_null() {
            // Common and harmless to most clients (null reads as "not given"), but a validator refuses it.
            sink.push(
                "schema/null-default",
                part,
                &at,
                format!("default null at {} is not valid: {why}", shown_pointer(visit.pointer)),
                "drop `\"default\": null` (leaving the parameter out already means no value), or allow null in its type".into(),
            );
        } else {
            sink.push(
                "schema/invalid-default",
                part,
                &at,
                format!("default {} at {} is not valid: {why}", shown(default), shown_pointer(visit.pointer)),
                "change the default to a value the schema accepts, or drop it".into(),
            );
        }
    }
    if sink.on("schema/invalid-enum")
        && let Some(Value::Array(members)) = schema.get("enum")
    {
        for (i, member) in members.iter().enumerate() {
            if let Err(why) = fits(member, schema, &["enum", "const", "default", "examples", "example"], root) {
                sink.push(
                    "schema/invalid-enum",
                    part,
                    &format!("{}/enum/{i}", visit.pointer),
                    format!("enum member {} at {} is not valid: {why}", shown(member), shown_pointer(visit.pointer)),
                    "remove the member or change it to fit the schema's type and bounds".into(),
                );
            }
        }
    }
    if sink.on("schema/invalid-example") {
        let mut examples: Vec<(String, &Value)> = Vec::new();
        if let Some(Value::Array(list)) = schema.get("examples") {
            examples.extend(list.iter().enumerate().map(|(i, v)| (format!("{}/examples/{i}", visit.pointer), v)));
        }
        if let Some(example) = schema.get("example") {
            examples.push((format!("{}/example", visit.pointer), example));
        }
        for (pointer, example) in examples {
            if let Err(why) = fits(example, schema, &["default", "examples", "example"], root) {
                sink.push(
                    "schema/invalid-example",
                    part,
                    &pointer,
                    format!("example {} at {} is not valid: {why}", shown(example), shown_pointer(visit.pointer)),
                    "change the example so the schema accepts it: models copy examples".into(),
                );
            }
        }
    }
    description_default(sink, visit, part);
    required_missing(sink, visit, part);
    bounds(sink, visit, part);
    patterns(sink, visit, part);
    format(sink, visit, part);
    open_object(sink, visit, part);
}

/// A value for messages: JSON, cut short.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 { format!("{}...", text.chars().take(37).collect::<String>()) } else { text }
}

/// Validation keywords the quick check below does not understand: a schema with any of them
/// goes to the validator. Anything else (annotations, `x-` fields, a format's own keys) only
/// describes the value.
const COMPLEX: &[&str] = &[
    "pattern",
    "format",
    "multipleOf",
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedItems",
    "unevaluatedProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$dynamicRef",
];

/// Why a value does not fit a schema, in the words its finding quotes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
struct Misfit(String);

/// Whether `value` fits `schema` without the keywords in `without` (the value's own keyword:
/// an enum member is checked against everything but the enum). Simple schemas are checked here;
/// the rest by the JSON Schema validator, with the root's definitions for any `$ref`. A schema
/// the validator cannot compile says nothing (the loader reports broken schemas).
fn fits(value: &Value, schema: &Map<String, Value>, without: &[&str], root: &Value) -> Result<(), Misfit> {
    // OpenAPI's `nullable: true` lets null through whatever `type` says.
    if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
        return Ok(());
    }
    if !schema.keys().any(|k| COMPLEX.contains(&k.as_str()) && !without.contains(&k.as_str())) {
        return quick_fit(value, schema, without);
    }
    let mut sub: Map<String, Value> =
        schema.iter().filter(|(k, _)| !without.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    if Value::Object(sub.clone()).to_string().contains("\"$ref\"") {
        for key in ["$defs", "definitions"] {
            if let Some(defs) = root.get(key) {
                sub.entry(key).or_insert_with(|| defs.clone());
            }
        }
    }
    let Ok(validator) = jsonschema::options().should_validate_formats(true).build(&Value::Object(sub)) else {
        return Ok(());
    };
    match validator.iter_errors(value).next() {
        None => Ok(()),
        Some(error) => {
            let at = error.instance_path().to_string();
            let place = if at.is_empty() { String::new() } else { format!(" at {at}") };
            Err(Misfit(format!("{}{place}", clip(&error.to_string()))))
        }
    }
}

fn quick_fit(value: &Value, schema: &Map<String, Value>, without: &[&str]) -> Result<(), Misfit> {
    let has = |k: &str| !without.contains(&k);
    let declared = types(schema);
    if has("type") && !declared.is_empty() && !declared.iter().any(|t| value_has_type(t, value)) {
        let names: Vec<String> = declared.iter().map(|t| format!("\"{t}\"")).collect();
        return Err(Misfit(format!("it is not of type {}", names.join(" or "))));
    }
    if has("enum")
        && let Some(Value::Array(members)) = schema.get("enum")
        && !members.iter().any(|m| same_value(m, value))
    {
        return Err(Misfit("it is not one of the enum's values".into()));
    }
    if has("const")
        && let Some(constant) = schema.get("const")
        && !same_value(constant, value)
    {
        return Err(Misfit(format!("it is not the const {}", shown(constant))));
    }
    if let Some(n) = value.as_f64() {
        let bound = |k: &str| schema.get(k).and_then(Value::as_f64);
        type Check = (&'static str, fn(f64, f64) -> bool, &'static str);
        let checks: [Check; 4] = [
            ("minimum", |n, b| n >= b, "less than the minimum"),
            ("maximum", |n, b| n <= b, "more than the maximum"),
            ("exclusiveMinimum", |n, b| n > b, "not above the exclusive minimum"),
            ("exclusiveMaximum", |n, b| n < b, "not below the exclusive maximum"),
        ];
        for (keyword, ok, words) in checks {
            if let Some(b) = bound(keyword).filter(|b| !ok(n, *b)) {
                return Err(Misfit(format!("it is {words} {b}")));
            }
        }
    }
    if let Some(s) = value.as_str() {
        let length = s.chars().count() as u64;
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64).filter(|m| length < *m) {
            return Err(Misfit(format!("it is shorter than minLength {min}")));
        }
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64).filter(|m| length > *m) {
            return Err(Misfit(format!("it is longer than maxLength {max}")));
        }
    }
    Ok(())
}

/// JSON equality with numbers by value (1 and 1.0 are the same number).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn example_arguments(sink: &mut Sink) {
    let tool = sink.tool;
    if !sink.on("schema/invalid-example") {
        return;
    }
    let arguments: Vec<(usize, &Value)> = tool
        .examples
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Example::Arguments(v) => Some((i, v)),
            Example::Prompt(_) => None,
        })
        .collect();
    if arguments.is_empty() {
        return;
    }
    let Ok(validator) = jsonschema::options().should_validate_formats(true).build(&tool.input_schema) else { return };
    for (i, example) in arguments {
        if let Some(error) = validator.iter_errors(example).next() {
            let at = error.instance_path().to_string();
            let place = if at.is_empty() { String::new() } else { format!(" at {at}") };
            sink.push(
                "schema/invalid-example",
                Part::Tool,
                "",
                format!(
                    "example {} of tool \"{}\" does not fit its input schema{place}: {}",
                    i + 1,
                    tool.name,
                    clip(&error.to_string())
                ),
                "fix the example's arguments so the input schema accepts them".into(),
            );
        }
    }
}

fn description_default(sink: &mut Sink, visit: &Visit, part: Part) {
    // A format with no `default` field leaves the description the only place to say it.
    if !sink.on("schema/description-default") || sink.tool.written.no_defaults {
        return;
    }
    let schema = visit.schema;
    let Some(description) = schema.get("description").and_then(Value::as_str) else { return };
    let members: Vec<&str> = match schema.get("enum") {
        Some(Value::Array(m)) => m.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let default_text = schema.get("default").and_then(Value::as_str);
    let accepts = |t: &str| {
        members.iter().any(|m| m.eq_ignore_ascii_case(t)) || default_text.is_some_and(|d| d.eq_ignore_ascii_case(t))
    };
    let Some(mut stated) = stated_default(description, &accepts) else { return };
    // "Default: `true`" on a boolean states the boolean, not a text.
    let inner = stated.trim_matches('"');
    if stated.starts_with('"')
        && !types(schema).contains(&"string")
        && (matches!(inner, "true" | "false" | "null") || inner.parse::<f64>().is_ok())
    {
        stated = inner.to_string();
    }
    let pointer = format!("{}/description", visit.pointer);
    match schema.get("default") {
        Some(default) if same_default(&stated, default) => {}
        Some(default) => sink.push(
            "schema/description-default",
            part,
            &pointer,
            format!(
                "the description of {} says the default is {stated}, but `default` is {}",
                shown_pointer(visit.pointer),
                shown(default)
            ),
            "make the description and `default` agree".into(),
        ),
        None => sink.push(
            "schema/description-default",
            part,
            &pointer,
            format!(
                "the description of {} says the default is {stated}, but there is no `default`",
                shown_pointer(visit.pointer)
            ),
            format!("add \"default\": {stated} so forms, validators and models all see it"),
        ),
    }
}

/// Property names an object declares: its own `properties` and those of its `allOf`, `anyOf`,
/// `oneOf`, `if`, `then`, `else` branches.
fn declared<'a>(schema: &'a Map<String, Value>, names: &mut HashSet<&'a str>, depth: usize) {
    if let Some(Value::Object(properties)) = schema.get("properties") {
        names.extend(properties.keys().map(String::as_str));
    }
    if depth > 8 {
        return;
    }
    for keyword in ["allOf", "anyOf", "oneOf"] {
        for branch in schema.get(keyword).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object) {
            declared(branch, names, depth + 1);
        }
    }
    for keyword in ["if", "then", "else"] {
        if let Some(Value::Object(branch)) = schema.get(keyword) {
            declared(branch, names, depth + 1);
        }
    }
}

/// Whether undeclared names are given a schema some other way (a map's value schema, patterns).
fn names_elsewhere(schema: &Map<String, Value>) -> bool {
    schema.contains_key("patternProperties") || schema.get("additionalProperties").is_some_and(Value::is_object)
}

fn required_missing(sink: &mut Sink, visit: &Visit, part: Part) {
    let Some(Value::Array(required)) = visit.schema.get("required") else { return };
    if !sink.on("schema/required-missing") || names_elsewhere(visit.schema) || visit.owner.is_some_and(names_elsewhere)
    {
        return;
    }
    let mut names = HashSet::new();
    declared(visit.schema, &mut names, 0);
    if let Some(owner) = visit.owner {
        declared(owner, &mut names, 0);
    }
    for (i, name) in required.iter().enumerate() {
        let Some(name) = name.as_str() else { continue };
        if !names.contains(name) {
            sink.push(
                "schema/required-missing",
                part,
                &format!("{}/required/{i}", visit.pointer),
                format!(
                    "`required` at {} names \"{name}\", which is not among its properties",
                    shown_pointer(visit.pointer)
                ),
                format!("define \"{name}\" under `properties`, or remove it from `required` (a typo?)"),
            );
        }
    }
}

fn bounds(sink: &mut Sink, visit: &Visit, part: Part) {
    const PAIRS: &[(&str, &str, bool)] = &[
        ("minimum", "maximum", false),
        ("exclusiveMinimum", "exclusiveMaximum", true),
        ("minimum", "exclusiveMaximum", true),
        ("exclusiveMinimum", "maximum", true),
        ("minLength", "maxLength", false),
        ("minItems", "maxItems", false),
        ("minProperties", "maxProperties", false),
        ("minContains", "maxContains", false),
    ];
    for (low, high, strict) in PAIRS {
        let get = |k: &str| visit.schema.get(k).and_then(Value::as_f64);
        let (Some(a), Some(b)) = (get(low), get(high)) else { continue };
        if a > b || (*strict && a >= b) {
            sink.push(
                "schema/min-above-max",
                part,
                &format!("{}/{low}", visit.pointer),
                format!("at {}, {low} {a} is not below {high} {b}: no value is valid", shown_pointer(visit.pointer)),
                format!("swap or correct `{low}` and `{high}`"),
            );
        }
    }
}

/// Whether `pattern` is an ECMA-262 regular expression (with or without the `u` flag; JSON
/// Schema says patterns are ECMA-262, and validators differ on the flag).
pub fn ecma_regex(pattern: &str) -> Result<(), regress::Error> {
    match regress::Regex::with_flags(pattern, "u") {
        Ok(_) => Ok(()),
        Err(unicode) => regress::Regex::new(pattern).map(|_| ()).map_err(|_| unicode),
    }
}

fn patterns(sink: &mut Sink, visit: &Visit, part: Part) {
    if !sink.on("schema/invalid-pattern") {
        return;
    }
    let mut found: Vec<(String, &str)> = Vec::new();
    if let Some(Value::String(p)) = visit.schema.get("pattern") {
        found.push((format!("{}/pattern", visit.pointer), p));
    }
    if let Some(Value::Object(map)) = visit.schema.get("patternProperties") {
        let base = format!("{}/patternProperties", visit.pointer);
        found.extend(map.keys().map(|k| (format!("{base}/{}", crate::catalog::schema::escape_pointer(k)), k.as_str())));
    }
    for (pointer, pattern) in found {
        if let Err(why) = ecma_regex(pattern) {
            sink.push(
                "schema/invalid-pattern",
                part,
                &pointer,
                format!(
                    "pattern \"{}\" at {} is not an ECMA-262 regular expression: {why}",
                    clip(pattern),
                    shown_pointer(visit.pointer)
                ),
                "write it in ECMA-262 (JavaScript) syntax: no (?P<name>), (?i), \\A or \\Z".into(),
            );
        }
    }
}

/// JSON Schema 2020-12's formats (§7.3) and the OpenAPI Format Registry's
/// (spec.openapis.org/registry/format), which OpenAPI-derived tools use.
const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "float",
    "double",
    "decimal",
    "decimal128",
    "byte",
    "binary",
    "base64url",
    "password",
    "char",
    "commonmark",
    "html",
    "media-range",
    "http-date",
    "date-time-local",
    "time-local",
];

fn format(sink: &mut Sink, visit: &Visit, part: Part) {
    let Some(Value::String(format)) = visit.schema.get("format") else { return };
    if FORMATS.contains(&format.as_str()) {
        return;
    }
    let near = FORMATS.iter().find(|f| f.replace('-', "") == format.to_lowercase().replace(['-', '_', ' '], ""));
    let fix = match (near, format.as_str()) {
        (Some(f), _) => format!("write \"{f}\""),
        (None, "url") => "write \"uri\"".to_string(),
        (None, "datetime" | "timestamp") => "write \"date-time\"".to_string(),
        _ => {
            "use a registered format (date-time, date, email, uri, uuid, ...) or describe the shape in the description"
                .to_string()
        }
    };
    sink.push(
        "schema/unknown-format",
        part,
        &format!("{}/format", visit.pointer),
        format!(
            "format \"{format}\" at {} is not a known format: validators and models ignore it",
            shown_pointer(visit.pointer)
        ),
        fix,
    );
}

fn open_object(sink: &mut Sink, visit: &Visit, part: Part) {
    let schema = visit.schema;
    // A root without properties is a tool without parameters; a branch is read with its owner;
    // results are not filled in by a model.
    if part != Part::Input || visit.is_root() || visit.branch || !is_object(schema) {
        return;
    }
    let has_properties = schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    let shaped = [
        "additionalProperties",
        "patternProperties",
        "unevaluatedProperties",
        "$ref",
        "anyOf",
        "oneOf",
        "allOf",
        "propertyNames",
        "const",
        "enum",
    ]
    .iter()
    .any(|k| schema.contains_key(*k));
    if has_properties || shaped {
        return;
    }
    let name = visit.property.map_or_else(|| shown_pointer(visit.pointer), |p| format!("\"{}\"", p.name));
    sink.push(
        "schema/open-object",
        part,
        visit.pointer,
        format!("{name} is an object with no properties listed and no `additionalProperties` rule: a model has to guess its keys"),
        "list its `properties`, or give `additionalProperties` a schema if it is a map".into(),
    );
}
