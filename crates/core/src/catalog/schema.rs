//! Every tool's schemas pass through here, whatever their format: sloppy real-world spellings are
//! repaired (with a warning), local `$ref`s are inlined where that terminates, and the result is
//! checked against the JSON Schema meta-schema.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::Issue;
#[cfg(test)]
use super::Severity;
use super::document::Segment;

/// Keywords whose value is one subschema.
pub(super) const SUBSCHEMA: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];
/// Keywords whose value is an array of subschemas.
pub(super) const SUBSCHEMA_LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
pub(super) const SUBSCHEMA_MAP: &[&str] =
    &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// True for a keyword whose value holds subschemas (one, a list or a map of them).
pub fn holds_subschemas(keyword: &str) -> bool {
    SUBSCHEMA.contains(&keyword) || SUBSCHEMA_LIST.contains(&keyword) || SUBSCHEMA_MAP.contains(&keyword)
}

/// Repairs, inlines and checks an input schema, which must describe an object.
/// Paths in the issues are relative to the schema.
pub fn normalise_input(schema: Value, meta_check: bool, issues: &mut Vec<Issue>) -> Value {
    let mut schema = match schema {
        Value::Object(_) => schema,
        Value::Null => json!({"type": "object", "properties": {}}),
        other => {
            issues.push(Issue::error(
                vec![],
                format!("the input schema must be a JSON Schema object, not {}", kind_of(&other)),
            ));
            return json!({"type": "object", "properties": {}});
        }
    };
    repair(&mut schema, &mut Vec::new(), issues);
    if let Some(root) = schema.as_object_mut() {
        match member(root, "type") {
            None => {
                root.insert("type".into(), json!("object"));
            }
            Some(Value::String(t)) if t == "object" => {}
            // Not a type name at all: the meta-schema check reports it.
            Some(Value::Number(_) | Value::Bool(_) | Value::Null | Value::Object(_)) => {}
            Some(other) => issues.push(Issue::error(
                vec!["type".into()],
                format!("a tool's input schema must describe an object, but its type is {other}"),
            )),
        }
    }
    super::refs::inline_refs(&mut schema, issues);
    if meta_check {
        check_against_meta_schema(&schema, issues);
    }
    schema
}

/// Whether [`normalise_input`] may give back something other than what was written: the
/// written form is then kept for lint, which checks what a provider receives. A quick look, so
/// the common schema is not copied.
pub fn reading_may_change(schema: &Value) -> bool {
    fn changes_inside(value: &Value) -> bool {
        match value {
            Value::Object(map) => map.iter().any(|(key, child)| match (key.as_str(), child) {
                ("$ref", _) => true,
                ("exclusiveMinimum" | "exclusiveMaximum" | "required", Value::Bool(_)) => true,
                ("type", Value::String(name)) => standard_type(name).is_some(),
                ("type", Value::Array(names)) => {
                    names.iter().filter_map(Value::as_str).any(|n| standard_type(n).is_some())
                }
                ("description" | "title", Value::Null) => true,
                _ => changes_inside(child),
            }),
            Value::Array(items) => items.iter().any(changes_inside),
            _ => false,
        }
    }
    schema.as_object().and_then(|o| member(o, "type")).and_then(Value::as_str) != Some("object")
        || changes_inside(schema)
}

/// Like [`normalise_input`], for a schema of results: any type is fine at the root.
pub fn normalise_output(mut schema: Value, meta_check: bool, issues: &mut Vec<Issue>) -> Value {
    if !schema.is_object() && !schema.is_boolean() {
        issues.push(Issue::error(
            vec![],
            format!("the output schema must be a JSON Schema object, not {}", kind_of(&schema)),
        ));
        return json!({});
    }
    repair(&mut schema, &mut Vec::new(), issues);
    super::refs::inline_refs(&mut schema, issues);
    if meta_check {
        check_against_meta_schema(&schema, issues);
    }
    schema
}

