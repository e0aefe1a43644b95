//! MCP Apps from the TUI (#38), end to end: the binary in a pseudo-terminal hosts the selected
//! tool's app, a stand-in `$BROWSER` records what tooldeck opens, and a real headless chromium
//! (WebDriver) runs the host page. The app's requests show in the traffic pane and the server
//! pane, its link waits for a yes, a run in the TUI reaches the view, and the app ends, its
//! page told and its ports closed, when another tool is selected and when tooldeck quits.
//! Without chromium and chromedriver the test says why and skips.

use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use super::apps::{browser, listening, serve_http};

#[path = "support/terminal.rs"]
#[allow(dead_code)]
mod terminal;
use terminal::{CTRL_R, ESC, Terminal};

const DOWN: &str = "\x1b[B";
const UP: &str = "\x1b[A";

/// A `$BROWSER` that writes each URL it is given on a line of `opened.txt` in `dir`.
fn recording_browser(dir: &Path) -> PathBuf {
    let script = dir.join("browser.sh");
    let log = dir.join("opened.txt");
    std::fs::write(&script, format!("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n", log.display())).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    script
}

/// The lines `$BROWSER` was given so far.
fn opened(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("opened.txt")).unwrap_or_default().lines().map(str::to_string).collect()
}

/// Waits (off the async workers) until `ready` holds, or fails saying `what`.
fn wait_until(what: &str, tui: &Terminal, ready: impl Fn() -> bool) {
    let start = Instant::now();
    tokio::task::block_in_place(|| {
        while !ready() {
            assert!(
                start.elapsed() < terminal::TIMEOUT * 2,
                "timed out waiting for {what}; the screen:\n{}",
                tui.text()
            );
            thread::sleep(Duration::from_millis(50));
        }
    });
}

fn screen_has(tui: &Terminal, needle: &str) {
    tokio::task::block_in_place(|| tui.wait_text(needle));
}

/// Sends `keys` and lets the app draw (an Esc sent with the next key would read as Alt).
fn press(tui: &mut Terminal, keys: &str) {
    tui.send(keys);
    tokio::task::block_in_place(|| thread::sleep(Duration::from_millis(300)));
}

/// Selects `header`'s tool in the list (its header line names it).
fn select(tui: &mut Terminal, header: &str, key: &str) {
    for _ in 0..12 {
        if tui.text().contains(header) {
            return;
        }
        press(tui, key);
    }
    panic!("{header:?} never selected:\n{}", tui.text());
}

/// The host page open in the browser: the view's sandbox origin, once the view shows a time.
async fn open_host(driver: &browser::Driver, url: &str) -> (String, String) {
    driver.goto(url).await;
    driver.find("iframe#view", Duration::from_secs(10)).await.expect("the view's frame");
    let src = driver.script("return document.getElementById('view').src").await;
    let sandbox = src.as_str().unwrap_or_default().splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
    let frame = driver.find("iframe#view", Duration::from_secs(5)).await.expect("the view's frame");
    driver.enter_frame(&frame).await;
    let time = driver.find("#time", Duration::from_secs(10)).await.expect("the view");
    let first = driver.text_until(&time, Duration::from_secs(20), |t| t.ends_with("get-time")).await;
    assert!(first.ends_with("get-time"), "the view shows the tool's result: {first:?}");
    (sandbox, time)
}

/// What the host page says once the app has ended.
async fn ended_note(driver: &browser::Driver) -> String {
    driver.command_parent().await;
    let ended = driver.find("#ended", Duration::from_secs(10)).await.expect("the page's note");
    driver.text_until(&ended, Duration::from_secs(20), |t| t.contains("ended")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tui_hosts_an_app_and_follows_it_to_its_end() {
    let Some(driver) = browser::Driver::start("the_tui_hosts_an_app_and_follows_it_to_its_end").await else { return };
    let url = serve_http().await;
    let dir = tempfile::tempdir().unwrap();
    let script = recording_browser(dir.path());
    let script = script.display().to_string();
    let args = ["--mcp-url", url.as_str(), "--theme", "light"];
    let mut tui = Terminal::spawn(&args, 40, 160, &[("BROWSER", script.as_str())]);
    screen_has(&tui, "get-time");
    select(&mut tui, "get-time · mcp · app", DOWN);
    press(&mut tui, "A");
    wait_until("the host page opened", &tui, || opened(dir.path()).iter().any(|l| l.starts_with("http://127.0.0.1")));
    let host = opened(dir.path())[0].clone();
    let (sandbox, time) = open_host(&driver, &host).await;
    // Host context: the theme's colours.
    assert_eq!(driver.script("return document.body.dataset.theme").await, "light");
    assert_eq!(driver.script("return document.body.dataset.background").await, "#fafafa");
    let first = driver.text(&time).await;

    // The view's button: its call, its message, its links.
    let button = driver.find("#more", Duration::from_secs(5)).await.expect("the button");
    driver.click(&button).await;
    driver.text_until(&time, Duration::from_secs(15), |t| t.ends_with("refresh")).await;
    screen_has(&tui, "open the app's link?");
    screen_has(&tui, "https://example.com/docs");
    press(&mut tui, "y");
    wait_until("the link opened", &tui, || opened(dir.path()).iter().any(|l| l == "https://example.com/docs"));
    assert!(!opened(dir.path()).iter().any(|l| l.starts_with("javascript")), "{:?}", opened(dir.path()));

    // The server pane keeps a line for each thing the app did.
    press(&mut tui, "i");
    for line in [
        "app: started (clock 1.0)",
        "app: log info: clock ready",
        "app: called tool refresh",
        "app: refused tools/call model-only",
        "app: message: hello from the app",
        "app: opening https://example.com/docs",
        "app: refused to open javascript:alert(1)",
    ] {
        screen_has(&tui, line);
    }
    press(&mut tui, ESC);
    // The traffic pane: the app's call, marked as the app's.
    press(&mut tui, "X");
    screen_has(&tui, "app → tools/call");
    screen_has(&tui, "app ← tools/call");
    press(&mut tui, ESC);

    // A run in the TUI reaches the view.
    press(&mut tui, CTRL_R);
    let again = driver.text_until(&time, Duration::from_secs(20), |t| t.ends_with("get-time") && t != first).await;
    assert!(again.ends_with("get-time") && again != first, "the view shows the TUI's run: {again:?} after {first:?}");

    // Another tool selected: the app ends, its page says so, nothing listens.
    press(&mut tui, ESC);
    press(&mut tui, ESC);
    select(&mut tui, "refresh · mcp · app", DOWN);
    let said = ended_note(&driver).await;
    assert!(said.contains("This app has ended: another tool was selected"), "{said:?}");
    wait_until("the app's ports closed", &tui, || !listening(&host) && !listening(&sandbox));
    screen_has(&tui, "app: ended: another tool was selected");

    // Hosted again, then tooldeck quits: the page is told, and nothing listens.
    select(&mut tui, "get-time · mcp · app", UP);
    press(&mut tui, "A");
    wait_until("the second host page", &tui, || {
        opened(dir.path()).iter().filter(|l| l.starts_with("http://127.0.0.1")).count() == 2
    });
    let second = opened(dir.path()).iter().filter(|l| l.starts_with("http://127.0.0.1")).nth(1).cloned().unwrap();
    let (sandbox, _) = open_host(&driver, &second).await;
    tokio::task::block_in_place(|| tui.quit());
    let said = ended_note(&driver).await;
    assert!(said.contains("This app has ended: tooldeck was closed"), "{said:?}");
    assert!(!listening(&second) && !listening(&sandbox), "nothing listens after tooldeck quit");
    driver.quit().await;
}
