//! How the app starts: what the command line and the config file say, handed to the app in one
//! piece (`App::with_setup`). The command line never writes a component's fields; each part goes
//! to its component through a method named for what it means.

use super::{App, Keymap, lint, sessions::FoundEntry};

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
    /// Schemas are compiled off the UI thread (the runtime carries out `WorkEffect::CompileChecker`);
    /// otherwise as a form opens.
    pub checks_in_background: bool,
    /// The definition files are read after the first frame (`LoadMsg::Catalog`).
    pub loading: bool,
    /// Servers found in configs, to connect one from the app.
    pub found_servers: Vec<FoundEntry>,
    /// The roots offered to an MCP server (`--root`).
    pub roots: Vec<String>,
    /// What a test case saved from the app cannot carry of the server's secrets.
    pub case_secrets: CaseSecrets,
    /// `--watch`: changes under watched paths restart the servers.
    pub watch: bool,
    /// `--watch-run`: the last call runs again after each restart a watched change made.
    pub watch_run: bool,
    /// `--evals FILE`: the eval file whose cases the eval key runs for the selected tool.
    pub evals: Option<tooldeck_evals::file::EvalFile>,
    /// `--eval-report FILE`: a report `tooldeck eval --report` wrote, shown in the eval pane
    /// from the start (the path as given, the report read).
    pub eval_report: Option<(String, tooldeck_evals::report::EvalReport)>,
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
            watch: false,
            watch_run: false,
            evals: None,
            eval_report: None,
        }
    }
}

impl App {
    /// The app set up as `setup` says (the command line's one way to set it up).
    pub fn with_setup(self, setup: AppSetup) -> App {
        let mut app = self.with_keymap(setup.keymap).with_confirm_destructive(setup.confirm_destructive);
        if let Some(options) = setup.lint {
            app = app.with_lint(options);
        }
        if setup.checks_in_background {
            app = app.with_background_checks();
        }
        if setup.loading {
            app = app.loading();
        }
        app.sessions.found_in_configs(setup.found_servers);
        app.asks.set_roots(setup.roots);
        app.recorder.case_secrets(setup.case_secrets);
        app.watching.set_watched(setup.watch);
        app.watching.set_run_after(setup.watch_run);
        if let Some(file) = setup.evals {
            app.eval.set_file(file);
        }
        if let Some((path, report)) = setup.eval_report {
            app.eval.open_report(path, report);
            app.open_overlay(super::Overlay::Eval);
        }
        app
    }

    // One part of the setup at a time, for the tests that need only that part.

    /// An app whose definition files are read after its first frame (`LoadMsg::Catalog`).
    pub fn loading(mut self) -> App {
        self.loading = true;
        self
    }

    /// Schemas of forms opened from now on are compiled off the UI thread (the runtime carries
    /// out `WorkEffect::CompileChecker`); without this they are compiled as a form opens.
    pub fn with_background_checks(mut self) -> App {
        self.form_pane.compile_elsewhere();
        self
    }

    /// Tools are linted as their forms open, with these rules, and the detail pane shows what
    /// the rules found.
    pub fn with_lint(mut self, options: crate::lint::Options) -> App {
        self.lint = lint::LintNotes::new(options);
        self
    }

    /// The user's keys in place of the defaults (read from the config file by the caller).
    pub fn with_keymap(mut self, keymap: Keymap) -> App {
        self.keymap = keymap;
        self
    }

    /// Whether a tool marked destructive asks for `y` before its first run (`[app]
    /// confirm_destructive` in the config file; on by default).
    pub fn with_confirm_destructive(mut self, confirm: bool) -> App {
        self.confirmations.ask_first(confirm);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Popup, Recorder};
    use crate::catalog::Catalog;

    /// Each part of the setup reaches its component: the roots the prompt starts from, the
    /// servers the picker lists, loading, and the case secrets a saved case names.
    #[test]
    fn the_setup_reaches_each_component() {
        let found = vec![FoundEntry { name: "gamma".into(), line: "gamma · Cursor".into() }];
        let secrets = CaseSecrets { headers_left_out: vec!["X-Key".into()], env_to_set: vec!["TOKEN".into()] };
        let setup = AppSetup {
            roots: vec!["/srv/a".into()],
            found_servers: found,
            loading: true,
            case_secrets: secrets.clone(),
            ..AppSetup::default()
        };
        let mut app = App::new(Catalog::default(), &[], (120, 40)).with_setup(setup);
        assert_eq!(app.asks.roots(), ["/srv/a".to_string()]);
        assert!(app.loading);
        app.pick_found_server();
        let Some(Popup::Picker { options, .. }) = &app.prompts.popup() else { panic!("{:?}", app.prompts.popup()) };
        assert_eq!(options, &["gamma · Cursor".to_string()]);
        let mut recorder = Recorder::default();
        recorder.case_secrets(secrets);
        assert_eq!(format!("{:?}", app.recorder), format!("{recorder:?}"), "the case secrets are the recorder's");
    }
}
