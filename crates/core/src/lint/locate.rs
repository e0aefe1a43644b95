//! Findings → line and column. The catalog keeps only where each tool starts (its schemas were
//! moved out of the parsed file and normalised), so each file is parsed again and its tools read
//! again by the same format adapters, which say where each schema sits in the file; a finding's
//! JSON pointer is then followed inside it. A pointer that leads into an inlined `$ref` ends at
//! the deepest place that exists in the file (the `$ref` itself).

use std::collections::HashMap;
use std::path::Path;

use crate::catalog::document::{Document, Node, Segment};
use crate::catalog::formats::{self, Context, Draft};
use crate::catalog::schema::pointer_segments;
use crate::catalog::{Format, Tool};
use crate::text::LineIndex;

use super::Part;

/// One file parsed again, with the draft each of its tools came from.
struct File {
    /// The file's text, kept to place every finding without building the index again.
    lines: LineIndex<'static>,
    doc: Document,
    drafts: Vec<Draft>,
    /// Tool id → index into `drafts`.
    by_tool: HashMap<String, usize>,
}

/// Where findings are in their files; files that cannot be read again (standard input, a
/// server's answer) are simply not there, and their findings fall back to the tool's first line.
#[derive(Default)]
pub struct Locator {
    files: HashMap<String, File>,
}

impl Locator {
    /// `read` gives a file's text by the path the catalog names it with, or `None`.
    pub fn new(tools: &[Tool], format: Option<Format>, read: &dyn Fn(&str) -> Option<String>) -> Locator {
        let mut by_path: Vec<(&str, Vec<&Tool>)> = Vec::new();
        for tool in tools {
            match by_path.iter_mut().find(|(p, _)| *p == tool.source.path) {
                Some((_, list)) => list.push(tool),
                None => by_path.push((&tool.source.path, vec![tool])),
            }
        }
        let mut files = HashMap::new();
        for (path, tools) in by_path {
            let Some(text) = read(path) else { continue };
            if let Some(file) = File::parse(path, text, format, &tools) {
                files.insert(path.to_string(), file);
            }
        }
        Locator { files }
    }

    /// Whether the tool's file could be read again (it came from a file, not a server).
    pub fn has_file(&self, tool: &Tool) -> bool {
        self.files.contains_key(&tool.source.path)
    }

    /// 1-based line and column of the place a finding names, or the tool's own line and
    /// column 1 when its file is not at hand.
    pub fn locate(&self, tool: &Tool, part: Part, pointer: &str) -> (usize, usize) {
        let fallback = (tool.source.line, 1);
        let Some(file) = self.files.get(&tool.source.path) else { return fallback };
        let Some(draft) = file.by_tool.get(&tool.id).and_then(|&i| file.drafts.get(i)) else { return fallback };
        let path = document_path(&file.doc, draft, part, pointer);
        let exact = path.as_ref().and_then(|p| file.doc.node_at(p)).map(|node| node.offset());
        let offset = exact
            .or_else(|| searched(&file.doc, draft, part, pointer))
            .unwrap_or_else(|| file.doc.offset_of(path.as_deref().unwrap_or(&draft.at)));
        file.lines.line_col(offset)
    }
}

/// For schemas a format builds from a shape of its own (GenAIScript's shorthand, Arcade's
/// parameter lists), where a pointer into the schema leads nowhere in the file: each
/// `properties/NAME` step is looked for as the key NAME (at the start, or in a `properties` or
/// `fields` map) or as a list item whose `name` is NAME, nearest first.
fn searched(doc: &Document, draft: &Draft, part: Part, pointer: &str) -> Option<usize> {
    // A schema that is in the file as written is followed exactly (into an inlined `$ref` only as
    // far as the `$ref`); searching is for schemas a format built.
    if part != Part::Input || draft.input_schema_at.is_some() || draft.properties_at.is_some() {
        return None;
    }
    let parameters: Vec<Segment> = draft.at.iter().cloned().chain([Segment::from("parameters")]).collect();
    let mut node = doc.node_at(&parameters).filter(|n| n.value().is_object()).or_else(|| doc.node_at(&draft.at))?;
    let segments = pointer_segments(pointer);
    // In GenAIScript's shorthand a parameter is a key of its own with any value (`tags: [""]`).
    let shorthand = draft.format == Format::GenAiScript;
    let mut found = false;
    for pair in segments.chunks(2) {
        match pair {
            [Segment::Key(keyword), Segment::Key(name)] if keyword == "properties" => {
                match named(node, name, shorthand) {
                    Some(next) => {
                        node = next;
                        found = true;
                    }
                    None => break,
                }
            }
            _ => break,
        }
    }
    found.then(|| node.offset())
}

