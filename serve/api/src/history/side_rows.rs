//! One version's changed rows, rendered, put in the order of their change's number: the diff
//! (`diff.rs`) reads each side's rows in storage order and renders those that changed, each with
//! its change's number in key order. They are distributed here into buckets of consecutive
//! numbers (a bucket's records appended to one file in chunks), so the diff's lines are then
//! written in key order a bucket at a time: one bucket of each side in memory, every read
//! sequential — no sort of whole rows (which took more than the diff's memory limit) and no read
//! per row (reading 2M rows back by number one at a time took 6 s).

use std::{
    fs::File,
    io::{self, BufWriter, Write},
    os::unix::fs::FileExt,
    path::Path,
};

/// Consecutive change numbers a bucket holds: a bucket of rows of a few hundred bytes is a few
/// megabytes in memory when its lines are written.
pub const BUCKET: usize = 8_192;

/// Bytes a bucket gathers in memory before they are appended to the file as a chunk.
const CHUNK: usize = 16 * 1024;

/// A record that could not be kept or read: past the bounds, or not as kept.
#[derive(Debug, thiserror::Error)]
pub enum SideRowsError {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("a rendered row not as kept: {0}")]
    Malformed(&'static str),
    /// One side's rows passed the bytes the whole diff may take.
    #[error("the rendered rows exceed {limit} bytes")]
    TooLarge { limit: u64 },
}

/// A side's rendered rows as they are kept: records `rank, key length, row length` (little-endian
/// u32s), then the key's and the row's bytes.
pub struct SideRows {
    file: BufWriter<File>,
    changes: usize,
    /// The bytes of the records kept, and of those written to the file.
    at: u64,
    written: u64,
    /// Each bucket's records not yet written, and where its chunks are in the file.
    gathering: Vec<Vec<u8>>,
    chunks: Vec<Vec<(u64, u32)>>,
}

impl SideRows {
    /// An empty side for change numbers below `changes`, kept in file `path`.
    pub fn create(path: &Path, changes: usize) -> io::Result<Self> {
        let buckets = changes.div_ceil(BUCKET);
        Ok(SideRows {
            file: BufWriter::with_capacity(1 << 20, File::create(path)?),
            changes,
            at: 0,
            written: 0,
            gathering: vec![Vec::new(); buckets],
            chunks: vec![Vec::new(); buckets],
        })
    }

    /// Keeps the rendered key and row of change `rank`; the side's rows together may take at
    /// most `limit` bytes.
    pub fn keep(&mut self, rank: usize, key: &[u8], row: &[u8], limit: u64) -> Result<(), SideRowsError> {
        if rank >= self.changes {
            return Err(SideRowsError::Malformed("a rank past the changes"));
        }
        let (b, len) = (rank / BUCKET, 12 + key.len() + row.len());
        if key.len() > u32::MAX as usize / 2 || row.len() > u32::MAX as usize / 2 || self.at + len as u64 > limit {
            return Err(SideRowsError::TooLarge { limit });
        }
        let gathering = &mut self.gathering[b];
        for n in [rank, key.len(), row.len()] {
            gathering.extend_from_slice(&(n as u32).to_le_bytes());
        }
        gathering.extend_from_slice(key);
        gathering.extend_from_slice(row);
        self.at += len as u64;
        if gathering.len() >= CHUNK {
            self.flush(b)?;
        }
        Ok(())
    }

    /// Appends bucket `b`'s gathered records to the file as a chunk.
    fn flush(&mut self, b: usize) -> io::Result<()> {
        let gathering = std::mem::take(&mut self.gathering[b]);
        if !gathering.is_empty() {
            self.chunks[b].push((self.written, gathering.len() as u32));
            self.file.write_all(&gathering)?;
            self.written += gathering.len() as u64;
        }
        Ok(())
    }

    /// Done keeping: the rows to read a bucket at a time.
    pub fn finish(mut self, path: &Path) -> io::Result<SideBuckets> {
        for b in 0..self.gathering.len() {
            self.flush(b)?;
        }
        drop(self.file.into_inner().map_err(|e| e.into_error())?);
        Ok(SideBuckets { file: File::open(path)?, chunks: self.chunks })
    }
}

/// A side's kept rows, read a bucket at a time.
pub struct SideBuckets {
    file: File,
    chunks: Vec<Vec<(u64, u32)>>,
}

