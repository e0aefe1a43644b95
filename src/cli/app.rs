//! `tooldeck [PATHS...]`: the terminal app.

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use super::Sources;
use crate::catalog::{LoadOptions, Loaded, load_samples};
use crate::invoke::endpoint::{EndpointOptions, parse_headers};
use crate::invoke::mock::MockServer;

pub fn run(sources: &Sources, options: &EndpointOptions, theme: Option<&str>) -> ExitCode {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let styles = match crate::theme::load(theme, no_color) {
        Ok(styles) => styles,
        Err(e) => {
            report!("tooldeck: {e}");
            return ExitCode::from(2);
        }
    };
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        report!("tooldeck: the app needs a terminal; `tooldeck list` and `tooldeck check` work without one");
        return ExitCode::from(2);
    }
    let options = match options.resolve() {
        Ok(options) => options,
        Err(e) => {
            report!("tooldeck: {e}");
            return ExitCode::from(2);
        }
    };
    let headers = match parse_headers(&options.headers) {
        Ok(headers) => headers,
        Err(e) => {
            report!("tooldeck: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match super::tokio_runtime() {
        Ok(runtime) => runtime,
        Err(e) => {
            report!("tooldeck: cannot start: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(async {
        // Without a server named, the built-in demo server answers (it lives as long as the app).
        let demo = match options.names_a_server() {
            true => None,
            false => Some(MockServer::start(load_samples(&LoadOptions::default()).catalog, 0).await?),
        };
        // A named server brings its own tools; the samples are only for the demo server.
        let loaded =
            if options.names_a_server() && sources.paths.is_empty() { Loaded::default() } else { sources.load() };
        let size = crossterm::terminal::size().unwrap_or((80, 24));
        let app = crate::app::App::new(loaded.catalog, &loaded.diagnostics, size)
            .with_keymap(crate::config::keymap(options.config.as_deref()).map_err(io::Error::other)?)
            .with_background_checks();
        // The server is connected, and its tools listed, after the first frame: the runtime
        // does it and the app shows that it waits.
        let server = crate::runtime::Server { options, headers, demo_url: demo.as_ref().map(|d| d.url().to_string()) };
        crate::runtime::run(app, styles, server).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report!("tooldeck: {e}");
            ExitCode::from(1)
        }
    }
}