/// True when `value` reads as a JSON Schema rather than a marketplace-style field map.
pub fn looks_like_json_schema(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return value.is_boolean();
    };
    let schema_keyword = matches!(object.get("type"), Some(Value::String(_) | Value::Array(_)))
        || [
            "properties",
            "$ref",
            "oneOf",
            "anyOf",
            "allOf",
            "$schema",
            "enum",
            "const",
            "items",
            "additionalProperties",
        ]
        .iter()
        .any(|k| object.contains_key(*k));
    object.is_empty() || (schema_keyword && !looks_like_field_map(value))
}

/// A map of field name → `{type, required?, ...}` with no schema `type` of its own. A field may be
/// named like a keyword (`items`, `enum`): it is still a field when its value is a field.
pub fn looks_like_field_map(value: &Value) -> bool {
    let Some(object) = value.as_object() else { return false };
    let is_field = |v: &Value| {
        v.as_object().is_some_and(|f| {
            f.get("type").is_some_and(Value::is_string) || f.get("required").is_some_and(Value::is_boolean)
        })
    };
    !object.is_empty()
        && !matches!(object.get("type"), Some(Value::String(_) | Value::Array(_)))
        && object.values().all(is_field)
}

pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The standard name for a type spelled the way Python, Java or TypeScript would, if it has one.
/// `Some(None)` means "any type".
fn standard_type(name: &str) -> Option<Option<&'static str>> {
    Some(Some(match name {
        "string" | "number" | "integer" | "boolean" | "object" | "array" | "null" => return None,
        "dict" | "map" | "hashmap" | "HashMap" | "Map" | "Dict" | "Object" | "json" | "record" => "object",
        "float" | "double" | "decimal" | "Float" | "Double" | "BigDecimal" => "number",
        "int" | "long" | "Integer" | "Long" | "short" | "int64" | "int32" => "integer",
        "str" | "String" | "text" | "char" => "string",
        "bool" | "Boolean" => "boolean",
        "list" | "tuple" | "List" | "ArrayList" | "Array" | "set" | "Set" | "tuple[]" => "array",
        "any" | "Any" | "mixed" => return Some(None),
        _ => return None,
    }))
}

/// Objects of at most this many members are searched key by key: a schema object holds a
/// handful of keywords, and comparing a few short keys costs less than hashing one (loading a
/// big catalog spent a tenth of its time hashing keys to look them up).
const SCANNED_MEMBERS: usize = 8;

/// `object[key]`, found by comparing keys in a small object and by hash in a big one.
pub(super) fn member<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if object.len() <= SCANNED_MEMBERS {
        object.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        object.get(key)
    }
}

/// Like [`member`], to change the value.
fn member_mut<'a>(object: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Value> {
    if object.len() <= SCANNED_MEMBERS {
        object.iter_mut().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        object.get_mut(key)
    }
}

/// Fixes the non-standard spellings found in real definitions, in place.
fn repair(schema: &mut Value, path: &mut Vec<Segment>, issues: &mut Vec<Issue>) {
    let Some(object) = schema.as_object_mut() else { return };
    repair_type(object, path, issues);
    for keyword in ["description", "title"] {
        if member(object, keyword).is_some_and(Value::is_null) {
            object.remove(keyword);
            let mut at = path.clone();
            at.push(keyword.into());
            issues.push(Issue::warning(at, format!("`{keyword}: null` is not JSON Schema; read as no {keyword}")));
        }
    }
    if let (Some(default), Some(Value::String(declared))) = (member(object, "default"), member(object, "type"))
        && !default_fits(declared, default)
    {
        let mut at = path.clone();
        at.push("default".into());
        let shown: String = default.to_string().chars().take(40).collect();
        issues.push(Issue::warning(
            at,
            format!("default {shown} is not of type \"{declared}\"; forms leave the field unset"),
        ));
    }
    repair_draft4_exclusive(object, "exclusiveMinimum", "minimum", path, issues);
    repair_draft4_exclusive(object, "exclusiveMaximum", "maximum", path, issues);
    if let Some(Value::Object(properties)) = member_mut(object, "properties") {
        let mut newly_required = Vec::new();
        for (name, property) in properties.iter_mut() {
            let Some(required) = property.as_object().and_then(|p| member(p, "required")).and_then(Value::as_bool)
            else {
                continue;
            };
            if let Some(p) = property.as_object_mut() {
                p.remove("required");
            }
            let mut at = path.clone();
            at.extend(["properties".into(), Segment::Key(name.clone()), "required".into()]);
            let reading = if required { "listing it in the object's `required`" } else { "optional" };
            issues.push(Issue::warning(
                at,
                format!("`required: {required}` inside property \"{name}\" is not JSON Schema; read as {reading}"),
            ));
            if required {
                newly_required.push(Value::String(name.clone()));
            }
        }
        if !newly_required.is_empty() {
            let required = object.entry("required").or_insert_with(|| json!([]));
            if let Value::Array(list) = required {
                // A set of the names listed: a server's 100,000 properties each marked this way
                // were a quadratic scan of the list.
                let mut listed: HashSet<String> = list.iter().filter_map(Value::as_str).map(str::to_string).collect();
                list.extend(
                    newly_required.into_iter().filter(|name| name.as_str().is_none_or(|n| listed.insert(n.into()))),
                );
            }
        }
    }
    for_each_subschema(object, path, &mut |child, path| repair(child, path, issues));
}

