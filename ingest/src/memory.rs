//! The memory of a process that runs ingest. A run allocates and frees the same large buffers
//! page after page (response bodies, parsed rows, Arrow batches, Parquet pages). Under the
//! workspace's built-in jemalloc options (`.cargo/config.toml`: dirty pages purged after 1 s, for
//! the server's resident memory) those freed pages went back to the OS during the run and were
//! faulted in, zeroed, again: `memmove` and `clear_page` were a tenth of the samples, and 1M
//! events ingested at about 400k events/s instead of about 490k. So the ingest processes keep
//! freed pages ([`keep_freed_pages!`]) and hand them back once a run is over
//! ([`release_freed_pages`]), so the scheduler's resting memory stays what a purge leaves.

// jemalloc's controls are C functions; each use states why it is sound.
#![allow(unsafe_code)]

/// Defines jemalloc's `malloc_conf` in the binary that invokes it: dirty-page decay off, read by
/// jemalloc before `main` and applied over the built-in options. A binary's own definition,
/// because a symbol defined in a library is not linked into the executable unless referenced.
#[macro_export]
macro_rules! keep_freed_pages {
    () => {
        /// jemalloc reads a `const char *` named `malloc_conf`: a thin pointer to the first byte
        /// of a NUL-terminated string that lives as long as the process. The name is jemalloc's
        /// (its own definition is weak), hence the exported symbol.
        #[allow(unsafe_code)]
        #[export_name = "malloc_conf"]
        static MALLOC_CONF: &u8 = &b"dirty_decay_ms:-1\0"[0];
    };
}

/// Returns every arena's freed pages to the OS (jemalloc's `arena.<MALLCTL_ARENAS_ALL>.purge`).
/// Cheap when there are none; a refusal only leaves the pages held, so it is logged, not raised.
pub fn release_freed_pages() {
    // SAFETY: `purge` takes no value and returns none: every pointer null, every length 0, and
    // the name a NUL-terminated literal.
    let rc = unsafe {
        tikv_jemalloc_sys::mallctl(
            c"arena.4096.purge".as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        tracing::debug!(rc, "jemalloc refused to purge its arenas");
    }
}

#[cfg(test)]
mod tests {
    /// The binaries' allocator, so the test frees into jemalloc's arenas.
    #[global_allocator]
    static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

    /// This process's resident memory in bytes (Linux).
    fn resident() -> usize {
        let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
        let pages: usize = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("resident pages");
        pages * 4096
    }

    #[test]
    fn a_release_hands_freed_pages_back_at_once() {
        const MB: usize = 1 << 20;
        // 64 MB of touched large allocations, freed: jemalloc keeps most of the pages (the built-in
        // options hand dirty pages back over a second, not at the free).
        let before = resident();
        let chunks: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8 | 1; MB]).collect();
        drop(chunks);
        let freed = resident();
        super::release_freed_pages();
        let released = resident();
        assert!(freed > before + 32 * MB, "freeing alone kept most pages: {before} -> {freed}");
        assert!(released < before + 16 * MB, "the release gave them back: {freed} -> {released} (from {before})");
    }
}
