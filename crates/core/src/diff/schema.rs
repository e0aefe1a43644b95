//! Two schemas → what changed, by meaning. Every difference is a change in the set of values the
//! schema accepts: narrower (fewer values: a removed enum member, a raised minimum, a new
//! required property) or wider. For inputs a narrower schema breaks callers (what they sent may
//! now be refused); for outputs a wider one does (what they receive may no longer be what they
//! handle). Property order, `required` order and `$ref`s the loader inlined are not changes.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{Change, Class, Side};
use crate::catalog::schema::escape_pointer;
use crate::lint::shown_pointer;

/// Schemas nested deeper than this are compared no further (inlined `$ref`s can nest deeply).
const MAX_DEPTH: usize = 64;

pub struct Compare<'a> {
    pub side: Side,
    pub changes: &'a mut Vec<Change>,
    /// The two whole schemas, for the `$ref`s the loader kept (recursive ones).
    pub old_root: &'a Value,
    pub new_root: &'a Value,
    /// The pairs of `$ref`s being compared further up: meeting one again is a cycle.
    pub following: Vec<(Option<String>, Option<String>)>,
}

/// Which way the accepted values moved.
#[derive(Clone, Copy)]
struct Moved {
    narrower: bool,
    wider: bool,
}

const NARROWER: Moved = Moved { narrower: true, wider: false };
const WIDER: Moved = Moved { narrower: false, wider: true };
const BOTH: Moved = Moved { narrower: true, wider: true };

