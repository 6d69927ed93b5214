//! Surviving files that shrink under a mapping.
//!
//! When a mapped file is truncated (logrotate's `copytruncate`), touching a
//! page past the new end raises SIGBUS, which kills a plain mmap scanner.
//! grail registers each mapping here; its SIGBUS handler maps a page of zeros
//! over the faulting page (so the interrupted load can complete) and marks the
//! mapping as shrunk. The search checks the mark before it prints anything
//! scanned since, and reports "file shrank during search" instead of lying.
//! A SIGBUS outside every registered mapping gets the default action.
//!
//! [`die_on_closed_pipe`] gives SIGPIPE back its default action, as grep
//! has it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

const SLOTS: usize = 64;
const PAGE: usize = 4096;

struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    shrank: AtomicBool,
    used: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    shrank: AtomicBool::new(false),
    used: AtomicBool::new(false),
};

static SLOTS_TABLE: [Slot; SLOTS] = [EMPTY; SLOTS];
static INSTALL: Once = Once::new();

extern "C" fn on_sigbus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    for slot in &SLOTS_TABLE {
        let (s, e) = (
            slot.start.load(Ordering::Acquire),
            slot.end.load(Ordering::Acquire),
        );
        if slot.used.load(Ordering::Acquire) && s <= addr && addr < e {
            let page = addr & !(PAGE - 1);
            // SAFETY: `page` lies inside a read-only mapping that grail owns
            // and registered; replacing that page with anonymous zeros (a
            // plain syscall, safe in a signal handler on Linux) changes only
            // what grail's own scan reads, and the mark makes the search
            // discard it.
            unsafe {
                libc::mmap(
                    page as *mut libc::c_void,
                    PAGE,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                );
            }
            slot.shrank.store(true, Ordering::Release);
            return;
        }
    }
    // Not ours: restore the default action; returning re-raises the fault.
    // SAFETY: resetting a signal disposition is async-signal-safe.
    unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
}

fn install() {
    INSTALL.call_once(|| {
        // SAFETY: a zeroed sigaction is a valid starting point; the handler
        // only touches atomics and makes async-signal-safe syscalls.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_sigbus as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
        }
    });
}

/// A registered mapping; unregistered on drop.
pub struct Guard {
    slot: Option<&'static Slot>,
}

impl Guard {
    /// Register `[ptr, ptr + len)`. With all slots taken the mapping is not
    /// protected (a truncation then kills grail as it would kill ripgrep);
    /// grail maps at most one file at a time per search, so this needs over
    /// 64 concurrent searches in one process.
    pub fn register(ptr: *const u8, len: usize) -> Guard {
        install();
        for slot in &SLOTS_TABLE {
            if slot
                .used
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                slot.shrank.store(false, Ordering::Release);
                slot.start.store(ptr as usize, Ordering::Release);
                slot.end.store(ptr as usize + len, Ordering::Release);
                return Guard { slot: Some(slot) };
            }
        }
        Guard { slot: None }
    }

    /// The flag that says the file shrank under the mapping.
    pub fn flag(&self) -> Option<&'static AtomicBool> {
        self.slot.map(|s| &s.shrank)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(s) = self.slot {
            s.start.store(0, Ordering::Release);
            s.end.store(0, Ordering::Release);
            s.used.store(false, Ordering::Release);
        }
    }
}

/// Restore SIGPIPE's default action (Rust's runtime ignores it), so that a
/// write to a closed pipe ends grail as it ends grep: killed by the signal,
/// silently, exit status 141 under `set -o pipefail`.
pub fn die_on_closed_pipe() {
    // SAFETY: setting a signal's disposition to SIG_DFL installs no handler
    // code; it is called once at program start.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}
