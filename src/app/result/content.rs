//! The items of an MCP result in the result pane: which one `f` and `s` act on (`]` and `[` choose),
//! their previews (decoded, or read with `resources/read`, off the UI thread), and the lines the
//! pane shows for them. `ui` styles these lines; scrolling and search measure the same ones.

use std::borrow::Cow;
use std::sync::Arc;

use super::{ArtifactState, ArtifactView, ResultPane, RunState};
use crate::app::keymap::{Action, Context};
use crate::app::{App, Effect, EffectError, Popup, Reply, ServerEffect, WorkEffect};
use crate::form::TextInput;
use crate::invoke::ContentItem;
use crate::invoke::artifact::Fetched;
use crate::invoke::mcp::content::{Annotations, Inline};
use crate::invoke::save::SaveSource;
use crate::text::{human_bytes, truncate, visible};

/// Lines of a text shown before "… the text goes on" (`s` saves it whole).
pub const TEXT_LINES: usize = 500;
/// Lines of structured content shown.
pub const JSON_LINES: usize = 2000;
/// Items listed; a result with more says how many more.
pub const MAX_ITEMS: usize = 500;

/// One line of the items view, for `ui` to style.
#[derive(Debug, Clone, PartialEq)]
pub enum DocLine<'a> {
    Heading(String),
    /// An item's first line (`more`: the rest of it, wrapped); `selected`: the one `f` and `s`
    /// act on.
    Item {
        index: usize,
        selected: bool,
        text: String,
        more: bool,
    },
    /// The server's text (made visible when drawn).
    Text(Cow<'a, str>),
    Muted(String),
    Ok(String),
    Warning(String),
    Error(String),
    /// A line of JSON (structured content).
    Json(Cow<'a, str>),
    /// The rest of a long line of JSON, wrapped (inside a string, mostly).
    JsonMore(String),
    /// Row `n` of the selected preview's picture (two pixel rows).
    Picture(usize),
}

impl DocLine<'_> {
    /// The words of the line, for search (a picture row has none).
    pub fn words(&self) -> &str {
        match self {
            DocLine::Heading(t)
            | DocLine::Item { text: t, .. }
            | DocLine::Muted(t)
            | DocLine::Ok(t)
            | DocLine::Warning(t)
            | DocLine::Error(t)
            | DocLine::JsonMore(t) => t,
            DocLine::Text(t) | DocLine::Json(t) => t,
            DocLine::Picture(_) => "",
        }
    }
}

impl ResultPane {
    /// The last answer's content items (none for OTC answers and calls still running).
    pub fn items(&self) -> &[ContentItem] {
        match self.run.as_ref().map(|r| &r.state) {
            Some(RunState::Done { outcome, .. }) => &outcome.content,
            _ => &[],
        }
    }

    /// The answer has content items: `f` and `s` act on the selected one.
    pub fn has_items(&self) -> bool {
        !self.items().is_empty()
    }

    /// The pane lists content items (instead of a value, an error or an artifact).
    pub fn shows_items(&self) -> bool {
        !self.show_exchange && self.has_items()
    }

    fn run_id(&self) -> u64 {
        self.run.as_ref().map_or(0, |r| r.id)
    }

    /// The item selected when an answer arrives: the first that is not text (what `f` fetched
    /// before there were items), else the first; an image is decoded at once to be drawn.
    pub(super) fn answer_items(&mut self) -> Vec<Effect> {
        self.item = self.items().iter().position(|i| !matches!(i, ContentItem::Text(_))).unwrap_or(0);
        match self.items().get(self.item) {
            Some(ContentItem::Image(_)) => self.preview_item().effects,
            _ => Vec::new(),
        }
    }