impl Compare<'_> {
    fn class(&self, moved: Moved) -> Class {
        let breaking = match self.side {
            Side::Input => moved.narrower,
            Side::Output => moved.wider,
        };
        if breaking { Class::Breaking } else { Class::Compatible }
    }

    fn push(&mut self, class: Class, kind: &'static str, pointer: &str, message: String) {
        self.changes.push(Change { class, kind, side: Some(self.side), pointer: pointer.to_string(), message });
    }

    fn moved(&mut self, moved: Moved, kind: &'static str, pointer: &str, message: String) {
        let class = self.class(moved);
        self.push(class, kind, pointer, message);
    }

    fn what(&self, pointer: &str) -> String {
        let place = shown_pointer(pointer);
        match self.side {
            Side::Input if place == "the top level" => "the parameters".into(),
            Side::Input => format!("parameter {place}"),
            Side::Output if place == "the top level" => "the output".into(),
            Side::Output => format!("output field {place}"),
        }
    }

    pub fn compare(&mut self, old: &Value, new: &Value, pointer: &mut String, depth: usize) {
        if old == new || depth > MAX_DEPTH {
            return;
        }
        let (old, old_ref) = resolved(old, self.old_root);
        let (new, new_ref) = resolved(new, self.new_root);
        if old_ref.is_some() || new_ref.is_some() {
            let pair = (old_ref, new_ref);
            if self.following.contains(&pair) {
                return;
            }
            self.following.push(pair);
            self.compare_resolved(&old, &new, pointer, depth);
            self.following.pop();
        } else {
            self.compare_resolved(&old, &new, pointer, depth);
        }
    }

    fn compare_resolved(
        &mut self,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        pointer: &mut String,
        depth: usize,
    ) {
        let renamed = self.one_of_any_of(old, new, pointer);
        let old = renamed.as_ref().unwrap_or(old);
        self.types(old, new, pointer);
        self.enums(old, new, pointer);
        self.bounds(old, new, pointer);
        self.constraints(old, new, pointer);
        self.properties(old, new, pointer, depth);
        self.closed(old, new, pointer, depth);
        for keyword in ["items", "contains", "propertyNames", "additionalItems"] {
            if let (Some(a @ Value::Object(_)), Some(b @ Value::Object(_))) = (old.get(keyword), new.get(keyword)) {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(keyword);
                self.compare(a, b, pointer, depth + 1);
                pointer.truncate(len);
            }
        }
        for keyword in ["prefixItems", "anyOf", "oneOf", "allOf"] {
            self.lists(keyword, old, new, pointer, depth);
        }
        for keyword in ["not", "if", "then", "else", "dependentSchemas", "dependentRequired", "patternProperties"] {
            if old.get(keyword) != new.get(keyword) {
                let what = self.what(pointer);
                self.moved(BOTH, "condition-changed", pointer, format!("`{keyword}` of {what} changed"));
            }
        }
        for keyword in ["$defs", "definitions"] {
            self.definitions(keyword, old, new, pointer, depth);
        }
        self.annotations(old, new, pointer);
    }

    fn types(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, pointer: &str) {
        let (a, b) = (type_set(old), type_set(new));
        if a == b {
            return;
        }
        let covers = |set: &Option<BTreeSet<String>>, t: &str| {
            set.as_ref().is_none_or(|s| s.contains(t) || (t == "integer" && s.contains("number")))
        };
        let narrower = match &a {
            None => b.is_some(),
            Some(types) => types.iter().any(|t| !covers(&b, t)),
        };
        let wider = match &b {
            None => a.is_some(),
            Some(types) => types.iter().any(|t| !covers(&a, t)),
        };
        if !narrower && !wider {
            return;
        }
        let verb = match (narrower, wider) {
            (true, false) => "narrowed",
            (false, true) => "widened",
            _ => "changed",
        };
        let what = self.what(pointer);
        self.moved(
            Moved { narrower, wider },
            "type",
            &format!("{pointer}/type"),
            format!("type of {what} {verb} from {} to {}", shown_types(&a), shown_types(&b)),
        );
    }

    fn enums(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, pointer: &str) {
        let (a, b) = (members(old), members(new));
        if a == b {
            return;
        }
        let what = self.what(pointer);
        let at = format!("{pointer}/enum");
        match (&a, &b) {
            (None, Some(values)) => {
                self.moved(NARROWER, "enum-added", &at, format!("{what} is now limited to {}", shown_list(values)))
            }
            (Some(_), None) => {
                self.moved(WIDER, "enum-removed", &at, format!("{what} is no longer limited to a list of values"))
            }
            (Some(a), Some(b)) => {
                let removed: Vec<Value> = a.iter().filter(|v| !b.iter().any(|w| same(v, w))).cloned().collect();
                let added: Vec<Value> = b.iter().filter(|v| !a.iter().any(|w| same(v, w))).cloned().collect();
                if !removed.is_empty() {
                    let message = format!("{} removed from the values of {what}", shown_list(&removed));
                    self.moved(NARROWER, "enum-member-removed", &at, message);
                }
                if !added.is_empty() {
                    let message = format!("{} added to the values of {what}", shown_list(&added));
                    self.moved(WIDER, "enum-member-added", &at, message);
                }
            }
            (None, None) => {}
        }
    }

    fn bounds(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, pointer: &str) {
        const LOWER: &[&str] =
            &["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"];
        const UPPER: &[&str] =
            &["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"];
        for keyword in LOWER.iter().chain(UPPER) {
            let lower = LOWER.contains(keyword);
            let (a, b) = (old.get(*keyword).and_then(Value::as_f64), new.get(*keyword).and_then(Value::as_f64));
            let tighter = match (a, b) {
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(a), Some(b)) if a != b => (b > a) == lower,
                _ => continue,
            };
            let what = self.what(pointer);
            let shown = |v: Option<f64>| v.map_or_else(|| "none".to_string(), |v| v.to_string());
            let verb = if tighter { "tightened" } else { "loosened" };
            self.moved(
                if tighter { NARROWER } else { WIDER },
                "bound",
                &format!("{pointer}/{keyword}"),
                format!("`{keyword}` of {what} {verb}: {} → {}", shown(a), shown(b)),
            );
        }
    }

    fn constraints(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, pointer: &str) {
        for keyword in ["pattern", "format", "multipleOf", "uniqueItems", "const"] {
            let (a, b) = (old.get(keyword), new.get(keyword));
            if a == b
                || keyword == "uniqueItems" && a.unwrap_or(&Value::Bool(false)) == b.unwrap_or(&Value::Bool(false))
            {
                continue;
            }
            let moved = match (a, b) {
                (None, Some(_)) => NARROWER,
                (Some(_), None) => WIDER,
                _ => BOTH,
            };
            let what = self.what(pointer);
            let shown = |v: Option<&Value>| v.map_or_else(|| "none".to_string(), Value::to_string);
            self.moved(
                moved,
                "constraint",
                &format!("{pointer}/{keyword}"),
                format!("`{keyword}` of {what}: {} → {}", shown(a), shown(b)),
            );
        }
    }

    fn properties(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, pointer: &mut String, depth: usize) {
        let empty = Map::new();
        let a = old.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let b = new.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let (required_a, required_b) = (required(old), required(new));
        for (name, schema) in a {
            let len = pointer.len();
            pointer.push_str("/properties/");
            pointer.push_str(&escape_pointer(name));
            match b.get(name) {
                None => {
                    // Callers lose it either way: an input they send is refused or ignored, an
                    // output they read is gone.
                    let what = self.what(pointer);
                    self.push(Class::Breaking, "property-removed", pointer, format!("{what} removed"));
                }
                Some(new_schema) => {
                    let (was, is) = (required_a.contains(name.as_str()), required_b.contains(name.as_str()));
                    if was != is {
                        let what = self.what(pointer);
                        let (moved, message) = if is {
                            (NARROWER, format!("{what} is now required"))
                        } else {
                            (WIDER, format!("{what} is now optional"))
                        };
                        self.moved(moved, "required", pointer, message);
                    }
                    self.compare(schema, new_schema, pointer, depth + 1);
                }
            }
            pointer.truncate(len);
        }
        for name in b.keys().filter(|k| !a.contains_key(k.as_str())) {
            let len = pointer.len();
            pointer.push_str("/properties/");
            pointer.push_str(&escape_pointer(name));
            let what = self.what(pointer);
            match self.side {
                Side::Input if required_b.contains(name.as_str()) => {
                    self.push(Class::Breaking, "required-added", pointer, format!("new required {what}"))
                }
                _ => self.push(Class::Compatible, "property-added", pointer, format!("new optional {what}")),
            }
            pointer.truncate(len);
        }
        // `required` names without a property on either side (open objects); the others were
        // compared with their properties above.
        let undeclared = |r: &BTreeSet<&str>| -> BTreeSet<String> {
            r.iter().filter(|n| !a.contains_key(**n) && !b.contains_key(**n)).map(|n| n.to_string()).collect()
        };
        let (ua, ub) = (undeclared(&required_a), undeclared(&required_b));
        if ua != ub {
            let what = self.what(pointer);
            let moved =
                Moved { narrower: ub.difference(&ua).next().is_some(), wider: ua.difference(&ub).next().is_some() };
            self.moved(moved, "required", &format!("{pointer}/required"), format!("`required` of {what} changed"));
        }
    }

    fn closed(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, pointer: &mut String, depth: usize) {
        let (a, b) = (old.get("additionalProperties"), new.get("additionalProperties"));
        let is_closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        let what = self.what(pointer);
        let at = format!("{pointer}/additionalProperties");
        match (is_closed(a), is_closed(b)) {
            (false, true) => {
                self.moved(NARROWER, "closed", &at, format!("{what}: properties not listed are now refused"))
            }
            (true, false) => {
                self.moved(WIDER, "opened", &at, format!("{what}: properties not listed are now accepted"))
            }
            _ => {
                if let (Some(a @ Value::Object(_)), Some(b @ Value::Object(_))) = (a, b) {
                    let len = pointer.len();
                    pointer.push_str("/additionalProperties");
                    self.compare(a, b, pointer, depth + 1);
                    pointer.truncate(len);
                } else if a != b && (a.is_some_and(Value::is_object) || b.is_some_and(Value::is_object)) {
                    let moved = if b.is_some_and(Value::is_object) { NARROWER } else { WIDER };
                    self.moved(
                        moved,
                        "additional",
                        &at,
                        format!("the schema for unlisted properties of {what} changed"),
                    );
                }
            }
        }
    }

    fn lists(
        &mut self,
        keyword: &str,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        pointer: &mut String,
        depth: usize,
    ) {
        let (a, b) = (old.get(keyword).and_then(Value::as_array), new.get(keyword).and_then(Value::as_array));
        if a == b {
            return;
        }
        let what = self.what(pointer);
        let at = format!("{pointer}/{keyword}");
        match (a, b) {
            (Some(a), Some(b)) if keyword == "prefixItems" && a.len() == b.len() => {
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    let len = pointer.len();
                    pointer.push_str(&format!("/{keyword}/{i}"));
                    self.compare(x, y, pointer, depth + 1);
                    pointer.truncate(len);
                }
            }
            (Some(a), Some(b)) if keyword != "prefixItems" => self.branches(keyword, a, b, pointer, depth),
            (Some(a), Some(b)) => {
                let message = format!("`{keyword}` of {what} changed: {} → {} parts", a.len(), b.len());
                self.moved(BOTH, "alternatives", &at, message);
            }
            (None, Some(_)) => {
                let moved = if keyword == "anyOf" || keyword == "oneOf" { BOTH } else { NARROWER };
                self.moved(moved, "alternatives", &at, format!("{what} gained `{keyword}`"));
            }
            (Some(_), None) => {
                let moved = if keyword == "anyOf" || keyword == "oneOf" { BOTH } else { WIDER };
                self.moved(moved, "alternatives", &at, format!("{what} lost `{keyword}`"));
            }
            (None, None) => {}
        }
    }

    /// Branches of `anyOf`, `oneOf` or `allOf` are a set: the same branch in another place is no
    /// change. Of the rest, as many as remain on both sides are compared pairwise (in order);
    /// a branch left over was added or removed.
    fn branches(&mut self, keyword: &str, old: &[Value], new: &[Value], pointer: &mut String, depth: usize) {
        let mut unmatched_new: Vec<(usize, &Value)> = new.iter().enumerate().collect();
        let mut unmatched_old: Vec<&Value> = Vec::new();
        for branch in old {
            match unmatched_new.iter().position(|(_, b)| *b == branch) {
                Some(i) => {
                    unmatched_new.remove(i);
                }
                None => unmatched_old.push(branch),
            }
        }
        let paired = unmatched_old.len().min(unmatched_new.len());
        for (x, (i, y)) in unmatched_old.iter().zip(&unmatched_new) {
            let len = pointer.len();
            pointer.push_str(&format!("/{keyword}/{i}"));
            self.compare(x, y, pointer, depth + 1);
            pointer.truncate(len);
        }
        let (removed, added) = (unmatched_old.len() - paired, unmatched_new.len() - paired);
        if removed + added == 0 {
            return;
        }
        // More alternatives accept more; more allOf parts accept less.
        let moved = if keyword == "allOf" {
            Moved { narrower: added > 0, wider: removed > 0 }
        } else {
            Moved { narrower: removed > 0, wider: added > 0 }
        };
        let what = self.what(pointer);
        let mut parts = Vec::new();
        if removed > 0 {
            parts.push(format!("{removed} removed"));
        }
        if added > 0 {
            parts.push(format!("{added} added"));
        }
        let message = format!("`{keyword}` of {what}: {} (of {} → {})", parts.join(", "), old.len(), new.len());
        self.moved(moved, "alternatives", &format!("{pointer}/{keyword}"), message);
    }

    /// `oneOf` → `anyOf` over the same branches accepts also the values more than one branch
    /// matches: wider. The other way, narrower. (Branches that cannot overlap were already made
    /// `anyOf` on both sides.) Returns the old side with its keyword renamed to the new one's.
    fn one_of_any_of(
        &mut self,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        pointer: &str,
    ) -> Option<Map<String, Value>> {
        let only = |m: &Map<String, Value>, k: &str, other: &str| m.contains_key(k) && !m.contains_key(other);
        let (from, to, moved) = if only(old, "oneOf", "anyOf") && only(new, "anyOf", "oneOf") {
            ("oneOf", "anyOf", WIDER)
        } else if only(old, "anyOf", "oneOf") && only(new, "oneOf", "anyOf") {
            ("anyOf", "oneOf", NARROWER)
        } else {
            return None;
        };
        let what = self.what(pointer);
        let effect = if moved.wider {
            "a value that matches more than one branch is now accepted"
        } else {
            "a value that matches more than one branch is now refused"
        };
        self.moved(
            moved,
            "one-of-any-of",
            &format!("{pointer}/{to}"),
            format!("`{from}` of {what} became `{to}`: {effect}"),
        );
        let mut renamed = old.clone();
        let branches = renamed.remove(from)?;
        renamed.insert(to.to_string(), branches);
        Some(renamed)
    }

    fn definitions(
        &mut self,
        keyword: &str,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        pointer: &mut String,
        depth: usize,
    ) {
        let (Some(Value::Object(a)), Some(Value::Object(b))) = (old.get(keyword), new.get(keyword)) else { return };
        for (name, schema) in a {
            if let Some(other) = b.get(name) {
                let len = pointer.len();
                pointer.push_str(&format!("/{keyword}/{}", escape_pointer(name)));
                self.compare(schema, other, pointer, depth + 1);
                pointer.truncate(len);
            }
        }
    }

    fn annotations(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, pointer: &str) {
        for keyword in ["description", "title", "examples", "example", "deprecated", "$comment"] {
            if old.get(keyword) != new.get(keyword) {
                let what = self.what(pointer);
                let verb = match (old.get(keyword), new.get(keyword)) {
                    (None, _) => "added",
                    (_, None) => "removed",
                    _ => "changed",
                };
                self.push(
                    Class::Docs,
                    "docs",
                    &format!("{pointer}/{keyword}"),
                    format!("`{keyword}` of {what} {verb}"),
                );
            }
        }
        if old.get("default") != new.get("default") {
            let what = self.what(pointer);
            let shown = |v: Option<&Value>| v.map_or_else(|| "none".to_string(), Value::to_string);
            let message = format!("default of {what}: {} → {}", shown(old.get("default")), shown(new.get("default")));
            // Callers that leave an input out now get another value; an output's default is a note.
            let class = if self.side == Side::Input { Class::Breaking } else { Class::Docs };
            self.push(class, "default", &format!("{pointer}/default"), message);
        }
    }
}

