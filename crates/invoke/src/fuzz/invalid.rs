//! Random invalid arguments: a valid value with one thing broken (a required field missing, a
//! wrong type, a value past a bound, a string outside its pattern, an extra property where none
//! is allowed). The validator has the last word on whether it is invalid.

use rand::RngExt;
use rand::rngs::StdRng;
use serde_json::{Value, json};

use super::schema::{self, Range};
use super::valid::Generator;

/// The field name an extra property gets: plain enough to pass through any server.
pub const EXTRA_PROPERTY: &str = "unexpected_field";
/// Items of an array whose insides are broken, at most (the first ones).
const MAX_ITEMS_BROKEN: usize = 3;

/// `valid` with one thing broken, chosen at random among what the schema allows breaking;
/// `None` when it allows nothing (the arguments stay an object: MCP sends no other kind).
pub fn break_one(generator: &Generator, valid: &Value, rng: &mut StdRng) -> Option<Value> {
    let mut out = valid.clone();
    let mut breaks = Vec::new();
    collect(generator, generator.root(), &out, &mut Vec::new(), &mut breaks, 0);
    breaks.retain(|(path, how)| !(path.is_empty() && matches!(how, Break::WrongType(_))));
    if breaks.is_empty() {
        return None;
    }
    let (path, how) = breaks.swap_remove(rng.random_range(0..breaks.len()));
    apply(&mut out, &path, how, rng);
    Some(out)
}

/// `valid` with the field at `at` broken (a wrong type, past a bound, outside its pattern, or
/// left out when required), chosen at random; `None` when the schema allows no such break there.
pub fn break_at(generator: &Generator, valid: &Value, at: &[String], rng: &mut StdRng) -> Option<Value> {
    let mut out = valid.clone();
    let mut breaks = Vec::new();
    collect(generator, generator.root(), &out, &mut Vec::new(), &mut breaks, 0);
    let name = at.last()?;
    breaks.retain(|(path, how)| match how {
        Break::RemoveRequired(field) => field == name && at.len() == path.len() + 1 && at.starts_with(path),
        Break::Extra => false,
        _ => path == at,
    });
    if breaks.is_empty() {
        return None;
    }
    let (path, how) = breaks.swap_remove(rng.random_range(0..breaks.len()));
    apply(&mut out, &path, how, rng);
    Some(out)
}

#[derive(Debug, Clone)]
enum Break {
    RemoveRequired(String),
    WrongType(String),
    PastBound(Value),
    OutsidePattern,
    Extra,
}

/// Every way to break `value` under `schema`, each with the path of the object or field it
/// applies to.
fn collect(
    generator: &Generator,
    schema: &Value,
    value: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Break)>,
    depth: usize,
) {
    if depth > 6 {
        return;
    }
    let resolved = schema::resolve(generator.root(), schema);
    let schema = resolved.as_ref();
    let kind = schema::type_of(schema);
    if let Some(kind) = kind {
        out.push((path.clone(), Break::WrongType(kind.to_string())));
    }
    match (kind, value) {
        (Some("object"), Value::Object(map)) => {
            for (name, property, required) in schema::properties(schema) {
                if required && map.contains_key(name) {
                    out.push((path.clone(), Break::RemoveRequired(name.to_string())));
                }
                if let Some(child) = map.get(name) {
                    path.push(name.to_string());
                    collect(generator, property, child, path, out, depth + 1);
                    path.pop();
                }
            }
            if schema::closed(schema) {
                out.push((path.clone(), Break::Extra));
            }
        }
        (Some("string"), _) => {
            if let Some(n) = schema::count(schema, "maxLength") {
                out.push((path.clone(), Break::PastBound(Value::String("x".repeat(n.saturating_add(1).min(100_000))))));
            }
            if let Some(n) = schema::count(schema, "minLength").filter(|n| *n > 0) {
                out.push((path.clone(), Break::PastBound(Value::String("x".repeat((n - 1).min(100_000))))));
            }
            if schema.get("pattern").is_some() {
                out.push((path.clone(), Break::OutsidePattern));
            }
            if let Some(Value::Array(options)) = schema.get("enum") {
                let mut outside = String::from("not-");
                outside.push_str(options.first().and_then(Value::as_str).unwrap_or("listed"));
                out.push((path.clone(), Break::PastBound(Value::String(outside))));
            }
        }
        (Some(kind @ ("integer" | "number")), _) => {
            let step = if kind == "integer" { 1.0 } else { 0.5 };
            let (low, high) = Range::of(schema).inclusive(step);
            if let Some(low) = low {
                out.push((path.clone(), Break::PastBound(schema::json_number(low - step))));
            }
            if let Some(high) = high {
                out.push((path.clone(), Break::PastBound(schema::json_number(high + step))));
            }
            if kind == "integer" {
                out.push((path.clone(), Break::PastBound(json!(0.5))));
            }
        }
        (Some("array"), Value::Array(items)) => {
            // The fields of the items too, as of top-level objects: a store that saves an item
            // without its required fields is found by a later read failing.
            let prefix = schema.get("prefixItems").and_then(Value::as_array);
            let item_schema = schema.get("items").filter(|i| i.is_object());
            for (i, item) in items.iter().enumerate().take(MAX_ITEMS_BROKEN) {
                if let Some(item_schema) = prefix.and_then(|p| p.get(i)).or(item_schema) {
                    path.push(i.to_string());
                    collect(generator, item_schema, item, path, out, depth + 1);
                    path.pop();
                }
            }
            if let Some(n) = schema::count(schema, "maxItems") {
                let filler = items.first().cloned().unwrap_or(json!(0));
                out.push((path.clone(), Break::PastBound(Value::Array(vec![filler; n.saturating_add(1).min(10_000)]))));
            }
            if let Some(n) = schema::count(schema, "minItems").filter(|n| *n > 0) {
                out.push((path.clone(), Break::PastBound(Value::Array(items.iter().take(n - 1).cloned().collect()))));
            }
        }
        _ => {}
    }
}

