//! Surviving files that shrink under a mapping.
//!
//! When a mapped file is truncated (logrotate's `copytruncate`), touching a
//! page past the new end raises SIGBUS, which kills a plain mmap scanner.
//! grail registers each mapping here; its SIGBUS handler maps a page of zeros
//! over the faulting page (so the interrupted load can complete) and marks the
//! mapping as shrunk. The search checks the mark before it prints anything
//! scanned since, and reports "file shrank during search" instead of lying.
//! A SIGBUS outside every registered mapping goes to the handler that was
//! installed before grail's (a host program's own), or gets the default
//! action when there was none.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

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
/// The SIGBUS action before grail installed its handler.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
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
    chain(sig, info, ctx);
}

/// A fault outside grail's mappings: hand it to the previous handler, or
/// restore the default action (returning then re-raises the fault).
fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let prev = PREVIOUS.get();
    let handler = prev.map_or(libc::SIG_DFL, |p| p.sa_sigaction);
    if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
        // An ignored SIGBUS from a fault cannot be ignored: the kernel would
        // deliver it again at once. Both end in the default action.
        // SAFETY: resetting a signal disposition is async-signal-safe.
        unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
        return;
    }
    let siginfo = prev.is_some_and(|p| p.sa_flags & libc::SA_SIGINFO != 0);
    // SAFETY: `handler` is the address of the handler that was installed
    // before grail's, with the signature its SA_SIGINFO flag declares; it is
    // called with the arguments the kernel gave this handler.
    unsafe {
        if siginfo {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                std::mem::transmute(handler);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
            f(sig);
        }
    }
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
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, &sa, &mut old) == 0 {
                let _ = PREVIOUS.set(old);
            }
        }
    });
}

/// A registered mapping; unregistered on drop.
pub(crate) struct Guard {
    slot: Option<&'static Slot>,
}

impl Guard {
    /// Register `[ptr, ptr + len)`. With all slots taken the mapping is not
    /// protected (a truncation then kills grail as it would kill ripgrep);
    /// grail maps at most one file at a time per search, so this needs over
    /// 64 concurrent searches in one process.
    ///
    /// # Safety
    /// `[ptr, ptr + len)` must be a read-only mapping of a file that stays
    /// mapped until the guard is dropped: the handler maps zeros over its
    /// faulting pages.
    pub(crate) unsafe fn register(ptr: *const u8, len: usize) -> Guard {
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
    pub(crate) fn flag(&self) -> Option<&'static AtomicBool> {
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
