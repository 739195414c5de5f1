//! Keeps the local cache from growing without bound. Lake files are immutable, so a cached copy is
//! only worth keeping while a retained dataset version was built from it (a restart then loads
//! without downloading); database files are per process, so those left by an earlier process are
//! garbage.

use std::{
    collections::HashSet,
    path::{Path, PathBuf},
};

/// Deletes every file under `dir` that is not in `keep`, then the directories left empty.
/// Returns how many files were deleted. A missing `dir` is an empty cache.
pub fn prune_files(dir: &Path, keep: &HashSet<PathBuf>) -> std::io::Result<usize> {
    let mut deleted = 0;
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(0) };
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            deleted += prune_files(&path, keep)?;
            // Fails harmlessly when something is still inside.
            let _ = std::fs::remove_dir(&path);
        } else if !keep.contains(&path) {
            std::fs::remove_file(&path)?;
            deleted += 1;
        }
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deletes_what_is_not_kept_and_empty_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("files");
        let keep_me = root.join("data/run1/armed-events/part-00000.parquet");
        let drop_me = root.join("data/run0/armed-events/part-00000.parquet");
        for p in [&keep_me, &drop_me] {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"x").unwrap();
        }
        let keep = HashSet::from([keep_me.clone()]);
        assert_eq!(prune_files(&root, &keep).unwrap(), 1);
        assert!(keep_me.exists());
        assert!(!root.join("data/run0").exists(), "the emptied run folder is gone");
        assert_eq!(prune_files(&dir.path().join("missing"), &keep).unwrap(), 0);
    }
}
