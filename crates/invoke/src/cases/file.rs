//! Case files (YAML, JSON or JSON5) → cases to run, and every problem in them with its
//! `path:line:column`. A bad case is reported and left out; the others still run.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::expect::Expect;
use crate::catalog::document::{Document, Node};
use crate::text::LineIndex;

const TOP_KEYS: &[&str] = &["endpoint", "mcp", "mcp_url", "call_path", "headers", "timeout", "defs", "tokens", "cases"];
const CASE_KEYS: &[&str] = &["name", "tool", "args", "validate", "expect", "elicit", "sample", "roots"];

/// A problem in a case file, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.path, self.line, self.column, self.message)
    }
}

#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub tool: String,
    pub args: Value,
    /// False sends the arguments even when the schema says no.
    pub validate: bool,
    pub expect: Expect,
    /// How an MCP server's questions during this case are answered (`elicit:`, `sample:`);
    /// `None`: as the command line says (else declined).
    pub answers: Option<crate::invoke::mcp::asks::Headless>,
    /// `path:line:column` of the case, for reports.
    pub location: String,
}

#[derive(Debug, Clone, Default)]
pub struct CaseFile {
    pub path: PathBuf,
    /// Where the file's calls go, unless the command line says otherwise.
    pub target: crate::invoke::endpoint::EndpointOptions,
    /// Definition files, relative to the case file.
    pub defs: Vec<PathBuf>,
    /// Provider → token, `${ENV}` expanded.
    pub tokens: Vec<(String, String)>,
    /// Cases of a file read whole (JSON, or YAML that needs it); bad ones are in `problems`.
    pub cases: Vec<Case>,
    /// Cases of a block-style YAML list, read one at a time by [`CaseFile::each_case`].
    unread: Option<Unread>,
    /// Problems of the file itself (and of its cases when read whole).
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone)]
struct Unread {
    label: String,
    text: String,
    items: Vec<(usize, usize)>,
}

impl CaseFile {
    pub fn case_count(&self) -> usize {
        self.cases.len() + self.unread.as_ref().map_or(0, |u| u.items.len())
    }

    /// Every case in file order: the case, or what is wrong with it. A file of many cases is read
    /// here, one case at a time, as the caller goes.
    pub fn each_case(&self) -> Box<dyn Iterator<Item = Result<Case, Vec<Problem>>> + Send + '_> {
        let Some(unread) = &self.unread else { return Box::new(self.cases.iter().cloned().map(Ok)) };
        let lines = LineIndex::new(&unread.text);
        let mut schemas = super::expect::Schemas::default();
        Box::new(unread.items.iter().map(move |&range| unread.read(range, &lines, &mut schemas)))
    }

    /// Every good case and every problem, read at once (for tests and small files).
    pub fn read_all(&self) -> (Vec<Case>, Vec<Problem>) {
        let mut problems = self.problems.clone();
        let mut cases = Vec::new();
        for item in self.each_case() {
            match item {
                Ok(case) => cases.push(case),
                Err(mut more) => problems.append(&mut more),
            }
        }
        (cases, problems)
    }
}

impl Unread {
    fn read(
        &self,
        range: (usize, usize),
        lines: &LineIndex,
        schemas: &mut super::expect::Schemas,
    ) -> Result<Case, Vec<Problem>> {
        let (base, fragment) = super::outline::fragment(lines, range);
        let value = match serde_saphyr::from_str::<Value>(&fragment) {
            Ok(value) => value,
            Err(e) => {
                let (base_line, _) = lines.line_col(base);
                let (line, column) = e.location().map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
                let message = e.to_string().lines().next().unwrap_or("invalid YAML").to_string();
                let at = Problem {
                    path: self.label.clone(),
                    line: base_line + line - 1,
                    column,
                    message: format!("invalid YAML: {message}"),
                };
                return Err(vec![at]);
            }
        };
        // Positions cost a second pass over the text: a good case needs only its own (where
        // it starts); a bad one is read again with them, to say where each problem is.
        let mut reader = Reader {
            label: &self.label,
            schemas: std::mem::take(schemas),
            text: &self.text,
            base,
            lines,
            problems: Vec::new(),
        };
        let case = reader.case(Document::from_value(value).root());
        if let Some(mut case) = case.filter(|_| reader.problems.is_empty()) {
            *schemas = std::mem::take(&mut reader.schemas);
            let (line, column) = lines.line_col(range.0);
            case.location = format!("{}:{line}:{column}", self.label);
            return Ok(case);
        }
        reader.problems.clear();
        let value = serde_saphyr::from_str::<Value>(&fragment).unwrap_or_default();
        let _ = reader.case(Document::from_yaml(&fragment, value).root());
        *schemas = std::mem::take(&mut reader.schemas);
        Err(reader.problems)
    }
}

