//! `tooldeck proxy` over stdio: 2,000 sequential calls through the proxy against the same 2,000
//! straight to the server (the aim: at most 1.25x, 1.10x hoped for), also recording, and
//! recording with `--max-record-size 1MB` (a run of 2,000 calls writes about 1 MB, so the
//! record rotates during the bench); and each call's added latency (p99 under 0.5 ms on
//! loopback, printed). The server is `tooldeck serve-mock --record`,
//! answering a recorded `tools/call`, so both runs talk to one fast, real responder. The binary is
//! the one `cargo bench` builds (release settings). `through_the_proxy_with_a_fault_set` has a
//! `--fault` rule that never fires: the cost of reading every message (an armed proxy), which
//! a proxy without faults or breakpoints does not pay:
//! `CARGO_TARGET_DIR=/work/bench-target cargo bench --bench proxy`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::Criterion;

const CALLS: usize = 2_000;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;

fn binary() -> PathBuf {
    let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/tooldeck");
    if release.exists() { release } else { PathBuf::from(env!("CARGO_BIN_EXE_tooldeck")) }
}

/// A record that answers the one call.
fn record(dir: &Path) -> PathBuf {
    let path = dir.join("bench.jsonl");
    let answer =
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}}"#;
    let text = format!("{{\"from\":\"client\",\"message\":{CALL}}}\n{{\"from\":\"server\",\"message\":{answer}}}\n");
    std::fs::write(&path, text).expect("write the record");
    path
}

struct Session {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(binary())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("tooldeck starts");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Session { child, input, output }
    }

    /// One call and its answer; how long it took.
    fn call(&mut self) -> Duration {
        let started = Instant::now();
        self.input.write_all(CALL.as_bytes()).and_then(|()| self.input.write_all(b"\n")).expect("send");
        self.input.flush().expect("flush");
        let mut line = String::new();
        self.output.read_line(&mut line).expect("an answer");
        assert!(line.contains("\"sum\""), "{line}");
        started.elapsed()
    }

    fn end(mut self) {
        drop(self.input);
        let _ = self.child.wait();
    }
}

fn calls(args: &[&str]) -> Vec<Duration> {
    let mut session = Session::start(args);
    let times = (0..CALLS).map(|_| session.call()).collect();
    session.end();
    times
}

fn p99(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() * 99 / 100]
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let record = record(dir.path());
    let record = record.to_str().expect("a UTF-8 path");
    let binary = binary();
    let binary = binary.to_str().expect("a UTF-8 path");
    let straight = ["serve-mock", "--record", record];
    let proxied = ["proxy", "--", binary, "serve-mock", "--record", record];
    let recorded_to = dir.path().join("proxied.jsonl");
    let recorded_to = recorded_to.to_str().expect("a UTF-8 path");
    let recorded = ["proxy", "--record", recorded_to, "--", binary, "serve-mock", "--record", record];
    let armed = ["proxy", "--fault", "resources/read:drop", "--", binary, "serve-mock", "--record", record];
    let rotated_to = dir.path().join("rotated.jsonl");
    let rotated_to = rotated_to.to_str().expect("a UTF-8 path");
    let rotating =
        ["proxy", "--record", rotated_to, "--max-record-size", "1MB", "--", binary, "serve-mock", "--record", record];

    let (a, b) = (p99(calls(&straight)), p99(calls(&recorded)));
    eprintln!("p99 per call: straight {a:?}, through the proxy with a record {b:?}, added {:?}", b.saturating_sub(a));

    let mut group = c.benchmark_group("proxy_2000_calls");
    group.sample_size(10);
    group.bench_function("straight", |bench| bench.iter(|| calls(&straight)));
    group.bench_function("through_the_proxy", |bench| bench.iter(|| calls(&proxied)));
    group.bench_function("through_the_proxy_recording", |bench| bench.iter(|| calls(&recorded)));
    group.bench_function("through_the_proxy_with_a_fault_set", |bench| bench.iter(|| calls(&armed)));
    group.bench_function("through_the_proxy_recording_rotated", |bench| bench.iter(|| calls(&rotating)));
    group.finish();
    let old = (1..=3).filter(|n| dir.path().join(format!("rotated.jsonl.{n}")).exists()).count();
    eprintln!("the rotated record: {old} old files kept beside it (at most 3)");
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
