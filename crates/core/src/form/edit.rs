//! Operations on the field tree, addressed by a row path. Each one revalidates the form.

use std::collections::BTreeMap;

use serde_json::Value;

use super::value::{self, set_value, unset};
use super::{Field, Form, TextInput, Widget, build};
use crate::catalog::FieldCue;
use crate::catalog::schema::escape_pointer;

impl Field {
    fn child_mut(&mut self, index: usize) -> Option<&mut Field> {
        match &mut self.widget {
            Widget::Object { fields, entries, .. } => {
                let n = fields.len();
                if index < n { fields.get_mut(index) } else { entries.get_mut(index - n) }
            }
            Widget::Array { items, .. } => items.get_mut(index),
            Widget::Variant { inner, .. } if index == 0 => Some(inner),
            _ => None,
        }
    }
}

impl Form {
    pub fn field_mut(&mut self, path: &[usize]) -> Option<&mut Field> {
        let mut field = &mut self.root;
        for &i in path {
            field = field.child_mut(i)?;
        }
        Some(field)
    }

    /// Marks the field at `path` and every group above it as set and no longer the default:
    /// editing inside an optional object or variant brings it into the arguments.
    fn touch(&mut self, path: &[usize]) {
        for depth in 0..=path.len() {
            if let Some(field) = self.field_mut(&path[..depth]) {
                field.set = true;
                field.from_default = false;
            }
        }
    }

    /// The JSON pointer of the field at `path` in the arguments (also its cue key), whether or
    /// not it is shown as a row.
    pub fn pointer(&self, path: &[usize]) -> Option<String> {
        let mut field = &self.root;
        let mut pointer = String::new();
        for &i in path {
            let child = *field.children().get(i)?;
            pointer = super::child_pointer(field, child, i, &pointer);
            field = child;
        }
        Some(pointer)
    }

    /// Grows a stub (a raw field left where a recursive or very large schema stopped being built)
    /// into the widgets its schema describes, keeping what it holds. False when it is not a stub.
    pub fn expand(&mut self, path: &[usize]) -> bool {
        let Some(pointer) = self.pointer(path) else { return false };
        let (root_schema, cues) = (self.root_schema.clone(), self.cues.clone());
        let Some(field) = self.field_mut(path) else { return false };
        // JSON typed into the stub that does not parse yet would be lost: leave it be.
        let typed = field.input().map_or("", TextInput::text);
        if !typed.trim().is_empty() && serde_json::from_str::<Value>(typed).is_err() {
            return false;
        }
        let Some(mut real) = build::expand(field, &root_schema, &cues, &pointer) else { return false };
        if let Some(held) = value::value(field) {
            set_value(&mut real, &held, &root_schema, &cues, &pointer);
        }
        let grown = !matches!(real.widget, Widget::Raw { .. });
        *field = real;
        self.revalidate();
        grown
    }

    /// Applies a text edit to the field's input, if it has one. Returns false otherwise.
    /// The field is set only when its text changed: a key that just moves the cursor (or does
    /// nothing, at an edge or in an empty field) must leave an optional field out of the
    /// arguments, or an empty number field would turn into an error the user never made.
    pub fn edit_text(&mut self, path: &[usize], edit: impl FnOnce(&mut TextInput, bool)) -> bool {
        let Some(field) = self.field_mut(path) else { return false };
        let (input, multiline) = match &mut field.widget {
            Widget::Text { input, multiline } => (input, *multiline),
            Widget::Raw { input } => (input, true),
            Widget::Suggest { input, .. } | Widget::Number { input, .. } => (input, false),
            _ => return false,
        };
        let before = input.text().to_owned();
        edit(input, multiline);
        if input.text() != before {
            self.touch(path);
            self.revalidate();
        }
        true
    }

    /// Folds every optional object left unset (not the root): its rows mean nothing until it
    /// is wanted, and a big one would push the rest of the form off the screen.
    pub fn fold_unset_objects(&mut self) {
        fn fold(field: &mut Field, root: bool) {
            if !root && !field.required && !field.set && matches!(field.widget, Widget::Object { .. }) {
                field.collapsed = true;
                return;
            }
            match &mut field.widget {
                Widget::Object { fields, entries, .. } => {
                    fields.iter_mut().chain(entries.iter_mut()).for_each(|f| fold(f, false))
                }
                Widget::Array { items, .. } => items.iter_mut().for_each(|f| fold(f, false)),
                Widget::Variant { inner, .. } => fold(inner, false),
                _ => {}
            }
        }
        fold(&mut self.root, true);
    }

    /// Cycles a checkbox: unset → true → false → unset (an optional one) or true ↔ false.
    pub fn toggle_bool(&mut self, path: &[usize]) {
        let Some(field) = self.field_mut(path) else { return };
        let required = field.required;
        let Widget::Bool(value) = &mut field.widget else { return };
        *value = match *value {
            None => Some(true),
            Some(true) => Some(false),
            Some(false) if required => Some(true),
            Some(false) => None,
        };
        let now_unset = value.is_none();
        self.touch(path);
        if now_unset && let Some(field) = self.field_mut(path) {
            field.set = false;
        }
        self.revalidate();
    }

