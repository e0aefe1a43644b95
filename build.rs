//! Link settings that make the tooldeck binary start faster on Linux. A command-line run
//! (`tooldeck call`, `list`, `check`) lasts a few milliseconds, so how the executable loads
//! counts; both are measured in benches/mcp.rs.
//!
//! - `-no-pie`: a position-dependent executable, as Go links its binaries. A PIE of this size has
//!   ~40,000 relative relocations that the loader applies at every start, writing (and so
//!   copying) ~170 pages; without them `tooldeck --version` takes 1.5 ms instead of 2.2. The
//!   cost is that the executable itself loads at a fixed address (libraries, stack and heap are
//!   still randomised).
//! - In release builds, `--symbol-ordering-file` with benches/startup/symbol-order.txt: the code
//!   a start runs is placed together instead of spread over ~18 MB, so the kernel maps it with
//!   ~20 page faults instead of ~150 (how the list is made: benches/startup/make-symbol-order).
//!   Names that are not in the binary are ignored, so a stale list only costs speed. Only given
//!   when the linker takes it (lld and mold do, GNU ld does not): a probe link tells.

use std::path::{Path, PathBuf};
use std::process::Command;

const SYMBOL_ORDER: &str = "benches/startup/symbol-order.txt";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed={SYMBOL_ORDER}");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    println!("cargo::rustc-link-arg-bin=tooldeck=-no-pie");
    let order = Path::new(env!("CARGO_MANIFEST_DIR")).join(SYMBOL_ORDER);
    let release = std::env::var("PROFILE").as_deref() == Ok("release");
    if release && order.exists() {
        let args =
            [format!("-Wl,--symbol-ordering-file={}", order.display()), "-Wl,--no-warn-symbol-ordering".to_string()];
        if linker_accepts(&args) {
            for arg in args {
                println!("cargo::rustc-link-arg-bin=tooldeck={arg}");
            }
        }
    }
}

/// Links an empty program with `args`, with the compiler, target, flags and linker this build
/// uses: true when that works.
fn linker_accepts(args: &[String]) -> bool {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let source = out_dir.join("link_probe.rs");
    if std::fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let mut rustc = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()));
    rustc.arg(&source).arg("-o").arg(out_dir.join("link_probe")).args(["--crate-type", "bin"]);
    if let Ok(target) = std::env::var("TARGET") {
        rustc.args(["--target", &target]);
    }
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    rustc.args(flags.split('\x1f').filter(|flag| !flag.is_empty()));
    if let Some(linker) = std::env::var_os("RUSTC_LINKER") {
        rustc.arg("-C").arg(format!("linker={}", linker.to_string_lossy()));
    }
    for arg in args {
        rustc.arg("-C").arg(format!("link-arg={arg}"));
    }
    rustc.output().is_ok_and(|output| output.status.success())
}
