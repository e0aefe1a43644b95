//! The app's state and how it changes. No terminal I/O here: `update` takes a [`Msg`] and
//! returns [`Effect`]s for the runtime to carry out; `ui` only reads this state.

pub mod keymap;
pub mod layout;
pub mod list;
mod typing;
pub mod update;
pub mod view;

use std::collections::HashMap;

use crate::catalog::{Catalog, Diagnostic, Tool};
use crate::form::{Form, TextInput};

pub use keymap::Action;
pub use layout::Layout;
pub use list::ToolList;
pub use update::update;

/// Everything that can happen to the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    Key(crossterm::event::KeyEvent),
    Mouse(crossterm::event::MouseEvent),
    Paste(String),
    Resize(u16, u16),
}

/// What `update` asks the runtime to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Form,
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
    /// What Run would send (until sending lands).
    Request {
        title: String,
        body: String,
        valid: bool,
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
        Layout::new(self.size, self.json.is_some())
    }

    /// The row path under the cursor.
    pub fn focused_path(&self) -> Option<Vec<usize>> {
        self.form().and_then(|f| f.rows().get(self.cursor).map(|r| r.path.clone()))
    }
}
