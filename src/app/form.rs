//! The form pane: the forms of the tools the user looked at, the cursor in the selected one,
//! its scroll, whether a field is being edited, the JSON view beside it, and whether Run was
//! just refused. Methods take the selected tool's id: the list owns the selection.

mod keys;

use std::collections::HashMap;

use serde_json::Value;

pub use super::json_view::JsonView;
use super::{PickerPurpose, Popup, Reply};
use crate::catalog::Tool;
use crate::form::validate::Checker;
use crate::form::{Field, Form, TextInput, Widget, build::show, value::pretty};

/// Forms kept built at most. A form can be huge (its schema's every field, with validators),
/// so the least recently used go; see [`FormCache`].
pub const FORMS_KEPT: usize = 16;

#[derive(Default)]
pub struct FormPane {
    forms: FormCache,
    /// Index into the selected form's rows (`cursor()`).
    cursor: usize,
    /// First visible line of the form (lines, not rows: errors and text areas take several).
    scroll: usize,
    /// A text field is being edited (keys go to it): `editing()`; it changes only through this
    /// pane's methods (`start_editing`, `stop_editing`...).
    editing: bool,
    /// The editable JSON view of the arguments, when open (`json()`).
    json: Option<JsonView>,
    /// Run was just refused for invalid input; pressing it again sends anyway.
    run_armed: bool,
}

/// The [`FORMS_KEPT`] most recently used forms. One that goes keeps the arguments the user made
/// (not the form: they are small where the form is not) and is built again from them when its
/// tool comes back, so nothing typed is lost; its folds and half-typed text that makes no value
/// (a number field holding "12x") are.
#[derive(Default)]
struct FormCache {
    kept: HashMap<String, Kept>,
    /// Schemas are compiled off the UI thread (`WorkEffect::CompileChecker`) instead of when a form
    /// opens; the form checks only what it can by itself until the compiled checker arrives.
    compile_elsewhere: bool,
    /// Schemas to compile, by tool id, for the runtime to pick up.
    to_compile: Vec<(String, Value)>,
    /// Arguments of forms that were dropped holding user edits, by tool id.
    parked: HashMap<String, Value>,
    /// Counts uses, to find the least recently used.
    clock: u64,
}

struct Kept {
    form: Form,
    /// The arguments as first built: a form still making them holds no edits.
    pristine: Value,
    used: u64,
}

impl FormCache {
    fn get(&self, id: &str) -> Option<&Form> {
        self.kept.get(id).map(|k| &k.form)
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Form> {
        self.clock += 1;
        let kept = self.kept.get_mut(id)?;
        kept.used = self.clock;
        Some(&mut kept.form)
    }

    fn open(&mut self, tool: &Tool) -> &mut Form {
        if !self.kept.contains_key(&tool.id) {
            let mut form = if self.compile_elsewhere {
                self.to_compile.push((tool.id.clone(), tool.input_schema.clone()));
                Form::with_checker(tool, Checker::pending())
            } else {
                Form::new(tool)
            };
            let pristine = form.arguments().clone();
            form.fold_unset_objects();
            if let Some(arguments) = self.parked.remove(&tool.id) {
                form.set_arguments(&arguments);
            }
            self.kept.insert(tool.id.clone(), Kept { form, pristine, used: self.clock });
            self.evict(&tool.id);
        }
        self.clock += 1;
        let kept = self.kept.get_mut(&tool.id).expect("kept just above");
        kept.used = self.clock;
        &mut kept.form
    }

    /// Drops the least recently used forms past the limit, never `keep`.
    fn evict(&mut self, keep: &str) {
        while self.kept.len() > FORMS_KEPT {
            let Some(oldest) = self
                .kept
                .iter()
                .filter(|(id, _)| id.as_str() != keep)
                .min_by_key(|(_, k)| k.used)
                .map(|(id, _)| id.clone())
            else {
                return;
            };
            if let Some(kept) = self.kept.remove(&oldest)
                && kept.form.arguments() != &kept.pristine
            {
                self.parked.insert(oldest, kept.form.arguments().clone());
            }
        }
    }
}

impl FormPane {
    /// A text field is being edited (keys go to it).
    pub fn editing(&self) -> bool {
        self.editing
    }

