//! The app's state and how it changes. No terminal I/O here: `update` takes a [`Msg`] and
//! returns [`Effect`]s for the runtime to carry out; `ui` only reads this state.

pub mod artifact;
pub mod cases;
pub mod keymap;
pub mod layout;
pub mod list;
pub mod run;
mod typing;
pub mod update;
pub mod value_view;
pub mod view;

use std::collections::HashMap;

use std::collections::BTreeMap;

use crate::catalog::{Catalog, Diagnostic, Tool};
use crate::form::{Form, TextInput};
use crate::invoke::otc::CallRequest;
use crate::invoke::{Exchange, Outcome};

pub use keymap::Action;
pub use layout::Layout;
pub use list::ToolList;
pub use update::update;

/// Everything that can happen to the app.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(crossterm::event::KeyEvent),
    Mouse(crossterm::event::MouseEvent),
    Paste(String),
    Resize(u16, u16),
    /// Time passes while a call runs (for the spinner and the elapsed time).
    Tick {
        elapsed_ms: u64,
    },
    /// A running call reported progress.
    Progress {
        id: u64,
        progress: crate::invoke::Progress,
    },
    /// A scheduled retry is due (waiting for the user to authorize in the browser).
    RetryDue {
        id: u64,
    },
    /// An artifact download advanced.
    ArtifactProgress {
        received: u64,
        total: Option<u64>,
    },
    /// An artifact download ended.
    ArtifactFetched(Result<Box<crate::invoke::artifact::Fetched>, String>),
    /// Saving an artifact ended (the path written, or why not).
    Saved(Result<String, String>),
    /// Appending a test case ended (the case file, or why not).
    CaseSaved(Result<String, String>),
    /// Where calls go, known before the first frame; a named server is then connected and its
    /// tools listed (`Effect::ListServerTools`).
    ServerNamed {
        label: String,
        lists_tools: bool,
    },
    /// The server answered the tool listing with 401: it wants a token first.
    ServerWantsToken {
        url: String,
        challenge: Option<String>,
    },
    /// Past calls, read from the history file after the first frame.
    HistoryRead(Vec<crate::history::Entry>),
    /// The server's own tools (or why they could not be listed), read from the server's text off
    /// the UI thread: once it is connected, and again after it was given a token.
    ServerTools {
        label: String,
        result: Result<Vec<crate::catalog::Tool>, String>,
    },
    /// A call came back (or could not be made). Results of calls no longer current are dropped.
    InvocationDone {
        id: u64,
        result: Result<Box<Answer>, String>,
    },
}

/// What `update` asks the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Quit,
    /// Send `request`; the answer is checked against `output_schema` off the UI thread.
    Invoke {
        id: u64,
        request: CallRequest,
        output_schema: Option<serde_json::Value>,
    },
    Cancel {
        id: u64,
    },
    /// Append to the history file (the runtime writes it).
    Record(Box<crate::history::Entry>),
    /// Put text on the clipboard (OSC 52, so it works over SSH too).
    Copy(String),
    /// Open a URL with the system's opener (no shell involved).
    Open(String),
    /// Send `Msg::RetryDue { id }` after `ms` milliseconds.
    RetryAfter {
        id: u64,
        ms: u64,
    },
    /// Connect to the named server and list its tools.
    ListServerTools,
    /// Give the server a token for `provider` and list its tools again (an MCP server over
    /// HTTP that answered 401).
    Authorize {
        provider: String,
        token: String,
    },
    /// Download an artifact (http(s) only), reporting progress.
    Fetch(String),
    /// Append a test case to a case file.
    SaveCase {
        path: String,
        case: serde_json::Value,
    },
    /// Write fetched bytes to a file.
    Save {
        path: String,
        bytes: std::sync::Arc<Vec<u8>>,
    },
}

/// An artifact fetched with `f`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArtifactView {
    pub url: String,
    pub declared_size: Option<u64>,
    pub received: u64,
    pub total: Option<u64>,
    pub state: ArtifactState,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ArtifactState {
    Fetching,
    Ready {
        lines: Vec<String>,
        bytes: std::sync::Arc<Vec<u8>>,
        /// A picture of an image artifact.
        image: Option<crate::invoke::thumbnail::Thumbnail>,
    },
    Failed(String),
}

/// A call's answer, made ready for the screen where it arrives (a large value is formatted and
/// checked there, not on the UI thread).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub outcome: Outcome,
    pub exchange: Exchange,
    /// The value pretty-printed, line by line, with its brackets paired for folding.
    pub value_lines: value_view::ValueLines,
}

impl Answer {
    pub fn new(mut outcome: Outcome, exchange: Exchange, output_schema: Option<&serde_json::Value>) -> Answer {
        if let Some(schema) = output_schema {
            crate::invoke::envelope::check_output(&mut outcome, schema);
        }
        let value_lines = outcome
            .value
            .as_ref()
            .map(|v| value_view::ValueLines::new(&crate::form::value::pretty(v)))
            .unwrap_or_default();
        Answer { outcome, exchange, value_lines }
    }
}

/// The current (or last) call of the selected tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub id: u64,
    pub tool_id: String,
    pub request: CallRequest,
    pub elapsed_ms: u64,
    /// The server's last progress report, while it runs.
    pub progress: Option<crate::invoke::Progress>,
    pub state: RunState,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RunState {
    Running,
    Done {
        outcome: Box<Outcome>,
        exchange: Box<Exchange>,
        /// The value pretty-printed once, line by line: a large value must not be formatted
        /// again on every frame.
        value_lines: value_view::ValueLines,
    },
    /// No answer at all: connection refused, timeout...
    Failed {
        error: String,
    },
    Cancelled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Form,
    /// The result pane (scrolling it).
    Result,
    /// The editable JSON view of the arguments (Ctrl-J).
    Json,
}

