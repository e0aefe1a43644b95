//! Random valid arguments from a schema: every type, formats (email, uri, date-time, uuid, ...),
//! patterns through a regex generator, nested objects and arrays, unicode and long strings. The
//! validator has the last word: what it refuses is sent as an invalid input instead.

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{Rng, RngExt};
use serde_json::{Map, Value};

use super::schema::{self, Range};

/// Nesting deeper than this gets the smallest value that fits.
const MAX_DEPTH: usize = 8;
/// Strings past this many characters are only made when a schema asks for them.
const LONG: usize = 2_000;
/// Schemas may ask for any size; what is made stays within these (a value past them is simply
/// judged invalid by the validator).
const MAX_STRING: usize = 100_000;
const MAX_ITEMS: usize = 1_000;
/// Numbers beyond this are not drawn from (a range wider than floats can span cannot be sampled).
const MAX_MAGNITUDE: f64 = 1e15;
/// A pattern's `*` and `+` repeat at most this often.
const MAX_REPEAT: u32 = 12;

/// Text with a touch of everything servers get wrong: accents, CJK, emoji, right-to-left,
/// combining marks, quotes and backslashes.
const ODD_TEXT: &[&str] = &[
    "é",
    "ß",
    "日本",
    "🎉",
    "👩‍💻",
    "مرحبا",
    "e\u{301}",
    "\"",
    "'",
    "\\",
    "<b>",
    "%s",
    "{}",
    " ",
    "\t",
    "Ω",
    "ǅ",
    "\u{a0}",
];
const WORDS: &[&str] =
    &["alpha", "beta", "x", "hello", "42", "test", "a b", "Z", "null", "0", "-", "_", "path/to", "ok"];

/// A schema's generators, with its patterns compiled once.
pub struct Generator {
    root: Value,
    patterns: HashMap<String, Option<rand_regex::Regex>>,
}

impl Generator {
    pub fn new(root: &Value) -> Generator {
        let mut found = Vec::new();
        schema::patterns(root, &mut found, 0);
        let patterns = found
            .into_iter()
            .map(|pattern| {
                let compiled = rand_regex::Regex::compile(unanchored(&pattern), MAX_REPEAT).ok();
                (pattern, compiled)
            })
            .collect();
        Generator { root: root.clone(), patterns }
    }

    pub fn root(&self) -> &Value {
        &self.root
    }

    /// Random arguments for the whole schema.
    pub fn arguments(&self, rng: &mut StdRng) -> Value {
        self.value(&self.root, rng, 0)
    }

    /// A random value that `schema` should accept.
    pub fn value(&self, schema: &Value, rng: &mut StdRng, depth: usize) -> Value {
        // A schema that requires itself has no finite value: stop somewhere.
        if depth > 4 * MAX_DEPTH {
            return Value::Null;
        }
        let resolved = schema::resolve(&self.root, schema);
        let schema = resolved.as_ref();
        if let Some(value) = schema.get("const") {
            return value.clone();
        }
        if let Some(Value::Array(options)) = schema.get("enum")
            && !options.is_empty()
        {
            return options[rng.random_range(0..options.len())].clone();
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(options)) = schema.get(key)
                && !options.is_empty()
            {
                let pick = &options[rng.random_range(0..options.len())];
                return self.value(&with_siblings(schema, pick, key), rng, depth + 1);
            }
        }
        if schema::also_allows_null(schema) && rng.random_ratio(1, 10) {
            return Value::Null;
        }
        // A list of types: each is drawn, not only the first.
        let types = schema::several_types(schema);
        if !types.is_empty() {
            let pick = types[rng.random_range(0..types.len())];
            return self.value(&schema::with_type(schema, pick), rng, depth + 1);
        }
        match schema::type_of(schema) {
            Some("object") => self.object(schema, rng, depth),
            Some("array") => self.array(schema, rng, depth),
            Some("string") => Value::String(self.string(schema, rng)),
            Some("integer") => integer(schema, rng),
            Some("number") => number(schema, rng),
            Some("boolean") => Value::Bool(rng.random_bool(0.5)),
            Some("null") => Value::Null,
            _ => match rng.random_range(0..4) {
                0 => Value::String(WORDS[rng.random_range(0..WORDS.len())].to_string()),
                1 => Value::from(rng.random_range(-100..100)),
                2 => Value::Bool(rng.random_bool(0.5)),
                _ => Value::Null,
            },
        }
    }

    fn object(&self, schema: &Value, rng: &mut StdRng, depth: usize) -> Value {
        let mut map = Map::new();
        for (name, property, required) in schema::properties(schema) {
            // Past the depth limit only what must be there is made.
            let include = required || (depth < MAX_DEPTH && rng.random_bool(0.6));
            if include {
                map.insert(name.to_string(), self.value(property, rng, depth + 1));
            }
        }
        for name in schema::undeclared_required(schema) {
            map.insert(name.to_string(), Value::String(WORDS[rng.random_range(0..WORDS.len())].to_string()));
        }
        Value::Object(map)
    }

    fn array(&self, schema: &Value, rng: &mut StdRng, depth: usize) -> Value {
        let low = schema::count(schema, "minItems").unwrap_or(0).min(MAX_ITEMS);
        let high = schema::count(schema, "maxItems").unwrap_or(low + 4).clamp(low, MAX_ITEMS);
        let room = if depth >= MAX_DEPTH { 0 } else { (high - low).min(6) };
        let length = low + rng.random_range(0..=room);
        let prefix = schema.get("prefixItems").and_then(Value::as_array);
        let items = schema.get("items").filter(|i| i.is_object());
        let unique = schema.get("uniqueItems") == Some(&Value::Bool(true));
        let mut values: Vec<Value> = Vec::with_capacity(length);
        let mut tries = 0;
        while values.len() < length && tries < length * 4 + 8 {
            tries += 1;
            let item_schema = prefix.and_then(|p| p.get(values.len())).or(items);
            let value = match item_schema {
                Some(s) => self.value(s, rng, depth + 1),
                None => Value::from(rng.random_range(0..1000)),
            };
            if unique && values.contains(&value) {
                continue;
            }
            values.push(value);
        }
        Value::Array(values)
    }

    /// A string within the schema's lengths: its format's or its pattern's when it has one.
    pub fn string(&self, schema: &Value, rng: &mut StdRng) -> String {
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
            && let Some(Some(regex)) = self.patterns.get(pattern)
        {
            return rng.sample::<String, _>(regex);
        }
        if let Some(format) = schema.get("format").and_then(Value::as_str)
            && let Some(text) = formatted(format, rng)
        {
            return text;
        }
        let low = schema::count(schema, "minLength").unwrap_or(0).min(MAX_STRING);
        let high = schema::count(schema, "maxLength").unwrap_or(usize::MAX).clamp(low, MAX_STRING);
        let target = match rng.random_range(0..20) {
            0 => low,
            1 => high.min(LONG.max(low)),
            _ => rng.random_range(low..=high.min(low + 24)),
        };
        text_of_length(target, rng)
    }
}

