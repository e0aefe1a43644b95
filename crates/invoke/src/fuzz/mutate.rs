//! Seeds mutated field by field (`fuzz --seed-from`): the arguments a real client sent reach
//! parts of a server that random inputs rarely do (an id that exists, a path that is there), and
//! its bugs often sit just beside them. Each field of each seed is changed alone: to values near
//! its own (one more, one less, a character more...), to a value the schema's valid generator
//! makes, left out when optional, and broken by the invalid generator at that field.

use rand::rngs::StdRng;
use serde_json::{Value, json};

use super::schema;
use super::valid::Generator;

/// How deep into a seed's objects fields are mutated.
const MAX_DEPTH: usize = 3;

/// Every mutation of `seed` under `generator`'s schema, field by field, without repeats and
/// without the seed itself.
pub fn mutations(generator: &Generator, seed: &Value, rng: &mut StdRng) -> Vec<Value> {
    let mut fields = Vec::new();
    collect(generator, generator.root(), seed, &mut Vec::new(), &mut fields, 0);
    let mut out: Vec<Value> = Vec::new();
    let push = |value: Value, out: &mut Vec<Value>| {
        if value != *seed && !out.contains(&value) {
            out.push(value);
        }
    };
    for field in fields {
        for near in near(&field.value) {
            push(replaced(seed, &field.path, Some(near)), &mut out);
        }
        push(replaced(seed, &field.path, Some(generator.value(&field.schema, rng, 0))), &mut out);
        if !field.required {
            push(replaced(seed, &field.path, None), &mut out);
        }
        if let Some(broken) = super::invalid::break_at(generator, seed, &field.path, rng) {
            push(broken, &mut out);
        }
    }
    out
}

/// One field of a seed: where it is, its schema, its value, whether it must be there.
struct Field {
    path: Vec<String>,
    schema: Value,
    value: Value,
    required: bool,
}

fn collect(
    generator: &Generator,
    schema: &Value,
    value: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<Field>,
    depth: usize,
) {
    if depth >= MAX_DEPTH {
        return;
    }
    let resolved = schema::resolve(generator.root(), schema);
    let Value::Object(map) = value else { return };
    for (name, property, required) in schema::properties(resolved.as_ref()) {
        let Some(child) = map.get(name) else { continue };
        path.push(name.to_string());
        out.push(Field {
            path: path.clone(),
            schema: schema::resolve(generator.root(), property).into_owned(),
            value: child.clone(),
            required,
        });
        collect(generator, property, child, path, out, depth + 1);
        path.pop();
    }
}

/// Values near `value`: where off-by-one and edge bugs hide.
fn near(value: &Value) -> Vec<Value> {
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => {
            let Some(n) = n.as_i64() else { return vec![json!(0)] };
            let mut out =
                vec![json!(n.saturating_add(1)), json!(n.saturating_sub(1)), json!(0), json!(n.saturating_neg())];
            out.push(json!(n.saturating_mul(2)));
            out
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            [x + 1.0, x - 1.0, x + 0.5, 0.0, -x, x * 2.0].into_iter().map(schema::json_number).collect()
        }
        Value::String(s) => {
            let mut shorter = s.clone();
            shorter.pop();
            vec![json!(format!("{s}x")), json!(shorter), json!(""), json!(s.to_uppercase()), json!(format!("{s}{s}"))]
        }
        Value::Bool(b) => vec![json!(!b)],
        Value::Array(items) => {
            let mut out = vec![json!([])];
            if let Some(first) = items.first() {
                let mut more = items.clone();
                more.push(first.clone());
                out.push(Value::Array(more));
                out.push(Value::Array(items[..items.len() - 1].to_vec()));
            }
            out
        }
        Value::Null | Value::Object(_) => Vec::new(),
    }
}

/// `seed` with the field at `path` set to `to` (left out when `None`).
fn replaced(seed: &Value, path: &[String], to: Option<Value>) -> Value {
    let mut out = seed.clone();
    let Some((last, parents)) = path.split_last() else { return out };
    let mut at = &mut out;
    for name in parents {
        match at.get_mut(name) {
            Some(next) => at = next,
            None => return out,
        }
    }
    if let Value::Object(map) = at {
        match to {
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

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn each_field_is_mutated_alone_near_its_value_valid_and_invalid() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer", "minimum": 0},
                "name": {"type": "string"},
                "options": {"type": "object", "properties": {"deep": {"type": "boolean"}}}
            },
            "required": ["id"]
        });
        let generator = Generator::new(&schema);
        let seed = json!({"id": 4242, "name": "ada", "options": {"deep": true}});
        let all = mutations(&generator, &seed, &mut StdRng::seed_from_u64(1));
        assert!(all.contains(&json!({"id": 4243, "name": "ada", "options": {"deep": true}})));
        assert!(all.contains(&json!({"id": 4242, "name": "adax", "options": {"deep": true}})));
        assert!(all.contains(&json!({"id": 4242, "name": "ada", "options": {"deep": false}})));
        assert!(all.contains(&json!({"id": 4242, "options": {"deep": true}})), "an optional field left out");
        assert!(!all.contains(&seed));
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(all.iter().any(|v| !validator.is_valid(v)), "some are broken");
        // Every mutation changes one field only.
        for value in &all {
            let changed = ["id", "name", "options"].iter().filter(|k| value.get(**k) != seed.get(**k)).count();
            assert_eq!(changed, 1, "{value}");
        }
    }
}
