//! Local `$ref`s inlined where that terminates, so forms and readers see one schema; recursive
//! and fanned-out references stay, with the `$defs` they need, for the validator to follow.

use serde_json::{Map, Value};

use super::Issue;
use super::document::Segment;
use super::schema::{SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP};

/// Inlining stops past this many copied values, so a schema whose `$ref`s fan out cannot blow up;
/// the remaining `$ref`s stay, with their `$defs`, for the validator to follow.
pub(super) const INLINE_BUDGET: usize = 20_000;
/// Inlined copies nest no deeper than this, for the same reason.
const INLINE_MAX_DEPTH: usize = 64;

struct Inliner<'a> {
    root: Value,
    budget: usize,
    kept_refs: bool,
    /// Whose shared budget ran out ("the file's", "the catalog's"), if one did.
    spent: Option<&'static str>,
    issues: &'a mut Vec<Issue>,
}

/// Replaces each local `$ref` by a copy of its target, except where that would recurse forever
/// (the `$ref` and the `$defs` it needs then stay). Unknown targets are errors; remote ones are
/// not fetched.
pub(super) fn inline_refs(schema: &mut Value, issues: &mut Vec<Issue>) {
    if !contains_ref(schema) {
        return;
    }
    // Targets are looked up in a copy taken before inlining. Most schemas only point into their
    // definitions, so only those are copied, not the whole schema.
    let root = if only_refs_to_definitions(schema) {
        let mut definitions = Map::new();
        for key in ["$defs", "definitions"] {
            if let Some(defs) = schema.get(key) {
                definitions.insert(key.to_string(), defs.clone());
            }
        }
        Value::Object(definitions)
    } else {
        schema.clone()
    };
    let mut inliner = Inliner { root, budget: INLINE_BUDGET, kept_refs: false, spent: None, issues };
    let mut stack = vec![String::new()];
    inliner.visit(schema, &mut Vec::new(), &mut stack, 0);
    let kept_refs = inliner.kept_refs;
    if let Some(whose) = inliner.spent {
        inliner.issues.push(Issue::warning(
            Vec::new(),
            format!(
                "some $refs are left as written: {whose} budget for expanding them is spent (a file of many \
                 schemas whose $refs fan out), so the form shows this schema's raw parts"
            ),
        ));
    }
    if !kept_refs && let Some(root) = schema.as_object_mut() {
        root.remove("$defs");
        root.remove("definitions");
    }
}

fn only_refs_to_definitions(value: &Value) -> bool {
    match value {
        Value::Object(map) => {
            map.get("$ref")
                .and_then(Value::as_str)
                .is_none_or(|r| r.starts_with("#/$defs/") || r.starts_with("#/definitions/"))
                && map.values().all(only_refs_to_definitions)
        }
        Value::Array(items) => items.iter().all(only_refs_to_definitions),
        _ => true,
    }
}

fn contains_ref(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(contains_ref),
        Value::Array(items) => items.iter().any(contains_ref),
        _ => false,
    }
}

impl Inliner<'_> {
    fn visit(&mut self, schema: &mut Value, path: &mut Vec<Segment>, stack: &mut Vec<String>, depth: usize) {
        let Some(object) = schema.as_object_mut() else { return };
        if let Some(Value::String(reference)) = object.get("$ref") {
            let reference = reference.clone();
            if let Some(replacement) = self.resolve(&reference, object, path, stack, depth) {
                *schema = replacement;
                stack.push(pointer_of(&reference).to_string());
                self.visit_children(schema, path, stack, depth + 1);
                stack.pop();
                return;
            }
        }
        self.visit_children(schema, path, stack, depth);
    }

    fn visit_children(&mut self, schema: &mut Value, path: &mut Vec<Segment>, stack: &mut Vec<String>, depth: usize) {
        let Some(object) = schema.as_object_mut() else { return };
        // Definitions are only reached through references.
        let mut children: Vec<(String, &mut Value)> = Vec::new();
        for (k, v) in object.iter_mut() {
            if k != "$defs" && k != "definitions" {
                children.push((k.clone(), v));
            }
        }
        for (keyword, value) in children {
            path.push(Segment::Key(keyword.clone()));
            match value {
                Value::Object(_) if SUBSCHEMA.contains(&keyword.as_str()) => self.visit(value, path, stack, depth),
                Value::Array(items) if SUBSCHEMA_LIST.contains(&keyword.as_str()) => {
                    for (i, item) in items.iter_mut().enumerate() {
                        path.push(Segment::Index(i));
                        self.visit(item, path, stack, depth);
                        path.pop();
                    }
                }
                Value::Object(map) if SUBSCHEMA_MAP.contains(&keyword.as_str()) => {
                    for (name, child) in map.iter_mut() {
                        path.push(Segment::Key(name.clone()));
                        self.visit(child, path, stack, depth);
                        path.pop();
                    }
                }
                _ => {}
            }
            path.pop();
        }
    }

    /// The value to put in place of the `$ref` object, or `None` to leave it as it is.
    fn resolve(
        &mut self,
        reference: &str,
        object: &Map<String, Value>,
        path: &[Segment],
        stack: &[String],
        depth: usize,
    ) -> Option<Value> {
        let mut at = path.to_vec();
        at.push("$ref".into());
        if !reference.starts_with('#') {
            self.issues.push(Issue::warning(
                at,
                format!(
                    "$ref \"{reference}\" points outside this file and is not fetched; any value is accepted there"
                ),
            ));
            let mut rest = object.clone();
            rest.remove("$ref");
            return Some(Value::Object(rest));
        }
        let pointer = pointer_of(reference);
        let Some(target) = self.root.pointer(pointer) else {
            self.issues.push(Issue::error(at, format!("$ref \"{reference}\" points at nothing in this schema")));
            return None;
        };
        if stack.iter().any(|p| p == pointer) || depth >= INLINE_MAX_DEPTH {
            self.kept_refs = true;
            return None;
        }
        let cost = count_values(target);
        if cost > self.budget {
            self.kept_refs = true;
            return None;
        }
        if let Some(whose) = super::budget::charge(cost) {
            self.kept_refs = true;
            self.spent = Some(whose);
            return None;
        }
        self.budget -= cost;
        let mut replacement = target.clone();
        // Keywords beside a `$ref` apply too (2019-09 and later); they win over the target's.
        if let Value::Object(merged) = &mut replacement {
            for (k, v) in object {
                if k != "$ref" {
                    merged.insert(k.clone(), v.clone());
                }
            }
            if pointer.is_empty() {
                merged.remove("$defs");
                merged.remove("definitions");
                merged.remove("$schema");
            }
        }
        Some(replacement)
    }
}

fn pointer_of(reference: &str) -> &str {
    reference.trim_start_matches('#')
}

pub(super) fn count_values(value: &Value) -> usize {
    match value {
        Value::Object(map) => 1 + map.values().map(count_values).sum::<usize>(),
        Value::Array(items) => 1 + items.iter().map(count_values).sum::<usize>(),
        _ => 1,
    }
}