fn named<'a>(start: Node<'a>, name: &str, shorthand: bool) -> Option<Node<'a>> {
    if let Some(direct) = start.get(name).filter(|_| shorthand) {
        return Some(direct);
    }
    let mut level = vec![start];
    let mut visited = 0;
    while !level.is_empty() && visited < 10_000 {
        let mut next = Vec::new();
        for node in level {
            visited += 1;
            for item in node.items() {
                if item.value().get("name").and_then(serde_json::Value::as_str) == Some(name) {
                    return Some(item);
                }
            }
            for map in ["properties", "fields"] {
                if let Some(found) = node.get(map).and_then(|m| m.get(name)) {
                    return Some(found);
                }
            }
            next.extend(node.entries().map(|(_, child)| child).chain(node.items()));
        }
        level = next;
    }
    None
}

impl File {
    fn parse(path: &str, text: String, format: Option<Format>, tools: &[&Tool]) -> Option<File> {
        let lower = path.to_ascii_lowercase();
        let doc = if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            let value = serde_saphyr::from_str(&text).ok()?;
            Document::from_yaml(&text, value)
        } else {
            Document::parse(&text).ok()?
        };
        let json5 = lower.ends_with(".json5")
            || lower.ends_with(".jsonc")
            || lower.ends_with(".yaml")
            || lower.ends_with(".yml");
        let stem = file_stem(path);
        let mut cx =
            Context { doc: &doc, file_stem: &stem, json5, named_by_user: true, parallel: false, issues: Vec::new() };
        let drafts = formats::extract(doc.value(), format, &mut cx);
        let lines = LineIndex::owned(text);
        let draft_lines: Vec<usize> = drafts.iter().map(|d| lines.line_col(doc.offset_of(&d.at)).0).collect();
        let mut used = vec![false; drafts.len()];
        let mut by_tool = HashMap::new();
        for tool in tools {
            let found = drafts
                .iter()
                .enumerate()
                .position(|(i, d)| !used[i] && d.name == tool.name && draft_lines[i] == tool.source.line);
            if let Some(i) = found {
                used[i] = true;
                by_tool.insert(tool.id.clone(), i);
            }
        }
        Some(File { lines, doc, drafts, by_tool })
    }
}

/// The same rule the loader uses to name a bare GenAIScript `parameters` file's tool.
fn file_stem(label: &str) -> String {
    let name = Path::new(label).file_name().and_then(|n| n.to_str()).unwrap_or("tool");
    let mut stem = name;
    for ext in ["json", "json5", "jsonc", "yaml", "yml"] {
        if let Some(s) = stem.strip_suffix(&format!(".{ext}")) {
            stem = s;
            break;
        }
    }
    if stem.is_empty() { "stdin".to_string() } else { stem.to_string() }
}

/// The path in the document of what a finding names; `None` when the schema was not in the
/// file as it is (a format built it).
fn document_path(doc: &Document, draft: &Draft, part: Part, pointer: &str) -> Option<Vec<Segment>> {
    let inside = |base: &[Segment]| base.iter().cloned().chain(pointer_segments(pointer)).collect::<Vec<_>>();
    Some(match part {
        Part::Tool => draft.at.clone(),
        Part::Name | Part::Description => {
            let key = if part == Part::Name { "name" } else { "description" };
            // The key may sit in a wrapper: OpenAI's `function`, a `tool` object.
            [vec![], vec![Segment::from("function")], vec![Segment::from("tool")]]
                .into_iter()
                .map(|wrapper| draft.at.iter().cloned().chain(wrapper).chain([Segment::from(key)]).collect::<Vec<_>>())
                .find(|path| doc.node_at(path).is_some())?
        }
        Part::Input => {
            let segments = pointer_segments(pointer);
            match (segments.first(), &draft.properties_at, &draft.input_schema_at) {
                (Some(Segment::Key(k)), Some(properties), _) if k == "properties" => {
                    properties.iter().cloned().chain(segments.into_iter().skip(1)).collect()
                }
                (_, _, Some(base)) => inside(base),
                _ => return None,
            }
        }
        Part::Output => inside(draft.output_schema_at.as_deref()?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{LoadOptions, load_text};

    #[test]
    fn pointers_find_their_line_and_column() {
        let text = r#"[
  {
    "type": "function",
    "function": {
      "name": "search",
      "description": "Search",
      "parameters": {
        "type": "object",
        "properties": {
          "q": {"type": "string", "default": 5}
        }
      }
    }
  }
]"#;
        let (tools, _) = load_text("t.json", text, &LoadOptions::default());
        let locator = Locator::new(&tools, None, &|_| Some(text.to_string()));
        let tool = &tools[0];
        assert!(locator.has_file(tool));
        assert_eq!(locator.locate(tool, Part::Tool, ""), (4, 17));
        assert_eq!(locator.locate(tool, Part::Name, ""), (5, 15));
        assert_eq!(locator.locate(tool, Part::Description, ""), (6, 22));
        assert_eq!(locator.locate(tool, Part::Input, "/properties/q/default"), (10, 46));
        // Not in the file (an inlined $ref, say): the deepest place that is.
        assert_eq!(locator.locate(tool, Part::Input, "/properties/q/items/type"), (10, 16));
        let nowhere = Locator::new(&tools, None, &|_| None);
        assert_eq!(nowhere.locate(tool, Part::Input, "/properties/q"), (4, 1));
    }
}
