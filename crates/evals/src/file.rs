//! Eval files (YAML or JSON, beside case files): the server, with a case file's keys; the model;
//! and cases, each a prompt and the calls expected of the model. Read with the case files'
//! loader, so every problem is said with its `path:line:column`; a file with any problem is not
//! run (exit 2).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::cases::file::{Problem, expand_text, unknown_key};
use crate::catalog::document::Node;
use crate::invoke::endpoint::EndpointOptions;
use crate::text::LineIndex;

const TOP_KEYS: &[&str] = &[
    "endpoint",
    "mcp",
    "mcp_url",
    "call_path",
    "headers",
    "timeout",
    "tokens",
    "model",
    "iterations",
    "max_turns",
    "system",
    "min_pass_rate",
    "cases",
];
const MODEL_KEYS: &[&str] = &["url", "name", "key", "api", "stream", "temperature", "max_tokens"];
const CASE_KEYS: &[&str] = &["name", "prompt", "expect", "min_pass_rate"];
const EXPECT_KEYS: &[&str] = &["calls", "order", "never"];
const CALL_KEYS: &[&str] = &["tool", "args", "exact"];

/// Iterations per case unless the file says.
pub const DEFAULT_ITERATIONS: u32 = 1;
/// Model turns an iteration may take before it is cut off.
pub const DEFAULT_MAX_TURNS: u32 = 8;

/// Which API the model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Api {
    /// OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM, LM Studio...).
    #[default]
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
}

/// The model a file's cases go to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelSpec {
    /// The API's base URL (`http://127.0.0.1:11434/v1`, `https://api.anthropic.com/v1`).
    pub url: String,
    pub name: String,
    /// The key as written (`${OPENAI_API_KEY}`): expanded only when a live model is asked, so a
    /// replay needs no key, and never kept expanded anywhere a run writes.
    pub key: Option<String>,
    pub api: Api,
    pub stream: bool,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u64>,
}

