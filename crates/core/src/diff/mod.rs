//! Two catalogs → what changed, by meaning: tools added and removed, and for each tool in both
//! its changes sorted into breaking for callers, compatible, and documentation. Tools are
//! matched by name, what a model calls them by (an OTC id's version may change with them).

mod lines;
mod normal;
mod schema;

use std::collections::BTreeSet;
use std::fmt;

use serde::Serialize;

use crate::catalog::{Catalog, Tool};

pub use lines::{first_and_more, lines};

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
    /// A removed tool and an added one that look like one tool renamed: a question for the
    /// reader, not a verdict (both still count as removed and added).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub renamed: Vec<Renamed>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Renamed {
    pub from: String,
    pub to: String,
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
        renamed: Vec::new(),
    };
    diff.renamed = renamed(old, new, &diff.removed, &diff.added);
    for name in old_names.iter().filter(|n| new_names.contains(n)) {
        let (Some(a), Some(b)) = (first(old, name), first(new, name)) else { continue };
        let changes = diff_tools(&a, &b);
        if !changes.is_empty() {
            diff.changed.push(ToolChanges { name: name.clone(), changes });
        }
    }
    diff
}

/// A name with case and separators taken out: `getTinyImage` and `get-tiny-image` are one.
fn spelling(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// Pairs each removed tool with the one added tool that has the same meaning of parameters (a
/// schema with parameters), the same description or the same name spelled another way; a tool
/// with two such matches is left alone.
fn renamed(old: &Catalog, new: &Catalog, removed: &[String], added: &[String]) -> Vec<Renamed> {
    let key = |catalog: &Catalog, name: &str| {
        let tool = catalog.tools().iter().find(|t| t.name == name)?;
        let schema = normal::normalise(&tool.input_schema);
        let has_parameters =
            schema.get("properties").and_then(serde_json::Value::as_object).is_some_and(|p| !p.is_empty());
        let description = tool.description.clone().filter(|d| !d.trim().is_empty());
        Some((has_parameters.then_some(schema), description, spelling(name)))
    };
    let added_keys: Vec<(&String, _)> = added.iter().filter_map(|n| Some((n, key(new, n)?))).collect();
    let mut pairs = Vec::new();
    for from in removed {
        let Some((schema, description, spelled)) = key(old, from) else { continue };
        let alike = |(s, d, n): &(Option<serde_json::Value>, Option<String>, String)| {
            (schema.is_some() && *s == schema) || (description.is_some() && *d == description) || *n == spelled
        };
        let matches: Vec<&String> = added_keys.iter().filter(|(_, k)| alike(k)).map(|(n, _)| *n).collect();
        if let [to] = matches[..]
            && !pairs.iter().any(|p: &Renamed| p.to == *to)
        {
            pairs.push(Renamed { from: from.clone(), to: to.clone() });
        }
    }
    pairs
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
    annotations(old, new, &mut changes);
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

/// A hint that changes how a client treats the tool is breaking in the direction that makes the
/// tool riskier than clients were told; any other change of annotations is documentation.
fn annotations(old: &Tool, new: &Tool, changes: &mut Vec<Change>) {
    if old.annotations == new.annotations {
        return;
    }
    // A format without annotations (an OTC server's listing, say) says nothing about the hints:
    // unknown is not the spec's defaults, so nothing is judged.
    let silent = |t: &Tool| t.annotations.is_none() && t.format != crate::catalog::Format::Mcp;
    if silent(old) || silent(new) {
        return;
    }
    let (a, b) = (Treated::of(old), Treated::of(new));
    let mut push = |class, kind, message: &str| {
        changes.push(Change { class, kind, side: None, pointer: String::new(), message: message.to_string() })
    };
    let rules: [(bool, bool, &str, &str, &str); 4] = [
        (
            a.read_only,
            b.read_only,
            "read-only",
            "the tool is no longer read-only (readOnlyHint): a client that runs read-only tools without asking must now ask first",
            "the tool is now read-only",
        ),
        (
            !a.destructive,
            !b.destructive,
            "destructive",
            "the tool may now be destructive (destructiveHint): a client that runs non-destructive tools without asking must now ask first",
            "the tool is no longer destructive",
        ),
        (
            !a.open_world,
            !b.open_world,
            "open-world",
            "the tool now reaches the open world (openWorldHint): a client that keeps closed-world tools away from untrusted input must now treat it as open",
            "the tool no longer reaches the open world",
        ),
        (
            a.idempotent,
            b.idempotent,
            "idempotent",
            "the tool is no longer idempotent (idempotentHint): a client that retries it may repeat its effect",
            "the tool is now idempotent",
        ),
    ];
    for (was_safe, is_safe, kind, riskier, safer) in rules {
        match (was_safe, is_safe) {
            (true, false) => push(Class::Breaking, kind, riskier),
            (false, true) => push(Class::Compatible, kind, safer),
            _ => {}
        }
    }
    let others = |t: &Tool| -> Option<serde_json::Map<String, serde_json::Value>> {
        let mut map = t.annotations.as_ref()?.as_object()?.clone();
        for hint in ["readOnlyHint", "destructiveHint", "openWorldHint", "idempotentHint"] {
            map.remove(hint);
        }
        Some(map).filter(|m| !m.is_empty())
    };
    if others(old) != others(new) {
        push(Class::Docs, "annotations", "the tool's annotations changed (other than its behaviour hints)");
    }
}

/// How MCP clients treat a tool, from its hints with the spec's defaults for those not given
/// (not read-only, destructive, not idempotent, open world). On a read-only tool the
/// destructive and idempotent hints mean nothing.
#[derive(PartialEq, Eq, Clone, Copy)]
struct Treated {
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
}

impl Treated {
    fn of(tool: &Tool) -> Treated {
        let hints = tool.hints();
        let read_only = hints.read_only == Some(true);
        Treated {
            read_only,
            destructive: !read_only && hints.destructive != Some(false),
            idempotent: read_only || hints.idempotent == Some(true),
            open_world: hints.open_world != Some(false),
        }
    }
}

fn compare(side: Side, old: &serde_json::Value, new: &serde_json::Value, changes: &mut Vec<Change>) {
    let (old, new) = (normal::normalise(old), normal::normalise(new));
    let mut compare = schema::Compare { side, changes, old_root: &old, new_root: &new, following: Vec::new() };
    compare.compare(&old, &new, &mut String::new(), 0);
}
