//! Two catalogs → what changed, by meaning: tools added and removed, and for each tool in both
//! its changes sorted into breaking for callers, compatible, and documentation. Tools are
//! matched by name, what a model calls them by (an OTC id's version may change with them).

mod schema;

use std::collections::BTreeSet;
use std::fmt;

use serde::Serialize;

use crate::catalog::{Catalog, Tool};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// A caller written against the old definition may now fail.
    Breaking,
    /// Old callers keep working.
    Compatible,
    /// Words only: descriptions, titles, examples.
    Docs,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Compatible => "compatible",
            Class::Docs => "docs",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which schema a change is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Input,
    Output,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub class: Class,
    /// A short stable name for what changed: `required-added`, `enum-member-removed`, `type`...
    pub kind: &'static str,
    /// The schema it is in; `None` for the tool itself (its description, requirements).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// JSON pointer into that schema.
    pub pointer: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolChanges {
    pub name: String,
    /// Breaking first, then compatible, then documentation.
    pub changes: Vec<Change>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CatalogDiff {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<ToolChanges>,
}

impl CatalogDiff {
    /// Removed tools are breaking; added ones compatible.
    pub fn count(&self, class: Class) -> usize {
        let tools = match class {
            Class::Breaking => self.removed.len(),
            Class::Compatible => self.added.len(),
            Class::Docs => 0,
        };
        tools + self.changed.iter().flat_map(|t| &t.changes).filter(|c| c.class == class).count()
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// Compares two catalogs; a name defined twice on one side is compared by its first definition.
pub fn diff_catalogs(old: &Catalog, new: &Catalog) -> CatalogDiff {
    let first = |catalog: &Catalog, name: &str| catalog.tools().iter().find(|t| t.name == name).cloned();
    let names = |catalog: &Catalog| -> Vec<String> {
        let mut seen = BTreeSet::new();
        catalog.tools().iter().filter(|t| seen.insert(t.name.clone())).map(|t| t.name.clone()).collect()
    };
    let (old_names, new_names) = (names(old), names(new));
    let mut diff = CatalogDiff {
        removed: old_names.iter().filter(|n| !new_names.contains(n)).cloned().collect(),
        added: new_names.iter().filter(|n| !old_names.contains(n)).cloned().collect(),
        changed: Vec::new(),
    };
    for name in old_names.iter().filter(|n| new_names.contains(n)) {
        let (Some(a), Some(b)) = (first(old, name), first(new, name)) else { continue };
        let changes = diff_tools(&a, &b);
        if !changes.is_empty() {
            diff.changed.push(ToolChanges { name: name.clone(), changes });
        }
    }
    diff
}

/// One tool's changes, breaking first.
pub fn diff_tools(old: &Tool, new: &Tool) -> Vec<Change> {
    let mut changes = Vec::new();
    let tool_change =
        |class, kind, message: String| Change { class, kind, side: None, pointer: String::new(), message };
    for (what, a, b) in [("description", &old.description, &new.description), ("title", &old.title, &new.title)] {
        if a != b {
            changes.push(tool_change(Class::Docs, "docs", format!("the tool's {what} changed")));
        }
    }
    let scopes = |t: &Tool| -> BTreeSet<String> {
        let auth =
            t.requirements.authorization.iter().flat_map(|a| a.scopes.iter().map(move |s| format!("{}:{s}", a.id)));
        let providers = t.requirements.authorization.iter().map(|a| a.id.clone());
        auth.chain(providers).chain(t.requirements.secrets.iter().map(|s| format!("secret {s}"))).collect()
    };
    let (a, b) = (scopes(old), scopes(new));
    let added: Vec<&String> = b.difference(&a).collect();
    if !added.is_empty() {
        let shown: Vec<&str> = added.iter().map(|s| s.as_str()).collect();
        changes.push(tool_change(
            Class::Breaking,
            "requirement-added",
            format!("the tool now requires {}", shown.join(", ")),
        ));
    }
    if a.difference(&b).next().is_some() {
        changes.push(tool_change(
            Class::Compatible,
            "requirement-removed",
            "the tool requires less authorization".into(),
        ));
    }
    if old.annotations != new.annotations {
        changes.push(tool_change(Class::Docs, "annotations", "the tool's annotations changed".into()));
    }
    compare(Side::Input, &old.input_schema, &new.input_schema, &mut changes);
    match (&old.output_schema, &new.output_schema) {
        (Some(a), Some(b)) => compare(Side::Output, a, b, &mut changes),
        (Some(_), None) => changes.push(Change {
            class: Class::Breaking,
            kind: "output-schema-removed",
            side: Some(Side::Output),
            pointer: String::new(),
            message: "the output schema was removed: callers lose what it promised".into(),
        }),
        (None, Some(_)) => changes.push(Change {
            class: Class::Compatible,
            kind: "output-schema-added",
            side: Some(Side::Output),
            pointer: String::new(),
            message: "the tool now declares an output schema".into(),
        }),
        (None, None) => {}
    }
    changes.sort_by_key(|c| c.class);
    changes
}

fn compare(side: Side, old: &serde_json::Value, new: &serde_json::Value, changes: &mut Vec<Change>) {
    let mut compare = schema::Compare { side, changes, old_root: old, new_root: new, following: Vec::new() };
    compare.compare(old, new, &mut String::new(), 0);
}
