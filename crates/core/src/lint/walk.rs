//! One walk over a schema that every rule shares: each subschema with its JSON pointer and what
//! the rules ask about its place (is it a parameter, is it required, how deep among objects).

use serde_json::{Map, Value};

use crate::catalog::document::MAX_DEPTH;

/// Keywords whose value is one subschema at the same level of the data (an alternative or a
/// condition on the value itself).
const SAME_LEVEL: &[&str] = &["not", "if", "then", "else"];
const SAME_LEVEL_LISTS: &[&str] = &["allOf", "anyOf", "oneOf"];
/// Keywords whose subschemas describe values inside this one.
const INSIDE: &[&str] =
    &["additionalProperties", "unevaluatedProperties", "additionalItems", "contains", "propertyNames"];
const INSIDE_MAPS: &[&str] = &["patternProperties", "dependentSchemas"];
const DEFINITIONS: &[&str] = &["$defs", "definitions"];

/// A subschema met on the walk.
pub struct Visit<'a> {
    pub schema: &'a Map<String, Value>,
    /// JSON pointer from the schema's root ("" for the root).
    pub pointer: &'a str,
    /// Set when this schema is the value of a `properties` entry: its name, and whether the
    /// object around it lists it in `required`.
    pub property: Option<Property<'a>>,
    /// How many object schemas hold this one (0 for the root and its alternatives).
    pub objects_above: usize,
    /// Under `$defs`: a definition, reached only through a `$ref` the loader could not inline.
    pub in_definitions: bool,
    /// Reached through `anyOf`, `oneOf`, `allOf`, `not`, `if`, `then` or `else`: a part of the
    /// schema above it (`property` is still that schema's), not a value of its own.
    pub branch: bool,
    /// For a branch, the schema it is a branch of (the nearest one that is not a branch).
    pub owner: Option<&'a Map<String, Value>>,
}

#[derive(Clone, Copy)]
pub struct Property<'a> {
    pub name: &'a str,
    pub required: bool,
}

impl Visit<'_> {
    pub fn is_root(&self) -> bool {
        self.pointer.is_empty()
    }
}

/// Whether a schema describes objects (says so, or lists properties without a type).
pub fn is_object(schema: &Map<String, Value>) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => schema.contains_key("properties"),
    }
}

/// The schema's type names (none when it says nothing).
pub fn types(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Appends one escaped pointer segment without allocating for the usual plain key.
pub fn push_escaped(pointer: &mut String, segment: &str) {
    if segment.contains(['~', '/']) {
        pointer.push_str(&segment.replace('~', "~0").replace('/', "~1"));
    } else {
        pointer.push_str(segment);
    }
}

/// Calls `visit` for the root and every subschema under it, parents before children.
pub fn walk(root: &Value, visit: &mut dyn FnMut(&Visit<'_>)) {
    let mut pointer = String::new();
    let place = Place { property: None, objects_above: 0, in_definitions: false, branch: false, owner: None };
    go(root, &mut pointer, place, 0, visit);
}

#[derive(Clone, Copy)]
struct Place<'a> {
    property: Option<Property<'a>>,
    objects_above: usize,
    in_definitions: bool,
    branch: bool,
    owner: Option<&'a Map<String, Value>>,
}

fn go<'a>(value: &'a Value, pointer: &mut String, place: Place<'a>, depth: usize, visit: &mut dyn FnMut(&Visit<'_>)) {
    let Value::Object(schema) = value else { return };
    // Loaded documents are at most MAX_DEPTH deep, but inlined `$ref`s may nest further.
    if depth > MAX_DEPTH {
        return;
    }
    let Place { property, objects_above, in_definitions, branch, owner } = place;
    visit(&Visit { schema, pointer, property, objects_above, in_definitions, branch, owner });
    let inner = Place {
        property: None,
        objects_above: objects_above + usize::from(is_object(schema)),
        in_definitions,
        branch: false,
        owner: None,
    };
    let same = Place { branch: true, owner: if branch { owner } else { Some(schema) }, ..place };
    let required: Vec<&str> = match schema.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for (keyword, child) in schema {
        let len = pointer.len();
        pointer.push('/');
        push_escaped(pointer, keyword);
        let keyword = keyword.as_str();
        match child {
            Value::Object(map) if keyword == "properties" => {
                for (name, property_schema) in map {
                    let len = pointer.len();
                    pointer.push('/');
                    push_escaped(pointer, name);
                    let property = Property { name, required: required.contains(&name.as_str()) };
                    go(property_schema, pointer, Place { property: Some(property), ..inner }, depth + 1, visit);
                    pointer.truncate(len);
                }
            }
            Value::Object(map) if INSIDE_MAPS.contains(&keyword) || DEFINITIONS.contains(&keyword) => {
                let under = if DEFINITIONS.contains(&keyword) {
                    Place { objects_above: 0, in_definitions: true, ..inner }
                } else {
                    inner
                };
                for (name, sub) in map {
                    let len = pointer.len();
                    pointer.push('/');
                    push_escaped(pointer, name);
                    go(sub, pointer, under, depth + 1, visit);
                    pointer.truncate(len);
                }
            }
            Value::Object(_) if keyword == "items" || INSIDE.contains(&keyword) => {
                go(child, pointer, inner, depth + 1, visit);
            }
            Value::Object(_) if SAME_LEVEL.contains(&keyword) => go(child, pointer, same, depth + 1, visit),
            Value::Array(list)
                if keyword == "items" || keyword == "prefixItems" || SAME_LEVEL_LISTS.contains(&keyword) =>
            {
                let same_level = SAME_LEVEL_LISTS.contains(&keyword);
                for (i, sub) in list.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    go(sub, pointer, if same_level { same } else { inner }, depth + 1, visit);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
        pointer.truncate(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_properties_and_depth() {
        let schema = json!({
            "type": "object",
            "required": ["a"],
            "properties": {
                "a": {"type": "object", "properties": {"b/c": {"type": "array", "items": {"type": "object", "properties": {"d": {}}}}}},
                "e": {"anyOf": [{"type": "object", "properties": {"f": {}}}, {"type": "null"}]}
            }
        });
        let mut seen = Vec::new();
        walk(&schema, &mut |v| {
            seen.push((v.pointer.to_string(), v.property.map(|p| (p.name.to_string(), p.required)), v.objects_above))
        });
        let find = |p: &str| seen.iter().find(|(pointer, _, _)| pointer == p).cloned().unwrap();
        assert_eq!(find(""), ("".into(), None, 0));
        assert_eq!(find("/properties/a").1, Some(("a".into(), true)));
        assert_eq!(find("/properties/a/properties/b~1c").2, 2);
        assert_eq!(find("/properties/a/properties/b~1c/items").2, 2);
        assert_eq!(find("/properties/a/properties/b~1c/items/properties/d").2, 3);
        // An alternative of a property is that property, at its level.
        assert_eq!(find("/properties/e/anyOf/0").1, Some(("e".into(), false)));
        assert_eq!(find("/properties/e/anyOf/0").2, 1);
        assert_eq!(find("/properties/e/anyOf/0/properties/f").2, 2);
    }
}
