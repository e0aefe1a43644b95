//! A tool's parameter schema as an editable form: a tree of [`Field`]s built from the schema,
//! edited in place, turned back into the JSON arguments and validated after every edit.
//! No terminal code lives here.

pub mod args;
pub mod build;
pub mod carry;
pub mod defaults;
pub mod edit;
pub mod input;
pub mod labels;
pub mod tile;
pub mod validate;
pub mod value;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

pub use input::TextInput;
pub use validate::Validation;

use crate::catalog::Tool;

/// One field of the form: a property, an array item, a map entry, or the root.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name, `[3]` for an array item, the entry key for a map entry, "" at the root.
    pub name: String,
    pub schema: Value,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    /// Unset optional fields are left out of the arguments.
    pub set: bool,
    /// The value is the schema's default, untouched by the user.
    pub from_default: bool,
    /// A boolean the format wants beside the Run hint rather than in the form.
    pub run_option: bool,
    /// Folded away in the form (objects and arrays).
    pub collapsed: bool,
    pub widget: Widget,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Widget {
    /// A string; `multiline` for a textarea or a value with newlines.
    Text {
        input: TextInput,
        multiline: bool,
    },
    /// Free text with values to pick from (`uiSuggestions`, `examples`).
    Suggest {
        input: TextInput,
        suggestions: Vec<Value>,
    },
    /// A number typed as text, parsed when the arguments are built.
    Number {
        input: TextInput,
        integer: bool,
    },
    /// `None` is unset (an optional boolean without a default is tri-state).
    Bool(Option<bool>),
    /// An enum: one of `choices`.
    Choice {
        choices: Vec<Choice>,
        selected: Option<usize>,
    },
    /// A `const`: nothing to edit.
    Const(Value),
    /// Properties in schema order; `entries` hold the `additionalProperties` map rows.
    Object {
        fields: Vec<Field>,
        additional: Option<Value>,
        entries: Vec<Field>,
    },
    Array {
        items: Vec<Field>,
        item_schema: Value,
    },
    /// `oneOf`/`anyOf`/a type list: the picked variant's own field.
    Variant {
        variants: Vec<Choice>,
        selected: usize,
        inner: Box<Field>,
    },
    /// Anything the form cannot represent, edited as JSON text: never a crash, never lost.
    Raw {
        input: TextInput,
    },
}

/// An option of an enum or a variant picker: its value (or schema) and what to show.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: Value,
    pub label: String,
}

impl Field {
    pub fn children(&self) -> Vec<&Field> {
        match &self.widget {
            Widget::Object { fields, entries, .. } => fields.iter().chain(entries).collect(),
            Widget::Array { items, .. } => items.iter().collect(),
            Widget::Variant { inner, .. } => vec![inner],
            _ => Vec::new(),
        }
    }

    /// True for objects and arrays, which show their children below them.
    pub fn is_group(&self) -> bool {
        matches!(self.widget, Widget::Object { .. } | Widget::Array { .. })
    }

    pub fn label(&self) -> &str {
        if self.name.is_empty() { self.title.as_deref().unwrap_or("arguments") } else { &self.name }
    }

    /// The text being edited, for widgets that have one.
    pub fn input(&self) -> Option<&TextInput> {
        match &self.widget {
            Widget::Text { input, .. }
            | Widget::Suggest { input, .. }
            | Widget::Number { input, .. }
            | Widget::Raw { input } => Some(input),
            _ => None,
        }
    }
}

/// A row of the form as shown: a field, how deep it is, and its JSON pointer in the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Child indexes from the root (see [`Field::children`]).
    pub path: Vec<usize>,
    pub depth: usize,
    pub pointer: String,
}

/// The form of one tool: the field tree, the arguments it makes and what is wrong with them.
#[derive(Debug, Clone)]
pub struct Form {
    pub root: Field,
    /// The tool's whole input schema, for `$ref`s met when adding array items (shared: each edit
    /// that builds fields holds it while the form is borrowed).
    pub root_schema: std::sync::Arc<Value>,
    /// UI cues by JSON pointer, from the tool definition.
    pub cues: BTreeMap<String, crate::catalog::FieldCue>,
    validator: validate::Checker,
    /// The arguments as last built, and the problems with them.
    pub validation: Validation,
}

