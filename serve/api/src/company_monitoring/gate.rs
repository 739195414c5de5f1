//! The runtime gate of SUPPLEMENT 4.1, evaluated at start-up and every 60 s: operations read
//! its last verdict (an atomic), never wait for it.

use std::sync::atomic::{AtomicBool, Ordering};

use sitrep_cm::settings::GateClosed;

#[derive(Default)]
pub(crate) struct RuntimeGate {
    open: AtomicBool,
}

impl RuntimeGate {
    pub(crate) fn is_open(&self) -> bool {
        self.open.load(Ordering::Relaxed)
    }

    /// Records a verdict, logging when it changes.
    pub(crate) fn set(&self, verdict: Result<(), GateClosed>) {
        let open = verdict.is_ok();
        if self.open.swap(open, Ordering::Relaxed) != open || !open {
            match verdict {
                Ok(()) => tracing::info!("company monitoring: runtime gate open"),
                Err(why) => tracing::debug!(?why, "company monitoring: runtime gate closed"),
            }
        }
    }
}