    /// `f` on an item: decode what came inline, or read a link with `resources/read`.
    pub fn preview_item(&mut self) -> Reply {
        let index = self.item;
        let Some(item) = self.items().get(index).cloned() else { return Reply::default() };
        let view = |url: String, size: Option<u64>| ArtifactView {
            url,
            declared_size: size,
            received: 0,
            total: size,
            state: ArtifactState::Fetching,
            item: Some(index),
        };
        let run = self.run_id();
        match item {
            ContentItem::Text(_) => Reply::status("a text item is shown whole; {key:save_artifact} saves it"),
            ContentItem::Unreadable(u) => Reply::status(format!("tooldeck cannot read this item: {}", u.why)),
            ContentItem::ResourceLink(link) => {
                self.artifact = Some(view(link.uri.clone(), link.size));
                let status = format!("reading {} (resources/read)…", visible(&link.uri));
                Reply::effect(Effect::Server(ServerEffect::ReadResource { run, item: index, uri: link.uri }))
                    .with_status(status)
            }
            ContentItem::Image(_) | ContentItem::Audio(_) | ContentItem::Resource(_) => {
                let Some(data) = item.inline() else { return Reply::default() };
                let content_type = item.mime_type().map(str::to_string);
                self.artifact = Some(view(item.uri().unwrap_or_default().to_string(), None));
                Reply::effect(Effect::Work(WorkEffect::DecodeInline { run, item: index, data, content_type }))
            }
        }
    }

    /// An item's preview came back (`ContentMsg::ItemDecoded`, `ContentMsg::ResourceRead`); dropped when
    /// another run or another item's preview has taken its place. What happened, for the status
    /// bar.
    pub fn item_previewed(
        &mut self,
        run: u64,
        item: usize,
        result: Result<Box<Fetched>, EffectError>,
    ) -> Option<String> {
        let current = self.run_id() == run;
        let view = self.artifact.as_mut().filter(|v| current && v.item == Some(item))?;
        let (state, said) = match result {
            Ok(fetched) => {
                view.received = fetched.bytes.len() as u64;
                let said = format!(
                    "item {} previewed ({}) · {{key:save_artifact}} saves it",
                    item + 1,
                    human_bytes(view.received)
                );
                (super::artifact::ready(*fetched, view.declared_size), said)
            }
            Err(error) => (ArtifactState::Failed(error.to_string()), format!("item {}: {error}", item + 1)),
        };
        view.state = state;
        Some(said)
    }

    /// `s` on an item: where to save it (a link is read first).
    pub fn ask_where_to_save_item(&self) -> Reply {
        let Some(item) = self.items().get(self.item) else { return Reply::default() };
        if self.save_source(self.item).is_none() {
            return Reply::status(match item {
                ContentItem::ResourceLink(_) => {
                    "{key:fetch_artifact} reads the resource first; then {key:save_artifact} saves it".to_string()
                }
                ContentItem::Unreadable(_) => "this item cannot be read, so there is nothing to save".to_string(),
                _ => "{key:fetch_artifact} previews it first; then {key:save_artifact} saves it".to_string(),
            });
        }
        Reply::popup(Popup::SavePrompt { input: TextInput::prefilled(suggested_name(self.item, item)) })
    }

    /// Enter in the save prompt, for the selected item.
    pub(super) fn save_item(&self, path: String, overwrite: bool) -> Vec<Effect> {
        match self.save_source(self.item) {
            Some(source) if !path.trim().is_empty() => vec![Effect::Work(WorkEffect::Save { path, source, overwrite })],
            _ => Vec::new(),
        }
    }

    /// What a save of item `index` writes: the preview's bytes when they are whole, else the
    /// content as it came (decoded as it is written).
    fn save_source(&self, index: usize) -> Option<SaveSource> {
        let preview = self.artifact.as_ref().filter(|v| v.item == Some(index)).map(|v| &v.state);
        match preview {
            Some(ArtifactState::Ready { bytes, cut_off: false, .. }) => Some(SaveSource::Bytes(Arc::clone(bytes))),
            Some(ArtifactState::Ready { whole: Some(whole), .. }) => Some(SaveSource::Inline(whole.clone())),
            _ => self.items().get(index).and_then(ContentItem::inline).map(SaveSource::Inline),
        }
    }
}

