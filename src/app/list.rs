//! The tool list: tools grouped by the file they came from, or ranked by a fuzzy filter.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use std::collections::HashMap;

use crate::catalog::{Catalog, Face};
use crate::form::TextInput;

/// One row of the tool list: a group header, a section, or a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// A group header: the source the tools below came from.
    Group(String),
    /// A tool, by its index in the catalog.
    Tool(usize),
    /// Under a server's tools: the header of its resources, templates or prompts (shown only
    /// when it has some).
    Section(&'static str),
}

/// The list's entries, selection and scroll, read through getters; they change only through
/// this pane's methods.
#[derive(Debug, Clone, Default)]
pub struct ToolList {
    entries: Vec<Row>,
    /// Index into `entries`, always a tool when there is one.
    selected: Option<usize>,
    /// First visible entry.
    offset: usize,
    /// The filter text; `filtering` while it is being typed. Changed only by this pane's
    /// methods (`start_filter`, `filter_key`...); read through `filter()` and `filtering()`.
    filter: TextInput,
    filtering: bool,
    /// Where the focus was when the filter was opened from another pane (the form): closing
    /// the filter returns there.
    filter_from: Option<crate::app::Focus>,
}

impl ToolList {
    /// The rows: group headers, tools, section headers.
    pub fn entries(&self) -> &[Row] {
        &self.entries
    }

    /// Index into `entries()`, always a tool when there is one.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// First visible entry.
    pub fn offset(&self) -> usize {
        self.offset
    }

    pub fn new(catalog: &Catalog) -> ToolList {
        let mut list = ToolList::default();
        list.refresh(catalog);
        list
    }

    pub fn selected_tool(&self) -> Option<usize> {
        match self.selected.and_then(|i| self.entries.get(i)) {
            Some(Row::Tool(t)) => Some(*t),
            _ => None,
        }
    }

    /// Rebuilds the entries for the current filter, keeping the selected tool where it remains.
    pub fn refresh(&mut self, catalog: &Catalog) {
        let previous = self.selected_tool();
        self.entries =
            if self.filter.text().trim().is_empty() { grouped(catalog) } else { ranked(catalog, self.filter.text()) };
        self.selected = previous
            .and_then(|t| self.entries.iter().position(|e| *e == Row::Tool(t)))
            .or_else(|| self.entries.iter().position(|e| matches!(e, Row::Tool(_))));
        self.offset = 0;
    }

    /// Rebuilds the entries for a filter just typed: the selection goes to the best match.
    pub fn refresh_to_best(&mut self, catalog: &Catalog) {
        self.selected = None;
        self.refresh(catalog);
    }

    /// Moves the selection by `delta` tools, skipping group headers.
    pub fn move_by(&mut self, delta: isize) {
        let tools: Vec<usize> =
            self.entries.iter().enumerate().filter(|(_, e)| matches!(e, Row::Tool(_))).map(|(i, _)| i).collect();
        if tools.is_empty() {
            self.selected = None;
            return;
        }
        let current = self.selected.and_then(|s| tools.iter().position(|&i| i == s)).unwrap_or(0);
        let target = current.saturating_add_signed(delta).min(tools.len() - 1);
        self.selected = Some(tools[target]);
    }

    /// Selects the entry at `index` if it is a tool.
    pub fn select_entry(&mut self, index: usize) -> bool {
        if matches!(self.entries.get(index), Some(Row::Tool(_))) {
            self.selected = Some(index);
            true
        } else {
            false
        }
    }

    /// Scrolls so the selection shows in `height` lines.
    pub fn ensure_visible(&mut self, height: usize) {
        let Some(selected) = self.selected else { return };
        if height == 0 {
            return;
        }
        // Keep the group header above the first tool in view too.
        let top = if selected > 0 && matches!(self.entries.get(selected - 1), Some(Row::Group(_) | Row::Section(_))) {
            selected - 1
        } else {
            selected
        };
        if top < self.offset {
            self.offset = top;
        } else if selected >= self.offset + height {
            self.offset = selected + 1 - height;
        }
    }

    /// The filter text (typed, or kept after typing).
    pub fn filter(&self) -> &TextInput {
        &self.filter
    }

    /// The filter is being typed: keys go to it.
    pub fn filtering(&self) -> bool {
        self.filtering
    }

    /// A new search: the filter takes the keys, empty (it never appends to the last one).
    pub fn start_filter(&mut self) {
        self.filtering = true;
        self.filter.clear();
    }

    /// Where closing the filter returns the focus, when it was opened from another pane; asked
    /// once.
    pub fn take_filter_from(&mut self) -> Option<crate::app::Focus> {
        self.filter_from.take()
    }

    /// The filter stops taking keys; what was typed stays.
    pub fn stop_filter(&mut self) {
        self.filtering = false;
    }