    pub fn choose(&mut self, path: &[usize], index: usize) {
        let Some(field) = self.field_mut(path) else { return };
        if let Widget::Choice { choices, selected } = &mut field.widget
            && index < choices.len()
        {
            *selected = Some(index);
            self.touch(path);
            self.revalidate();
        }
    }

    /// Switches a variant, keeping the current value where it still fits the new variant, as is
    /// or coerced as typed text (a "42" typed as a string is 42 in an integer variant).
    pub fn pick_variant(&mut self, path: &[usize], index: usize) {
        let Some(pointer) = self.pointer(path) else { return };
        let (root_schema, cues) = (self.root_schema.clone(), self.cues.clone());
        let Some(field) = self.field_mut(path) else { return };
        let was_set = field.set;
        let Widget::Variant { variants, selected, inner } = &mut field.widget else { return };
        if index >= variants.len() || index == *selected {
            return;
        }
        let schema = &variants[index].value;
        let mut fresh = build::build(schema, &root_schema, &cues, &pointer, String::new(), true, 1);
        fresh.set = true;
        let old = if was_set { value::value(inner) } else { None };
        let as_text = match &old {
            Some(Value::String(s)) => Some(s.clone()),
            Some(v @ (Value::Number(_) | Value::Bool(_))) => Some(v.to_string()),
            _ => None,
        };
        let attempts = old.into_iter().chain(as_text.map(|text| value::coerce(&text, schema)));
        let kept = attempts.filter_map(|value| fitting(&fresh, &value, &root_schema, &cues, &pointer)).next();
        if let Some(value) = kept {
            fill(&mut fresh, &value, &root_schema, &cues, &pointer);
        }
        **inner = fresh;
        *selected = index;
        self.touch(path);
        self.revalidate();
    }

    /// Ctrl-U: the field goes back to unset (left out of the arguments). A variant's field
    /// unsets the variant: the field alone is always there while its variant is.
    pub fn unset(&mut self, path: &[usize]) {
        let mut path = path;
        while let Some((_, parent)) = path.split_last()
            && matches!(self.field(parent).map(|f| &f.widget), Some(Widget::Variant { .. }))
        {
            path = parent;
        }
        if let Some(field) = self.field_mut(path) {
            unset(field);
        }
        self.revalidate();
    }

    /// Adds an item to the array at `path`, or an entry `key` to its map. Returns the new row path.
    pub fn add_item(&mut self, path: &[usize], key: Option<&str>) -> Option<Vec<usize>> {
        // A nullable array or map is focused on its variant row: the items go into its field.
        if let Some(Field { widget: Widget::Variant { .. }, .. }) = self.field(path) {
            return self.add_item(&[path, &[0]].concat(), key);
        }
        let pointer = self.pointer(path)?;
        let (root_schema, cues) = (self.root_schema.clone(), self.cues.clone());
        let field = self.field_mut(path)?;
        field.collapsed = false;
        let index = match &mut field.widget {
            Widget::Array { items, item_schema } => {
                let index = items.len();
                let item_pointer = format!("{pointer}/{index}");
                items.push(build::item(item_schema, &root_schema, &cues, &item_pointer, index));
                index
            }
            Widget::Object { fields, additional: Some(schema), entries } => {
                let key = key.filter(|k| !k.is_empty())?;
                if fields.iter().chain(entries.iter()).any(|f| f.name == key) {
                    return None;
                }
                let entry_pointer = format!("{pointer}/{}", escape_pointer(key));
                let entry = build::build(schema, &root_schema, &cues, &entry_pointer, key.to_string(), true, 0);
                entries.push(build::added(entry));
                fields.len() + entries.len() - 1
            }
            _ => return None,
        };
        let mut new_path = path.to_vec();
        new_path.push(index);
        self.touch(&new_path);
        self.revalidate();
        Some(new_path)
    }

    /// True when the field at `path` is an array item or a map entry (so it can be removed/moved).
    pub fn is_item(&self, path: &[usize]) -> bool {
        let Some((&last, parent)) = path.split_last() else { return false };
        match self.field(parent).map(|f| &f.widget) {
            Some(Widget::Array { .. }) => true,
            Some(Widget::Object { fields, .. }) => last >= fields.len(),
            _ => false,
        }
    }

    /// Removes the array item or map entry at `path`.
    pub fn remove_item(&mut self, path: &[usize]) -> bool {
        let Some((&last, parent)) = path.split_last() else { return false };
        let Some(field) = self.field_mut(parent) else { return false };
        let removed = match &mut field.widget {
            Widget::Array { items, .. } if last < items.len() => {
                items.remove(last);
                renumber(items);
                true
            }
            Widget::Object { fields, entries, .. } if last >= fields.len() && last - fields.len() < entries.len() => {
                entries.remove(last - fields.len());
                true
            }
            _ => false,
        };
        if removed {
            self.touch(parent);
        }
        self.revalidate();
        removed
    }