/// A schema with its local `$ref` followed (its other keywords kept beside the target's), and
/// the reference it followed.
fn resolved(value: &Value, root: &Value) -> (Map<String, Value>, Option<String>) {
    let mut schema = as_schema(value);
    let mut followed = None;
    for _ in 0..8 {
        let Some(Value::String(reference)) = schema.get("$ref").cloned() else { break };
        let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p)) else { break };
        let mut merged = as_schema(target);
        schema.remove("$ref");
        merged.extend(schema);
        schema = merged;
        followed = Some(reference);
    }
    (schema, followed)
}

/// A boolean schema as the object schema it means.
fn as_schema(value: &Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map.clone(),
        Value::Bool(false) => {
            let mut map = Map::new();
            map.insert("not".into(), Value::Object(Map::new()));
            map
        }
        _ => Map::new(),
    }
}

/// The types a schema allows; `None` for any (no `type`). OpenAPI's `nullable` adds null.
fn type_set(schema: &Map<String, Value>) -> Option<BTreeSet<String>> {
    let mut set: BTreeSet<String> = match schema.get("type")? {
        Value::String(t) => [t.clone()].into(),
        Value::Array(types) => types.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => return None,
    };
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        set.insert("null".into());
    }
    Some(set)
}

fn shown_types(types: &Option<BTreeSet<String>>) -> String {
    match types {
        None => "any type".into(),
        Some(set) => set.iter().cloned().collect::<Vec<_>>().join(" or "),
    }
}

fn members(schema: &Map<String, Value>) -> Option<Vec<Value>> {
    match schema.get("enum") {
        Some(Value::Array(values)) => Some(values.clone()),
        _ => None,
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn shown_list(values: &[Value]) -> String {
    let mut shown: Vec<String> = values.iter().take(5).map(Value::to_string).collect();
    if values.len() > 5 {
        shown.push(format!("and {} more", values.len() - 5));
    }
    shown.join(", ")
}

fn required(schema: &Map<String, Value>) -> BTreeSet<&str> {
    match schema.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => BTreeSet::new(),
    }
}