/// One call a case expects, as written (its accepted values are read against the tool's schema
/// once the server has listed it).
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenCall {
    pub tool: String,
    pub args: Map<String, Value>,
    pub exact: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct WrittenExpect {
    pub calls: Vec<WrittenCall>,
    pub order: tooldeck_core::call_match::Order,
    pub never: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EvalCase {
    pub name: String,
    pub prompt: String,
    pub expect: WrittenExpect,
    pub min_pass_rate: f64,
    /// `path:line:column`, for reports.
    pub location: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalFile {
    pub path: PathBuf,
    pub target: EndpointOptions,
    pub tokens: Vec<(String, String)>,
    pub model: ModelSpec,
    pub iterations: u32,
    pub max_turns: u32,
    pub system: Option<String>,
    pub cases: Vec<EvalCase>,
    pub problems: Vec<Problem>,
}

/// Reads and checks an eval file; every problem is in `problems`.
pub fn load(path: &Path) -> EvalFile {
    let label = path.display().to_string();
    match crate::files::read_text(path) {
        Ok(text) => parse(path, &label, &text),
        Err(e) => EvalFile {
            path: path.to_path_buf(),
            problems: vec![Problem { path: label, line: 1, column: 1, message: format!("cannot read: {e}") }],
            ..EvalFile::default()
        },
    }
}

/// Parses `text` (YAML unless `label` ends in .json/.json5/.jsonc).
pub fn parse(path: &Path, label: &str, text: &str) -> EvalFile {
    let mut file = EvalFile {
        path: path.to_path_buf(),
        iterations: DEFAULT_ITERATIONS,
        max_turns: DEFAULT_MAX_TURNS,
        ..EvalFile::default()
    };
    let lines = LineIndex::new(text);
    let json = [".json", ".json5", ".jsonc"].iter().any(|ext| label.to_ascii_lowercase().ends_with(ext));
    let document = crate::cases::file::parse_document(label, text, json);
    match document {
        Ok(document) => {
            let mut reader = Reader { label, text, lines: &lines, problems: Vec::new() };
            reader.file(document.root(), &mut file);
            file.problems = reader.problems;
        }
        Err(problem) => file.problems.push(problem),
    }
    file
}

struct Reader<'a> {
    label: &'a str,
    text: &'a str,
    lines: &'a LineIndex<'a>,
    problems: Vec<Problem>,
}

impl Reader<'_> {
    fn problem(&mut self, node: Node, message: impl Into<String>) {
        let (line, column) = self.lines.line_col(node.offset());
        self.problems.push(Problem { path: self.label.into(), line, column, message: message.into() });
    }

    /// A problem with a key: said where the key is written.
    fn key_problem(&mut self, value: Node, key: &str, message: impl Into<String>) {
        let at = value.offset();
        let offset = self.text.get(..at).and_then(|before| before.rfind(key)).unwrap_or(at);
        let (line, column) = self.lines.line_col(offset);
        self.problems.push(Problem { path: self.label.into(), line, column, message: message.into() });
    }

    fn unknown_keys(&mut self, node: Node, what: &str, known: &[&str]) {
        for (key, child) in node.entries() {
            if !known.contains(&key) {
                self.key_problem(child, key, unknown_key(what, key, known));
            }
        }
    }

    fn file(&mut self, root: Node, file: &mut EvalFile) {
        let Value::Object(_) = root.value() else {
            return self.problem(root, "an eval file is an object with `model` and `cases`");
        };
        self.unknown_keys(root, "an eval file", TOP_KEYS);
        let mut default_rate = 1.0;
        for (key, node) in root.entries() {
            match key {
                "endpoint" => file.target.endpoint = self.string(node, key),
                "mcp" => file.target.mcp = self.string(node, key),
                "mcp_url" => file.target.mcp_url = self.string(node, key),
                "call_path" => file.target.call_path = self.string(node, key),
                "timeout" => file.target.timeout = self.whole(node, key).map(u64::from),
                "headers" => {
                    file.target.headers =
                        self.string_map(node, key).into_iter().map(|(k, v)| format!("{k}: {v}")).collect()
                }
                "tokens" => file.tokens = self.string_map(node, key),
                "iterations" => file.iterations = self.whole(node, key).filter(|n| *n > 0).unwrap_or(1),
                "max_turns" => file.max_turns = self.whole(node, key).filter(|n| *n > 0).unwrap_or(1),
                "system" => file.system = self.string(node, key),
                "min_pass_rate" => default_rate = self.rate(node).unwrap_or(1.0),
                "model" => file.model = self.model(node),
                _ => {}
            }
        }
        if root.get("model").is_none() {
            self.problem(root, "no `model` (its `url` and `name`)");
        }
        match root.get("cases") {
            Some(node) if node.value().is_array() => {
                for item in node.items() {
                    if let Some(case) = self.case(item, default_rate) {
                        file.cases.push(case);
                    }
                }
            }
            Some(node) => self.problem(node, "`cases` is a list of cases"),
            None => self.problem(root, "no `cases` list"),
        }
        let mut seen = std::collections::HashSet::new();
        let Some(list) = root.get("cases") else { return };
        for item in list.items() {
            let Some(name) = item.get("name").and_then(|n| n.value().as_str()) else { continue };
            if !seen.insert(name.to_string()) {
                self.problem(item, format!("two cases are named \"{name}\": names key the scores and cassettes"));
            }
        }
    }

    fn model(&mut self, node: Node) -> ModelSpec {
        let mut model = ModelSpec::default();
        let Value::Object(_) = node.value() else {
            self.problem(node, "`model` is an object with `url` and `name` (and `key`, `api`, `stream`)");
            return model;
        };
        self.unknown_keys(node, "`model`", MODEL_KEYS);
        for (key, child) in node.entries() {
            match key {
                "url" => model.url = self.string(child, key).unwrap_or_default(),
                "name" => model.name = self.string(child, key).unwrap_or_default(),
                "key" => model.key = self.key(child),
                "api" => match child.value().as_str() {
                    Some("openai") => model.api = Api::OpenAi,
                    Some("anthropic") => model.api = Api::Anthropic,
                    _ => self.problem(child, "`api` is openai (chat completions, the default) or anthropic (Messages)"),
                },
                "stream" => model.stream = self.boolean(child, key),
                "temperature" => match child.value().as_f64() {
                    Some(t) => model.temperature = Some(t),
                    None => self.problem(child, "`temperature` is a number"),
                },
                "max_tokens" => model.max_tokens = self.whole(child, key).map(u64::from),
                _ => {}
            }
        }
        for (key, missing) in [("url", model.url.is_empty()), ("name", model.name.is_empty())] {
            if missing && node.get(key).is_none() {
                self.problem(node, format!("`model` has no `{key}`"));
            }
        }
        model
    }

    /// The key, only ever a `${VAR}`: a key written in the file would be committed with it.
    /// The variable is looked up when a live model is asked (a replay needs none).
    fn key(&mut self, node: Node) -> Option<String> {
        let Some(text) = node.value().as_str() else {
            self.problem(node, "`key` is a string: `${VARIABLE}` naming where the key is");
            return None;
        };
        let trimmed = text.trim();
        let whole_variable = trimmed.starts_with("${") && trimmed.ends_with('}') && trimmed.matches("${").count() == 1;
        if !whole_variable {
            self.problem(node, "`key` is read from the environment only: write it as `${VARIABLE}`, never the key");
            return None;
        }
        Some(trimmed.to_string())
    }

    fn case(&mut self, node: Node, default_rate: f64) -> Option<EvalCase> {
        let Value::Object(_) = node.value() else {
            self.problem(node, "a case is an object with `name`, `prompt` and `expect`");
            return None;
        };
        let before = self.problems.len();
        self.unknown_keys(node, "a case", CASE_KEYS);
        let name = node.get("name").and_then(|n| self.string(n, "name"));
        let prompt = node.get("prompt").and_then(|n| self.string(n, "prompt"));
        if node.get("name").is_none() {
            self.problem(node, "the case has no `name`");
        }
        if node.get("prompt").is_none() {
            self.problem(node, "the case has no `prompt`");
        }
        let expect = match node.get("expect") {
            Some(child) => self.expect(child),
            None => {
                self.problem(node, "the case has no `expect` (the `calls` the model should make)");
                WrittenExpect::default()
            }
        };
        let min_pass_rate = node.get("min_pass_rate").and_then(|n| self.rate(n)).unwrap_or(default_rate);
        let (line, column) = self.lines.line_col(node.offset());
        let location = format!("{}:{line}:{column}", self.label);
        (self.problems.len() == before).then_some(EvalCase {
            name: name?,
            prompt: prompt?,
            expect,
            min_pass_rate,
            location,
        })
    }

    fn expect(&mut self, node: Node) -> WrittenExpect {
        let mut expect = WrittenExpect::default();
        let Value::Object(_) = node.value() else {
            self.problem(node, "`expect` is an object: `calls`, `order`, `never`");
            return expect;
        };
        self.unknown_keys(node, "`expect`", EXPECT_KEYS);
        if let Some(calls) = node.get("calls") {
            match calls.value() {
                Value::Array(_) => expect.calls = calls.items().filter_map(|c| self.call(c)).collect(),
                _ => self.problem(calls, "`calls` is a list of `{tool, args}`"),
            }
        }
        if let Some(order) = node.get("order") {
            match order.value().as_str().and_then(tooldeck_core::call_match::Order::parse) {
                Some(parsed) => expect.order = parsed,
                None => self.problem(order, "`order` is strict, any or superset"),
            }
        }
        if let Some(never) = node.get("never") {
            match never.value() {
                Value::Array(items) if items.iter().all(Value::is_string) => {
                    expect.never = items.iter().filter_map(Value::as_str).map(str::to_string).collect()
                }
                _ => self.problem(never, "`never` is a list of tool names"),
            }
        }
        expect
    }

    fn call(&mut self, node: Node) -> Option<WrittenCall> {
        let Value::Object(_) = node.value() else {
            self.problem(node, "an expected call is an object with `tool` and `args`");
            return None;
        };
        self.unknown_keys(node, "an expected call", CALL_KEYS);
        let Some(tool) = node.get("tool").and_then(|n| self.string(n, "tool")) else {
            if node.get("tool").is_none() {
                self.problem(node, "the expected call has no `tool`");
            }
            return None;
        };
        let args = match node.get("args") {
            None => Map::new(),
            Some(child) => match self.expand(child) {
                Some(Value::Object(args)) => args,
                Some(_) => {
                    self.problem(child, "`args` is an object of arguments");
                    return None;
                }
                None => return None,
            },
        };
        let exact = node.get("exact").is_some_and(|n| self.boolean(n, "exact"));
        Some(WrittenCall { tool, args, exact })
    }

    fn string(&mut self, node: Node, key: &str) -> Option<String> {
        match node.value() {
            Value::String(text) => match expand_text(text) {
                Ok(expanded) => Some(expanded),
                Err(why) => {
                    self.problem(node, format!("`{key}`: {why}"));
                    None
                }
            },
            _ => {
                self.problem(node, format!("`{key}` is a string"));
                None
            }
        }
    }

    fn whole(&mut self, node: Node, key: &str) -> Option<u32> {
        let number = node.value().as_u64().and_then(|n| u32::try_from(n).ok());
        if number.is_none() {
            self.problem(node, format!("`{key}` is a whole number"));
        }
        number
    }

    fn boolean(&mut self, node: Node, key: &str) -> bool {
        node.value().as_bool().unwrap_or_else(|| {
            self.problem(node, format!("`{key}` is true or false"));
            false
        })
    }

    fn rate(&mut self, node: Node) -> Option<f64> {
        let rate = node.value().as_f64().filter(|r| (0.0..=1.0).contains(r));
        if rate.is_none() {
            self.problem(node, "`min_pass_rate` is a number from 0 to 1");
        }
        rate
    }

    fn string_map(&mut self, node: Node, key: &str) -> Vec<(String, String)> {
        let Value::Object(_) = node.value() else {
            self.problem(node, format!("`{key}` maps names to strings"));
            return Vec::new();
        };
        node.entries().filter_map(|(name, child)| Some((name.to_string(), self.string(child, name)?))).collect()
    }

    /// The value with `${ENV}` expanded in every string; `None` (with a problem) when a
    /// variable is not set.
    fn expand(&mut self, node: Node) -> Option<Value> {
        Some(match node.value() {
            Value::String(_) => Value::String(self.string(node, "value")?),
            Value::Array(_) => Value::Array(node.items().map(|item| self.expand(item)).collect::<Option<_>>()?),
            Value::Object(_) => Value::Object(
                node.entries()
                    .map(|(key, child)| Some((key.to_string(), self.expand(child)?)))
                    .collect::<Option<_>>()?,
            ),
            other => other.clone(),
        })
    }
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
