//! A real browser for the app tests: Debian's chromium, headless, driven through chromedriver
//! over WebDriver with reqwest (no browser crate). Without them, [`Driver::start`] says why and
//! the test skips. chromedriver runs in a process group of its own, ended with its browser when
//! the driver is dropped.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Driver {
    child: Child,
    base: String,
    session: String,
    client: reqwest::Client,
    _profile: tempfile::TempDir,
}

fn found(names: &[&str]) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file()).map(|p| p.display().to_string())
    })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Driver {
    /// A headless chromium session, or `None` (said on stderr) when there is no browser here.
    pub async fn start(test: &str) -> Option<Driver> {
        let (Some(browser), Some(driver)) = (found(&["chromium", "chromium-browser"]), found(&["chromedriver"])) else {
            eprintln!("{test}: skipped: no chromium and chromedriver (apt-get install chromium chromium-driver)");
            return None;
        };
        let port = free_port();
        let mut command = Command::new(driver);
        command.arg(format!("--port={port}")).stdout(Stdio::null()).stderr(Stdio::null());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn().ok()?;
        let profile = tempfile::tempdir().unwrap();
        let client = tooldeck::invoke::http::client_builder().timeout(Duration::from_secs(60)).build().unwrap();
        let mut driver = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            client,
            _profile: profile,
        };
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ];
        let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        args.push(format!("--user-data-dir={}", driver._profile.path().display()));
        let capabilities =
            json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"binary": browser, "args": args}}}});
        for _ in 0..50 {
            if let Ok(response) =
                driver.client.post(format!("{}/session", driver.base)).json(&capabilities).send().await
            {
                let value: Value = response.json().await.unwrap_or_default();
                match value["value"]["sessionId"].as_str() {
                    Some(id) => {
                        driver.session = id.to_string();
                        return Some(driver);
                    }
                    None => panic!("chromedriver refused the session: {value}"),
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("chromedriver did not start");
    }

    async fn command(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let request = self.client.request(method, url);
        let request = match body {
            Some(body) => request.json(&body),
            None => request,
        };
        let value: Value = request.send().await.expect("chromedriver answers").json().await.unwrap_or_default();
        value["value"].clone()
    }

    pub async fn goto(&self, url: &str) {
        self.command(reqwest::Method::POST, "/url", Some(json!({"url": url}))).await;
    }

    /// The element `css` selects, waiting up to `wait` for it.
    pub async fn find(&self, css: &str, wait: Duration) -> Option<String> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let found = self
                .command(reqwest::Method::POST, "/element", Some(json!({"using": "css selector", "value": css})))
                .await;
            if let Some(id) = found[ELEMENT].as_str() {
                return Some(id.to_string());
            }
            if tokio::time::Instant::now() > deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn enter_frame(&self, element: &str) {
        self.command(reqwest::Method::POST, "/frame", Some(json!({"id": {ELEMENT: element}}))).await;
    }

    /// Back to the top page from a frame.
    pub async fn command_parent(&self) {
        self.command(reqwest::Method::POST, "/frame", Some(json!({"id": null}))).await;
    }

    pub async fn text(&self, element: &str) -> String {
        self.command(reqwest::Method::GET, &format!("/element/{element}/text"), None)
            .await
            .as_str()
            .unwrap_or("")
            .into()
    }

    /// Waits up to `wait` for `element`'s text to satisfy `want`; the last text seen.
    pub async fn text_until(&self, element: &str, wait: Duration, want: impl Fn(&str) -> bool) -> String {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let text = self.text(element).await;
            if want(&text) || tokio::time::Instant::now() > deadline {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn click(&self, element: &str) {
        self.command(reqwest::Method::POST, &format!("/element/{element}/click"), Some(json!({}))).await;
    }

    pub async fn script(&self, script: &str) -> Value {
        self.command(reqwest::Method::POST, "/execute/sync", Some(json!({"script": script, "args": []}))).await
    }

    pub async fn quit(mut self) {
        let _ = self.client.delete(format!("{}/session/{}", self.base, self.session)).send().await;
        self.session.clear();
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // chromedriver's group: chromedriver and the browser it started.
        #[cfg(unix)]
        end_group(&self.child);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// SIGTERM to the group `child` leads. Not through the `kill` command: procps-ng 4.0.2's
/// `kill -TERM -PID` signalled every process of the user (the whole session went with it).
#[cfg(unix)]
#[allow(unsafe_code)]
fn end_group(child: &std::process::Child) {
    let Ok(group) = libc::pid_t::try_from(child.id()) else { return };
    if group <= 1 {
        return;
    }
    // SAFETY: kill(2) takes ids and a signal number and touches no memory of ours; the negative
    // pid names the group chromedriver leads (started with process_group(0)), which cannot have
    // been reused while chromedriver is our unreaped child.
    unsafe {
        libc::kill(-group, libc::SIGTERM);
    }
}
