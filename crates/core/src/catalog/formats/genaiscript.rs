//! GenAIScript parameters (its parameters-schema page): a JSON5 file holding a bare `parameters` object (one tool
//! named after the file), a script's `{title?, description?, parameters}`, or a `defTool`-style
//! `{name, description, parameters}`. The shorthand is read from the positioned tree, where `NaN`
//! is still `NaN`.

use serde_json::{Map, Value};

use super::{Context, Draft, child, text};
use crate::catalog::document::{Document, Segment};
use crate::catalog::infer::infer;
use crate::catalog::tool::{Format, Naming};

/// A whole file that is one shorthand `parameters` object. Only tried for JSON5 files and files
/// that use `NaN` (see [`Context::shorthand_allowed`]), so an unknown JSON document is reported
/// rather than guessed at.
pub fn looks_like_parameters(doc: &Document) -> bool {
    doc.value().as_object().is_some_and(|o| !o.is_empty())
}

pub fn bare(cx: &mut Context, out: &mut Vec<Draft>) {
    let name = tool_name_from_file(cx.file_stem);
    let mut draft = Draft::new(Vec::new(), Format::GenAiScript, name);
    draft.naming = Naming::FromFile;
    draft.input_schema = infer(cx.doc.root(), &mut Vec::new(), &mut cx.issues);
    out.push(draft);
}

pub fn item(object: &Map<String, Value>, at: &[Segment], cx: &mut Context) -> Option<Draft> {
    let named = text(object, "name");
    let given = named.is_some();
    let mut draft =
        Draft::new(at.to_vec(), Format::GenAiScript, named.unwrap_or_else(|| tool_name_from_file(cx.file_stem)));
    if !given {
        draft.naming = Naming::FromFile;
    }
    draft.title = text(object, "title");
    draft.description = text(object, "description");
    let parameters_at = child(at, "parameters");
    let doc: &Document = cx.doc;
    if let Some(parameters) = doc.node_at(&parameters_at) {
        draft.input_schema = infer(parameters, &mut parameters_at.clone(), &mut cx.issues);
    }
    Some(draft)
}

/// `parameters.genai.json5` → `parameters`.
fn tool_name_from_file(stem: &str) -> String {
    stem.strip_suffix(".genai").unwrap_or(stem).to_string()
}