fn repair_type(object: &mut Map<String, Value>, path: &[Segment], issues: &mut Vec<Issue>) {
    let at = || {
        let mut at = path.to_vec();
        at.push("type".into());
        at
    };
    match member_mut(object, "type") {
        Some(Value::String(name)) => match standard_type(name) {
            Some(Some(standard)) => {
                issues
                    .push(Issue::warning(at(), format!("type \"{name}\" is not JSON Schema; read as \"{standard}\"")));
                *name = standard.to_string();
            }
            Some(None) => {
                issues.push(Issue::warning(at(), format!("type \"{name}\" is not JSON Schema; read as any value")));
                object.remove("type");
            }
            None => {}
        },
        Some(Value::Array(names)) => {
            let mut any = false;
            for name in names.iter_mut() {
                if let Value::String(n) = name {
                    match standard_type(n) {
                        Some(Some(standard)) => {
                            issues.push(Issue::warning(
                                at(),
                                format!("type \"{n}\" is not JSON Schema; read as \"{standard}\""),
                            ));
                            *n = standard.to_string();
                        }
                        Some(None) => any = true,
                        None => {}
                    }
                }
            }
            if any {
                issues.push(Issue::warning(at(), "a type list naming \"any\" is not JSON Schema; read as any value"));
                object.remove("type");
            }
        }
        _ => {}
    }
}

fn default_fits(declared: &str, default: &Value) -> bool {
    // Types this pass does not know are the meta-schema check's business.
    !TYPE_NAMES.contains(&declared) || value_has_type(declared, default)
}

const TYPE_NAMES: [&str; 7] = ["null", "boolean", "string", "number", "array", "object", "integer"];

/// One of JSON Schema's seven type names.
pub fn is_json_type(name: &str) -> bool {
    TYPE_NAMES.contains(&name)
}

