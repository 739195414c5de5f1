//! What a piece of DuckDB work and the caller waiting for it share, so the caller leaving stops
//! the work: the handle of the connection running it (only while it runs) and whether the caller
//! gave up. Used for the engine's queries and for a diff's transient instances.

use std::sync::{
    atomic::{AtomicU32, Ordering},
    Arc, Mutex,
};

use duckdb::InterruptHandle;

/// Both sides take the lock, so an interrupt reaches the statement it was meant for and never the
/// connection's next one.
#[derive(Default)]
pub struct Running {
    state: Mutex<RunningState>,
    /// How far the work has come, in thousandths (work of many steps reports it; a caller that
    /// cannot wait for the end is told how long it may take).
    done: AtomicU32,
}

#[derive(Default)]
struct RunningState {
    on: Option<Arc<InterruptHandle>>,
    abandoned: bool,
}

impl Running {
    fn lock(&self) -> std::sync::MutexGuard<'_, RunningState> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Marks the work as running on `handle`'s connection (a later call moves it to another);
    /// false when its caller already left.
    pub fn begin(&self, handle: &Arc<InterruptHandle>) -> bool {
        let mut state = self.lock();
        state.on = (!state.abandoned).then(|| handle.clone());
        state.on.is_some()
    }

    /// Records how far the work has come (a fraction in [0, 1]).
    pub fn progress_to(&self, fraction: f64) {
        self.done.store((fraction.clamp(0.0, 1.0) * 1000.0) as u32, Ordering::Relaxed);
    }

    /// How far the work has come (a fraction in [0, 1]).
    pub fn progress(&self) -> f64 {
        f64::from(self.done.load(Ordering::Relaxed)) / 1000.0
    }

    pub fn end(&self) {
        self.lock().on = None;
    }

    /// Whether the caller left: work of many statements asks between them (an interrupt reaches
    /// only the statement running).
    pub fn is_abandoned(&self) -> bool {
        self.lock().abandoned
    }

    /// The caller left: interrupt the query if it runs, and keep it from starting if not.
    /// True when a running query was interrupted.
    pub fn abandon(&self) -> bool {
        let mut state = self.lock();
        state.abandoned = true;
        state.on.take().map(|handle| handle.interrupt()).is_some()
    }
}
