//! The stdio proxy's memory over a 1 GB session: 1 GiB of JSON-RPC lines (1 KiB each) pushed
//! through `tooldeck proxy --save-cases FILE -- cat` (the tap on: every line parsed and handed to
//! a sink; the record itself would write 2 GB to disk), the answers read back as they come. It
//! prints the proxy's peak resident memory (`VmHWM` of /proc/PID/status, read before its input
//! closes) and its resident memory after each 128 MiB, which must stay flat. Linux only.
//!
//! `CARGO_TARGET_DIR=/work/bench-target cargo bench --bench proxy_memory`

#[cfg(target_os = "linux")]
fn main() {
    use std::io::{BufReader, Read, Write};
    use std::process::{Command, Stdio};

    const TOTAL: usize = 1 << 30;
    const LINE: usize = 1024;
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = dir.path().join("cases.yaml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .arg("proxy")
        .arg("--save-cases")
        .arg(&cases)
        .args(["--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("tooldeck starts");
    let pid = child.id();
    let mut input = child.stdin.take().expect("stdin");
    let output = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut output = BufReader::with_capacity(1 << 20, output);
        let mut read = 0usize;
        let mut buffer = vec![0u8; 1 << 20];
        loop {
            match output.read(&mut buffer) {
                Ok(0) | Err(_) => return read,
                Ok(n) => read += n,
            }
        }
    });
    let status = |field: &str| -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let line = text.lines().find(|l| l.starts_with(field)).unwrap_or_default().to_string();
        line.split_whitespace().nth(1).and_then(|kb| kb.parse().ok()).unwrap_or(0)
    };
    let started = std::time::Instant::now();
    let mut sent = 0usize;
    let mut id = 0u64;
    let mut rss = Vec::new();
    let mut batch = Vec::with_capacity(1 << 20);
    while sent < TOTAL {
        batch.clear();
        while batch.len() + LINE <= 1 << 20 {
            id += 1;
            let head = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":""#
            );
            let tail = "\"}}}\n";
            batch.extend_from_slice(head.as_bytes());
            batch.extend(std::iter::repeat_n(b'x', LINE - head.len() - tail.len()));
            batch.extend_from_slice(tail.as_bytes());
        }
        input.write_all(&batch).expect("the proxy takes its input");
        sent += batch.len();
        if sent % (128 << 20) < batch.len() {
            rss.push(status("VmRSS:") / 1024);
        }
    }
    input.flush().expect("flush");
    let peak = status("VmHWM:");
    drop(input);
    let read = reader.join().expect("the reader");
    let _ = child.wait();
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(read, sent, "every byte came back");
    println!(
        "proxy_memory: {} MiB through the stdio proxy (tap on) in {seconds:.1} s ({:.0} MiB/s); peak RSS {} MiB; RSS after each 128 MiB (MiB): {rss:?}",
        sent >> 20,
        (sent >> 20) as f64 / seconds,
        peak / 1024
    );
}

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("proxy_memory: reads /proc, so it runs on Linux only");
}
