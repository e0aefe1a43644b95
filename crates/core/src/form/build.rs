//! Schema → field tree: one widget for every JSON Schema construct, with the formats' UI cues.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value};

use super::{Choice, Field, TextInput, Widget};
use crate::catalog::schema::escape_pointer;
use crate::catalog::{FieldCue, Widget as Cue};

/// A chain of `$ref`s pointing on to each other is followed at most this far.
const MAX_REF_DEPTH: usize = 16;
/// How often one `$ref` may be expanded inside its own expansion: a recursive schema shows this
/// many levels, and the levels below start as stubs (see [`expand`]) that a value fills.
const MAX_RECURSION: usize = 2;
/// Fields built in one go at most, shared fairly between siblings, so a schema whose `$ref`s
/// fan out builds in bounded time; what does not fit starts as a stub too.
pub const MAX_FIELDS: usize = 2_000;
/// Objects nested deeper than this start as stubs, so building never runs out of stack.
const MAX_NESTING: usize = 64;

pub fn root_field(schema: &Value, cues: &BTreeMap<String, FieldCue>) -> Field {
    let size = serialized_size(schema);
    if size > MAX_FORM_SCHEMA_BYTES {
        let why = format!("is {} (its $refs inlined)", crate::text::human_bytes(size as u64));
        return too_large(schema, &why);
    }
    let mut builder = Builder { root: schema, cues, chain: Vec::new(), budget: MAX_FIELDS, ran_out: false };
    let mut field = builder.field(schema, "", String::new(), true, 0);
    // A schema that needs more fields than a form builds at once (its `$ref`s fan out) would be
    // stubs all the way down: the JSON editor says what is going on instead.
    if builder.ran_out {
        return too_large(schema, &format!("needs more than {MAX_FIELDS} fields"));
    }
    field.set = true;
    field
}

/// A schema past this size (serialized, `$ref`s inlined) gets the raw JSON editor instead of a
/// form: each field keeps its part of the schema, so a form costs some multiple of it (a 4 KB file
/// of nested `$ref`s inlines to 5 MB and made a form of 525 MB).
pub const MAX_FORM_SCHEMA_BYTES: usize = 1 << 20;

/// The whole arguments as one JSON editor, with a note that says why.
fn too_large(schema: &Value, why: &str) -> Field {
    let mut builder = Builder { root: schema, cues: &BTreeMap::new(), chain: Vec::new(), budget: 0, ran_out: false };
    let mut field = builder.field(&Value::Bool(true), "", "arguments".to_string(), true, 0);
    field.schema = schema.clone();
    field.set = true;
    field.description = Some(format!("This tool's schema {why}, too large for a form: write the arguments as JSON."));
    field
}

/// `schema` without its subschemas (a stub keeps its whole schema: it is built from it later).
/// A field built into widgets needs no more: its children hold their own parts, and a copy at
/// every level would cost the schema's size once per level (a fanned-out schema of 20,000 values
/// made forms of 65 MB).
fn shallow(schema: Value) -> Value {
    match schema {
        Value::Object(mut map) => {
            map.retain(|key, _| !crate::catalog::schema::holds_subschemas(key));
            Value::Object(map)
        }
        other => other,
    }
}

