//! One rule for schema defaults, shared by the app and `tooldeck call`: an optional field's
//! default is shown, not sent (the server applies it, "used if the field is absent"); setting
//! the field sends it. [`Form::fill_defaults`] fills every default in explicitly.

use serde_json::Value;

use super::{Field, Form, Widget};

/// The default an optional field shows while unset, if the schema gives one its type allows.
pub fn shown_default(field: &Field) -> Option<&Value> {
    field.schema.get("default").filter(|d| super::build::type_allows(&field.schema, d))
}

/// The form for an elicitation's `requestedSchema`, read as a tool's parameters are, with the
/// server's defaults filled in: they are the answer it proposes (MCP: "clients should
/// pre-populate form fields with these defaults"), in the app and headless alike.
pub fn elicitation_form(schema: &Value) -> Option<Form> {
    let text = serde_json::json!({"name": "elicitation", "parameters": schema}).to_string();
    let options = crate::catalog::LoadOptions { meta_check: false, ..Default::default() };
    let (mut tools, _) = crate::catalog::load_text("(elicitation)", &text, &options);
    let tool = tools.pop()?;
    let mut form = Form::new(&tool);
    form.fill_defaults();
    Some(form)
}

/// An elicitation answer: the form's defaults with `given` over them (elicitation forms are flat).
pub fn elicitation_answer(schema: &Value, given: &Value) -> Value {
    let mut answer = match elicitation_form(schema).map(|form| form.arguments().clone()) {
        Some(Value::Object(defaults)) => defaults,
        _ => serde_json::Map::new(),
    };
    if let Value::Object(given) = given {
        answer.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    Value::Object(answer)
}

impl Form {
    /// Fills every unset field that has a default with it, so it is sent; groups left out of
    /// the arguments (an unset optional object) are not entered. How many were filled.
    pub fn fill_defaults(&mut self) -> usize {
        let (root_schema, cues) = (self.root_schema.clone(), self.cues.clone());
        let mut filled = 0;
        fill(&mut self.root, "", &root_schema, &cues, &mut filled);
        if filled > 0 {
            self.revalidate();
        }
        filled
    }
}

fn fill(
    field: &mut Field,
    pointer: &str,
    root: &Value,
    cues: &std::collections::BTreeMap<String, crate::catalog::FieldCue>,
    filled: &mut usize,
) {
    let unset = !field.set;
    if unset && !pointer.is_empty() {
        if let Some(default) = shown_default(field).cloned() {
            super::value::set_default(field, &default, root, cues, pointer);
            field.set = true;
            field.from_default = false;
            *filled += 1;
            return;
        }
        // An optional group the user left out stays out, with what is inside it.
        if !field.required {
            return;
        }
    }
    let escape = crate::catalog::schema::escape_pointer;
    match &mut field.widget {
        Widget::Object { fields, entries, .. } => {
            for child in fields.iter_mut().chain(entries.iter_mut()) {
                let child_pointer = format!("{pointer}/{}", escape(&child.name));
                fill(child, &child_pointer, root, cues, filled);
            }
        }
        Widget::Array { items, .. } => {
            for (index, item) in items.iter_mut().enumerate() {
                fill(item, &format!("{pointer}/{index}"), root, cues, filled);
            }
        }
        // A variant's field stands at the variant's own pointer.
        Widget::Variant { inner, .. } => fill(inner, pointer, root, cues, filled),
        _ => {}
    }
}

#[cfg(test)]
mod elicitation_tests {
    use serde_json::json;

    #[test]
    fn accepting_sends_the_defaults_with_what_was_given_over_them() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "verified": {"type": "boolean", "default": true},
            "note": {"type": "string"}
        }});
        let answer = super::elicitation_answer(&schema, &json!({"age": 41}));
        assert_eq!(answer, json!({"name": "John Doe", "age": 41, "score": 95.5, "status": "active", "verified": true}));
    }

    #[test]
    fn legacy_enum_names_label_the_choices() {
        let schema = json!({"type": "object", "properties": {
            "size": {"type": "string", "enum": ["s", "m", "l"], "enumNames": ["Small", "Medium"]}
        }});
        let form = super::elicitation_form(&schema).expect("a form");
        let field = form.root.children().into_iter().next().expect("the field");
        let crate::form::Widget::Choice { choices, .. } = &field.widget else { panic!("a choice: {:?}", field.widget) };
        let labels: Vec<&str> = choices.iter().map(|c| c.label.as_str()).collect();
        // A value without a name keeps its own.
        assert_eq!(labels, ["Small", "Medium", "l"]);
        assert_eq!(choices[0].value, json!("s"));
    }
}