    pub fn get(&self, id: &str) -> Option<&Form> {
        self.forms.get(id)
    }

    /// From now on schemas are compiled off the UI thread: see [`FormPane::take_compiles`].
    pub fn compile_elsewhere(&mut self) {
        self.forms.compile_elsewhere = true;
    }

    /// The schemas of forms opened since the last call, to be compiled elsewhere.
    pub fn take_compiles(&mut self) -> Vec<(String, Value)> {
        std::mem::take(&mut self.forms.to_compile)
    }

    /// A schema compiled elsewhere arrived: its form (if still kept) checks with it.
    pub fn checker_compiled(&mut self, id: &str, checker: Checker) {
        if let Some(kept) = self.forms.kept.get_mut(id) {
            kept.form.set_checker(checker);
        }
    }

    /// The form of `tool`, built on first use (or again from what the user had made).
    pub fn open(&mut self, tool: &Tool) -> &mut Form {
        self.forms.open(tool)
    }

    /// `--watch`: the form of `id` is dropped (its tool's schema changed under it), and what
    /// the person typed into it comes back: the arguments that differ from those it was built
    /// with (a form dropped earlier gives back all it kept).
    pub fn take_edits(&mut self, id: &str) -> Option<Value> {
        if let Some(parked) = self.forms.parked.remove(id) {
            return Some(parked);
        }
        let kept = self.forms.kept.remove(id)?;
        let (Value::Object(now), Value::Object(built)) = (kept.form.arguments(), &kept.pristine) else {
            return (kept.form.arguments() != &kept.pristine).then(|| kept.form.arguments().clone());
        };
        let edits: serde_json::Map<String, Value> =
            now.iter().filter(|(k, v)| built.get(*k) != Some(*v)).map(|(k, v)| (k.clone(), v.clone())).collect();
        Some(Value::Object(edits))
    }