    /// The filter is emptied and every tool listed again; false when it was empty already.
    pub fn clear_filter(&mut self, catalog: &Catalog) -> bool {
        if self.filter.text().is_empty() {
            return false;
        }
        self.filter.clear();
        self.refresh(catalog);
        true
    }

    /// Every tool listed (no filter), with the catalog's tool `position` selected.
    pub fn select_tool(&mut self, catalog: &Catalog, position: usize) {
        self.filter.clear();
        self.refresh(catalog);
        if let Some(entry) = self.entries.iter().position(|e| *e == Row::Tool(position)) {
            self.select_entry(entry);
        }
    }

    /// A key in the filter box: every keystroke selects the best match. What the app does
    /// next: open the chosen tool's form (Enter), or return to the pane the filter was opened
    /// from (Esc).
    fn filter_key(&mut self, key: crossterm::event::KeyEvent, catalog: &Catalog) -> FilterDone {
        use crossterm::event::KeyCode;
        match key.code {
            KeyCode::Esc => {
                self.filtering = false;
                self.filter.clear();
                self.refresh(catalog);
                return FilterDone { open_form: false, back_to: self.filter_from.take() };
            }
            KeyCode::Enter => {
                self.filtering = false;
                self.filter_from = None;
                return FilterDone { open_form: self.selected_tool().is_some(), back_to: None };
            }
            KeyCode::Up => self.move_by(-1),
            KeyCode::Down => self.move_by(1),
            _ => {
                if super::typing::edit_input(&mut self.filter, key, false) {
                    self.refresh_to_best(catalog);
                }
            }
        }
        FilterDone::default()
    }

    /// A paste into the filter being typed; false when it is not being typed.
    fn paste_filter(&mut self, text: &str, catalog: &Catalog) -> bool {
        if !self.filtering {
            return false;
        }
        self.filter.insert_str(text, false);
        self.refresh_to_best(catalog);
        true
    }

    pub fn tool_count(&self) -> usize {
        self.entries.iter().filter(|e| matches!(e, Row::Tool(_))).count()
    }
}

fn grouped(catalog: &Catalog) -> Vec<Row> {
    // Files are told apart by what their paths do not share; a server is named whole.
    let files = catalog.tools().iter().filter(|t| t.source.line > 0);
    let prefix = common_folder(files.map(|t| t.source.path.as_str()));
    // A server's resources, templates and prompts come after its tools, each under its section
    // header, whenever the server listed them: sources keep the order they first appear in.
    let mut first_seen: HashMap<&str, usize> = HashMap::new();
    for tool in catalog.tools() {
        let next = first_seen.len();
        first_seen.entry(tool.source.path.as_str()).or_insert(next);
    }
    let mut order: Vec<usize> = (0..catalog.len()).collect();
    order.sort_by_key(|&i| {
        let tool = &catalog.tools()[i];
        (first_seen.get(tool.source.path.as_str()).copied().unwrap_or(0), face_rank(&tool.written.face))
    });
    let mut entries = Vec::new();
    let mut current: Option<(&str, &'static str)> = None;
    for i in order {
        let tool = &catalog.tools()[i];
        let section = tool.written.face.section();
        if current.map(|(path, _)| path) != Some(tool.source.path.as_str()) {
            let label = match tool.source.line {
                0 => tool.source.to_string(),
                _ => tool.source.path.strip_prefix(prefix.as_str()).unwrap_or(&tool.source.path).to_string(),
            };
            entries.push(Row::Group(label));
            current = Some((tool.source.path.as_str(), "tools"));
        }
        if current.map(|(_, s)| s) != Some(section) {
            entries.push(Row::Section(section));
            current = Some((tool.source.path.as_str(), section));
        }
        entries.push(Row::Tool(i));
    }
    entries
}

fn face_rank(face: &Face) -> u8 {
    match face {
        Face::Tool | Face::Offline { .. } => 0,
        Face::Resource { .. } => 1,
        Face::Template { .. } => 2,
        Face::Prompt { .. } => 3,
    }
}

/// The folder all paths share (with its trailing `/`), so group headers show what differs.
fn common_folder<'a>(mut paths: impl Iterator<Item = &'a str>) -> String {
    let Some(first) = paths.next() else { return String::new() };
    let mut prefix = first.rfind('/').map_or("", |i| &first[..=i]).to_string();
    for path in paths {
        while !path.starts_with(&prefix) {
            prefix.pop();
            prefix.truncate(prefix.rfind('/').map_or(0, |i| i + 1));
        }
    }
    prefix
}