/// Reads and checks a case file. An unreadable or unparseable file is one problem and no cases.
pub fn load(path: &Path) -> CaseFile {
    let label = path.display().to_string();
    let mut file = CaseFile { path: path.to_path_buf(), ..CaseFile::default() };
    let text = match crate::files::read_text(path) {
        Ok(text) => text,
        Err(e) => {
            file.problems.push(Problem { path: label, line: 1, column: 1, message: format!("cannot read: {e}") });
            return file;
        }
    };
    parse_owned(&mut file, &label, text);
    file
}

/// Parses `text` (YAML unless the name ends in .json or .json5) into `file`.
pub fn parse_into(file: &mut CaseFile, label: &str, text: &str) {
    parse_owned(file, label, text.to_string());
}

/// A case or eval file's text as a document (JSON, JSON5 or YAML), or where and why it is not one.
pub fn parse_document(label: &str, text: &str, json: bool) -> Result<Document, Problem> {
    if json {
        Document::parse(text).map_err(|e| {
            let (line, column) = LineIndex::new(text).line_col(e.offset);
            Problem { path: label.into(), line, column, message: format!("invalid JSON: {}", e.message) }
        })
    } else {
        serde_saphyr::from_str::<Value>(text).map(|value| Document::from_yaml(text, value)).map_err(|e| {
            let (line, column) = e.location().map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
            let message = e.to_string().lines().next().unwrap_or("invalid YAML").to_string();
            Problem { path: label.into(), line, column, message: format!("invalid YAML: {message}") }
        })
    }
}

/// [`parse_into`], keeping `text` itself (no copy) when its cases are read one at a time.
fn parse_owned(file: &mut CaseFile, label: &str, text: String) {
    let json = [".json", ".json5", ".jsonc"].iter().any(|ext| label.to_ascii_lowercase().ends_with(ext));
    // A block-style YAML list is read a case at a time: the rest of the file now, the cases as
    // they run, so memory does not grow with their number.
    let outline = if json { None } else { super::outline::outline(&text) };
    let text = match outline {
        Some(outline) => {
            let rest = super::outline::without_cases(&text, outline.cases);
            file.unread = Some(Unread { label: label.to_string(), text, items: outline.items });
            rest
        }
        None => text,
    };
    let text = text.as_str();
    let lines = LineIndex::new(text);
    let document = parse_document(label, text, json);
    let document = match document {
        Ok(document) => document,
        Err(problem) => return file.problems.push(problem),
    };
    let mut reader = Reader { label, schemas: Default::default(), text, base: 0, lines: &lines, problems: Vec::new() };
    reader.file(document.root(), file);
    file.problems.append(&mut reader.problems);
}

struct Reader<'a> {
    label: &'a str,
    schemas: super::expect::Schemas,
    /// The whole file's text, and where in it the parsed document starts.
    text: &'a str,
    base: usize,
    lines: &'a LineIndex<'a>,
    problems: Vec<Problem>,
}