/// Whether `value` is of the JSON Schema type `name` (3.0 is an integer, as the spec says).
pub fn value_has_type(name: &str, value: &Value) -> bool {
    match (name, value) {
        ("null", Value::Null) | ("boolean", Value::Bool(_)) | ("string", Value::String(_)) => true,
        ("number", Value::Number(_)) | ("array", Value::Array(_)) | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

/// Draft 4 wrote `exclusiveMinimum: true` beside `minimum`; later drafts put the bound in it.
fn repair_draft4_exclusive(
    object: &mut Map<String, Value>,
    keyword: &str,
    bound: &str,
    path: &[Segment],
    issues: &mut Vec<Issue>,
) {
    let declares_draft4 = member(object, "$schema").and_then(Value::as_str).is_some_and(|s| s.contains("draft-04"));
    if declares_draft4 {
        return;
    }
    if let Some(Value::Bool(flag)) = member(object, keyword) {
        let flag = *flag;
        object.remove(keyword);
        if flag && let Some(limit) = object.remove(bound) {
            object.insert(keyword.into(), limit);
        }
        let mut at = path.to_vec();
        at.push(keyword.into());
        issues.push(Issue::warning(at, format!("`{keyword}: {flag}` is draft-4 style; read as its 2020-12 form")));
    }
}

fn for_each_subschema(
    object: &mut Map<String, Value>,
    path: &mut Vec<Segment>,
    visit: &mut dyn FnMut(&mut Value, &mut Vec<Segment>),
) {
    for (keyword, value) in object.iter_mut() {
        let keyword = keyword.as_str();
        // The path grows only where there is a subschema: most keywords hold none, and a key
        // copied for each of them was a good part of loading's work.
        let key = || Segment::Key(keyword.to_string());
        match value {
            Value::Object(_) if SUBSCHEMA.contains(&keyword) => {
                path.push(key());
                visit(value, path);
                path.pop();
            }
            Value::Array(items) if SUBSCHEMA_LIST.contains(&keyword) => {
                path.push(key());
                for (i, item) in items.iter_mut().enumerate() {
                    path.push(Segment::Index(i));
                    visit(item, path);
                    path.pop();
                }
                path.pop();
            }
            Value::Object(map) if SUBSCHEMA_MAP.contains(&keyword) => {
                path.push(key());
                for (name, child) in map.iter_mut() {
                    path.push(Segment::Key(name.clone()));
                    visit(child, path);
                    path.pop();
                }
                path.pop();
            }
            _ => {}
        }
    }
}

fn check_against_meta_schema(schema: &Value, issues: &mut Vec<Issue>) {
    // An unknown `$schema` would make the crate try to download it; check those as 2020-12.
    let declared = schema.get("$schema").and_then(Value::as_str);
    let known = declared
        .is_none_or(|uri| jsonschema::Draft::default().detect(&json!({"$schema": uri})) != jsonschema::Draft::Unknown);
    let stripped;
    let schema = if known {
        schema
    } else {
        issues.push(Issue::warning(
            vec!["$schema".into()],
            format!("unknown $schema \"{}\"; checked as JSON Schema 2020-12", declared.unwrap_or_default()),
        ));
        let mut copy = schema.clone();
        if let Some(map) = copy.as_object_mut() {
            map.remove("$schema");
        }
        stripped = copy;
        &stripped
    };
    let validator = match jsonschema::meta::validator_for(schema) {
        Ok(v) => v,
        Err(e) => {
            issues.push(Issue::error(vec![], format!("the schema cannot be checked: {e}")));
            return;
        }
    };
    if validator.is_valid(schema) {
        return;
    }
    let mut seen = HashSet::new();
    for error in validator.iter_errors(schema) {
        let pointer = error.instance_path().as_str().to_string();
        let message = meta_message(&pointer, error.instance(), &error.masked().to_string());
        if seen.insert((pointer.clone(), message.clone())) {
            issues.push(Issue::error(pointer_segments(&pointer), message));
        }
    }
}

/// One JSON pointer segment, escaped.
pub fn escape_pointer(segment: &str) -> String {
    let mut escaped = String::with_capacity(segment.len());
    push_escaped(&mut escaped, segment);
    escaped
}

/// Appends `segment` to a JSON pointer, escaped (`~` → `~0`, `/` → `~1`), without a string of
/// its own.
pub fn push_escaped(pointer: &mut String, segment: &str) {
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// What a meta-schema violation means, in words for the two mistakes people make most.
fn meta_message(pointer: &str, instance: &Value, generic: &str) -> String {
    let shown: String = instance.to_string().chars().take(60).collect();
    let keyword = pointer.rsplit('/').next().unwrap_or_default();
    let parent_is_keyword_map = pointer.rsplit('/').nth(1).is_some_and(|p| p == "properties");
    match keyword {
        "type" if !parent_is_keyword_map => format!(
            "not valid JSON Schema: \"type\" must be \"string\", \"number\", \"integer\", \"boolean\", \"object\", \"array\", \"null\" or a list of them, not {shown}"
        ),
        "required" if !parent_is_keyword_map && !instance.is_array() => {
            format!("not valid JSON Schema: \"required\" must be a list of property names, not {shown}")
        }
        _ => format!("not valid JSON Schema: {generic} (found {shown})"),
    }
}

/// A JSON pointer as path segments (all keys: `locate` reads numeric keys as array indexes).
pub fn pointer_segments(pointer: &str) -> Vec<Segment> {
    pointer.split('/').skip(1).map(|s| Segment::Key(s.replace("~1", "/").replace("~0", "~"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(schema: Value) -> (Value, Vec<Issue>) {
        let mut issues = Vec::new();
        let out = normalise_input(schema, true, &mut issues);
        (out, issues)
    }

    #[test]
    fn sloppy_types_are_read_with_warnings() {
        let (out, issues) = input(json!({
            "type": "dict",
            "properties": {
                "a": {"type": "float"}, "b": {"type": "any"}, "c": {"type": "tuple", "items": {"type": "int"}},
                "d": {"type": "string", "required": true}, "e": {"type": "HashMap"}
            }
        }));
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "number"}, "b": {}, "c": {"type": "array", "items": {"type": "integer"}},
                    "d": {"type": "string"}, "e": {"type": "object"}
                },
                "required": ["d"]
            })
        );
        assert_eq!(issues.len(), 7, "{issues:?}");
        assert!(issues.iter().all(|i| i.severity == Severity::Warning));
    }

    #[test]
    fn invalid_schema_is_an_error_at_its_keyword() {
        let (_, issues) = input(json!({"type": "object", "properties": {"a": {"type": 5}}, "required": "a"}));
        let errors: Vec<_> = issues.iter().filter(|i| i.severity == Severity::Error).collect();
        assert!(errors.iter().any(|e| e.at == pointer_segments("/properties/a/type")), "{errors:?}");
        assert!(errors.iter().any(|e| e.at == pointer_segments("/required")), "{errors:?}");
    }

    #[test]
    fn refs_are_inlined_and_defs_dropped() {
        let (out, issues) = input(json!({
            "type": "object",
            "properties": {"home": {"$ref": "#/$defs/Address"}, "work": {"$ref": "#/$defs/Address", "description": "office"}},
            "$defs": {"Address": {"type": "object", "properties": {"zip": {"type": "string"}}}}
        }));
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "home": {"type": "object", "properties": {"zip": {"type": "string"}}},
                    "work": {"type": "object", "properties": {"zip": {"type": "string"}}, "description": "office"}
                }
            })
        );
    }

    #[test]
    fn recursive_refs_stay_with_their_defs() {
        let schema = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
        });
        let (out, issues) = input(schema);
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(out["properties"]["root"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/Node"}));
        assert!(out.get("$defs").is_some());
        jsonschema::validator_for(&out).expect("still compiles");
    }

    #[test]
    fn self_reference_to_root_terminates() {
        let (out, _) = input(json!({"type": "object", "properties": {"next": {"$ref": "#"}}}));
        assert_eq!(out["properties"]["next"], json!({"$ref": "#"}));
    }

    #[test]
    fn exponential_refs_stay_within_budget() {
        let mut defs = Map::new();
        defs.insert("d0".into(), json!({"type": "string"}));
        for i in 1..40 {
            let prev = format!("#/$defs/d{}", i - 1);
            defs.insert(
                format!("d{i}"),
                json!({"type": "object", "properties": {"a": {"$ref": prev}, "b": {"$ref": prev}}}),
            );
        }
        let (out, _) = input(json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d39"}}, "$defs": defs}));
        assert!(super::super::refs::count_values(&out) < 2 * super::super::refs::INLINE_BUDGET);
    }

    #[test]
    fn missing_and_remote_refs() {
        let (_, issues) =
            input(json!({"properties": {"a": {"$ref": "#/$defs/nope"}, "b": {"$ref": "https://x.test/s.json"}}}));
        assert!(issues.iter().any(|i| i.severity == Severity::Error && i.message.contains("points at nothing")));
        assert!(issues.iter().any(|i| i.severity == Severity::Warning && i.message.contains("not fetched")));
    }

    #[test]
    fn non_object_root_is_an_error() {
        let (_, issues) = input(json!({"type": "string"}));
        assert!(issues.iter().any(|i| i.severity == Severity::Error && i.message.contains("must describe an object")));
    }

    #[test]
    fn draft4_exclusive_bounds() {
        let (out, issues) =
            input(json!({"properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}}));
        assert_eq!(out["properties"]["n"], json!({"type": "number", "exclusiveMinimum": 0}));
        assert_eq!(issues.len(), 1);
    }
}
