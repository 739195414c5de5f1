//! A version pair's rendered changes on disk: one JSON line per change, in key order, then an index
//! of where each line starts (`count + 1` little-endian u64 offsets, the last the end of the
//! lines). A page is two positioned reads — its offsets, then its lines — so paging takes no
//! memory beyond the page and leaves nothing in the engine's buffer pool (a diff read through
//! DuckDB kept its blocks cached there: tens of megabytes under eight pagers).

use std::{
    fs::File,
    io::{self, BufWriter, Write},
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
};

/// Writes a diff file: lines pushed in order, the index appended by [`DiffWriter::finish`]. It is
/// written under a temporary name (and its index beside it) and renamed complete, so a file named
/// `path` is always whole.
pub struct DiffWriter {
    path: PathBuf,
    lines: BufWriter<File>,
    offsets: BufWriter<File>,
    at: u64,
}

impl DiffWriter {
    pub fn create(path: &Path) -> io::Result<Self> {
        // Large buffers: a diff's file is written at hundreds of megabytes a second.
        let lines = BufWriter::with_capacity(1 << 20, File::create(Self::building(path))?);
        let offsets = BufWriter::with_capacity(1 << 16, File::create(Self::indexing(path))?);
        Ok(DiffWriter { path: path.to_path_buf(), lines, offsets, at: 0 })
    }

    fn building(path: &Path) -> PathBuf {
        path.with_extension("building")
    }

    fn indexing(path: &Path) -> PathBuf {
        path.with_extension("indexing")
    }

    /// Appends a change's line (one JSON value, without a newline in it).
    pub fn push(&mut self, line: &str) -> io::Result<()> {
        self.offsets.write_all(&self.at.to_le_bytes())?;
        self.lines.write_all(line.as_bytes())?;
        self.lines.write_all(b"\n")?;
        self.at += line.len() as u64 + 1;
        Ok(())
    }

    /// The bytes of the lines pushed so far.
    pub fn bytes(&self) -> u64 {
        self.at
    }

    /// Appends the index and names the file `path`.
    pub fn finish(mut self) -> io::Result<()> {
        self.offsets.write_all(&self.at.to_le_bytes())?;
        let offsets = self.offsets.into_inner().map_err(|e| e.into_error())?;
        drop(offsets);
        io::copy(&mut File::open(Self::indexing(&self.path))?, &mut self.lines)?;
        self.lines.flush()?;
        std::fs::remove_file(Self::indexing(&self.path))?;
        std::fs::rename(Self::building(&self.path), &self.path)
    }

    /// Removes what an unfinished writer left (after an error).
    pub fn discard(path: &Path) {
        let _ = std::fs::remove_file(Self::building(path));
        let _ = std::fs::remove_file(Self::indexing(path));
    }
}

/// The lines of the changes numbered [`first`, `first + limit`) of a diff file of `count` changes
/// (fewer at the end, none past it).
pub fn read_page(path: &Path, count: u64, first: u64, limit: u64) -> io::Result<Vec<String>> {
    let end = first.saturating_add(limit).min(count);
    if first >= end {
        return Ok(Vec::new());
    }
    let file = File::open(path)?;
    let index_at = file
        .metadata()?
        .len()
        .checked_sub((count + 1) * 8)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "a diff file shorter than its index"))?;
    let mut raw = vec![0u8; ((end - first + 1) * 8) as usize];
    file.read_exact_at(&mut raw, index_at + first * 8)?;
    let offsets: Vec<u64> = raw.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default())).collect();
    let (start, stop) = (offsets[0], offsets[offsets.len() - 1]);
    if stop < start || stop > index_at {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "a diff file's index out of its lines"));
    }
    let mut bytes = vec![0u8; (stop - start) as usize];
    file.read_exact_at(&mut bytes, start)?;
    offsets
        .windows(2)
        .map(|w| {
            let line = bytes.get((w[0] - start) as usize..(w[1] - start) as usize).unwrap_or_default();
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            String::from_utf8(line.to_vec()).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(lines: &[&str]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("diff_0.changes");
        let mut w = DiffWriter::create(&path).unwrap();
        for l in lines {
            w.push(l).unwrap();
        }
        w.finish().unwrap();
        (dir, path)
    }

    #[test]
    fn a_page_reads_its_own_lines_and_none_past_the_end() {
        let lines: Vec<String> = (0..10).map(|i| format!("{{\"n\":{i},\"pad\":\"{}\"}}", "é".repeat(i))).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (dir, path) = written(&refs);
        assert_eq!(read_page(&path, 10, 0, 3).unwrap(), lines[0..3]);
        assert_eq!(read_page(&path, 10, 7, 5).unwrap(), lines[7..10], "the last page is short");
        assert_eq!(read_page(&path, 10, 9, 1).unwrap(), lines[9..10]);
        assert!(read_page(&path, 10, 10, 5).unwrap().is_empty());
        assert!(read_page(&path, 10, u64::MAX, u64::MAX).unwrap().is_empty());
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["diff_0.changes"], "nothing else left behind");
    }

    #[test]
    fn an_empty_diff_has_no_pages_and_a_wrong_count_is_an_error_not_a_panic() {
        let (_dir, empty) = written(&[]);
        assert!(read_page(&empty, 0, 0, 50).unwrap().is_empty());
        let (_dir, path) = written(&["{}", "{}"]);
        assert!(read_page(&path, 1_000, 0, 50).is_err());
        assert!(read_page(&path, 3, 0, 50).is_err());
    }
}
