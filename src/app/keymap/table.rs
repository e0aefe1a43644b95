//! The default bindings, in the order the help overlay lists them. A binding's first key is the
//! one hints and messages name.

use crossterm::event::KeyCode as C;

use super::Action as A;
use super::Context::{Anywhere, History as PastCalls, Main, Picker, Result, Server, Value};
use super::{DefaultBinding, Key};

const fn row(
    context: super::Context,
    action: super::Action,
    keys: &'static [Key],
    help: &'static str,
) -> DefaultBinding {
    DefaultBinding { context, action, keys, help }
}

const UP: &[Key] = &[Key::plain(C::Up), Key::char('k')];
const DOWN: &[Key] = &[Key::plain(C::Down), Key::char('j')];
const RUN: &[Key] = &[Key::ctrl('r'), Key::plain(C::F(5))];
const RUN_OPTIONS: &[Key] = &[
    Key::alt(C::Char('1')),
    Key::alt(C::Char('2')),
    Key::alt(C::Char('3')),
    Key::alt(C::Char('4')),
    Key::alt(C::Char('5')),
    Key::alt(C::Char('6')),
    Key::alt(C::Char('7')),
    Key::alt(C::Char('8')),
    Key::alt(C::Char('9')),
];

/// The server pane and reconnecting share a help line: the help overlay is full.
const SERVER: &str = "server pane / restart it";

