//! The bottom line: what the keys do here, a message, and whether the arguments are ready. The
//! keys are named from the keymap, so the hints follow the user's bindings.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::keymap::{Context, Keymap};
use crate::app::{App, Focus, Overlay, Popup};
use crate::form::Widget;
use crate::text::{truncate, visible, width};
use crate::theme::Styles;

pub fn render(app: &App, styles: &Styles, frame: &mut Frame, area: Rect) {
    let json_invalid = app.form_pane.json().is_some_and(|j| j.error().is_some());
    let summary = match app.form() {
        Some(_) if json_invalid => Span::styled(" JSON invalid ", styles.error),
        Some(form) if form.validation.error_count > 0 => {
            let n = form.validation.error_count;
            Span::styled(format!(" {n} error{} ", if n == 1 { "" } else { "s" }), styles.error)
        }
        Some(_) => Span::styled(" ready ", styles.ok),
        None if app.load_errors > 0 => Span::styled(
            format!(
                " catalog: {} error{} (tooldeck check shows them) ",
                app.load_errors,
                if app.load_errors == 1 { "" } else { "s" }
            ),
            styles.warning,
        ),
        None => Span::raw(""),
    };
    let room = usize::from(area.width).saturating_sub(width(&summary.content) + 1);
    let left: Vec<Span> = match app.status() {
        // A message a while old is dimmed before it goes (`app::status_age`).
        Some(message) => {
            let style = if app.status_stale() { styles.muted } else { styles.warning };
            vec![Span::styled(cut_at_word(&visible(message), room), style)]
        }
        None => hints(app, room, styles),
    };
    let used: usize = left.iter().map(|s| width(&s.content)).sum();
    let mut spans = left;
    spans.push(Span::raw(" ".repeat(usize::from(area.width).saturating_sub(used + width(&summary.content)))));
    spans.push(summary);
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// `text` in at most `room` cells: whole, or cut after its last whole word that fits (inside a
/// word only when one word is longer than half the room) with `…` to mark the cut.
fn cut_at_word(text: &str, room: usize) -> String {
    if width(text) <= room {
        return text.to_string();
    }
    let cut = truncate(text, room);
    let kept = cut.trim_end_matches('…');
    let whole_words = match text[kept.len()..].starts_with(' ') {
        true => kept,
        false => kept.rfind(' ').map_or(kept, |at| &kept[..at]),
    };
    let kept = if width(whole_words) >= room / 2 { whole_words } else { kept };
    format!("{}…", kept.trim_end())
}

/// Keys, then what they do. In the keys, `{action}` is the first key bound to that action in
/// the hint list's contexts (the first that binds it); other text is shown as it is (the keys
/// of a text box, which are not rebindable).
type Hint = (&'static str, &'static str);

const PICKER: &[Hint] = &[("{up}{down}", "choose"), ("{activate}", "pick"), ("{back}", "cancel")];
const KEY_PROMPT: &[Hint] = &[("type", "the key"), ("Enter", "add"), ("Esc", "cancel")];
const HELP: &[Hint] = &[("{up}{down} {page_up} {page_down}", "scroll"), ("any other key", "close")];
const SEARCH: &[Hint] = &[("type", "text"), ("Enter", "find"), ("Esc", "cancel")];
const PATH_PROMPT: &[Hint] = &[("type", "a path"), ("Enter", "save"), ("Esc", "cancel")];
const HISTORY: &[Hint] = &[
    ("{up}{down}", "choose"),
    ("{activate}", "put back"),
    ("{retry}", "run again"),
    ("{save_case}", "save as case"),
    ("{back}", "close"),
];
const CONFIRM: &[Hint] = &[("{confirm}", "replace"), ("any other key", "keep it")];
const CONFIRM_RUN: &[Hint] = &[("{confirm}", "run it"), ("any other key", "do not")];
const CONFIRM_LINK: &[Hint] = &[("{confirm}", "open it"), ("any other key", "do not")];
const TOKEN_PROMPT: &[Hint] = &[("type", "the token"), ("Enter", "use it"), ("Esc", "cancel")];
const FILTER: &[Hint] = &[("type", "filter"), ("↑↓", "move"), ("Enter", "keep"), ("Esc", "clear")];
const VALUE: &[Hint] = &[
    ("{up}{down}", "move"),
    ("{collapse}{expand} {activate}", "fold"),
    ("{fold_all} {unfold_all}", "fold all/none"),
    ("{find} {find_next}", "find"),
    ("{copy}", "copy"),
    ("{toggle_exchange}", "exchange"),
    ("{copy_curl}", "copy as curl"),
    ("{save_case}", "save as case"),
    ("{retry}", "again"),
    ("{back}", "back"),
];
const RESULT: &[Hint] = &[
    ("{up}{down}", "scroll"),
    ("{find} {find_next}", "find"),
    ("{toggle_exchange}", "exchange"),
    ("{copy_curl}", "copy as curl"),
    ("{fetch_artifact}/{save_artifact}", "fetch/save artifact"),
    ("{copy}", "copy"),
    ("{open_link}", "open link"),
    ("{give_token}", "token"),
    ("{save_case}", "save case"),
    ("{retry}", "again"),
    ("{back}", "back"),
];
const ITEMS: &[Hint] = &[
    ("{next_item}{previous_item}", "item"),
    ("{fetch_artifact}", "preview/read"),
    ("{save_artifact}", "save"),
    ("{up}{down}", "scroll"),
    ("{find} {find_next}", "find"),
    ("{toggle_exchange}", "exchange"),
    ("{copy}", "copy"),
    ("{open_link}", "open link"),
    ("{save_case}", "save case"),
    ("{retry}", "again"),
    ("{back}", "back"),
];
const SERVER: &[Hint] = &[
    ("{up}{down}", "scroll"),
    ("{top}/{bottom}", "oldest/newest"),
    ("{activate}", "instructions"),
    ("{log_level}", "log level"),
    ("{reconnect}", "reconnect"),
    ("{help}", "help"),
    ("{back}", "close"),
];
const TRAFFIC: &[Hint] = &[
    ("{up}{down}", "choose"),
    ("{message_up}{message_down}", "scroll it"),
    ("{filter}", "filter"),
    ("{copy}", "copy"),
    ("{bottom}", "follow"),
    ("{help}", "help"),
    ("{back}", "close"),
];
const PALETTE: &[Hint] = &[("type", "narrow"), ("↑↓", "choose"), ("Enter", "run it"), ("Esc", "close")];
const TEXT: &[Hint] = &[("{up}{down} {page_up} {page_down}", "scroll"), ("{copy}", "copy"), ("Esc", "close")];
const FORM_TEXT: &[Hint] = &[
    ("type", "edit"),
    ("{next_field}", "next"),
    ("{run}", "run"),
    ("{unset}", "unset"),
    ("{fill_defaults}", "defaults"),
    ("{focus_result}", "result"),
    ("{help}", "help"),
    ("{palette}", "actions"),
    ("{back}", "back"),
];
const JSON: &[Hint] = &[("type", "edit JSON"), ("Esc", "back to form"), ("{toggle_json}", "close")];
const EDIT_TEXT_AREA: &[Hint] = &[("Enter", "new line"), ("Esc", "done"), ("Tab", "next"), ("{run}", "run")];
const EDIT_SUGGEST: &[Hint] = &[("Esc/Enter", "done"), ("↓", "suggestions"), ("Tab", "next"), ("{run}", "run")];
const EDIT: &[Hint] =
    &[("Esc/Enter", "done"), ("Tab", "next"), ("{run}", "run"), ("Ctrl-U", "clear"), ("{help}", "help")];
const FORM: &[Hint] = &[
    ("{activate}", "edit"),
    ("{help}", "help"),
    ("{next_field}", "next"),
    ("{unset}", "unset"),
    ("{run}", "run"),
    ("{add_item}/{delete_item}", "add/del"),
    ("{toggle_json}", "JSON"),
    ("{back}", "back"),
];
/// A form with no field: nothing to edit, add or see as JSON.
const FORM_EMPTY: &[Hint] =
    &[("{run}", "run"), ("{focus_result}", "result"), ("{help}", "help"), ("{palette}", "actions"), ("{back}", "back")];
const FUZZ: &[Hint] = &[
    ("{up}{down}", "findings"),
    ("{activate}", "into the form"),
    ("{back}", "stop / close"),
    ("{retry}", "again"),
    ("{fuzz}", "close"),
    ("{help}", "help"),
];
const EVAL: &[Hint] = &[
    ("{up}{down}", "choose"),
    ("{activate}", "open"),
    ("{back}", "stop / back"),
    ("{retry}", "run again"),
    ("{eval}", "close"),
    ("{help}", "help"),
];
const LIST: &[Hint] = &[
    ("{up}{down}", "tools"),
    ("{activate}", "form"),
    ("{help}", "help"),
    ("{filter}", "filter"),
    ("{run}", "run"),
    ("{quit}", "quit"),
];

const ROOTS: &[Hint] = &[("type", "roots, comma-separated"), ("Enter", "set"), ("Esc", "cancel")];
const ASK_URL: &[Hint] = &[
    ("{open_link}", "open link"),
    ("{ask_accept}", "accept"),
    ("{ask_decline}", "decline"),
    ("{ask_cancel}", "cancel"),
];
const ASK_SAMPLE: &[Hint] = &[
    ("type", "the reply"),
    ("{next_field}", "next box"),
    ("{ask_accept}", "send"),
    ("{ask_decline}", "reject"),
    ("{ask_cancel}", "cancel"),
];
const ASK: &[Hint] = &[
    ("{up}{down}", "field"),
    ("{collapse}{expand}", "choice"),
    ("{add_item}/{delete_item}", "list item"),
    ("{ask_accept}", "send"),
    ("{ask_decline}", "decline"),
    ("{ask_cancel}", "cancel"),
];

/// Where the form's hints find their keys: its own, then the every-pane chords (no printable key
/// is a command there).
const FORM_KEYS: &[Context] = &[Context::Form, Context::Typing, Context::Anywhere];

fn hints(app: &App, room: usize, styles: &Styles) -> Vec<Span<'static>> {
    let editing_field =
        if app.form_pane.editing() { app.focused_path().and_then(|p| app.form()?.field(&p).cloned()) } else { None };
    let (contexts, hints): (&[Context], &[Hint]) = match (&app.prompts.popup(), &editing_field) {
        // A server's question takes every key, over any popup: its keys, not the pane's behind.
        _ if app.asks.is_open() => (&[Context::Ask], ask_hints(app)),
        (Some(Popup::Roots { .. }), _) => (&[], ROOTS),
        (Some(Popup::Picker { .. }), _) => (&[Context::Picker], PICKER),
        (Some(Popup::KeyPrompt { .. }), _) => (&[], KEY_PROMPT),
        (Some(Popup::Help { .. }), _) => (&[Context::Result], HELP),
        (Some(Popup::Search { .. }), _) => (&[], SEARCH),
        (Some(Popup::SavePrompt { .. } | Popup::CaseFile { .. }), _) => (&[], PATH_PROMPT),
        (Some(Popup::History { .. }), _) => (&[Context::History], HISTORY),
        (Some(Popup::TokenPrompt { .. }), _) => (&[], TOKEN_PROMPT),
        (Some(Popup::ConfirmOverwrite { .. }), _) => (&[Context::Confirm], CONFIRM),
        (Some(Popup::ConfirmRun { .. }), _) => (&[Context::Confirm], CONFIRM_RUN),
        (Some(Popup::ConfirmLink { .. }), _) => (&[Context::Confirm], CONFIRM_LINK),
        (Some(Popup::Palette { .. }), _) => (&[], PALETTE),
        (Some(Popup::Text { .. }), _) => (&[Context::Result], TEXT),
        _ if app.shows(Overlay::Server) => (&[Context::Server], SERVER),
        _ if app.shows(Overlay::Fuzz) => (&[Context::Fuzz], FUZZ),
        _ if app.shows(Overlay::Eval) => (&[Context::Eval], EVAL),
        _ if app.shows(Overlay::Traffic) && app.server_pane().traffic().filtering() => (&[], FILTER),
        _ if app.shows(Overlay::Traffic) => (&[Context::Traffic], TRAFFIC),
        _ if app.list.filtering() => (&[], FILTER),
        _ if app.focus == Focus::Result && app.result.shows_value() => (&[Context::Value, Context::Result], VALUE),
        _ if app.focus == Focus::Result && app.result.has_items() => (&[Context::Result], ITEMS),
        _ if app.focus == Focus::Result => (&[Context::Result], RESULT),
        _ if app.focus == Focus::Json => (&[Context::Typing, Context::Main], JSON),
        (None, Some(field)) => match field.widget {
            Widget::Text { multiline: true, .. } | Widget::Raw { .. } => (&[Context::Typing], EDIT_TEXT_AREA),
            Widget::Suggest { .. } => (&[Context::Typing], EDIT_SUGGEST),
            _ => (&[Context::Typing], EDIT),
        },
        _ if app.focus == Focus::Form && app.form().is_some_and(|f| f.rows().is_empty()) => (FORM_KEYS, FORM_EMPTY),
        _ if app.focus == Focus::Form && focused_types(app) => (FORM_KEYS, FORM_TEXT),
        _ if app.focus == Focus::Form => (FORM_KEYS, FORM),
        _ => (&[Context::Main], LIST),
    };
    let mut spans = Vec::new();
    let mut used = 0;
    for (template, what) in hints {
        // A hint whose action the user unbound is left out.
        let Some(key) = fill(template, &app.keymap, contexts) else { continue };
        let cost = width(&key) + width(what) + 3;
        if used + cost > room {
            break;
        }
        spans.push(Span::styled(format!(" {key}"), styles.key_hint));
        spans.push(Span::styled(format!(" {what} "), styles.muted));
        used += cost;
    }
    spans
}