impl App {
    /// `]` / `[`: the next or previous item; the pane scrolls to it, an image is drawn.
    pub(in crate::app) fn select_item(&mut self, delta: isize) -> Vec<Effect> {
        let count = self.result.items().len();
        if count == 0 {
            self.tell("] and [ choose among an MCP result's content items; this result has none");
            return Vec::new();
        }
        let index = self.result.item.saturating_add_signed(delta).min(count - 1);
        self.result.item = index;
        let (found, end) = {
            let doc = document(self);
            (doc.iter().position(|l| matches!(l, DocLine::Item { index: i, .. } if *i == index)), doc.len())
        };
        if let Some(line) = found.filter(|_| self.result.shows_items()) {
            // Just far enough for the item to show, the window kept full.
            let height = self.value_height();
            let scroll = &mut self.result.scroll;
            if line < *scroll {
                *scroll = line;
            } else if line >= *scroll + height {
                *scroll = line.min(end.saturating_sub(height));
            }
        }
        let items = self.result.items();
        let (f, s) = (
            self.key_name(Context::Result, Action::FetchArtifact),
            self.key_name(Context::Result, Action::SaveArtifact),
        );
        let what = match &items[index] {
            ContentItem::Text(_) => format!("{s} saves it"),
            ContentItem::ResourceLink(_) => format!("{f} reads it · then {s} saves it"),
            ContentItem::Unreadable(_) => "it cannot be read".into(),
            _ => format!("{f} previews it · {s} saves it"),
        };
        let said = format!("item {} of {count}: {} · {what}", index + 1, items[index].kind());
        let image = matches!(items[index], ContentItem::Image(_));
        self.tell(said);
        let previewed = self.result.artifact.as_ref().is_some_and(|v| v.item == Some(index));
        if image && !previewed {
            let reply = self.result.preview_item();
            return self.apply(Reply { status: None, ..reply });
        }
        Vec::new()
    }

    /// The selected item's first row in view at the top (as far as the window stays full): an
    /// answer's image is seen at once, without scrolling or zooming.
    pub(in crate::app) fn reveal_item(&mut self) {
        let index = self.result.item;
        let (found, end) = {
            let doc = document(self);
            (doc.iter().position(|l| matches!(l, DocLine::Item { index: i, .. } if *i == index)), doc.len())
        };
        if let Some(line) = found.filter(|_| self.result.shows_items()) {
            self.result.scroll = line.min(end.saturating_sub(self.value_height()));
        }
    }

    /// An item's preview came back: said on the status line; a picture is scrolled into view.
    pub(in crate::app) fn item_previewed(&mut self, run: u64, item: usize, result: Result<Box<Fetched>, EffectError>) {
        let Some(said) = self.result.item_previewed(run, item, result) else { return };
        self.tell(self.say(&said));
        let picture = matches!(self.result.items().get(item), Some(ContentItem::Image(_)));
        if picture && self.result.item == item {
            self.reveal_item();
        }
    }

    /// `n` in the items view: the next line holding the search text, scrolled to the top.
    pub(in crate::app) fn find_in_items(&mut self) {
        let needle = self.result.search.to_lowercase();
        if needle.is_empty() {
            return;
        }
        let doc = document(self);
        let from = (self.result.scroll + 1).min(doc.len());
        let found = (from..doc.len()).chain(0..from).find(|&i| doc[i].words().to_lowercase().contains(&needle));
        let said = match found {
            Some(line) => {
                self.result.scroll = line;
                format!("\"{}\" on line {} · n finds the next", self.result.search, line + 1)
            }
            None => format!("\"{}\" is not in the result", self.result.search),
        };
        self.tell(said);
    }
}