pub const DEFAULTS: &[DefaultBinding] = &[
    row(Main, A::Up, UP, "move in the list or the form"),
    row(Main, A::Down, DOWN, "move in the list or the form"),
    row(Main, A::PageUp, &[Key::plain(C::PageUp)], "a page up / down"),
    row(Main, A::PageDown, &[Key::plain(C::PageDown)], "a page up / down"),
    row(Main, A::Top, &[Key::plain(C::Home), Key::char('g')], "top / bottom"),
    row(Main, A::Bottom, &[Key::plain(C::End), Key::char('G')], "top / bottom"),
    row(Main, A::Activate, &[Key::plain(C::Enter), Key::char(' ')], "select a tool, edit a field, toggle, pick"),
    row(Main, A::NextField, &[Key::plain(C::Tab)], "next / previous field"),
    row(Main, A::PreviousField, &[Key::plain(C::BackTab)], "next / previous field"),
    row(Main, A::Back, &[Key::plain(C::Esc)], "stop editing, go back, cancel a run"),
    row(Main, A::Filter, &[Key::char('/')], "filter tools (fuzzy)"),
    row(Main, A::ToggleJson, &[Key::ctrl('j')], "arguments as editable JSON beside the form"),
    row(Main, A::Unset, &[Key::ctrl('u')], "unset the focused optional field"),
    row(Main, A::AddItem, &[Key::char('a'), Key::plain(C::Insert)], "add / delete an array item or map entry"),
    row(Main, A::DeleteItem, &[Key::char('d'), Key::plain(C::Delete)], "add / delete an array item or map entry"),
    row(Main, A::MoveItemUp, &[Key::alt(C::Up), Key::char('K')], "move an array item up / down"),
    row(Main, A::MoveItemDown, &[Key::alt(C::Down), Key::char('J')], "move an array item up / down"),
    row(Main, A::Collapse, &[Key::plain(C::Left), Key::char('h')], "fold / unfold a group"),
    row(Main, A::Expand, &[Key::plain(C::Right), Key::char('l')], "fold / unfold a group"),
    row(Main, A::Run, RUN, "run (again: send invalid input anyway)"),
    row(Main, A::ToggleRunOption(0), RUN_OPTIONS, "toggle the run options shown beside Run"),
    row(Main, A::FocusResult, &[Key::ctrl('o')], "into the result pane"),
    row(Main, A::Retry, &[Key::char('r')], "run the last call again"),
    row(Main, A::GiveToken, &[Key::char('t')], "give the token the result asks for"),
    row(Main, A::History, &[Key::char('H')], "past calls"),
    row(Main, A::SaveCase, &[Key::char('S')], "save the last call as a test case"),
    row(Main, A::ServerPane, &[Key::char('i'), Key::plain(C::F(2))], SERVER),
    row(Main, A::Reconnect, &[Key::char('R')], SERVER),
    row(Main, A::Help, &[Key::char('?'), Key::plain(C::F(1))], "this help"),
    row(Main, A::Quit, &[Key::char('q')], "quit"),
    row(Anywhere, A::ForceQuit, &[Key::ctrl('c')], "quit, even while typing"),
    row(Result, A::Up, UP, "scroll"),
    row(Result, A::Down, DOWN, "scroll"),
    row(Result, A::PageUp, &[Key::plain(C::PageUp)], "scroll a page"),
    row(Result, A::PageDown, &[Key::plain(C::PageDown)], "scroll a page"),
    row(Result, A::Top, &[Key::plain(C::Home), Key::char('g')], "to the top"),
    row(Result, A::Back, &[Key::plain(C::Esc), Key::plain(C::Tab)], "back to the form"),
    row(Result, A::Run, RUN, "run the form"),
    row(Result, A::Retry, &[Key::char('r')], "the same call again"),
    row(Result, A::GiveToken, &[Key::char('t')], "give the token it asks for"),
    row(Result, A::WaitForAuthorization, &[Key::char('w')], "ask again until authorized"),
    row(Result, A::ToggleExchange, &[Key::char('x')], "the exact request and response"),
    row(Result, A::CopyCurl, &[Key::char('c')], "copy as curl (token masked)"),
    row(Result, A::NextItem, &[Key::char(']')], "choose the item f and s act on"),
    row(Result, A::PreviousItem, &[Key::char('[')], "choose the item f and s act on"),
    row(Result, A::FetchArtifact, &[Key::char('f')], "fetch and preview the artifact"),
    row(Result, A::SaveArtifact, &[Key::char('s')], "save the artifact or item"),
    row(Result, A::SaveCase, &[Key::char('S')], "save the call as a test case"),
    row(Result, A::Copy, &[Key::char('y')], "copy the link, else the value"),
    row(Result, A::OpenLink, &[Key::char('o')], "open the link in a browser"),
    row(Result, A::Find, &[Key::char('/')], "find in the result / the next"),
    row(Result, A::FindNext, &[Key::char('n')], "find in the result / the next"),
    row(Result, A::ServerPane, &[Key::char('i'), Key::plain(C::F(2))], SERVER),
    row(Result, A::Reconnect, &[Key::char('R')], SERVER),
    row(Value, A::Up, UP, "move"),
    row(Value, A::Down, DOWN, "move"),
    row(Value, A::PageUp, &[Key::plain(C::PageUp)], "a page"),
    row(Value, A::PageDown, &[Key::plain(C::PageDown)], "a page"),
    row(Value, A::Top, &[Key::plain(C::Home), Key::char('g')], "top / bottom"),
    row(Value, A::Bottom, &[Key::plain(C::End), Key::char('G')], "top / bottom"),
    row(Value, A::Collapse, &[Key::plain(C::Left), Key::char('h')], "fold / unfold"),
    row(Value, A::Expand, &[Key::plain(C::Right), Key::char('l')], "fold / unfold"),
    row(Value, A::Activate, &[Key::plain(C::Enter), Key::char(' ')], "fold or unfold here"),
    row(Value, A::FoldAll, &[Key::char('-')], "fold all / none"),
    row(Value, A::UnfoldAll, &[Key::char('+'), Key::char('=')], "fold all / none"),
    row(PastCalls, A::Up, UP, "choose"),
    row(PastCalls, A::Down, DOWN, "choose"),
    row(PastCalls, A::Activate, &[Key::plain(C::Enter)], "put its arguments back"),
    row(PastCalls, A::Retry, &[Key::char('r')], "run it again"),
    row(PastCalls, A::SaveCase, &[Key::char('S')], "save it as a test case"),
    row(PastCalls, A::Back, &[Key::plain(C::Esc)], "close"),
    row(Server, A::Up, UP, "scroll the log"),
    row(Server, A::Down, DOWN, "scroll the log"),
    row(Server, A::PageUp, &[Key::plain(C::PageUp)], "a page"),
    row(Server, A::PageDown, &[Key::plain(C::PageDown)], "a page"),
    row(Server, A::Top, &[Key::plain(C::Home), Key::char('g')], "oldest / newest (follows)"),
    row(Server, A::Bottom, &[Key::plain(C::End), Key::char('G')], "oldest / newest (follows)"),
    row(Server, A::LogLevel, &[Key::char('v')], "log level shown (and asked of the server)"),
    row(Server, A::Reconnect, &[Key::char('R')], "restart the MCP server / new session"),
    row(Server, A::Back, &[Key::plain(C::Esc), Key::char('i'), Key::plain(C::F(2))], "close"),
    row(Picker, A::Up, UP, "choose"),
    row(Picker, A::Down, DOWN, "choose"),
    row(Picker, A::Activate, &[Key::plain(C::Enter), Key::char(' ')], "pick"),
    row(Picker, A::Back, &[Key::plain(C::Esc)], "cancel"),
];
