//! Labels for the variants of a `oneOf`/`anyOf`: a title, else what tells them apart (a
//! property fixed to a value, the keys only one requires or has, a type), never "option 2" when
//! the schema says more.

use serde_json::Value;

use super::build::{show, text};

/// Each option's label; where two would read the same, by what tells them apart: a property
/// fixed to a value (`kind: "email"`), the keys only it requires or has, else its number.
pub fn variant_labels(options: &[Value]) -> Vec<String> {
    let mut labels: Vec<String> = options.iter().enumerate().map(|(i, o)| variant_label(o, i)).collect();
    let repeated = |labels: &[String], i: usize| labels.iter().filter(|l| **l == labels[i]).count() > 1;
    let keys = |option: &Value, keyword: &str| -> Vec<String> {
        match option.get(keyword) {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            Some(Value::Object(map)) => map.keys().cloned().collect(),
            _ => Vec::new(),
        }
    };
    let before = labels.clone();
    for (i, option) in options.iter().enumerate() {
        if !repeated(&before, i) || text(option, "title").is_some() {
            continue;
        }
        let fixed = option.get("properties").and_then(Value::as_object).and_then(|properties| {
            properties.iter().find_map(|(name, property)| {
                let value = property.get("const").or_else(|| match property.get("enum") {
                    Some(Value::Array(one)) if one.len() == 1 => one.first(),
                    _ => None,
                })?;
                Some(format!("{name}: {}", show(value)))
            })
        });
        let only_here = |keyword: &str| -> Vec<String> {
            let others: Vec<Vec<String>> =
                options.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, o)| keys(o, keyword)).collect();
            keys(option, keyword).into_iter().filter(|k| others.iter().all(|o| !o.contains(k))).collect()
        };
        let (required, properties) = (only_here("required"), only_here("properties"));
        labels[i] = if let Some(fixed) = fixed {
            fixed
        } else if !required.is_empty() {
            format!("with {}", required.join(" + "))
        } else if !properties.is_empty() {
            format!("with {}", properties.join(" + "))
        } else {
            format!("{} {}", before[i], i + 1)
        };
    }
    labels
}

pub fn variant_label(option: &Value, index: usize) -> String {
    if let Some(title) = text(option, "title") {
        return title;
    }
    if let Some(reference) = option.get("$ref").and_then(Value::as_str) {
        return reference.rsplit('/').next().unwrap_or(reference).to_string();
    }
    // Options that differ by what they require read best by that: "with email" / "with customer_id".
    if let Some(Value::Array(required)) = option.get("required")
        && !required.is_empty()
    {
        let names: Vec<&str> = required.iter().filter_map(Value::as_str).collect();
        return format!("with {}", names.join(" + "));
    }
    match option.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" | "),
        _ if option.get("const").is_some() => show(&option["const"]),
        _ if option.get("properties").is_some() => "object".into(),
        _ => format!("option {}", index + 1),
    }
}

#[cfg(test)]
mod variant_label_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn look_alike_variants_are_told_apart() {
        let options = [
            json!({"type": "object", "properties": {"kind": {"const": "email"}, "to": {"type": "string"}}}),
            json!({"type": "object", "properties": {"kind": {"const": "sms"}, "phone": {"type": "string"}}}),
        ];
        assert_eq!(variant_labels(&options), ["kind: email", "kind: sms"]);
        let options = [
            json!({"type": "object", "required": ["id"], "properties": {"id": {}, "x": {}}}),
            json!({"type": "object", "properties": {"name": {}, "x": {}}}),
            json!({"type": "object", "title": "Nothing"}),
        ];
        assert_eq!(variant_labels(&options), ["with id", "object", "Nothing"], "distinct already");
        let same = [json!({"type": "object"}), json!({"type": "object"})];
        assert_eq!(variant_labels(&same), ["object 1", "object 2"]);
    }
}