/// The items view of the last answer: the items in order (the selected one marked, its preview
/// under it), the structured content and how it fared against the output schema, the warnings.
pub fn document(app: &App) -> Vec<DocLine<'_>> {
    let Some(run) = &app.result.run else { return Vec::new() };
    let RunState::Done { outcome, value_lines, .. } = &run.state else { return Vec::new() };
    let key = |action| app.key_name(Context::Result, action);
    let (f, s) = (key(Action::FetchArtifact), key(Action::SaveArtifact));
    let items = &outcome.content;
    let picture_rows = picture_fit(app).map_or(0, |(_, rows)| rows);
    let mut doc = vec![DocLine::Heading(format!(
        "content · {} · {} {} choose · {f} previews or reads · {s} saves",
        crate::text::plural(items.len(), "item"),
        key(Action::NextItem),
        key(Action::PreviousItem),
    ))];
    // A prompt's description, before its messages.
    if let Some(description) =
        outcome.value.as_ref().and_then(|v| v["description"].as_str()).filter(|_| !outcome.roles.is_empty())
    {
        doc.push(DocLine::Text(Cow::Owned(format!("prompt: {description}"))));
    }
    if outcome.status == crate::invoke::Status::Error {
        doc.push(DocLine::Error("the tool reported an error (isError); what it returned follows".into()));
    }
    for (index, item) in items.iter().enumerate().take(MAX_ITEMS) {
        let selected = index == app.result.item;
        doc.push(DocLine::Item { index, selected, text: header(index, item, outcome.roles.get(index)), more: false });
        let preview = app.result.artifact.as_ref().filter(|v| v.item == Some(index));
        body(item, preview.map(|p| (p, picture_rows)), (&f, &s), &mut doc);
    }
    if items.len() > MAX_ITEMS {
        let x = key(Action::ToggleExchange);
        doc.push(DocLine::Muted(format!(
            "… and {} more items ({x} shows the whole response)",
            items.len() - MAX_ITEMS
        )));
    }
    if outcome.structured {
        doc.push(DocLine::Heading("structured content".into()));
        let has_schema = app.catalog.get(&run.tool_id).is_some_and(|t| t.output_schema.is_some());
        let problems = outcome.warnings.iter().filter(|w| w.starts_with("output schema:")).count();
        doc.push(match (has_schema, problems) {
            (false, _) => DocLine::Muted("the tool declares no output schema".into()),
            (true, 0) => DocLine::Ok("✓ matches the tool's output schema".into()),
            (true, n) => DocLine::Warning(format!(
                "⚠ {} against the tool's output schema (below)",
                crate::text::plural(n, "problem")
            )),
        });
        doc.extend(value_lines.lines().iter().take(JSON_LINES).map(|l| DocLine::Json(Cow::Borrowed(l))));
        if value_lines.lines().len() > JSON_LINES {
            doc.push(DocLine::Muted(format!(
                "… {} more lines ({} shows them all)",
                value_lines.lines().len() - JSON_LINES,
                key(Action::ToggleExchange)
            )));
        }
    }
    doc.extend(outcome.warnings.iter().map(|w| DocLine::Warning(format!("⚠ {}", visible(w)))));
    // Read whole at any size: every long line is wrapped to the pane, so a row of the document is
    // a row on screen and scrolling moves through a tall item line by line.
    match app.layout().result.filter(|_| !app.result.unwrapped) {
        Some(area) => rows(doc, usize::from(area.width).saturating_sub(2).max(8)),
        None => doc,
    }
}

/// The lines of `doc` in rows of at most `width` cells as drawn (with their marks and indents).
fn rows(doc: Vec<DocLine<'_>>, width: usize) -> Vec<DocLine<'_>> {
    const INDENT: usize = 4;
    let text = width - INDENT;
    let mut out = Vec::with_capacity(doc.len());
    let split = |line: &str, columns: usize| crate::text::wrap_keep(&visible(line), columns);
    for line in doc {
        match line {
            DocLine::Heading(t) if crate::text::width(&t) > width => {
                out.extend(split(&t, width).into_iter().map(DocLine::Heading))
            }
            DocLine::Item { index, selected, text: t, .. } if crate::text::width(&t) > width - 2 => {
                out.extend(split(&t, width - 2).into_iter().enumerate().map(|(row, text)| DocLine::Item {
                    index,
                    selected,
                    text,
                    more: row > 0,
                }))
            }
            DocLine::Text(t) if crate::text::width(&t) > text || t.len() > LINE_BYTES => {
                out.extend(split(&upto(&t, LINE_BYTES), text).into_iter().map(|r| DocLine::Text(Cow::Owned(r))))
            }
            DocLine::Muted(t) if crate::text::width(&t) > text => {
                out.extend(split(&t, text).into_iter().map(DocLine::Muted))
            }
            DocLine::Ok(t) if crate::text::width(&t) > text => out.extend(split(&t, text).into_iter().map(DocLine::Ok)),
            DocLine::Warning(t) if crate::text::width(&t) > text => {
                out.extend(split(&t, text).into_iter().map(DocLine::Warning))
            }
            DocLine::Error(t) if crate::text::width(&t) > text => {
                out.extend(split(&t, text).into_iter().map(DocLine::Error))
            }
            DocLine::Json(t) if crate::text::width(&t) > text => {
                let mut parts = split(&t, text).into_iter();
                out.extend(parts.next().map(|first| DocLine::Json(Cow::Owned(first))));
                out.extend(parts.map(DocLine::JsonMore));
            }
            other => out.push(other),
        }
    }
    out
}

/// The most of one line of server text drawn: an inline blob is one line of megabytes, and only
/// its start could ever be read on screen.
pub const LINE_BYTES: usize = 4096;

/// `line`'s first `limit` bytes (at a character), with `…` when that is not all of it.
fn upto(line: &str, limit: usize) -> Cow<'_, str> {
    if line.len() <= limit {
        return Cow::Borrowed(line);
    }
    let mut end = limit;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &line[..end]))
}

