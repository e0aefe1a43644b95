//! Operations on the field tree, addressed by a row path. Each one revalidates the form.

use super::value::{self, set_value, unset};
use super::{Field, Form, TextInput, Widget, build};

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

    /// Marks the field at `path` and every group above it as set: editing inside an optional
    /// object or variant brings it into the arguments.
    fn touch(&mut self, path: &[usize]) {
        for depth in 0..=path.len() {
            if let Some(field) = self.field_mut(&path[..depth]) {
                field.set = true;
                if depth == path.len() {
                    field.from_default = false;
                }
            }
        }
    }

    /// Applies a text edit to the field's input, if it has one. Returns false otherwise.
    pub fn edit_text(&mut self, path: &[usize], edit: impl FnOnce(&mut TextInput, bool)) -> bool {
        let Some(field) = self.field_mut(path) else { return false };
        let (input, multiline) = match &mut field.widget {
            Widget::Text { input, multiline } => (input, *multiline),
            Widget::Raw { input } => (input, true),
            Widget::Suggest { input, .. } | Widget::Number { input, .. } => (input, false),
            _ => return false,
        };
        edit(input, multiline);
        self.touch(path);
        self.revalidate();
        true
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

    /// Switches a variant, keeping the current value where it still fits the new variant.
    pub fn pick_variant(&mut self, path: &[usize], index: usize) {
        let root_schema = self.root_schema.clone();
        let cues = self.cues.clone();
        let Some(field) = self.field_mut(path) else { return };
        let Widget::Variant { variants, selected, inner } = &mut field.widget else { return };
        if index >= variants.len() || index == *selected {
            return;
        }
        let old = value::build(inner).arguments;
        let mut fresh = build::build(&variants[index].value, &root_schema, &cues, "", String::new(), true, 1);
        fresh.set = true;
        let mut candidate = fresh.clone();
        set_value(&mut candidate, &old, &root_schema, &cues, "");
        // Keep the old value only if it went into the new variant's own widget, not into raw JSON.
        let kept = !matches!(candidate.widget, Widget::Raw { .. }) || matches!(fresh.widget, Widget::Raw { .. });
        **inner = if kept && !old.is_null() { candidate } else { fresh };
        *selected = index;
        self.touch(path);
        self.revalidate();
    }

    /// Ctrl-U: the field goes back to unset (left out of the arguments).
    pub fn unset(&mut self, path: &[usize]) {
        if let Some(field) = self.field_mut(path) {
            unset(field);
        }
        self.revalidate();
    }

    /// Adds an item to the array at `path`, or an entry `key` to its map. Returns the new row path.
    pub fn add_item(&mut self, path: &[usize], key: Option<&str>) -> Option<Vec<usize>> {
        let root_schema = self.root_schema.clone();
        let cues = self.cues.clone();
        let field = self.field_mut(path)?;
        field.collapsed = false;
        let index = match &mut field.widget {
            Widget::Array { items, item_schema } => {
                items.push(build::item(item_schema, &root_schema, &cues, items.len()));
                items.len() - 1
            }
            Widget::Object { fields, additional: Some(schema), entries } => {
                let key = key.filter(|k| !k.is_empty())?;
                if fields.iter().chain(entries.iter()).any(|f| f.name == key) {
                    return None;
                }
                let mut entry = build::build(schema, &root_schema, &cues, "", key.to_string(), true, 0);
                entry.set = true;
                entries.push(entry);
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
        self.revalidate();
        removed
    }

    /// Moves an array item up (-1) or down (+1); returns its new path.
    pub fn move_item(&mut self, path: &[usize], delta: isize) -> Option<Vec<usize>> {
        let (&last, parent) = path.split_last()?;
        let field = self.field_mut(parent)?;
        let Widget::Array { items, .. } = &mut field.widget else { return None };
        let target = last.checked_add_signed(delta).filter(|t| *t < items.len())?;
        items.swap(last, target);
        renumber(items);
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

fn renumber(items: &mut [Field]) {
    for (i, item) in items.iter_mut().enumerate() {
        item.name = format!("[{i}]");
    }
}
