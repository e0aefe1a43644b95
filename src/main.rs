use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

#[global_allocator]
static GLOBAL: Allocator = Allocator;

/// mimalloc, except for `tooldeck call`, which gets the system allocator.
///
/// Loading a catalog allocates many small values, and mimalloc does it markedly faster (1,000
/// tools: `list --json` 88 ms against 107 with the system allocator). But a call is a process of
/// a few milliseconds that loads little, and there mimalloc's start (a fresh page per size class)
/// and exit cost more than they save: ~0.4 ms, a tenth of an MCP call (benches/mcp.rs). Which one
/// is decided before the first allocation and never changes, so every block is freed by the
/// allocator that gave it.
struct Allocator;

static USE_SYSTEM: AtomicBool = AtomicBool::new(false);

fn chosen() -> &'static dyn GlobalAlloc {
    match USE_SYSTEM.load(Ordering::Relaxed) {
        true => &System,
        false => &mimalloc::MiMalloc,
    }
}

unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { chosen().alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { chosen().alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { chosen().dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe { chosen().realloc(ptr, layout, new_size) }
    }
}

/// Runs before `main` and before anything allocates (glibc calls `.init_array` functions with
/// the command line), so the choice above is made once, in time.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static CHOOSE_ALLOCATOR: extern "C" fn(i32, *const *const u8) = choose_allocator;

#[cfg(target_os = "linux")]
extern "C" fn choose_allocator(argc: i32, argv: *const *const u8) {
    if argc < 2 || argv.is_null() {
        return;
    }
    // SAFETY: glibc passes the process's argv: argc valid, NUL-terminated strings.
    let first = unsafe { std::ffi::CStr::from_ptr((*argv.add(1)).cast()) };
    USE_SYSTEM.store(first.to_bytes() == b"call", Ordering::Relaxed);
}

fn main() -> ExitCode {
    tooldeck::cli::main()
}
