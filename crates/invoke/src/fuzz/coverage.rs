//! The deterministic phases: the schema's own examples and defaults, then coverage (each bound
//! and one past it, each enum value and `oneOf`/`anyOf` option, each optional field present
//! and absent, empty strings, zero, negative numbers), each placed into the smallest valid
//! arguments so one call tests one thing.

use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::{Map, Value, json};

use super::schema::{self, Range};
use super::valid::{Generator, with_siblings};
use crate::catalog::{Example, Tool};

/// Fields deeper than this are not covered one by one.
const MAX_COVER_DEPTH: usize = 3;
/// Non-ASCII text for a string field: accents, CJK, emoji, right-to-left.
const NON_ASCII: &str = "é日本🎉مرحبا";

/// The tool's examples, the schema's `examples`/`default`, and the arguments its defaults make.
pub fn examples(tool: &Tool) -> Vec<Value> {
    let mut found: Vec<Value> = Vec::new();
    for example in &tool.examples {
        if let Example::Arguments(value) = example {
            found.push(value.clone());
        }
    }
    let root = &tool.input_schema;
    for example in root.get("examples").and_then(Value::as_array).into_iter().flatten() {
        found.push(example.clone());
    }
    if let Some(default) = root.get("default") {
        found.push(default.clone());
    }
    let generator = Generator::new(root);
    let mut defaults = Map::new();
    let mut with_examples = Map::new();
    for (name, property, _) in schema::properties(root) {
        let property = schema::resolve(root, property);
        if let Some(default) = property.get("default") {
            defaults.insert(name.to_string(), default.clone());
        }
        if let Some(example) = property.get("examples").and_then(Value::as_array).and_then(|e| e.first()) {
            with_examples.insert(name.to_string(), example.clone());
        }
    }
    let minimal = minimal(&generator, root, 0);
    for fields in [defaults, with_examples] {
        if fields.is_empty() {
            continue;
        }
        let mut arguments = minimal.clone();
        if let Value::Object(map) = &mut arguments {
            map.extend(fields);
        }
        found.push(arguments);
    }
    dedup(&mut found);
    found
}

/// The smallest value `schema` should accept: its default, const or first enum value, else the
/// least of its type (required fields only, minimum lengths and counts, the number nearest 0).
pub fn minimal(generator: &Generator, schema: &Value, depth: usize) -> Value {
    // A schema that requires itself has no finite value: stop somewhere.
    if depth > 32 {
        return Value::Null;
    }
    let resolved = schema::resolve(generator.root(), schema);
    let schema = resolved.as_ref();
    if let Some(value) = schema.get("const").or_else(|| schema.get("default")) {
        return value.clone();
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|o| o.first()) {
            return minimal(generator, &with_siblings(schema, first, key), depth + 1);
        }
    }
    match schema::type_of(schema) {
        Some("object") => {
            let mut map = Map::new();
            for (name, property, required) in schema::properties(schema) {
                if required {
                    map.insert(name.to_string(), minimal(generator, property, depth + 1));
                }
            }
            for name in schema::undeclared_required(schema) {
                map.insert(name.to_string(), json!("a"));
            }
            Value::Object(map)
        }
        Some("array") => {
            let items = schema.get("items").filter(|_| depth < 16);
            let count = schema::count(schema, "minItems").unwrap_or(0).min(10_000);
            let prefix = schema.get("prefixItems").and_then(Value::as_array);
            Value::Array(
                (0..count)
                    .map(|i| match prefix.and_then(|p| p.get(i)).or(items) {
                        Some(item) => minimal(generator, item, depth + 1),
                        None => Value::from(i),
                    })
                    .collect(),
            )
        }
        Some("string") => Value::String(seeded_string(generator, schema)),
        Some("integer") | Some("number") => {
            let (low, high) = Range::of(schema).inclusive(1.0);
            let nearest = 0.0_f64.max(low.unwrap_or(f64::MIN)).min(high.unwrap_or(f64::MAX));
            schema::json_number(nearest)
        }
        Some("boolean") => Value::Bool(false),
        _ => Value::Null,
    }
}