impl Reader<'_> {
    fn problem(&mut self, node: Node, message: impl Into<String>) {
        let (line, column) = self.lines.line_col(self.base + node.offset());
        self.problems.push(Problem { path: self.label.into(), line, column, message: message.into() });
    }

    /// A problem with a key rather than its value: reported where the key is written (the
    /// document knows where values start; the key is the last mention of it before its value).
    fn key_problem(&mut self, value: Node, key: &str, message: impl Into<String>) {
        let at = self.base + value.offset();
        let offset = self.text.get(..at).and_then(|before| before.rfind(key)).unwrap_or(at);
        let (line, column) = self.lines.line_col(offset);
        self.problems.push(Problem { path: self.label.into(), line, column, message: message.into() });
    }

    fn location(&self, node: Node) -> String {
        let (line, column) = self.lines.line_col(self.base + node.offset());
        format!("{}:{line}:{column}", self.label)
    }

    fn file(&mut self, root: Node, file: &mut CaseFile) {
        let Value::Object(_) = root.value() else {
            return self.problem(root, "a case file is an object with a `cases` list");
        };
        for (key, node) in root.entries() {
            match key {
                "endpoint" => file.target.endpoint = self.string(node, key),
                "mcp" => file.target.mcp = self.string(node, key),
                "mcp_url" => file.target.mcp_url = self.string(node, key),
                "call_path" => file.target.call_path = self.string(node, key),
                "timeout" => match node.value().as_u64() {
                    Some(seconds) => file.target.timeout = Some(seconds),
                    None => self.problem(node, "`timeout` is a whole number of seconds"),
                },
                "headers" => {
                    file.target.headers =
                        self.string_map(node, key).into_iter().map(|(k, v)| format!("{k}: {v}")).collect()
                }
                "tokens" => file.tokens = self.string_map(node, key),
                "defs" => file.defs = self.defs(node, &file.path),
                "cases" => match node.value() {
                    Value::Array(_) => {
                        for item in node.items() {
                            if let Some(case) = self.case(item) {
                                file.cases.push(case);
                            }
                        }
                    }
                    _ => self.problem(node, "`cases` is a list of cases"),
                },
                other => self.key_problem(node, other, unknown_key("a case file", other, TOP_KEYS)),
            }
        }
        if root.get("cases").is_none() {
            self.problem(root, "no `cases` list");
        }
    }

    fn case(&mut self, node: Node) -> Option<Case> {
        let Value::Object(_) = node.value() else {
            self.problem(node, "a case is an object with `tool`, `args` and `expect`");
            return None;
        };
        let before = self.problems.len();
        for (key, child) in node.entries() {
            if !CASE_KEYS.contains(&key) {
                self.key_problem(child, key, unknown_key("a case", key, CASE_KEYS));
            }
        }
        let tool = match node.get("tool") {
            Some(child) => self.string(child, "tool"),
            None => {
                self.problem(node, "the case has no `tool`");
                None
            }
        };
        let args = match node.get("args") {
            None => Value::Object(Default::default()),
            Some(child) => match self.expand(child) {
                Some(value @ (Value::Object(_) | Value::Null)) => value,
                Some(_) => {
                    self.problem(child, "`args` is an object of arguments");
                    Value::Null
                }
                None => Value::Null,
            },
        };
        let validate = match node.get("validate") {
            None => true,
            Some(child) => child.value().as_bool().unwrap_or_else(|| {
                self.problem(child, "`validate` is true or false");
                true
            }),
        };
        let expect = match node.get("expect") {
            Some(child) => match self.expand(child) {
                Some(value) => match Expect::parse_sharing(&value, &mut self.schemas) {
                    Ok(expect) => expect,
                    Err((key, message)) => {
                        match key.as_deref().and_then(|k| Some((k, child.get(k)?))) {
                            Some((key, at)) => self.key_problem(at, key, message),
                            None => self.problem(child, message),
                        }
                        Expect::default()
                    }
                },
                None => Expect::default(),
            },
            None => {
                self.problem(node, "the case has no `expect`");
                Expect::default()
            }
        };
        let answers = self.answers(node);
        let tool = tool?;
        let name = match node.get("name") {
            Some(child) => self.string(child, "name").unwrap_or_default(),
            None => tool.clone(),
        };
        (self.problems.len() == before).then(|| Case {
            name,
            tool,
            args,
            validate,
            expect,
            answers,
            location: self.location(node),
        })
    }

    /// `elicit:` (the content to accept with, or `decline` / `cancel`), `sample:` (the reply
    /// text) and `roots:` (offered to the server) of a case.
    fn answers(&mut self, node: Node) -> Option<crate::invoke::mcp::asks::Headless> {
        use crate::invoke::mcp::asks::{ElicitAnswer, Headless};
        let elicit = node.get("elicit").and_then(|child| match self.expand(child)? {
            Value::Object(content) => Some(ElicitAnswer::Accept(Value::Object(content))),
            Value::String(word) if word == "decline" || word == "cancel" => ElicitAnswer::parse(&word).ok(),
            _ => {
                self.problem(child, "`elicit` is the content to accept with (an object), or decline or cancel");
                None
            }
        });
        let sample_text = node.get("sample").and_then(|child| match self.expand(child)? {
            Value::String(text) => Some(text),
            _ => {
                self.problem(child, "`sample` is the text of the reply to a sampling request");
                None
            }
        });
        let roots = node.get("roots").and_then(|child| match self.expand(child)? {
            Value::Array(items) if items.iter().all(Value::is_string) => {
                Some(items.iter().filter_map(Value::as_str).map(str::to_string).collect())
            }
            _ => {
                self.problem(child, "`roots` is a list of paths or file:// URIs offered to the server");
                None
            }
        });
        (elicit.is_some() || sample_text.is_some() || roots.is_some()).then_some(Headless {
            elicit,
            sample_text,
            roots,
        })
    }

    fn string(&mut self, node: Node, key: &str) -> Option<String> {
        match node.value() {
            Value::String(text) => self.expand_string(node, text),
            _ => {
                self.problem(node, format!("`{key}` is a string"));
                None
            }
        }
    }

    fn string_map(&mut self, node: Node, key: &str) -> Vec<(String, String)> {
        let Value::Object(_) = node.value() else {
            self.problem(node, format!("`{key}` maps names to strings"));
            return Vec::new();
        };
        node.entries().filter_map(|(name, child)| Some((name.to_string(), self.string(child, name)?))).collect()
    }

    fn defs(&mut self, node: Node, case_file: &Path) -> Vec<PathBuf> {
        let base = case_file.parent().unwrap_or(Path::new("."));
        let items: Vec<Node> = match node.value() {
            Value::String(_) => vec![node],
            Value::Array(_) => node.items().collect(),
            _ => {
                self.problem(node, "`defs` is a path or a list of paths");
                return Vec::new();
            }
        };
        let mut paths = Vec::new();
        for item in items {
            let Some(path) = self.string(item, "defs").map(|p| base.join(p)) else { continue };
            // Found here, a missing path is named where the case file gives it; later it would
            // only show as cases calling tools that are not there.
            if path.exists() {
                paths.push(path);
            } else {
                self.problem(item, format!("`defs`: no file or folder {}", path.display()));
            }
        }
        paths
    }

    fn expand_string(&mut self, node: Node, text: &str) -> Option<String> {
        match expand_text(text) {
            Ok(expanded) => Some(expanded),
            Err(why) => {
                self.problem(node, why.to_string());
                None
            }
        }
    }

    /// The value with `${ENV}` expanded in every string; `None` (with problems) when a variable
    /// is not set.
    fn expand(&mut self, node: Node) -> Option<Value> {
        Some(match node.value() {
            Value::String(text) => Value::String(self.expand_string(node, text)?),
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

/// `${NAME}` replaced by the environment variable, and `$${` by a literal `${`: a recorded
/// case holds whatever a server sent, templates included, and must read back as it was written.
pub fn expand_text(text: &str) -> Result<String, crate::invoke::endpoint::ValueError> {
    if !text.contains("${") {
        return Ok(text.to_string());
    }
    let mut parts = text.split(ESCAPED).map(crate::invoke::endpoint::expand_env);
    let mut out = parts.next().unwrap_or_else(|| Ok(String::new()))?;
    for part in parts {
        out.push_str("${");
        out.push_str(&part?);
    }
    Ok(out)
}

/// How a literal `${` is written in a case file.
pub const ESCAPED: &str = "$${";

/// "unknown key" with the closest known one, when one is close.
pub fn unknown_key(what: &str, key: &str, known: &[&str]) -> String {
    let close = known.iter().min_by_key(|k| edit_distance(key, k)).filter(|k| edit_distance(key, k) <= 2);
    match close {
        Some(close) => format!("{what} has no key `{key}`; did you mean `{close}`?"),
        None => format!("{what} has no key `{key}` (known: {})", known.join(", ")),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
