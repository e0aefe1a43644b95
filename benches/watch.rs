//! `--watch`: from a file saved to the new tool list on screen. Each iteration saves a new
//! version of a stdio server (a POSIX `sh` script that answers at once, listing one tool whose
//! parameters change), waits for the watcher's debounced change, starts the server again and
//! lists its tools, and hands the app the messages the runtime sends (the change, the reconnect,
//! the tools: the diff engine's line, the form kept) and draws a frame. The target: within
//! 300 ms beyond the server's own start (the watcher's quiet time, 150 ms, is inside it). Besides
//! criterion's figures it prints the p95 of single saves, and the server's own start for
//! comparison. Unix only (the server is an `sh` script).

// The same allocator as the binary, so the figures are the ones a user gets.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tooldeck::app::{App, InputMsg, Msg, ServerMsg, update};
use tooldeck::catalog::{Catalog, LoadOptions};
use tooldeck::invoke::endpoint::{EndpointOptions, list_catalog};
use tooldeck::theme::Styles;

/// A server listing `search` with parameter `p{version}` (so every save changes the list).
fn server(version: usize) -> String {
    format!(
        r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^.*"id":\([0-9]*\).*$/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-06-18","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"sh","version":"1"}}}}}}\n' "$id";;
    *'"method":"tools/list"'*)
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"tools":[{{"name":"search","inputSchema":{{"type":"object","properties":{{"q":{{"type":"string"}},"p{version}":{{"type":"integer"}}}}}}}}]}}}}\n' "$id";;
    *'"id":'*)
      printf '{{"jsonrpc":"2.0","id":%s,"error":{{"code":-32601,"message":"no such method"}}}}\n' "$id";;
  esac
done
"#
    )
}

struct Deck {
    runtime: tokio::runtime::Runtime,
    watch: tooldeck::watch::Watch,
    file: std::path::PathBuf,
    options: EndpointOptions,
    app: App,
    terminal: Terminal<TestBackend>,
    version: usize,
}

impl Deck {
    fn new(folder: &Path) -> Deck {
        let file = folder.join("server.sh");
        std::fs::write(&file, server(0)).expect("server written");
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
        let watch = {
            let _inside = runtime.enter();
            tooldeck::watch::Watch::start(&[folder.to_path_buf()]).expect("watch")
        };
        let options = EndpointOptions { mcp: Some(format!("sh '{}'", file.display())), ..EndpointOptions::default() };
        let mut app = App::new(Catalog::default(), &[], (120, 40));
        update(&mut app, Msg::Input(InputMsg::Resize(120, 40)));
        update(&mut app, Msg::Server(ServerMsg::Named { label: "sh".into(), lists_tools: true }));
        let mut deck = Deck {
            runtime,
            watch,
            file,
            options,
            app,
            terminal: Terminal::new(TestBackend::new(120, 40)).expect("terminal"),
            version: 0,
        };
        let tools = deck.runtime.block_on(deck.list());
        update(&mut deck.app, Msg::Server(ServerMsg::Tools { label: "sh".into(), result: Ok(tools) }));
        deck
    }

    /// The server started, its tools listed, the server ended.
    async fn list(&self) -> Vec<tooldeck::catalog::Tool> {
        let endpoint = self.options.connect(Vec::new(), None).await.expect("the server starts");
        let (tools, _) = list_catalog(&endpoint, "sh", &LoadOptions::default()).await.expect("listed");
        endpoint.close().await;
        tools
    }

    /// One save, to the new list on screen.
    fn save(&mut self) -> Duration {
        self.version += 1;
        let started = Instant::now();
        std::fs::write(&self.file, server(self.version)).expect("server saved");
        let change = self.runtime.block_on(self.watch.changed()).expect("a change");
        update(&mut self.app, Msg::FilesChanged { summary: change.summary(), at: "00:00:00 UTC".into() });
        update(&mut self.app, Msg::Server(ServerMsg::Reconnected(Ok(()))));
        let tools = self.runtime.block_on(self.list());
        update(&mut self.app, Msg::Server(ServerMsg::Tools { label: "sh".into(), result: Ok(tools) }));
        self.terminal.draw(|frame| tooldeck::ui::render(&self.app, &Styles::default(), frame)).expect("draw");
        let took = started.elapsed();
        let listed = self
            .app
            .catalog
            .tools()
            .iter()
            .any(|t| t.input_schema["properties"].get(format!("p{}", self.version)).is_some());
        assert!(listed, "the new list is in the app: {:?}", self.app.status());
        took
    }

    /// The server's own start: started, initialized and listed, without the watcher.
    fn start_alone(&self) -> Duration {
        let started = Instant::now();
        self.runtime.block_on(self.list());
        started.elapsed()
    }
}

fn p95(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() * 95 / 100]
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut deck = Deck::new(dir.path());
    let mut group = c.benchmark_group("watch");
    group.sample_size(20).measurement_time(Duration::from_secs(10));
    group.bench_function("a save to the new tool list on screen", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| deck.save()).sum())
    });
    group.bench_function("the server's own start and listing", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| deck.start_alone()).sum())
    });
    group.finish();
    let saves: Vec<Duration> = (0..40).map(|_| deck.save()).collect();
    let starts: Vec<Duration> = (0..40).map(|_| deck.start_alone()).collect();
    let (save, start) = (p95(saves), p95(starts));
    println!(
        "watch: p95 of a save to the new list {save:?}, p95 of the server's own start {start:?}, beyond it {:?} (target 300 ms)",
        save.saturating_sub(start)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
