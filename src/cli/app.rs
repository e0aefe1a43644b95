//! `tooldeck [PATHS...]`: the terminal app.

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use super::Sources;
use super::failure::{Failure, finish};
use crate::catalog::{Catalog, LoadOptions, load_samples};
use crate::invoke::endpoint::{EndpointOptions, parse_headers};
use crate::invoke::mock::MockServer;

pub fn run(
    sources: &Sources,
    servers: &[EndpointOptions],
    shared: &EndpointOptions,
    theme: Option<&str>,
    watch: (&[std::path::PathBuf], bool),
    evals: &super::app_evals::AppEvalArgs,
) -> ExitCode {
    finish(run_each(sources, servers, shared, theme, (watch, evals), None))
}

/// What `tooldeck attach` opens the app with: the tools the proxy's server listed, and its
/// traffic in place of the first session's own.
pub(super) struct Attached {
    pub tools: Vec<crate::catalog::Tool>,
    pub watched: crate::runtime::Watched,
}

/// The app on a proxy's traffic (`tooldeck attach`): calls go to `servers` (the proxied server).
pub(super) fn run_attached(
    servers: &[EndpointOptions],
    shared: &EndpointOptions,
    theme: Option<&str>,
    attached: Attached,
) -> ExitCode {
    let sources = Sources { paths: Vec::new(), format: None };
    let evals = super::app_evals::AppEvalArgs::default();
    finish(run_each(&sources, servers, shared, theme, ((&[], false), &evals), Some(attached)))
}

fn run_each(
    sources: &Sources,
    servers: &[EndpointOptions],
    shared: &EndpointOptions,
    theme: Option<&str>,
    ((watch, watch_run), evals): ((&[std::path::PathBuf], bool), &super::app_evals::AppEvalArgs),
    attached: Option<Attached>,
) -> Result<ExitCode, Failure> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let styles = crate::theme::load(theme, no_color).map_err(|e| Failure::usage(e.to_string()))?;
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(Failure::usage("the app needs a terminal; `tooldeck list` and `tooldeck check` work without one"));
    }
    let evals = evals.load()?;
    // With no server named, the eval file's server is the app's (its cases run there).
    let from_file = evals.file.as_ref().filter(|_| servers.is_empty()).map(|file| shared.or(&file.target));
    let resolved = resolve_each(servers, from_file.as_ref().unwrap_or(shared))?;
    // Watched before the first frame: a path that does not exist is said here, not in the app.
    let watch = match watch.is_empty() {
        true => None,
        false => Some(crate::watch::Watch::start(watch).map_err(|e| Failure::usage(e.to_string()))?),
    };
    let runtime = super::tokio_runtime().map_err(|e| Failure::failed(format!("cannot start: {e}")))?;
    let found = crate::servers::discover(&crate::servers::Places::here(shared.config.as_deref()));
    let starting = Starting { watch, watch_run, evals };
    let result = runtime.block_on(run_app(sources, resolved, shared, styles, found, starting, attached));
    result.map(|()| ExitCode::SUCCESS).map_err(|e| Failure::failed(e.to_string()))
}

/// What the app starts with besides its servers and files: `--watch`, `--watch-run`, `--evals`
/// and `--eval-report`.
struct Starting {
    watch: Option<crate::watch::Watch>,
    watch_run: bool,
    evals: super::app_evals::AppEvals,
}

/// Each server with the headers it is sent.
type Resolved = Vec<(EndpointOptions, Vec<(String, String)>)>;

/// Each server named, resolved (`--server NAME`) with its headers; none named: the shared
/// options alone (the demo server answers).
fn resolve_each(servers: &[EndpointOptions], shared: &EndpointOptions) -> Result<Resolved, Failure> {
    let named = if servers.is_empty() { std::slice::from_ref(shared) } else { servers };
    // One line, whatever the config said.
    let one_line = |failure: Failure| Failure::usage(crate::text::visible(&failure.message));
    named
        .iter()
        .map(|options| {
            let mut options = options.resolve().map_err(|e| one_line(e.into()))?;
            // The screen is the app's: sign-in steps go to its auth pane, not to stderr.
            options.oauth.echo = crate::invoke::auth::Echo(None);
            let headers = parse_headers(&options.headers).map_err(|e| one_line(e.into()))?;
            Ok((options, headers))
        })
        .collect()
}