/// The length of `value` as compact JSON, without building the text.
fn serialized_size(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Builds the field for `schema` at `pointer` (the field's JSON pointer in the arguments, which
/// is also its cue key). `depth` is how deeply nested the field already is.
pub fn build(
    schema: &Value,
    root: &Value,
    cues: &BTreeMap<String, FieldCue>,
    pointer: &str,
    name: String,
    required: bool,
    depth: usize,
) -> Field {
    Builder { root, cues, chain: Vec::new(), budget: MAX_FIELDS, ran_out: false }
        .field(schema, pointer, name, required, depth)
}

/// A new field for the array item at `pointer` (items are always set).
pub fn item(
    item_schema: &Value,
    root: &Value,
    cues: &BTreeMap<String, FieldCue>,
    pointer: &str,
    index: usize,
) -> Field {
    added(build(item_schema, root, cues, pointer, format!("[{index}]"), true, 0))
}

/// A field just added as an array item or map entry: it is set, and a checkbox has a value (an
/// unset item would be a `null` in the array, an unset entry no entry at all).
pub fn added(mut field: Field) -> Field {
    field.set = true;
    if field.widget == Widget::Bool(None) {
        field.widget = Widget::Bool(Some(false));
    }
    field
}

/// A stub (a raw field whose schema could build real widgets: a recursion or budget limit) built
/// out into those widgets, one more round of levels deep. `None` for a field that is raw anyway.
pub fn expand(field: &Field, root: &Value, cues: &BTreeMap<String, FieldCue>, pointer: &str) -> Option<Field> {
    if !matches!(field.widget, Widget::Raw { .. }) {
        return None;
    }
    let mut real = build(&field.schema, root, cues, pointer, field.name.clone(), field.required, 0);
    if matches!(real.widget, Widget::Raw { .. }) {
        return None;
    }
    real.set = field.set;
    real.collapsed = field.collapsed;
    Some(real)
}

struct Builder<'a> {
    root: &'a Value,
    cues: &'a BTreeMap<String, FieldCue>,
    /// The `$ref`s being expanded around the field being built, outermost first.
    chain: Vec<String>,
    /// Fields this subtree may still build.
    budget: usize,
    /// A field became a stub because the budget was spent.
    ran_out: bool,
}

impl Builder<'_> {
    fn field(&mut self, schema: &Value, pointer: &str, name: String, required: bool, depth: usize) -> Field {
        let (schema, followed) = self.resolve(schema);
        let cue = self.cues.get(pointer);
        let widget = if self.budget == 0 || depth > MAX_NESTING {
            self.ran_out |= self.budget == 0;
            Widget::Raw { input: TextInput::default() }
        } else {
            self.budget -= 1;
            self.widget(&schema, pointer, cue, depth)
        };
        self.chain.truncate(self.chain.len() - followed);
        let schema = if matches!(widget, Widget::Raw { .. }) { schema } else { shallow(schema) };
        let mut field = Field {
            name,
            title: text(&schema, "title"),
            description: text(&schema, "description"),
            required,
            set: false,
            from_default: false,
            run_option: cue.and_then(|c| c.widget) == Some(Cue::RunOption),
            collapsed: false,
            widget,
            schema,
        };
        // A default the schema's own type rejects (`"default": null` on a string, common in
        // generated definitions) is no value to pre-fill: the field starts unset instead. An
        // optional field's default is only shown (`defaults`): the server applies it when the
        // field is absent, so it is not sent; a required field must be sent, so it is filled.
        let default = field.schema.get("default").filter(|d| field.required && type_allows(&field.schema, d)).cloned();
        if let Some(default) = default {
            if let Widget::Raw { input } = &mut field.widget {
                // Not through `set_value`, which would grow a stub: a default inside a recursion
                // would grow it forever.
                input.set(super::value::pretty(&default));
                field.set = true;
            } else {
                super::value::set_default(&mut field, &default, self.root, self.cues, pointer);
            }
            field.from_default = true;
        }
        field
    }

    /// Builds sibling fields, each with a fair share of what is left of the budget (so one huge
    /// sibling cannot starve the others; what a small one leaves goes on to the next).
    fn fields(&mut self, children: Vec<(&Value, String, String, bool)>, depth: usize) -> Vec<Field> {
        let count = children.len();
        let mut fields = Vec::with_capacity(count);
        for (i, (schema, pointer, name, required)) in children.into_iter().enumerate() {
            let share = self.budget / (count - i);
            let rest = self.budget - share;
            self.budget = share;
            fields.push(self.field(schema, &pointer, name, required, depth));
            self.budget += rest;
        }
        fields
    }

    /// The schema with its `$ref`s followed (except into a recursion already deep enough) and
    /// `allOf` merged; also how many `$ref`s were pushed on the chain.
    fn resolve(&mut self, schema: &Value) -> (Value, usize) {
        let mut schema = schema.clone();
        let mut followed = 0;
        for _ in 0..MAX_REF_DEPTH {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else { break };
            if self.chain.iter().filter(|r| *r == reference).count() >= MAX_RECURSION {
                break;
            }
            let Some(target) = reference.strip_prefix('#').and_then(|p| self.root.pointer(p)) else { break };
            self.chain.push(reference.to_string());
            followed += 1;
            schema = with_siblings(target, &schema);
        }
        if let Some(Value::Array(parts)) = schema.get("allOf").cloned() {
            let mut merged = schema.as_object().cloned().unwrap_or_default();
            merged.remove("allOf");
            for part in parts {
                let (part, pushed) = self.resolve(&part);
                self.chain.truncate(self.chain.len() - pushed);
                merge_part(&mut merged, part);
            }
            schema = Value::Object(merged);
        }
        (schema, followed)
    }

    fn widget(&mut self, schema: &Value, pointer: &str, cue: Option<&FieldCue>, depth: usize) -> Widget {
        if let Some(variants) = variants(schema) {
            let mut inner = self.field(&variants[0].value, pointer, String::new(), true, depth + 1);
            inner.set = true;
            return Widget::Variant { variants, selected: 0, inner: Box::new(inner) };
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            let labels = cue.map(|c| c.enum_labels.as_slice()).unwrap_or_default();
            // Legacy `enumNames` (older elicitation forms, JSON Schema form libraries): the label
            // of the value at the same place.
            let names = schema.get("enumNames").and_then(Value::as_array);
            let choices = values
                .iter()
                .enumerate()
                .map(|(i, v)| Choice {
                    value: v.clone(),
                    label: labels.iter().find(|l| &l.value == v).map(|l| l.label.clone()).unwrap_or_else(|| {
                        let named = names.and_then(|n| n.get(i)).and_then(Value::as_str);
                        named.map_or_else(|| show(v), |name| crate::text::visible(name).into_owned())
                    }),
                })
                .collect();
            return Widget::Choice { choices, selected: None };
        }
        if let Some(choices) = const_choices(schema) {
            return Widget::Choice { choices, selected: None };
        }
        if let Some(value) = schema.get("const") {
            return Widget::Const(value.clone());
        }
        match type_of(schema) {
            Some("string") => {
                let suggestions: Vec<Value> = cue
                    .map(|c| c.suggestions.clone())
                    .filter(|s| !s.is_empty())
                    .or_else(|| schema.get("examples").and_then(Value::as_array).cloned())
                    .unwrap_or_default();
                let multiline = cue.and_then(|c| c.widget) == Some(Cue::Textarea);
                if !suggestions.is_empty() && !multiline {
                    Widget::Suggest { input: TextInput::default(), suggestions }
                } else {
                    Widget::Text { input: TextInput::default(), multiline }
                }
            }
            Some("integer") => Widget::Number { input: TextInput::default(), integer: true },
            Some("number") => Widget::Number { input: TextInput::default(), integer: false },
            Some("boolean") => Widget::Bool(None),
            Some("object") => self.object(schema, pointer, depth),
            Some("array") => {
                let item_schema = match schema.get("items") {
                    Some(items @ (Value::Object(_) | Value::Bool(_))) => items.clone(),
                    _ => Value::Object(Map::new()),
                };
                Widget::Array { items: Vec::new(), item_schema }
            }
            Some("null") => Widget::Const(Value::Null),
            _ => Widget::Raw { input: TextInput::default() },
        }
    }

    fn object(&mut self, schema: &Value, pointer: &str, depth: usize) -> Widget {
        // A set: a server's schema of 100,000 required properties was a quadratic scan.
        let required: HashSet<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = schema.get("properties").and_then(Value::as_object);
        let children = properties
            .into_iter()
            .flatten()
            .map(|(name, property)| {
                let child_pointer = format!("{pointer}/{}", escape_pointer(name));
                (property, child_pointer, name.clone(), required.contains(&name.as_str()))
            })
            .collect();
        let fields = self.fields(children, depth + 1);
        // Without declared properties, an object is a free map; otherwise only when the schema says so.
        let has_properties = schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
        let additional = match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some(Value::Object(Map::new())),
            Some(extra @ Value::Object(_)) => Some(extra.clone()),
            _ if !has_properties && schema.get("patternProperties").is_none() => Some(Value::Object(Map::new())),
            _ => None,
        };
        Widget::Object { fields, additional, entries: Vec::new() }
    }
}