/// The hints of the server's question on screen: a sampling request and a URL have none of a
/// form's fields, choices or lists.
fn ask_hints(app: &App) -> &'static [Hint] {
    use crate::invoke::mcp::asks::Ask;
    match app.asks.current().map(|question| question.ask()) {
        Some(Ask::Sample { .. }) => ASK_SAMPLE,
        Some(Ask::Url { .. }) => ASK_URL,
        _ => ASK,
    }
}

/// The focused field takes typed text (once Enter has chosen it).
fn focused_types(app: &App) -> bool {
    app.focused_path()
        .and_then(|p| app.form()?.field(&p).map(|f| matches!(f.widget, Widget::Text { .. } | Widget::Suggest { .. })))
        .unwrap_or(false)
}

/// The template with each `{action}` replaced by its key; `None` if one is unbound.
fn fill(template: &str, keymap: &Keymap, contexts: &[Context]) -> Option<String> {
    keymap.fill(template, contexts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_message_is_cut_after_a_whole_word_with_a_marker() {
        assert_eq!(cut_at_word("saved the case to cases.yaml", 40), "saved the case to cases.yaml");
        assert_eq!(cut_at_word("the server exited with code 1", 20), "the server exited…");
        assert_eq!(cut_at_word("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 10), "aaaaaaaaa…");
        assert!(width(&cut_at_word("word ".repeat(40).trim(), 33)) <= 33);
    }

    const ALL: &[(&[Context], &[Hint])] = &[
        (&[Context::Picker], PICKER),
        (&[Context::Ask], ASK),
        (&[Context::Ask], ASK_URL),
        (&[Context::Ask], ASK_SAMPLE),
        (&[], ROOTS),
        (&[Context::History], HISTORY),
        (&[Context::Server], SERVER),
        (&[Context::Fuzz], FUZZ),
        (&[Context::Eval], EVAL),
        (&[Context::Traffic], TRAFFIC),
        (&[Context::Value, Context::Result], VALUE),
        (&[Context::Result], RESULT),
        (&[Context::Typing, Context::Main], JSON),
        (&[Context::Typing], EDIT_TEXT_AREA),
        (&[Context::Typing], EDIT_SUGGEST),
        (&[Context::Typing], EDIT),
        (&[Context::Result], TEXT),
        (&[Context::Result], HELP),
        (FORM_KEYS, FORM),
        (&[Context::Main], LIST),
        (FORM_KEYS, FORM_TEXT),
        (FORM_KEYS, FORM_EMPTY),
    ];

    #[test]
    fn every_hint_names_a_bound_key() {
        let keymap = Keymap::default();
        for (contexts, hints) in ALL {
            for (template, what) in *hints {
                assert!(fill(template, &keymap, contexts).is_some(), "{template} ({what})");
            }
        }
        assert_eq!(fill("{collapse}{expand} {activate}", &keymap, &[Context::Value]).as_deref(), Some("←→ Enter"));
        assert_eq!(fill("{add_item}/{delete_item}", &keymap, FORM_KEYS).as_deref(), Some("Ins/Del"));
        assert!(
            FORM.iter()
                .chain(FORM_TEXT)
                .chain(FORM_EMPTY)
                .filter_map(|(t, _)| fill(t, &keymap, FORM_KEYS))
                .all(|k| k.chars().count() > 1),
            "no single printable key is a command on the form"
        );
    }

    #[test]
    fn hints_follow_overrides() {
        let run = ["F9".to_string()];
        let keymap = Keymap::with_overrides([("run", &run[..])]).expect("a valid override");
        assert_eq!(fill("{run}", &keymap, &[Context::Main]).as_deref(), Some("F9"));
        let none: [String; 0] = [];
        let keymap = Keymap::with_overrides([("filter", &none[..])]).expect("unbinding is allowed");
        assert_eq!(fill("{filter}", &keymap, &[Context::Main]), None);
    }
}