/// A string for `schema` that is the same on every run: a pattern's or a format's from a fixed
/// seed, else `minLength` letters.
fn seeded_string(generator: &Generator, schema: &Value) -> String {
    if schema.get("pattern").is_some() || schema.get("format").is_some() {
        return generator.string(schema, &mut StdRng::seed_from_u64(0));
    }
    let length = schema::count(schema, "minLength").unwrap_or(0).max(1);
    "a".repeat(length.min(schema::count(schema, "maxLength").unwrap_or(usize::MAX)).min(100_000))
}

/// The coverage phase's arguments: the smallest valid ones, all optional fields present, then
/// one value per bound, enum value and option of each field (valid or not: the validator says).
pub fn coverage(generator: &Generator) -> Vec<Value> {
    let root = generator.root();
    let base = minimal(generator, root, 0);
    let mut out = vec![base.clone(), full(generator, root)];
    let mut fields = Vec::new();
    collect_fields(generator, root, &mut Vec::new(), &mut fields, 0);
    for (path, property, required) in fields {
        if !required {
            // Present (at its smallest); absent is the base itself.
            out.push(with_at(&base, &path, Some(minimal(generator, &property, 0))));
        } else {
            out.push(with_at(&base, &path, None));
        }
        for value in edge_values(generator, &property) {
            out.push(with_at(&base, &path, Some(value)));
        }
        for value in item_variations(generator, &property) {
            out.push(with_at(&base, &path, Some(value)));
        }
    }
    dedup(&mut out);
    out
}

/// For an array of objects: the array at its smallest with its first item changed one field at
/// a time, as top-level fields are (each optional field present, each required one absent, the
/// edges of each), so that what is inside the items is covered too.
fn item_variations(generator: &Generator, schema: &Value) -> Vec<Value> {
    if schema::type_of(schema) != Some("array") || schema::count(schema, "maxItems") == Some(0) {
        return Vec::new();
    }
    let Some(items) = schema.get("items").filter(|i| i.is_object()) else { return Vec::new() };
    let items = schema::resolve(generator.root(), items).into_owned();
    if schema::type_of(&items) != Some("object") {
        return Vec::new();
    }
    let base_item = minimal(generator, &items, 1);
    let others = schema::count(schema, "minItems").unwrap_or(1).clamp(1, 100) - 1;
    let array_with =
        |first: Value| Value::Array(std::iter::once(first).chain(vec![base_item.clone(); others]).collect());
    let mut out = vec![array_with(base_item.clone())];
    for (name, property, required) in schema::properties(&items) {
        let path = [name.to_string()];
        let property = schema::resolve(generator.root(), property).into_owned();
        let present = (!required).then(|| minimal(generator, &property, 1));
        out.push(array_with(with_at(&base_item, &path, present)));
        for value in edge_values(generator, &property) {
            out.push(array_with(with_at(&base_item, &path, Some(value))));
        }
    }
    out
}

/// Every optional field present, at its smallest.
fn full(generator: &Generator, schema: &Value) -> Value {
    let resolved = schema::resolve(generator.root(), schema);
    let mut map = Map::new();
    for (name, property, _) in schema::properties(&resolved) {
        map.insert(name.to_string(), minimal(generator, property, 1));
    }
    match minimal(generator, schema, 0) {
        Value::Object(mut base) => {
            for (name, value) in map {
                base.entry(name).or_insert(value);
            }
            Value::Object(base)
        }
        other => other,
    }
}