impl SideBuckets {
    /// Bucket `b`'s rows (change numbers `b * BUCKET` on).
    pub fn bucket(&self, b: usize) -> Result<Bucket, SideRowsError> {
        let chunks = self.chunks.get(b).map(Vec::as_slice).unwrap_or_default();
        let mut bytes = vec![0u8; chunks.iter().map(|c| c.1 as usize).sum()];
        let mut at = 0;
        for &(offset, len) in chunks {
            self.file.read_exact_at(&mut bytes[at..at + len as usize], offset)?;
            at += len as usize;
        }
        // The keys and rows, without the records' headers, in one text.
        let (mut rows, mut text) = (vec![None; BUCKET], String::with_capacity(bytes.len()));
        let mut at = 0;
        while at < bytes.len() {
            let field = |i: usize| -> Result<usize, SideRowsError> {
                let b = bytes.get(at + 4 * i..at + 4 * i + 4).ok_or(SideRowsError::Malformed("a cut record"))?;
                Ok(u32::from_le_bytes(b.try_into().unwrap_or_default()) as usize)
            };
            let (rank, key, row) = (field(0)?, field(1)?, field(2)?);
            let slot = rank.checked_sub(b * BUCKET).and_then(|i| rows.get_mut(i));
            let slot = slot.ok_or(SideRowsError::Malformed("a record in another's bucket"))?;
            let record = bytes.get(at + 12..at + 12 + key + row).ok_or(SideRowsError::Malformed("a cut record"))?;
            let start = text.len();
            text.push_str(std::str::from_utf8(record).map_err(|_| SideRowsError::Malformed("not UTF-8"))?);
            *slot = Some((start, start + key, text.len()));
            at += 12 + key + row;
        }
        Ok(Bucket { text, rows, first: b * BUCKET })
    }
}

/// One bucket of a side's rows in memory.
pub struct Bucket {
    text: String,
    /// Where each change's key starts, its row starts and its row ends in `text`.
    rows: Vec<Option<(usize, usize, usize)>>,
    first: usize,
}

impl Bucket {
    /// The key and row of change `rank`, if this side has it.
    pub fn get(&self, rank: usize) -> Option<(&str, &str)> {
        let (key, row, end) = (*self.rows.get(rank.checked_sub(self.first)?)?)?;
        Some((self.text.get(key..row)?, self.text.get(row..end)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_kept_in_any_order_are_read_by_their_number_a_bucket_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.rows");
        let changes = 2 * BUCKET + 10;
        let mut side = SideRows::create(&path, changes).unwrap();
        // Every third change, last first, rows long enough to be written in several chunks.
        let row = |rank: usize| format!("{{\"id\":{rank},\"pad\":\"{}\"}}", "x".repeat(rank % 300));
        for rank in (0..changes).rev().filter(|r| r % 3 == 0) {
            side.keep(rank, format!("{{\"id\":{rank}}}").as_bytes(), row(rank).as_bytes(), 1 << 30).unwrap();
        }
        let sides = side.finish(&path).unwrap();
        for b in 0..3 {
            let bucket = sides.bucket(b).unwrap();
            for rank in b * BUCKET..((b + 1) * BUCKET).min(changes) {
                let got = bucket.get(rank);
                match rank % 3 {
                    0 => assert_eq!(got, Some((format!("{{\"id\":{rank}}}").as_str(), row(rank).as_str()))),
                    _ => assert_eq!(got, None, "a change this side does not have"),
                }
            }
            assert_eq!(bucket.get((b + 1) * BUCKET), None, "the next bucket's");
        }
    }

    #[test]
    fn a_rank_past_the_changes_or_rows_past_the_bounds_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let mut side = SideRows::create(&dir.path().join("a.rows"), 2).unwrap();
        let kept = side.keep(2, b"{}", b"{}", 1 << 20);
        assert!(matches!(kept, Err(SideRowsError::Malformed(_))), "{kept:?}");
        side.keep(0, b"{}", &[b' '; 30], 50).unwrap();
        let kept = side.keep(1, b"{}", &[b' '; 30], 50);
        assert!(matches!(kept, Err(SideRowsError::TooLarge { limit: 50 })), "{kept:?}");
    }
}