/// `pattern` without the `^`/`$` anchors the regex generator cannot take (JSON Schema patterns
/// match anywhere, so a generated match of the rest still matches).
fn unanchored(pattern: &str) -> &str {
    let pattern = pattern.strip_prefix('^').unwrap_or(pattern);
    match pattern.strip_suffix('$') {
        Some(rest) if !rest.ends_with('\\') => rest,
        _ => pattern,
    }
}

/// A `oneOf`/`anyOf` option with its parent's other keywords (a shared `type`, `properties`).
pub fn with_siblings(parent: &Value, option: &Value, key: &str) -> Value {
    let mut merged = parent.as_object().cloned().unwrap_or_default();
    merged.remove(key);
    if let Value::Object(own) = option {
        if merged.is_empty() {
            return option.clone();
        }
        let wrapped = Value::Object(merged);
        return Value::Object(Map::from_iter([(
            "allOf".to_string(),
            Value::Array(vec![wrapped, Value::Object(own.clone())]),
        )]));
    }
    option.clone()
}

/// `length` characters, mostly plain words, sometimes unicode and symbols.
pub fn text_of_length(length: usize, rng: &mut StdRng) -> String {
    let mut text = String::with_capacity(length);
    let mut count = 0;
    while count < length {
        let piece = if rng.random_ratio(1, 6) {
            ODD_TEXT[rng.random_range(0..ODD_TEXT.len())]
        } else {
            WORDS[rng.random_range(0..WORDS.len())]
        };
        for c in piece.chars() {
            if count == length {
                break;
            }
            text.push(c);
            count += 1;
        }
    }
    text
}

/// A random value in the format's shape; `None` for formats not known here.
fn formatted(format: &str, rng: &mut StdRng) -> Option<String> {
    let n = |rng: &mut StdRng, high: u32| rng.random_range(0..high);
    Some(match format {
        "email" | "idn-email" => format!("{}{}@example.com", WORDS[n(rng, 3) as usize], n(rng, 1000)),
        "uri" | "url" | "iri" => format!("https://example.com/{}/{}", n(rng, 100), n(rng, 1000)),
        "uri-reference" | "iri-reference" => format!("/items/{}", n(rng, 1000)),
        "date-time" => {
            let (y, mo, d, h, mi, s) =
                (1970 + n(rng, 100), 1 + n(rng, 12), 1 + n(rng, 28), n(rng, 24), n(rng, 60), n(rng, 60));
            format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
        }
        "date" => format!("{:04}-{:02}-{:02}", 1970 + n(rng, 100), 1 + n(rng, 12), 1 + n(rng, 28)),
        "time" => format!("{:02}:{:02}:{:02}Z", n(rng, 24), n(rng, 60), n(rng, 60)),
        "uuid" => {
            let mut bytes = [0u8; 16];
            rng.fill_bytes(&mut bytes);
            uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
        }
        "ipv4" => format!("{}.{}.{}.{}", n(rng, 256), n(rng, 256), n(rng, 256), n(rng, 256)),
        "ipv6" => format!("2001:db8::{:x}", n(rng, 65536)),
        "hostname" | "idn-hostname" => format!("host{}.example.com", n(rng, 1000)),
        "duration" => format!("PT{}M", n(rng, 600)),
        _ => return None,
    })
}

