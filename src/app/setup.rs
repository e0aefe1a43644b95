//! How the app starts: what the command line and the config file say, handed to the app in one
//! piece (`App::with_setup`). The command line never writes a component's fields; each part goes
//! to its component through a method named for what it means.

use super::{App, Keymap, lint, servers::FoundEntry};

/// The app's settings at startup. Plain data: the command line fills it in, `App::with_setup`
/// hands each part to the component it is for. The default is what `App::new` starts with.
#[derive(Debug, Clone)]
pub struct AppSetup {
    /// What the keys mean: the defaults, or the user's (`[keys]` in the config file).
    pub keymap: Keymap,
    /// Whether a tool marked destructive asks for `y` before its first run (`[app]
    /// confirm_destructive`; on by default).
    pub confirm_destructive: bool,
    /// Tools are linted as their forms open, with these rules (`None`: not linted).
    pub lint: Option<crate::lint::Options>,
    /// Schemas are compiled off the UI thread (the runtime carries out `Effect::CompileChecker`);
    /// otherwise as a form opens.
    pub checks_in_background: bool,
    /// The definition files are read after the first frame (`Msg::CatalogLoaded`).
    pub loading: bool,
    /// Servers found in configs, to connect one from the app.
    pub found_servers: Vec<FoundEntry>,
    /// The roots offered to an MCP server (`--root`).
    pub roots: Vec<String>,
    /// What a test case saved from the app cannot carry of the server's secrets.
    pub case_secrets: CaseSecrets,
}

/// The server's secrets as a saved case names them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaseSecrets {
    /// Secret headers a case file cannot name (they came from nowhere in the environment).
    pub headers_left_out: Vec<String>,
    /// Variables a case file names for the secrets of the server's URL or command.
    pub env_to_set: Vec<String>,
}

impl Default for AppSetup {
    fn default() -> AppSetup {
        AppSetup {
            keymap: Keymap::default(),
            confirm_destructive: true,
            lint: None,
            checks_in_background: false,
            loading: false,
            found_servers: Vec::new(),
            roots: Vec::new(),
            case_secrets: CaseSecrets::default(),
        }
    }
}

impl App {
    /// The app set up as `setup` says (the command line's one way to set it up).
    pub fn with_setup(mut self, setup: AppSetup) -> App {
        self.keymap = setup.keymap;
        self.confirmations.ask_first(setup.confirm_destructive);
        if let Some(options) = setup.lint {
            self.lint = lint::LintNotes::new(options);
        }
        if setup.checks_in_background {
            self.form_pane.compile_elsewhere();
        }
        self.loading |= setup.loading;
        self.servers.found_in_configs(setup.found_servers);
        self.asks.set_roots(setup.roots);
        self.recorder.case_secrets(setup.case_secrets);
        self
    }
}