impl Form {
    /// The form with its schema compiled here and now (headless use, tests).
    pub fn new(tool: &Tool) -> Form {
        Form::with_checker(tool, validate::Checker::new(&tool.input_schema))
    }

    /// The form with a checker compiled elsewhere, or [`validate::Checker::pending`] while it is
    /// compiled off the UI thread ([`Form::set_checker`] brings it in).
    pub fn with_checker(tool: &Tool, validator: validate::Checker) -> Form {
        let root = build::root_field(&tool.input_schema, &tool.ui.fields);
        let mut form = Form {
            root,
            root_schema: std::sync::Arc::new(tool.input_schema.clone()),
            cues: tool.ui.fields.clone(),
            validator,
            validation: Validation::default(),
        };
        form.revalidate();
        form
    }

    /// The compiled checker arrived: check the arguments with it.
    pub fn set_checker(&mut self, validator: validate::Checker) {
        self.validator = validator;
        self.revalidate();
    }

    /// True while the schema is still being compiled (only the form's own checks apply).
    pub fn checking(&self) -> bool {
        self.validator.is_pending()
    }

    /// Builds the arguments and checks them; call after every edit.
    pub fn revalidate(&mut self) {
        let built = value::build(&self.root);
        // Only `oneOf`/`anyOf` options: a type list's errors come out per type, not per option.
        let mut picked = HashMap::new();
        walk(&self.root, "", &mut |field, pointer| {
            if let Widget::Variant { selected, .. } = field.widget
                && !field.schema.get("type").is_some_and(Value::is_array)
            {
                picked.entry(pointer.to_string()).or_insert(selected);
            }
        });
        // Errors belong to fields whether or not their group is folded: the count must not change
        // when the user folds something.
        self.validation = self.validator.check_picked(built, &self.all_rows(), &picked);
    }

    pub fn arguments(&self) -> &Value {
        &self.validation.arguments
    }

    /// Visible rows, depth-first, skipping the children of collapsed groups. The root itself is
    /// not a row.
    pub fn rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        collect_rows(&self.root, &mut Vec::new(), "", 0, &mut rows, true, true);
        rows
    }

    /// Every row, folded groups' children included.
    pub fn all_rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        collect_rows(&self.root, &mut Vec::new(), "", 0, &mut rows, true, false);
        rows
    }

    /// How many errors sit below `pointer` (for a folded group's summary).
    pub fn errors_inside(&self, pointer: &str) -> usize {
        let prefix = format!("{pointer}/");
        self.validation.errors.iter().filter(|(p, _)| p.starts_with(&prefix)).map(|(_, m)| m.len()).sum()
    }

    pub fn field(&self, path: &[usize]) -> Option<&Field> {
        let mut field = &self.root;
        for &i in path {
            field = *field.children().get(i)?;
        }
        Some(field)
    }

    /// Errors by JSON pointer, with parse errors in place of the validator's at the same field.
    pub fn errors_at(&self, pointer: &str) -> &[String] {
        self.validation.errors.get(pointer).map_or(&[], Vec::as_slice)
    }

    /// Replaces every field's content from a whole arguments value (the JSON view's edits),
    /// keeping the folded groups folded and each variant's option where the value still fits it.
    pub fn set_arguments(&mut self, arguments: &Value) {
        let mut picked = HashMap::new();
        let mut collapsed = HashSet::new();
        walk(&self.root, "", &mut |field, pointer| {
            if let Widget::Variant { selected, .. } = field.widget {
                picked.entry(pointer.to_string()).or_insert(selected);
            }
            if field.collapsed {
                collapsed.insert(pointer.to_string());
            }
        });
        self.root = build::root_field(&self.root_schema, &self.cues);
        value::set_value_preferring(&mut self.root, arguments, &self.root_schema, &self.cues, "", &picked);
        if !collapsed.is_empty() {
            walk_mut(&mut self.root, "", &mut |field, pointer| {
                field.collapsed |= field.is_group() && collapsed.contains(pointer);
            });
        }
        self.revalidate();
    }

    /// The `uiType: runOption` booleans of the top level, shown beside the Run hint.
    pub fn run_options(&self) -> Vec<(Vec<usize>, &Field)> {
        self.root
            .children()
            .into_iter()
            .enumerate()
            .filter(|(_, f)| f.run_option && matches!(f.widget, Widget::Bool(_)))
            .map(|(i, f)| (vec![i], f))
            .collect()
    }

    /// Pointer → rows index, for mapping errors and clicks.
    pub fn row_index(&self) -> HashMap<String, usize> {
        self.rows().into_iter().enumerate().map(|(i, r)| (r.pointer, i)).collect()
    }
}