    /// Moves an array item up (-1) or down (+1), or further; the items between shift over.
    /// Returns its new path.
    pub fn move_item(&mut self, path: &[usize], delta: isize) -> Option<Vec<usize>> {
        let (&last, parent) = path.split_last()?;
        let field = self.field_mut(parent)?;
        let Widget::Array { items, .. } = &mut field.widget else { return None };
        let target = last.checked_add_signed(delta).filter(|t| *t < items.len() && last < items.len())?;
        let item = items.remove(last);
        items.insert(target, item);
        renumber(items);
        self.touch(parent);
        self.revalidate();
        let mut new_path = parent.to_vec();
        new_path.push(target);
        Some(new_path)
    }

    pub fn toggle_collapsed(&mut self, path: &[usize]) {
        if let Some(field) = self.field_mut(path)
            && field.is_group()
        {
            field.collapsed = !field.collapsed;
        }
    }
}

/// The part of `value` that goes into `fresh`'s own widgets rather than into raw JSON: the
/// properties it declares (or its map takes) whose values fit, or the whole value if it fits.
fn fitting(
    fresh: &Field,
    value: &Value,
    root: &Value,
    cues: &BTreeMap<String, FieldCue>,
    pointer: &str,
) -> Option<Value> {
    if let (Widget::Object { fields, additional, .. }, Value::Object(map)) = (&fresh.widget, value) {
        let mut kept = serde_json::Map::new();
        for (key, v) in map {
            let child_pointer = format!("{pointer}/{}", escape_pointer(key));
            let fits = match fields.iter().find(|f| &f.name == key) {
                Some(child) => fitting(child, v, root, cues, &child_pointer),
                None => additional.as_ref().map(|_| v.clone()),
            };
            if let Some(v) = fits {
                kept.insert(key.clone(), v);
            }
        }
        return Some(Value::Object(kept));
    }
    let mut candidate = fresh.clone();
    set_value(&mut candidate, value, root, cues, pointer);
    let fits = matches!(fresh.widget, Widget::Raw { .. }) || !matches!(candidate.widget, Widget::Raw { .. });
    fits.then(|| value.clone())
}

/// Puts a value into a fresh field; into an object, property by property, so the properties the
/// value does not mention keep their defaults.
fn fill(field: &mut Field, value: &Value, root: &Value, cues: &BTreeMap<String, FieldCue>, pointer: &str) {
    let (Widget::Object { fields, .. }, Value::Object(map)) = (&mut field.widget, value) else {
        return set_value(field, value, root, cues, pointer);
    };
    if map.keys().any(|key| !fields.iter().any(|f| &f.name == key)) {
        // Map entries too: let `set_value` lay them out.
        return set_value(field, value, root, cues, pointer);
    }
    for child in fields.iter_mut() {
        if let Some(v) = map.get(&child.name) {
            set_value(child, v, root, cues, &format!("{pointer}/{}", escape_pointer(&child.name)));
        }
    }
    field.set = true;
}

fn renumber(items: &mut [Field]) {
    for (i, item) in items.iter_mut().enumerate() {
        item.name = format!("[{i}]");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::catalog::{Format, Source, Tool};

    fn form(schema: Value) -> Form {
        let tool = Tool {
            id: "t".into(),
            name: "t".into(),
            title: None,
            description: None,
            format: Format::JsonSchema,
            source: Source::file("<test>", 1),
            input_schema: schema,
            output_schema: None,
            ui: Default::default(),
            examples: Vec::new(),
            requirements: Default::default(),
            annotations: None,
            task_support: None,
            written: Default::default(),
        };
        Form::new(&tool)
    }

    #[test]
    fn only_a_changed_text_sets_the_field() {
        let mut form = form(json!({"type": "object", "properties": {"n": {"type": "number"}}}));
        let at = form.rows()[0].path.clone();
        let moves: [fn(&mut TextInput); 5] =
            [TextInput::left, TextInput::right, TextInput::home, TextInput::end, TextInput::backspace];
        for step in moves {
            assert!(form.edit_text(&at, |input, _| step(input)));
        }
        assert!(!form.field(&at).unwrap().set);
        assert!(form.validation.is_valid(), "{:?}", form.validation.errors);
        assert_eq!(form.arguments(), &json!({}));

        form.edit_text(&at, |input, _| input.insert_char('4'));
        assert_eq!(form.arguments(), &json!({"n": 4}));
        form.edit_text(&at, |input, _| input.backspace());
        assert!(form.field(&at).unwrap().set, "deleting is an edit: the field stays set");
        assert_eq!(form.validation.errors["/n"], ["a number is needed here"]);
    }
}