async fn run_app(
    sources: &Sources,
    resolved: Resolved,
    shared: &EndpointOptions,
    styles: crate::theme::Styles,
    found: crate::servers::Found,
    Starting { watch, watch_run, evals }: Starting,
    attached: Option<Attached>,
) -> io::Result<()> {
    // Attached, the proxy's server answers (or none, for a record opened without one).
    let names_a_server = attached.is_some() || resolved.iter().any(|(options, _)| options.names_a_server());
    // Without a server named, the built-in demo server answers (it lives as long as the app).
    let demo = match names_a_server {
        true => None,
        false => Some(MockServer::start(load_samples(&LoadOptions::default()).catalog, 0).await?),
    };
    // The files are read after the first frame (a big catalog takes a while); a named
    // server brings its own tools, and the samples are only for the demo server.
    let load: Option<crate::runtime::LoadCatalog> = match names_a_server && sources.paths.is_empty() {
        true => None,
        false => {
            let sources = sources.clone();
            Some(Box::new(move |report| sources.load_reporting(report)))
        }
    };
    let size = crossterm::terminal::size().unwrap_or((80, 24));
    let (keymap, confirm_destructive, lint) = settings(shared.config.as_deref()).map_err(io::Error::other)?;
    let mut setup = crate::app::AppSetup {
        keymap,
        confirm_destructive,
        lint: Some(lint),
        checks_in_background: true,
        loading: load.is_some(),
        found_servers: found_entries(&found),
        watch: watch.is_some(),
        watch_run,
        evals: evals.file,
        eval_report: evals.report,
        ..crate::app::AppSetup::default()
    };
    // The servers are connected, and their tools listed, after the first frame: the runtime
    // does it and the app shows that it waits.
    // A case saved from the app names its server, its headers as `${ENV}` placeholders.
    let environment: Vec<(String, String)> = std::env::vars().collect();
    let demo_url = demo.as_ref().map(|d| d.url().to_string());
    let mut each = Vec::new();
    let (tools, mut watched) = match attached {
        Some(attached) => (attached.tools, Some(attached.watched)),
        None => (Vec::new(), None),
    };
    for (index, (options, headers)) in resolved.into_iter().enumerate() {
        let case_server = crate::cases::server_keys::case_server(&options, &environment);
        if index == 0 {
            setup.roots = options.roots.clone();
            setup.case_secrets =
                crate::app::CaseSecrets { headers_left_out: case_server.left_out, env_to_set: case_server.to_set };
        }
        let case_server = case_server.keys;
        let watched = watched.take();
        each.push(crate::runtime::ServerSpec { options, headers, demo_url: demo_url.clone(), case_server, watched });
    }
    let mut catalog = Catalog::default();
    for tool in tools {
        catalog.add(tool);
    }
    let app = crate::app::App::new(catalog, &[], size).with_setup(setup);
    let servers = crate::runtime::ServerSpecs { each, shared: shared.clone(), watch };
    crate::runtime::run(app, styles, servers, load).await
}

/// The found servers as the app lists them, each by the name `--server` takes.
fn found_entries(found: &crate::servers::Found) -> Vec<crate::app::sessions::FoundEntry> {
    found
        .servers
        .iter()
        .map(|server| {
            let name = match found.named(&server.name) {
                Ok(picked) if picked == server => server.name.clone(),
                _ => server.qualified_name(),
            };
            let line =
                format!("{name} · {} · {} · {}", server.client.title(), server.transport.shown(), server.location());
            crate::app::sessions::FoundEntry { name, line }
        })
        .collect()
}

/// Why the config file's settings for the app cannot be used.
#[derive(Debug, thiserror::Error)]
enum SettingsError {
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("{path}: [lint]: {source}")]
    Lint { path: String, source: crate::lint::OptionsError },
    /// The key table's own message (it names the file and the line).
    #[error(transparent)]
    Keys(crate::app::keymap::KeymapError),
}

/// The app's keys, whether destructive tools ask first and the lint rules for the detail pane,
/// from the config file at `path` (else the default place): the defaults when there is no file.
fn settings(path: Option<&std::path::Path>) -> Result<(crate::app::Keymap, bool, crate::lint::Options), SettingsError> {
    match path.map(std::path::Path::to_path_buf).or_else(crate::config::default_path) {
        Some(path) => {
            let config = crate::config::load(&path)?;
            let lint = crate::lint::Options::from_config(&config.lint)
                .map_err(|source| SettingsError::Lint { path: path.display().to_string(), source })?;
            let keys = crate::app::Keymap::from_config(&config).map_err(SettingsError::Keys)?;
            Ok((keys, config.app.confirm_destructive, lint))
        }
        None => Ok((crate::app::Keymap::default(), true, crate::lint::Options::default())),
    }
}