fn apply(root: &mut Value, path: &[String], how: Break, rng: &mut StdRng) {
    let mut at = root;
    for name in path {
        // A step into an array is the item's index.
        let next = match at {
            Value::Array(items) => name.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
            other => other.get_mut(name),
        };
        match next {
            Some(next) => at = next,
            None => return,
        }
    }
    match how {
        Break::RemoveRequired(name) => {
            if let Value::Object(map) = at {
                map.remove(&name);
            }
        }
        Break::WrongType(kind) => *at = wrong_type(&kind, rng),
        Break::PastBound(value) => *at = value,
        // Characters few patterns allow, with one that none of the usual ones do.
        Break::OutsidePattern => *at = json!(" \u{0}~!"),
        Break::Extra => {
            if let Value::Object(map) = at {
                map.insert(EXTRA_PROPERTY.to_string(), json!(1));
            }
        }
    }
}

fn wrong_type(kind: &str, rng: &mut StdRng) -> Value {
    let choices: &[Value] = &[json!("text"), json!(12345), json!(true), json!(null), json!([1, 2]), json!({"a": 1})];
    let fits = |v: &Value| match kind {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    };
    let wrong: Vec<&Value> = choices.iter().filter(|v| !fits(v)).collect();
    wrong[rng.random_range(0..wrong.len())].clone()
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn broken_arguments_are_mostly_invalid() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 1, "maximum": 10},
                "s": {"type": "string", "pattern": "^[a-z]+$"},
                "list": {"type": "array", "items": {"type": "string"}, "maxItems": 2}
            },
            "required": ["n", "s"],
            "additionalProperties": false
        });
        let generator = Generator::new(&schema);
        let validator = jsonschema::validator_for(&schema).unwrap();
        let mut rng = StdRng::seed_from_u64(1);
        let mut invalid = 0;
        for _ in 0..300 {
            let valid = generator.arguments(&mut rng);
            assert!(validator.is_valid(&valid), "{valid}");
            if break_one(&generator, &valid, &mut rng).is_some_and(|broken| !validator.is_valid(&broken)) {
                invalid += 1;
            }
        }
        assert!(invalid > 280, "{invalid} of 300 broken");
    }

    #[test]
    fn the_fields_of_array_items_are_broken_too() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tasks": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {"title": {"type": "string"}, "done": {"type": "boolean"}},
                        "required": ["title"]
                    }
                }
            },
            "required": ["tasks"]
        });
        let generator = Generator::new(&schema);
        let validator = jsonschema::validator_for(&schema).unwrap();
        let mut rng = StdRng::seed_from_u64(3);
        let (mut missing_title, mut wrong_type_inside) = (0, 0);
        for _ in 0..300 {
            let valid = generator.arguments(&mut rng);
            let Some(broken) = break_one(&generator, &valid, &mut rng) else { continue };
            let Some(first) = broken["tasks"].as_array().and_then(|t| t.first()) else { continue };
            if !validator.is_valid(&broken) && first.is_object() && first.get("title").is_none() {
                missing_title += 1;
            }
            if first.get("done").is_some_and(|d| !d.is_boolean()) || first.get("title").is_some_and(|t| !t.is_string())
            {
                wrong_type_inside += 1;
            }
        }
        assert!(missing_title > 5, "an item without its required field: {missing_title} of 300");
        assert!(wrong_type_inside > 5, "a field of an item of the wrong type: {wrong_type_inside} of 300");
    }
}