fn integer(schema: &Value, rng: &mut StdRng) -> Value {
    let (low, high) = Range::of(schema).inclusive(1.0);
    let low = low.map_or(i64::MIN, |l| l.ceil() as i64);
    let high = high.map_or(i64::MAX, |h| h.floor() as i64);
    let (low, high) = (low, high.max(low));
    let step = schema::number(schema, "multipleOf").filter(|m| *m >= 1.0 && m.fract() == 0.0).map(|m| m as i64);
    let value = match rng.random_range(0..12) {
        0 => low.max(i64::from(i32::MIN)),
        1 => high.min(i64::from(i32::MAX)),
        // Large magnitudes of both signs, within the bounds.
        2 => (-(10i64.pow(rng.random_range(3..18)))).clamp(low, high),
        3 => 10i64.pow(rng.random_range(3..18)).clamp(low, high),
        _ => {
            // Small numbers, unless the bounds are far from zero.
            let from = low.max(-1000.min(high));
            let to = high.min(1000.max(from));
            rng.random_range(from..=to)
        }
    };
    match step {
        Some(step) => Value::from((value / step) * step),
        None => Value::from(value),
    }
}

fn number(schema: &Value, rng: &mut StdRng) -> Value {
    if schema::number(schema, "multipleOf").is_some() {
        return integer(schema, rng);
    }
    let range = Range::of(schema);
    let (low, high) = range.inclusive(1e-6);
    let from = low.unwrap_or(-1000.0_f64.min(high.unwrap_or(0.0))).clamp(-MAX_MAGNITUDE, MAX_MAGNITUDE);
    let to = high.unwrap_or(1000.0_f64.max(from)).clamp(from, MAX_MAGNITUDE.max(from));
    // Now and then a far value, where the range allows: magnitudes from 1e-10 to 1e300 of
    // either sign (numbers drawn only near zero never break a `minimum: 0` on the output).
    if rng.random_ratio(1, 8) {
        let sign = if rng.random_bool(0.5) { -1.0 } else { 1.0 };
        let far = sign * 10f64.powf(rng.random_range(-10.0..300.0));
        if low.is_none_or(|l| far >= l) && high.is_none_or(|h| far <= h) {
            return schema::json_number(far);
        }
    }
    let x = if rng.random_ratio(1, 3) {
        rng.random_range(from.ceil()..=to.floor().max(from.ceil()))
    } else {
        rng.random_range(from..=to)
    };
    schema::json_number(x)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use serde_json::json;

    use super::*;

    fn valid_share(schema: &Value, n: usize) -> usize {
        let generator = Generator::new(schema);
        let validator = jsonschema::options().should_validate_formats(true).build(schema).unwrap();
        let mut rng = StdRng::seed_from_u64(7);
        (0..n).filter(|_| validator.is_valid(&generator.arguments(&mut rng))).count()
    }

    #[test]
    fn random_arguments_meet_the_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2, "maxLength": 10},
                "email": {"type": "string", "format": "email"},
                "when": {"type": "string", "format": "date-time"},
                "id": {"type": "string", "format": "uuid"},
                "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"},
                "count": {"type": "integer", "minimum": 1, "maximum": 5},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
                "mode": {"enum": ["fast", "slow"]},
                "nested": {"$ref": "#/$defs/point"},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
            },
            "required": ["name", "count", "code"],
            "additionalProperties": false,
            "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}
        });
        assert_eq!(valid_share(&schema, 500), 500);
    }

    #[test]
    fn hostile_schemas_give_bounded_values() {
        let schema = json!({
            "type": "object",
            "properties": {
                "me": {"$ref": "#"},
                "huge": {"type": "string", "minLength": 1_000_000_000_000u64},
                "many": {"type": "array", "minItems": 1_000_000_000_000u64},
                "wide": {"type": "number", "minimum": -1.7e308, "maximum": 1.7e308}
            },
            "required": ["me", "huge", "many", "wide"]
        });
        let generator = Generator::new(&schema);
        let mut rng = StdRng::seed_from_u64(1);
        let value = generator.arguments(&mut rng);
        assert!(value.to_string().len() < 50_000_000);
        let smallest = crate::fuzz::minimal(&generator, &schema, 0);
        assert!(smallest.to_string().len() < 50_000_000);
    }

    #[test]
    fn the_same_seed_gives_the_same_arguments() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}});
        let generator = Generator::new(&schema);
        let run = |seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            (0..20).map(|_| generator.arguments(&mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }
}