/// `oneOf`/`anyOf`, or a `type` list (`["string", "null"]`), as variants to pick from.
fn variants(schema: &Value) -> Option<Vec<Choice>> {
    if let Some(Value::Array(types)) = schema.get("type") {
        let mut base = schema.as_object().cloned().unwrap_or_default();
        base.remove("type");
        base.remove("default");
        let variants: Vec<Choice> = types
            .iter()
            .filter_map(Value::as_str)
            .map(|t| {
                let mut variant = base.clone();
                variant.insert("type".into(), Value::String(t.to_string()));
                if t == "null" {
                    variant.retain(|k, _| k == "type");
                }
                Choice { value: Value::Object(variant), label: t.to_string() }
            })
            .collect();
        return (variants.len() > 1).then_some(variants);
    }
    let options = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
    if options.is_empty() || const_choices(schema).is_some() {
        return None;
    }
    let mut base = schema.as_object().cloned().unwrap_or_default();
    for k in ["oneOf", "anyOf", "default", "title", "description"] {
        base.remove(k);
    }
    let labels = super::labels::variant_labels(options);
    Some(
        options
            .iter()
            .zip(labels)
            .map(|(option, label)| {
                // The parent's own keywords (a `type`, `properties`) apply inside every variant.
                let mut merged = base.clone();
                if let Value::Object(own) = option {
                    merged.extend(own.clone());
                }
                Choice { value: Value::Object(merged), label }
            })
            .collect(),
    )
}