/// (path, schema, required) of every field down to [`MAX_COVER_DEPTH`].
fn collect_fields(
    generator: &Generator,
    schema: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Value, bool)>,
    depth: usize,
) {
    let resolved = schema::resolve(generator.root(), schema);
    for (name, property, required) in schema::properties(&resolved) {
        path.push(name.to_string());
        let property = schema::resolve(generator.root(), property).into_owned();
        out.push((path.clone(), property.clone(), required));
        // Nested fields only of a required object: the base has it to put them in.
        if required && depth + 1 < MAX_COVER_DEPTH && schema::type_of(&property) == Some("object") {
            collect_fields(generator, &property, path, out, depth + 1);
        }
        path.pop();
    }
}

/// The values at and around a field's edges.
fn edge_values(generator: &Generator, schema: &Value) -> Vec<Value> {
    let mut values = Vec::new();
    if let Some(Value::Array(options)) = schema.get("enum") {
        values.extend(options.iter().cloned());
        return values;
    }
    for key in ["oneOf", "anyOf"] {
        for option in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            values.push(minimal(generator, &with_siblings(schema, option, key), 1));
        }
    }
    // A list of types: the edges of each (the first's come last, below, as for a single type).
    for other in schema::several_types(schema).into_iter().skip(1) {
        let narrowed = schema::with_type(schema, other);
        values.push(minimal(generator, &narrowed, 1));
        values.extend(edge_values(generator, &narrowed));
    }
    match schema::type_of(schema) {
        Some(kind @ ("integer" | "number")) => {
            let step = if kind == "integer" { 1.0 } else { 0.5 };
            let range = Range::of(schema);
            for (edge, exclusive, outward) in
                [(range.low, range.low_exclusive, -step), (range.high, range.high_exclusive, step)]
            {
                let Some(edge) = edge else { continue };
                values.push(schema::json_number(edge));
                values.push(schema::json_number(edge + outward));
                // Just inside an exclusive bound.
                if exclusive {
                    values.push(schema::json_number(edge - outward));
                }
            }
            values.extend([json!(0), json!(-1), json!(1)]);
            if kind == "number" {
                values.push(json!(0.5));
            }
            values.extend(unbounded_edges(kind == "integer", range.low.is_none(), range.high.is_none()));
        }
        Some("string") => {
            values.push(json!(""));
            for key in ["minLength", "maxLength"] {
                if let Some(n) = schema::count(schema, key) {
                    for length in [n.saturating_sub(1), n, n + 1] {
                        values.push(Value::String("a".repeat(length.min(100_000))));
                    }
                }
            }
            values.push(json!(NON_ASCII));
            values.extend(ODD_STRINGS.iter().map(|s| json!(s)));
            if schema::count(schema, "maxLength").is_none() {
                values.push(Value::String(LONG_PIECE.repeat(LONG_REPEAT)));
            }
        }
        Some("array") => {
            let item = schema.get("items").map(|i| minimal(generator, i, 1)).unwrap_or(json!(0));
            values.push(json!([]));
            for key in ["minItems", "maxItems"] {
                if let Some(n) = schema::count(schema, key) {
                    for length in [n.saturating_sub(1), n, n + 1] {
                        values.push(Value::Array(vec![item.clone(); length.min(10_000)]));
                    }
                }
            }
        }
        Some("boolean") => values.extend([json!(true), json!(false)]),
        _ => {}
    }
    values
}

/// Text servers get wrong: combining marks stacked on one letter, an emoji of several code
/// points joined, right-to-left text mixed with digits.
const ODD_STRINGS: &[&str] = &["e\u{301}\u{302}\u{323}", "👩‍💻🏳️‍🌈", "שלום 123 abc"];
/// A very long string (about 10,000 characters of mixed text) for a field without `maxLength`.
const LONG_PIECE: &str = "ab é🎉 ";
const LONG_REPEAT: usize = 2_000;

