//! Smaller versions of a failing input, most reduced first: fields and items left out, strings
//! and arrays cut, numbers moved toward zero. The engine keeps the first that still fails the
//! same way and asks again, so the same input always shrinks to the same result.

use serde_json::{Map, Value};

/// Candidates from one value are capped at this many (a large input shrinks over more rounds).
const MAX_CANDIDATES: usize = 400;

/// How large an input is, to shrink by: its JSON text's length, then the sum of its numbers'
/// magnitudes. A candidate is tried only when smaller, so shrinking ends (no halving of a tiny
/// float for ever) and every call spent makes the input smaller.
pub fn size(value: &Value) -> (usize, u64) {
    let mut magnitude = 0.0;
    add_magnitudes(value, &mut magnitude, 0);
    // Ordered by the float's bits: the same order for non-negative finite floats.
    (value.to_string().len(), magnitude.min(f64::MAX).to_bits())
}

fn add_magnitudes(value: &Value, sum: &mut f64, depth: usize) {
    if depth > 32 {
        return;
    }
    match value {
        Value::Number(n) => *sum += n.as_f64().unwrap_or_default().abs(),
        Value::Array(items) => items.iter().for_each(|v| add_magnitudes(v, sum, depth + 1)),
        Value::Object(map) => map.values().for_each(|v| add_magnitudes(v, sum, depth + 1)),
        _ => {}
    }
}

/// Every one-step simplification of `value`, largest steps first.
pub fn candidates(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    simpler(value, &mut |v| out.push(v), 0);
    out.truncate(MAX_CANDIDATES);
    out
}

/// Calls `emit` with each simplification of `value` (whole, with the change in place).
fn simpler(value: &Value, emit: &mut dyn FnMut(Value), depth: usize) {
    if depth > 32 {
        return;
    }
    match value {
        Value::Object(map) => object(map, emit, depth),
        Value::Array(items) => array(items, emit, depth),
        Value::String(text) => string(text, emit),
        Value::Number(n) => number(n, emit),
        Value::Bool(true) => emit(Value::Bool(false)),
        Value::Bool(false) | Value::Null => {}
    }
}

fn object(map: &Map<String, Value>, emit: &mut dyn FnMut(Value), depth: usize) {
    for key in map.keys() {
        let mut fewer = map.clone();
        fewer.shift_remove(key);
        emit(Value::Object(fewer));
    }
    for (key, child) in map {
        simpler(
            child,
            &mut |smaller| {
                let mut changed = map.clone();
                changed.insert(key.clone(), smaller);
                emit(Value::Object(changed));
            },
            depth + 1,
        );
    }
}

fn array(items: &[Value], emit: &mut dyn FnMut(Value), depth: usize) {
    if items.is_empty() {
        return;
    }
    emit(Value::Array(Vec::new()));
    if items.len() > 2 {
        emit(Value::Array(items[..items.len() / 2].to_vec()));
        emit(Value::Array(items[items.len() / 2..].to_vec()));
    }
    for i in 0..items.len().min(32) {
        let mut fewer = items.to_vec();
        fewer.remove(i);
        emit(Value::Array(fewer));
    }
    for (i, child) in items.iter().enumerate().take(32) {
        simpler(
            child,
            &mut |smaller| {
                let mut changed = items.to_vec();
                changed[i] = smaller;
                emit(Value::Array(changed));
            },
            depth + 1,
        );
    }
}

fn string(text: &str, emit: &mut dyn FnMut(Value)) {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return;
    }
    emit(Value::String(String::new()));
    let n = chars.len();
    let piece = |from: usize, to: usize| Value::String(chars[from..to].iter().collect());
    if n > 1 {
        emit(piece(0, n / 2));
        emit(piece(n / 2, n));
    }
    // Long strings lose eighths, short ones a character at a time.
    let chunk = if n > 32 { n.div_ceil(8) } else { 1 };
    let mut start = 0;
    while start < n {
        let end = (start + chunk).min(n);
        let mut rest: String = chars[..start].iter().collect();
        rest.extend(&chars[end..]);
        emit(Value::String(rest));
        start = end;
    }
    // Every character that is not a plain lowercase letter, made one.
    if chars.iter().any(|c| !c.is_ascii_lowercase()) && n <= 64 {
        emit(Value::String(
            chars.iter().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { 'a' }).collect(),
        ));
    }
}

fn number(n: &serde_json::Number, emit: &mut dyn FnMut(Value)) {
    if let Some(i) = n.as_i64() {
        if i == 0 {
            return;
        }
        emit(Value::from(0));
        // Halving the distance to where it is: the largest step toward zero first.
        let mut step = i / 2;
        while step != 0 {
            emit(Value::from(i - step));
            step /= 2;
        }
        if i.abs() > 1 {
            emit(Value::from(i - i.signum()));
        }
        if i < 0 {
            emit(Value::from(-i));
        }
        return;
    }
    if let Some(x) = n.as_f64() {
        if x == 0.0 {
            return;
        }
        emit(Value::from(0));
        if x.fract() != 0.0 && x.is_finite() && x.abs() < 9.0e15 {
            emit(Value::from(x.trunc() as i64));
        }
        if let Some(half) = serde_json::Number::from_f64(x / 2.0) {
            emit(Value::Number(half));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Shrinks `value` greedily with `fails` as the test, as the engine does with calls.
    fn shrink(mut value: Value, fails: impl Fn(&Value) -> bool) -> Value {
        'rounds: for _ in 0..1000 {
            for candidate in candidates(&value) {
                if fails(&candidate) {
                    value = candidate;
                    continue 'rounds;
                }
            }
            break;
        }
        value
    }

    #[test]
    fn a_failure_at_a_bound_shrinks_to_the_bound() {
        let input = json!({"n": 913, "name": "something long", "tags": ["a", "b", "c"]});
        let out = shrink(input, |v| v["n"].as_i64().is_some_and(|n| n >= 100));
        assert_eq!(out, json!({"n": 100}));
    }

    #[test]
    fn a_failure_on_non_ascii_text_keeps_one_character() {
        let input = json!({"text": "hello wörld and more", "n": 5});
        let out = shrink(input, |v| v["text"].as_str().is_some_and(|t| !t.is_ascii()));
        assert_eq!(out, json!({"text": "ö"}));
    }

    #[test]
    fn nested_values_and_arrays_shrink() {
        let input = json!({"a": {"b": [5, 17, 3], "c": true}});
        let out = shrink(input, |v| {
            v.pointer("/a/b").and_then(Value::as_array).is_some_and(|b| b.iter().any(|x| x.as_i64() > Some(10)))
        });
        assert_eq!(out, json!({"a": {"b": [11]}}));
    }
}