/// The columns and rows the selected preview's picture is drawn in: its thumbnail made smaller
/// (never larger) to fit the pane below the item's line, so the whole picture shows without
/// zooming; `None` without a picture.
pub fn picture_fit(app: &App) -> Option<(usize, usize)> {
    let Some(ArtifactState::Ready { image: Some(image), .. }) = app.result.artifact.as_ref().map(|v| &v.state) else {
        return None;
    };
    let columns = app.layout().result.map_or(64, |r| usize::from(r.width).saturating_sub(6)).max(1);
    // Below the pane's status line and the item's own line; at least a few rows to make it out.
    let rows = app.value_height().saturating_sub(1).max(3);
    Some(fit(image.width, image.height / 2, columns, rows))
}

/// `width` × `height` cells scaled down, keeping the shape, to at most `columns` × `rows`.
fn fit(width: usize, height: usize, columns: usize, rows: usize) -> (usize, usize) {
    let scale = (width as f64 / columns as f64).max(height as f64 / rows as f64).max(1.0);
    let scaled = |n: usize| ((n as f64 / scale).round() as usize).max(1);
    (scaled(width), scaled(height))
}

/// `2 image · image/png · 4.0 KiB · for user · priority 0.8`; a prompt's message item starts
/// with its role: `1 [user] text · 3 lines`.
fn header(index: usize, item: &ContentItem, role: Option<&String>) -> String {
    let size = |bytes: u64| human_bytes(bytes);
    let role = role.map(|r| format!("[{}] ", if r.is_empty() { "no role" } else { r })).unwrap_or_default();
    let mut parts: Vec<String> = vec![format!("{} {role}{}", index + 1, item.kind())];
    match item {
        ContentItem::Text(t) if t.text.len() > 64 << 10 => parts.push(size(t.text.len() as u64)),
        ContentItem::Text(t) => parts.push(crate::text::plural(t.text.lines().count(), "line")),
        ContentItem::Image(m) | ContentItem::Audio(m) => {
            parts.push(m.mime_type.clone().unwrap_or_else(|| "no type given".into()));
            parts.push(size(m.size));
        }
        ContentItem::ResourceLink(l) => {
            parts.push(if l.name.is_empty() { "(no name)".into() } else { l.name.clone() });
            parts.extend(l.mime_type.clone());
            parts.extend(l.size.map(size));
        }
        ContentItem::Resource(e) => {
            parts.push(e.uri.clone());
            parts.extend(e.mime_type.clone());
            parts.push(size(e.size));
        }
        ContentItem::Unreadable(u) => parts.push(format!("type {:?}", u.declared_type)),
    }
    parts.extend(item.annotations().map(annotations_text).filter(|a| !a.is_empty()));
    visible(&parts.join(" · ")).into_owned()
}

/// `for user · priority 0.8 · modified 2025-01-01T00:00:00Z`.
fn annotations_text(a: &Annotations) -> String {
    let mut parts = Vec::new();
    if !a.audience.is_empty() {
        parts.push(format!("for {}", a.audience.join(" and ")));
    }
    parts.extend(a.priority.map(|p| format!("priority {p}")));
    parts.extend(a.last_modified.as_ref().map(|m| format!("modified {m}")));
    parts.join(" · ")
}