/// Tools matching `filter` on id, title or name, best first: an exact name, then one that
/// starts with it, then one holding it as a word or a part, then fuzzy matches by score.
fn ranked(catalog: &Catalog, filter: &str) -> Vec<Row> {
    let pattern = Pattern::parse(filter, CaseMatching::Smart, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT);
    let mut buffer = Vec::new();
    let needle = filter.trim().to_lowercase();
    let mut scored: Vec<(u8, u32, usize)> = catalog
        .tools()
        .iter()
        .enumerate()
        .filter_map(|(i, tool)| {
            let names = [tool.id.as_str(), tool.title.as_deref().unwrap_or_default(), tool.name.as_str()];
            let haystack = names.join(" ");
            let score = pattern.score(Utf32Str::new(&haystack, &mut buffer), &mut matcher)?;
            let tier = names
                .iter()
                .map(|name| {
                    let name = name.to_lowercase();
                    if name == needle {
                        0
                    } else if name.starts_with(&needle) {
                        1
                    } else if name.contains(&needle) {
                        2
                    } else {
                        3
                    }
                })
                .min()
                .unwrap_or(3);
            Some((tier, score, i))
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    scored.into_iter().map(|(_, _, i)| Row::Tool(i)).collect()
}

/// What a key in the filter box asks of the app.
#[derive(Debug, Default)]
struct FilterDone {
    open_form: bool,
    back_to: Option<crate::app::Focus>,
}

/// The list: its filter box takes the keys while typed (each keystroke selects the best
/// match, Enter opens its form); otherwise its keys move the selection, start a new search
/// and clear it. Opening the form, the JSON view and every command are the app's.
impl crate::app::Component for ToolList {
    fn context(&self) -> Option<crate::app::Context> {
        (!self.filtering).then_some(crate::app::Context::Main)
    }

    fn handle(&mut self, input: crate::app::Input, cx: &crate::app::Cx) -> Option<crate::app::Reply> {
        use crate::app::{Action, Focus, Input, Reply};
        let moved = |list: &mut ToolList, delta| {
            list.move_by(delta);
            Some(Reply { tool_changed: true, ..Reply::default() })
        };
        match input {
            Input::Key(key) if self.filtering => {
                let done = self.filter_key(key, cx.catalog);
                let reply = Reply { tool_changed: true, open_form: done.open_form, ..Reply::default() };
                Some(match done.back_to {
                    Some(focus) => Reply { focus: Some(focus), ..reply },
                    None => reply,
                })
            }
            Input::Paste(text) if self.paste_filter(text, cx.catalog) => {
                Some(Reply { tool_changed: true, ..Reply::default() })
            }
            Input::Key(_) | Input::Paste(_) => None,
            Input::Action(action) => match action {
                Action::Up => moved(self, -1),
                Action::Down => moved(self, 1),
                Action::PageUp => moved(self, -10),
                Action::PageDown => moved(self, 10),
                Action::Top => moved(self, isize::MIN / 2),
                Action::Bottom => moved(self, isize::MAX / 2),
                Action::Back => {
                    let _ = self.clear_filter(cx.catalog);
                    Some(Reply::default())
                }
                Action::PreviousField | Action::Collapse => Some(Reply::default()),
                Action::Filter => {
                    // A new search each time: `/` never appends to the last one.
                    self.start_filter();
                    self.filter_from = (cx.focus != Focus::List).then_some(cx.focus);
                    Some(Reply::focus(Focus::List))
                }
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{LoadOptions, load_samples};

    #[test]
    fn grouped_by_source_and_filtered_fuzzily() {
        let catalog = load_samples(&LoadOptions::default()).catalog;
        let mut list = ToolList::new(&catalog);
        assert!(matches!(list.entries[0], Row::Group(_)));
        assert!(list.selected_tool().is_some());
        list.filter.set("shwmap");
        list.refresh(&catalog);
        let first = list.selected_tool().map(|i| catalog.tools()[i].id.clone());
        assert_eq!(first.as_deref(), Some("maps.showMapAtAddressAndZoom"));
        list.filter.set("zzzzzz-nothing");
        list.refresh(&catalog);
        assert_eq!(list.tool_count(), 0);
        assert_eq!(list.selected_tool(), None);
    }

    #[test]
    fn a_servers_tools_are_grouped_under_its_name() {
        let text = r#"{"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}"#;
        let mut catalog = load_samples(&LoadOptions::default()).catalog;
        for tool in crate::invoke::endpoint::server_tools("http://127.0.0.1:8799/mcp", text) {
            catalog.add(tool);
        }
        let list = ToolList::new(&catalog);
        assert!(list.entries.contains(&Row::Group("server http://127.0.0.1:8799/mcp".into())), "{:?}", list.entries);
        assert!(list.entries.contains(&Row::Group("gloodata/maps.info.json".into())), "files keep their short names");
    }

    #[test]
    fn moving_skips_headers_and_stops_at_the_ends() {
        let catalog = load_samples(&LoadOptions::default()).catalog;
        let mut list = ToolList::new(&catalog);
        list.move_by(-5);
        assert_eq!(list.selected, Some(1));
        list.move_by(1000);
        assert_eq!(list.selected_tool(), Some(catalog.len() - 1));
    }
}