/// Numbers at the far ends a field without a bound allows: large magnitudes of both signs
/// (past 32 bits and past the 53 bits a float holds exactly), and for a `number` also -0, the
/// largest and the tiniest floats. An output schema's `minimum: 0` broken at -300 °C is found
/// here, not by drawing between -1000 and 1000.
fn unbounded_edges(integer: bool, no_low: bool, no_high: bool) -> Vec<Value> {
    let mut values = Vec::new();
    let mut side = |sign: i64| {
        values.extend([json!(sign * 1_000_000), json!(sign * 9_007_199_254_740_993)]);
        if !integer {
            values.push(json!(sign as f64 * 1.7e308));
        }
    };
    if no_low {
        side(-1);
    }
    if no_high {
        side(1);
    }
    if !integer {
        values.extend([serde_json::Number::from_f64(-0.0).map_or(Value::Null, Value::Number), json!(5e-324)]);
    }
    values
}

/// `base` with the field at `path` set to `value`, or removed for `None`.
pub fn with_at(base: &Value, path: &[String], value: Option<Value>) -> Value {
    let mut out = base.clone();
    let Some((last, parents)) = path.split_last() else { return value.unwrap_or(out) };
    let mut at = &mut out;
    for name in parents {
        let Value::Object(map) = at else { return base.clone() };
        at = map.entry(name.clone()).or_insert_with(|| json!({}));
    }
    if let Value::Object(map) = at {
        match value {
            Some(value) => {
                map.insert(last.clone(), value);
            }
            None => {
                map.remove(last);
            }
        }
    }
    out
}

/// Drops repeats, keeping the first of each.
fn dedup(values: &mut Vec<Value>) {
    let mut seen = std::collections::HashSet::new();
    values.retain(|v| seen.insert(v.to_string()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_reaches_each_bound_and_one_past_it() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 1, "maximum": 10},
                "s": {"type": "string", "maxLength": 3},
                "mode": {"enum": ["a", "b"]},
                "opt": {"type": "boolean"}
            },
            "required": ["n", "s"]
        });
        let generator = Generator::new(&schema);
        let cases = coverage(&generator);
        let has = |want: Value| {
            cases.iter().any(|c| {
                c.as_object().is_some_and(|m| want.as_object().unwrap().iter().all(|(k, v)| m.get(k) == Some(v)))
            })
        };
        for n in [0, 1, 10, 11] {
            assert!(has(json!({"n": n})), "n = {n} in {cases:?}");
        }
        assert!(has(json!({"s": "aaaa"})));
        assert!(has(json!({"s": ""})));
        assert!(has(json!({"mode": "b"})));
        assert!(has(json!({"opt": true})));
        assert!(cases.iter().any(|c| c.get("n").is_none()), "a required field left out");
        assert_eq!(cases[0], json!({"n": 1, "s": "a"}));
    }

    #[test]
    fn coverage_reaches_the_fields_of_array_items() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tasks": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"title": {"type": "string"}, "priority": {"type": "integer", "maximum": 5}},
                        "required": ["title"]
                    }
                }
            },
            "required": ["tasks"]
        });
        let cases = coverage(&Generator::new(&schema));
        let has_item = |want: Value| cases.iter().any(|c| c["tasks"].get(0) == Some(&want));
        assert!(has_item(json!({"title": "a"})), "{cases:?}");
        assert!(has_item(json!({})), "the required field of an item absent: {cases:?}");
        assert!(has_item(json!({"title": "a", "priority": 6})), "one past an item's bound: {cases:?}");
        assert!(has_item(json!({"title": ""})), "{cases:?}");
    }

    #[test]
    fn examples_and_defaults_come_first() {
        let text = json!({"name": "t", "parameters": {"type": "object", "properties": {
            "q": {"type": "string", "default": "hello"}, "n": {"type": "integer", "examples": [7]}}}});
        let (tools, _) = crate::catalog::load_text("t.json", &text.to_string(), &Default::default());
        let found = examples(&tools[0]);
        assert!(found.contains(&json!({"q": "hello"})), "{found:?}");
        assert!(found.contains(&json!({"n": 7})), "{found:?}");
    }
}