fn collect_rows(
    field: &Field,
    path: &mut Vec<usize>,
    pointer: &str,
    depth: usize,
    rows: &mut Vec<Row>,
    is_root: bool,
    respect_folds: bool,
) {
    // The root is no row, unless it is a variant (its picker must be reachable) or the raw
    // editor of a schema too large for a form.
    let own_row = !is_root || matches!(field.widget, Widget::Variant { .. } | Widget::Raw { .. });
    if own_row {
        rows.push(Row { path: path.clone(), depth, pointer: pointer.to_string() });
        if field.collapsed && respect_folds {
            return;
        }
    }
    let child_depth = if own_row { depth + 1 } else { depth };
    for (i, child) in field.children().into_iter().enumerate() {
        // Run options sit beside the Run hint, not among the fields.
        if child.run_option {
            continue;
        }
        path.push(i);
        let child_pointer = child_pointer(field, child, i, pointer);
        if matches!(field.widget, Widget::Variant { .. }) && matches!(child.widget, Widget::Object { .. }) {
            // A variant's object shows its fields straight under the picker.
            collect_rows(child, path, &child_pointer, child_depth, rows, true, respect_folds);
        } else {
            collect_rows(child, path, &child_pointer, child_depth, rows, false, respect_folds);
        }
        path.pop();
    }
}

/// Calls `f` on every field below and including `field`, with its JSON pointer.
fn walk(field: &Field, pointer: &str, f: &mut impl FnMut(&Field, &str)) {
    f(field, pointer);
    for (i, child) in field.children().into_iter().enumerate() {
        walk(child, &child_pointer(field, child, i, pointer), f);
    }
}

fn walk_mut(field: &mut Field, pointer: &str, f: &mut impl FnMut(&mut Field, &str)) {
    f(field, pointer);
    let pointers: Vec<String> =
        field.children().into_iter().enumerate().map(|(i, child)| child_pointer(field, child, i, pointer)).collect();
    let children: Vec<&mut Field> = match &mut field.widget {
        Widget::Object { fields, entries, .. } => fields.iter_mut().chain(entries.iter_mut()).collect(),
        Widget::Array { items, .. } => items.iter_mut().collect(),
        Widget::Variant { inner, .. } => vec![&mut **inner],
        _ => Vec::new(),
    };
    for (child, child_pointer) in children.into_iter().zip(&pointers) {
        walk_mut(child, child_pointer, f);
    }
}

/// A child's JSON pointer; a variant's field stands in for the variant itself, at its pointer.
fn child_pointer(parent: &Field, child: &Field, index: usize, pointer: &str) -> String {
    if matches!(parent.widget, Widget::Variant { .. }) {
        pointer.to_string()
    } else {
        format!("{pointer}/{}", crate::catalog::schema::escape_pointer(&child_key(parent, child, index)))
    }
}

/// The key a child has in its parent's JSON value.
fn child_key(parent: &Field, child: &Field, index: usize) -> String {
    match parent.widget {
        Widget::Array { .. } => index.to_string(),
        _ => child.name.clone(),
    }
}
