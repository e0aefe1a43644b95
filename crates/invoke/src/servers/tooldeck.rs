//! tooldeck's own config: its named endpoints are servers too (`--server NAME` and
//! `--endpoint NAME` pick them alike).

use std::path::Path;

use super::{Client, Found, FoundServer, Problem, Transport};

pub(super) fn read(path: &Path, found: &mut Found) {
    let text = match crate::files::read_text(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            found.problems.push(Problem { path: path.to_path_buf(), line: 1, message: format!("cannot read: {e}") });
            return;
        }
    };
    let config = match crate::config::parse(&text, &path.display().to_string()) {
        Ok(config) => config,
        Err(e) => {
            // The message starts with the path and line already.
            let e = e.to_string();
            let message = e.strip_prefix(&format!("{}:", path.display())).unwrap_or(&e).to_string();
            let (line, message) = match message.split_once(": ") {
                Some((line, rest)) if line.parse::<usize>().is_ok() => (line.parse().unwrap_or(1), rest.to_string()),
                _ => (1, message.trim_start_matches(' ').to_string()),
            };
            found.problems.push(Problem { path: path.to_path_buf(), line, message });
            return;
        }
    };
    let lines = crate::text::LineIndex::new(&text);
    for (name, endpoint) in &config.endpoints {
        let transport = match (&endpoint.mcp, &endpoint.mcp_url, &endpoint.url) {
            (Some(line), _, _) => {
                let words = shlex::split(line).unwrap_or_else(|| vec![line.clone()]);
                let (command, args) =
                    words.split_first().map_or((line.clone(), Vec::new()), |(c, a)| (c.clone(), a.to_vec()));
                Transport::Stdio { command, args, env: Default::default(), cwd: None }
            }
            (None, Some(url), _) => Transport::Http { url: url.clone(), headers: endpoint.headers.clone() },
            (None, None, Some(url)) => Transport::Otc { url: url.clone() },
            // `config::parse` refuses an endpoint with none of them.
            (None, None, None) => continue,
        };
        let offset = text.find(&format!("[endpoints.{name}]")).unwrap_or(0);
        found.servers.push(FoundServer {
            name: name.clone(),
            client: Client::Tooldeck,
            path: path.to_path_buf(),
            line: lines.line_col(offset).0,
            scope: None,
            transport,
            notes: Vec::new(),
        });
    }
}