    /// How many forms are built (for tests of the bound).
    pub fn built(&self) -> usize {
        self.forms.kept.len()
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Form> {
        self.forms.get_mut(id)
    }

    /// Index into the selected form's rows.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// First visible line of the form.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// The editable JSON view of the arguments, when open.
    pub fn json(&self) -> Option<&JsonView> {
        self.json.as_ref()
    }

    /// Run was refused for invalid input: the next Run, straight after, sends anyway.
    pub fn arm_run(&mut self) {
        self.run_armed = true;
    }

    /// Whether Run was armed; it is disarmed by asking (only the key straight after counts).
    pub fn take_run_armed(&mut self) -> bool {
        std::mem::take(&mut self.run_armed)
    }

    /// A click on row `index`: the cursor goes there, nothing is being edited.
    pub fn click_row(&mut self, index: usize) {
        self.editing = false;
        self.cursor = index;
    }

    /// Keeps the cursor on one of the form's `rows` (none: the top, unscrolled).
    pub fn clamp_cursor(&mut self, rows: usize) {
        match rows {
            0 => (self.cursor, self.scroll) = (0, 0),
            n => self.cursor = self.cursor.min(n - 1),
        }
    }

    /// Scrolls so the row under the cursor shows in `height` lines, rows being `heights` lines
    /// tall (the cursor is on one of them: `clamp_cursor` first).
    pub fn scroll_to_cursor(&mut self, heights: &[usize], height: usize) {
        let Some(&tall) = heights.get(self.cursor) else { return };
        let start: usize = heights[..self.cursor].iter().sum();
        let end = start + tall;
        if start < self.scroll {
            self.scroll = start;
        } else if end > self.scroll + height {
            self.scroll = end.saturating_sub(height).min(start);
        }
        // A pane grown taller (zoomed, a bigger terminal) shows the rows above rather than blank
        // rows under the last one; the cursor's row stays in sight, as it ends by then.
        let total: usize = heights.iter().sum();
        self.scroll = self.scroll.min(total.saturating_sub(height));
    }

    /// A key typed into the JSON view; true when its text changed (`apply_json` then).
    pub fn type_json(&mut self, key: crossterm::event::KeyEvent) -> bool {
        self.json.as_mut().is_some_and(|json| json.type_key(key))
    }

    /// A paste into the JSON view (`apply_json` then).
    pub fn paste_json(&mut self, text: &str) {
        if let Some(json) = self.json.as_mut() {
            json.paste(text);
        }
    }

    /// The focused field takes the printable keys: the person chose it.
    pub fn start_editing(&mut self) {
        self.editing = true;
    }

    /// The field being edited stops taking keys; what was typed stays.
    pub fn stop_editing(&mut self) {
        self.editing = false;
    }

    /// A new tool is selected: the cursor starts over.
    pub fn reset(&mut self) {
        self.cursor = 0;
        self.scroll = 0;
        self.editing = false;
    }

    pub fn focused_path(&self, form: &Form) -> Option<Vec<usize>> {
        form.rows().get(self.cursor).map(|r| r.path.clone())
    }

    pub fn focused_field(&self, id: &str) -> Option<(Vec<usize>, Field)> {
        let form = self.get(id)?;
        let path = self.focused_path(form)?;
        let field = form.field(&path)?.clone();
        Some((path, field))
    }

    /// An action on the form of tool `id` (`None`: no tool selected, the action does nothing);
    /// `None` when the form does not take `action` (Back leaves the form: the app's move).
    pub fn act(&mut self, id: Option<&str>, action: super::Action) -> Option<Reply> {
        use super::Action as A;
        let moves = |action| match action {
            A::Up | A::PreviousField => Some(-1),
            A::Down | A::NextField => Some(1),
            A::PageUp => Some(-10),
            A::PageDown => Some(10),
            A::Top => Some(isize::MIN / 2),
            A::Bottom => Some(isize::MAX / 2),
            _ => None,
        };
        let takes = moves(action).is_some()
            || matches!(
                action,
                A::Activate
                    | A::Unset
                    | A::AddItem
                    | A::DeleteItem
                    | A::MoveItemUp
                    | A::MoveItemDown
                    | A::Collapse
                    | A::Expand
            );
        let Some(id) = id.filter(|_| takes) else { return takes.then(Reply::default) };
        match action {
            _ if let Some(delta) = moves(action) => self.move_cursor(id, delta),
            A::Activate => return Some(self.activate(id)),
            A::Unset => self.with_focused(id, |form, path| form.unset(path)),
            A::AddItem => return Some(self.add_item(id)),
            A::DeleteItem => return Some(self.delete_item(id)),
            A::MoveItemUp => self.move_item(id, -1),
            A::MoveItemDown => self.move_item(id, 1),
            A::Collapse => self.set_collapsed(id, true),
            A::Expand => self.set_collapsed(id, false),
            _ => {}
        }
        Some(Reply::default())
    }

    /// Runs `edit` on the form at the focused row's path.
    pub fn with_focused(&mut self, id: &str, edit: impl FnOnce(&mut Form, &[usize])) {
        let Some(path) = self.get(id).and_then(|f| self.focused_path(f)) else { return };
        if let Some(form) = self.get_mut(id) {
            edit(form, &path);
        }
    }

    pub fn move_cursor(&mut self, id: &str, delta: isize) {
        let count = self.get(id).map_or(0, |f| f.rows().len());
        if count == 0 {
            return;
        }
        self.cursor = self.cursor.saturating_add_signed(delta).min(count - 1);
    }

    pub fn focus_path(&mut self, id: &str, path: Option<Vec<usize>>) {
        let Some(path) = path else { return };
        if let Some(index) = self.get(id).and_then(|f| f.rows().iter().position(|r| r.path == path)) {
            self.cursor = index;
        }
    }

    /// The field under the cursor takes the keys; a default shown in it is replaced by what is
    /// typed, not extended.
    pub fn start_editing_here(&mut self, id: &str) {
        let Some((_, field)) = self.focused_field(id) else { return };
        self.editing = true;
        if field.from_default {
            self.with_focused(id, |form, path| {
                form.edit_text(path, |input, _| input.select_all());
            });
        }
    }

    /// Enter on a field: edit its text, toggle it, or pick its value from a list.
    pub fn activate(&mut self, id: &str) -> Reply {
        let Some((path, field)) = self.focused_field(id) else { return Reply::default() };
        match &field.widget {
            Widget::Text { .. } | Widget::Number { .. } | Widget::Suggest { .. } | Widget::Raw { .. } => {
                self.start_editing_here(id)
            }
            Widget::Bool(_) => self.with_focused(id, |form, path| form.toggle_bool(path)),
            Widget::Choice { choices, selected } => {
                return Reply::popup(Popup::Picker {
                    path,
                    title: format!("{}: pick a value", field.label()),
                    options: choices.iter().map(|c| c.label.clone()).collect(),
                    selected: selected.unwrap_or(0),
                    purpose: PickerPurpose::Enum,
                });
            }
            Widget::Variant { variants, selected, .. } => {
                return Reply::popup(Popup::Picker {
                    path,
                    title: format!("{}: pick a variant", field.label()),
                    options: variants.iter().map(|c| c.label.clone()).collect(),
                    selected: *selected,
                    purpose: PickerPurpose::Variant,
                });
            }
            Widget::Const(value) => return Reply::status(format!("{} is fixed to {}", field.label(), show(value))),
            Widget::Object { .. } | Widget::Array { .. } => {
                self.with_focused(id, |form, path| form.toggle_collapsed(path))
            }
        }
        Reply::default()
    }

    pub fn set_collapsed(&mut self, id: &str, collapsed: bool) {
        let Some((path, field)) = self.focused_field(id) else { return };
        if field.is_group() && field.collapsed != collapsed {
            self.with_focused(id, |form, path| form.toggle_collapsed(path));
        } else if collapsed && !field.is_group() && !path.is_empty() {
            // ← on a field inside a group goes to the group.
            if let Some(index) =
                self.get(id).and_then(|f| f.rows().iter().position(|r| r.path == path[..path.len() - 1]))
            {
                self.cursor = index;
            }
        }
    }

    pub fn add_item(&mut self, id: &str) -> Reply {
        let Some((path, field)) = self.focused_field(id) else { return Reply::default() };
        let Some(form) = self.get(id) else { return Reply::default() };
        // On an item, add to the array it is in.
        let target = match &field.widget {
            Widget::Array { .. } | Widget::Object { additional: Some(_), .. } => path,
            _ if form.is_item(&path) => path[..path.len() - 1].to_vec(),
            _ => return Reply::status("only an array or a map takes new items"),
        };
        let target_is_map = matches!(form.field(&target).map(|f| &f.widget), Some(Widget::Object { .. }));
        if target_is_map {
            return Reply::popup(Popup::KeyPrompt { path: target, input: TextInput::default() });
        }
        let new_path = self.get_mut(id).and_then(|form| form.add_item(&target, None));
        self.focus_path(id, new_path);
        Reply::default()
    }

    /// Enter in the map-key prompt: false when the key is empty or taken.
    pub fn add_entry(&mut self, id: &str, path: &[usize], key: &str) -> bool {
        let added = self.get_mut(id).and_then(|form| form.add_item(path, Some(key)));
        let done = added.is_some();
        self.focus_path(id, added);
        done
    }

    pub fn delete_item(&mut self, id: &str) -> Reply {
        let Some(path) = self.get(id).and_then(|f| self.focused_path(f)) else { return Reply::default() };
        let Some(form) = self.get_mut(id) else { return Reply::default() };
        if !form.is_item(&path) {
            return Reply::status("only array items and map entries can be deleted");
        }
        form.remove_item(&path);
        self.move_cursor(id, 0);
        Reply::default()
    }

    pub fn move_item(&mut self, id: &str, delta: isize) {
        let Some(path) = self.get(id).and_then(|f| self.focused_path(f)) else { return };
        let new_path = self.get_mut(id).and_then(|form| form.move_item(&path, delta));
        self.focus_path(id, new_path);
    }

    pub fn toggle_run_option(&mut self, id: &str, n: usize) -> Reply {
        let path = self.get(id).and_then(|f| f.run_options().get(n).map(|(path, _)| path.clone()));
        match (path, self.get_mut(id)) {
            (Some(path), Some(form)) => form.toggle_bool(&path),
            _ => return Reply::status(format!("this tool has no run option {}", n + 1)),
        }
        Reply::default()
    }

    /// A choice from a picker the form opened.
    pub fn pick(&mut self, id: &str, path: &[usize], purpose: PickerPurpose, selected: usize, option: String) {
        let Some(form) = self.get_mut(id) else { return };
        match purpose {
            PickerPurpose::Enum => form.choose(path, selected),
            PickerPurpose::Variant => form.pick_variant(path, selected),
            // Not a form's: the app connects the server before a form sees it.
            PickerPurpose::FoundServer => (),
            PickerPurpose::Suggestion => {
                form.edit_text(path, |input, _| input.set(option));
                self.editing = false;
            }
        }
    }

    /// Opens the JSON view of the arguments (true: it takes the focus), or closes it (false):
    /// the key that opened it closes it, from inside it or from the form.
    pub fn toggle_json(&mut self, id: &str) -> Option<bool> {
        if self.json.is_some() {
            self.json = None;
            return Some(false);
        }
        let text = pretty(self.get(id)?.arguments());
        self.json = Some(JsonView::new(text));
        self.editing = false;
        Some(true)
    }

    /// The JSON view follows the form, except while it is being edited (its text is the truth
    /// then).
    pub fn sync_json(&mut self, id: Option<&str>, json_focused: bool) {
        if json_focused {
            return;
        }
        let text = id.and_then(|id| self.get(id)).map(|f| pretty(f.arguments()));
        if let (Some(json), Some(text)) = (self.json.as_mut(), text)
            && json.input().text() != text
        {
            json.set_text(text);
        }
    }

    /// Parses the JSON view; a valid object replaces the form's content, anything else is an
    /// error shown in the view and the form stays as it was.
    pub fn apply_json(&mut self, id: &str) {
        let Some(json) = self.json.as_ref() else { return };
        let error = match serde_json::from_str::<Value>(json.input().text()) {
            Ok(value @ Value::Object(_)) => {
                if let Some(form) = self.get_mut(id) {
                    form.set_arguments(&value);
                }
                None
            }
            Ok(_) => Some("the arguments must be a JSON object".to_string()),
            Err(e) => Some(e.to_string()),
        };
        if let Some(json) = self.json.as_mut() {
            json.set_error(error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{LoadOptions, load_samples};

    #[test]
    fn a_taller_pane_scrolls_back_instead_of_showing_blank_rows() {
        let mut pane = FormPane::default();
        let heights = [1; 30];
        pane.cursor = 29;
        pane.scroll_to_cursor(&heights, 10);
        assert_eq!(pane.scroll(), 20);
        // Zoomed: 25 lines tall, so the last 25 rows show, not 10 rows and 15 blank.
        pane.scroll_to_cursor(&heights, 25);
        assert_eq!(pane.scroll(), 5);
    }

    #[test]
    fn at_most_the_recently_used_forms_are_kept_and_edits_come_back() {
        let catalog = load_samples(&LoadOptions::default()).catalog;
        assert!(catalog.len() > FORMS_KEPT + 2, "enough sample tools to overflow the cache");
        let mut pane = FormPane::default();
        let first = catalog.get("search_products").expect("a sample tool");
        pane.open(first).set_arguments(&serde_json::json!({"query": "laptop"}));
        for tool in catalog.tools().iter().filter(|t| t.id != first.id) {
            pane.open(tool);
            assert!(pane.built() <= FORMS_KEPT);
        }
        assert!(pane.get(&first.id).is_none(), "the least recently used form went");
        let form = pane.open(first);
        assert_eq!(form.arguments(), &serde_json::json!({"query": "laptop"}), "built again with the user's edits");
        assert_eq!(pane.built(), FORMS_KEPT);
    }
}