/// A box over the screen that takes the keys until it closes.
#[derive(Debug, Clone, PartialEq)]
pub enum Popup {
    /// Pick one of `options` for the field at `path` (an enum, a variant, a suggestion).
    Picker {
        path: Vec<usize>,
        title: String,
        options: Vec<String>,
        selected: usize,
        purpose: PickerPurpose,
    },
    /// The key of a new map entry.
    KeyPrompt {
        path: Vec<usize>,
        input: TextInput,
    },
    Help,
    /// Text to find in the result.
    Search {
        input: TextInput,
    },
    /// Where to save the fetched artifact.
    SavePrompt {
        input: TextInput,
    },
    /// Which file test cases are appended to (asked once per run of the app).
    CaseFile {
        input: TextInput,
    },
    /// Past calls, newest first; Enter re-opens one's arguments.
    History {
        selected: usize,
    },
    /// A token for an authorization provider (shown masked).
    TokenPrompt {
        provider: String,
        input: TextInput,
        /// Why a token is asked for, when the prompt opens by itself (a server that answered 401).
        why: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerPurpose {
    Enum,
    Variant,
    Suggestion,
}

/// The editable JSON view: its text, and why it does not parse (if it does not).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonView {
    pub input: TextInput,
    pub error: Option<String>,
}

pub struct App {
    pub catalog: Catalog,
    /// Problems found loading the catalog, summarised in the status bar.
    pub load_errors: usize,
    pub load_warnings: usize,
    pub list: ToolList,
    /// One form per tool, kept while the user looks at other tools: nothing typed is lost.
    pub forms: HashMap<String, Form>,
    pub focus: Focus,
    /// Index into the selected form's rows.
    pub cursor: usize,
    /// First visible line of the form (lines, not rows: errors and text areas take several).
    pub form_scroll: usize,
    /// A text field is being edited (keys go to it).
    pub editing: bool,
    pub json: Option<JsonView>,
    pub popup: Option<Popup>,
    /// A one-line message for the status bar.
    pub status: Option<String>,
    /// Run was just refused for invalid input; pressing it again sends anyway.
    pub run_armed: bool,
    /// The last call, shown below the form.
    pub run: Option<Run>,
    pub next_run_id: u64,
    /// Tokens the user gave, by provider, kept in memory only.
    pub tokens: BTreeMap<String, String>,
    /// Where calls go, for the status line ("demo server", "http://...").
    pub endpoint: String,
    /// First visible line of the result pane (outside the value viewer).
    pub result_scroll: usize,
    /// Cursor, window and folds of the value viewer.
    pub value_view: value_view::ValueView,
    /// The result pane shows the exact request and response instead of the outcome.
    pub show_exchange: bool,
    /// The last text searched for in the result (`n` finds the next).
    pub result_search: String,
    /// Retrying every few seconds until the authorization prompt goes away (`w`).
    pub waiting_for_authorization: bool,
    /// The artifact being fetched or shown.
    pub artifact: Option<ArtifactView>,
    /// Past calls, oldest first (what the runtime read at start plus this session's).
    pub history: Vec<crate::history::Entry>,
    /// The file `S` appends test cases to, once chosen.
    pub case_file: Option<String>,
    /// A case waiting for its file to be chosen.
    pub pending_case: Option<serde_json::Value>,
    /// Calls saved as cases in this run of the app (tool and arguments), so `S` twice on the
    /// same call does not write it twice.
    pub saved_cases: std::collections::HashSet<String>,
    pub size: (u16, u16),
}

impl App {
    pub fn new(catalog: Catalog, diagnostics: &[Diagnostic], size: (u16, u16)) -> App {
        let load_errors = diagnostics.iter().filter(|d| d.severity == crate::catalog::Severity::Error).count();
        let list = ToolList::new(&catalog);
        let mut app = App {
            load_errors,
            load_warnings: diagnostics.len() - load_errors,
            list,
            catalog,
            forms: HashMap::new(),
            focus: Focus::List,
            cursor: 0,
            form_scroll: 0,
            editing: false,
            json: None,
            popup: None,
            status: None,
            run_armed: false,
            run: None,
            next_run_id: 1,
            tokens: BTreeMap::new(),
            endpoint: String::from("demo server"),
            result_scroll: 0,
            value_view: value_view::ValueView::default(),
            show_exchange: false,
            artifact: None,
            waiting_for_authorization: false,
            result_search: String::new(),
            history: Vec::new(),
            case_file: None,
            pending_case: None,
            saved_cases: Default::default(),
            size,
        };
        app.form_mut();
        app
    }

    pub fn selected_tool(&self) -> Option<&Tool> {
        self.list.selected_tool().and_then(|i| self.catalog.tools().get(i))
    }

    /// The selected tool's form, if it has been opened.
    pub fn form(&self) -> Option<&Form> {
        self.selected_tool().and_then(|t| self.forms.get(&t.id))
    }

    /// The selected tool's form, opened (built) on first use.
    pub fn form_mut(&mut self) -> Option<&mut Form> {
        let tool = self.list.selected_tool().and_then(|i| self.catalog.tools().get(i))?;
        let id = tool.id.clone();
        if !self.forms.contains_key(&id) {
            let form = Form::new(tool);
            self.forms.insert(id.clone(), form);
        }
        self.forms.get_mut(&id)
    }

    pub fn layout(&self) -> Layout {
        Layout::with_result(self.size, self.json.is_some(), self.run.is_some())
    }

    /// The row path under the cursor.
    pub fn focused_path(&self) -> Option<Vec<usize>> {
        self.form().and_then(|f| f.rows().get(self.cursor).map(|r| r.path.clone()))
    }
}