fn body<'a>(
    item: &'a ContentItem,
    preview: Option<(&'a ArtifactView, usize)>,
    (f, s): (&str, &str),
    doc: &mut Vec<DocLine<'a>>,
) {
    let labelled = |label: &str, text: &str| DocLine::Text(Cow::Owned(format!("{label:<13}{text}")));
    match item {
        ContentItem::Text(t) => text_lines(&t.text, s, doc),
        ContentItem::Image(_) | ContentItem::Audio(_) | ContentItem::Resource(_) if preview.is_some() => {}
        ContentItem::Image(_) => doc.push(DocLine::Muted(format!("{f} draws it · {s} saves it"))),
        ContentItem::Audio(_) => {
            doc.push(DocLine::Muted(format!("tooldeck plays no sound: {s} saves it · {f} shows its first bytes")))
        }
        ContentItem::ResourceLink(l) => {
            doc.push(labelled("uri", &l.uri));
            doc.extend(l.title.as_deref().map(|t| labelled("title", t)));
            doc.extend(l.description.as_deref().map(|d| labelled("description", d)));
            if preview.is_none() {
                doc.push(DocLine::Muted(format!("{f} reads it from the server (resources/read) · then {s} saves it")));
            }
        }
        ContentItem::Resource(e) => match &e.body {
            Inline::Text(text) => text_lines(text, s, doc),
            Inline::Base64(_) => doc.push(DocLine::Muted(format!("{f} previews it · {s} saves it"))),
        },
        ContentItem::Unreadable(u) => {
            doc.push(DocLine::Error(format!("✗ cannot be read: {}", u.why)));
            doc.push(DocLine::Muted(truncate(&u.block.to_string(), 200).into_owned()));
        }
    }
    if let Some((view, picture_rows)) = preview {
        preview_lines(view, picture_rows, matches!(item, ContentItem::ResourceLink(_)), doc);
    }
}

/// A text's lines, at most [`TEXT_LINES`].
fn text_lines<'a>(text: &'a str, s: &str, doc: &mut Vec<DocLine<'a>>) {
    if text.is_empty() {
        doc.push(DocLine::Muted("(empty)".into()));
    }
    let mut lines = text.lines();
    doc.extend(lines.by_ref().take(TEXT_LINES).map(|l| DocLine::Text(Cow::Borrowed(l))));
    if lines.next().is_some() {
        doc.push(DocLine::Muted(format!(
            "… the text goes on ({} in all) · {s} saves it whole",
            human_bytes(text.len() as u64)
        )));
    }
}

fn preview_lines<'a>(view: &'a ArtifactView, picture_rows: usize, reads: bool, doc: &mut Vec<DocLine<'a>>) {
    match &view.state {
        ArtifactState::Fetching if reads => doc.push(DocLine::Muted("reading it from the server…".into())),
        ArtifactState::Fetching => doc.push(DocLine::Muted("decoding…".into())),
        ArtifactState::Failed(error) => doc.push(DocLine::Error(format!("✗ {}", visible(error)))),
        ArtifactState::Ready { lines, image, .. } => {
            if image.is_some() {
                doc.extend((0..picture_rows).map(DocLine::Picture));
            }
            doc.extend(lines.iter().take(crate::invoke::artifact::PREVIEW_LINES + 1).map(|l| {
                if l.starts_with('⚠') { DocLine::Warning(l.clone()) } else { DocLine::Text(Cow::Borrowed(l)) }
            }));
        }
    }
}

/// A name to save item `index` as: the resource's own name, else `image-2.png` and the like.
fn suggested_name(index: usize, item: &ContentItem) -> String {
    let from_uri = item.uri().map(crate::invoke::artifact::file_name).filter(|n| n != "artifact.bin");
    from_uri.unwrap_or_else(|| {
        let kind = match item {
            ContentItem::ResourceLink(_) | ContentItem::Resource(_) => "resource",
            other => other.kind(),
        };
        format!("{kind}-{}.{}", index + 1, extension(item.mime_type()))
    })
}

fn extension(mime: Option<&str>) -> &'static str {
    let essence = mime.unwrap_or_default().split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    match essence.as_str() {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/ogg" => "ogg",
        "application/json" => "json",
        "text/plain" => "txt",
        "text/markdown" => "md",
        "text/html" => "html",
        "text/csv" => "csv",
        _ => "bin",
    }
}