/// `oneOf: [{const, title}, ...]` is an enum with labels.
fn const_choices(schema: &Value) -> Option<Vec<Choice>> {
    let options = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
    if options.is_empty() || !options.iter().all(|o| o.get("const").is_some()) {
        return None;
    }
    Some(
        options
            .iter()
            .map(|o| Choice { value: o["const"].clone(), label: text(o, "title").unwrap_or_else(|| show(&o["const"])) })
            .collect(),
    )
}

/// The one type a schema declares (also as a list of one), or the one its keywords imply.
fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t),
        Some(Value::Array(types)) if types.len() == 1 => types[0].as_str(),
        _ if schema.get("properties").is_some() || schema.get("additionalProperties").is_some() => Some("object"),
        _ if schema.get("items").is_some() => Some("array"),
        _ => None,
    }
}

/// Follows a `$ref` (and merges `allOf`) so the widget sees one schema. Past `depth`
/// [`MAX_REF_DEPTH`] nothing is followed; a recursion is followed [`MAX_RECURSION`] times.
pub fn resolve(schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > MAX_REF_DEPTH {
        return schema.clone();
    }
    let cues = BTreeMap::new();
    Builder { root, cues: &cues, chain: Vec::new(), budget: 0, ran_out: false }.resolve(schema).0
}

/// A `$ref`'s target with the referring schema's other keywords laid over it.
fn with_siblings(target: &Value, referring: &Value) -> Value {
    let mut merged = target.clone();
    if let (Value::Object(merged), Value::Object(own)) = (&mut merged, referring) {
        for (k, v) in own {
            if k != "$ref" {
                merged.insert(k.clone(), v.clone());
            }
        }
    }
    merged
}

/// One `allOf` part into the merged schema: properties and required lists add up, any other
/// keyword already there stays.
fn merge_part(merged: &mut Map<String, Value>, part: Value) {
    let Value::Object(part) = part else { return };
    for (k, v) in part {
        match (k.as_str(), merged.get_mut(&k), v) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => mine.extend(theirs),
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => mine.extend(theirs),
            (_, Some(_), _) => {}
            (_, None, v) => {
                merged.insert(k, v);
            }
        }
    }
}

pub(super) fn text(schema: &Value, key: &str) -> Option<String> {
    schema.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A value as a short label.
pub fn show(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether `value`'s JSON type is one the schema's `type` names (any, when it names none).
pub(super) fn type_allows(schema: &Value, value: &Value) -> bool {
    use crate::catalog::schema::value_has_type;
    match schema.get("type") {
        Some(Value::String(t)) => value_has_type(t, value),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).any(|t| value_has_type(t, value)),
        _ => true,
    }
}
