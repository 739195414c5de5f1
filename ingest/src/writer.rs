//! Record batch → immutable Parquet objects under `data/<run>/<dataset>/part-<n>.parquet`, split by
//! month partition where the dataset is month-partitioned.

use std::collections::BTreeMap;

use arrow::{
    array::{AsArray, RecordBatch, UInt32Array},
    compute::take_record_batch,
    datatypes::{SchemaRef, TimestampMillisecondType},
};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use parquet::{
    arrow::ArrowWriter,
    basic::Compression,
    file::properties::{EnabledStatistics, WriterProperties},
    schema::types::ColumnPath,
};
use sha2::{Digest, Sha256};
use sitrep_pipelines::time::YearMonth;
use sitrep_schemas::{fingerprint::conform, time_ranges, ColumnRange, DatasetId, FileEntry, Partitioning};

use crate::{IngestError, Lake};

/// Row groups the size DuckDB uses, so zone maps line up with its own.
const ROW_GROUP: usize = 122_880;

/// Columns whose values are (nearly) all distinct: dictionary encoding would only cost a hash per
/// value before falling back to plain pages.
const HIGH_CARDINALITY: [&str; 3] = ["id", "latitude", "longitude"];

fn properties() -> WriterProperties {
    let builder = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP))
        .set_statistics_enabled(EnabledStatistics::Chunk);
    HIGH_CARDINALITY
        .into_iter()
        .fold(builder, |b, column| b.set_column_dictionary_enabled(ColumnPath::from(column), false))
        .build()
}

/// One batch as one Parquet file (tests use it to stage files by hand).
pub fn encode(batch: &RecordBatch) -> Result<Bytes, IngestError> {
    let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(properties()))?;
    w.write(batch)?;
    Ok(Bytes::from(w.into_inner()?))
}

/// Splits by UTC month of the dataset's partition column, keeping row order within each month.
pub fn split_by_month(
    dataset: DatasetId,
    batch: &RecordBatch,
) -> Result<Vec<(Option<YearMonth>, RecordBatch)>, IngestError> {
    let Partitioning::Month { column: col } = dataset.partitioning() else {
        return Ok(vec![(None, batch.clone())]);
    };
    let ms = batch
        .column_by_name(col)
        .ok_or_else(|| IngestError::Validation(format!("{dataset}: missing partition column {col}")))?
        .as_primitive::<TimestampMillisecondType>();
    let mut groups: BTreeMap<YearMonth, Vec<u32>> = BTreeMap::new();
    for (i, v) in ms.values().iter().enumerate() {
        groups.entry(YearMonth::of_ms(*v)).or_default().push(i as u32);
    }
    groups.into_iter().map(|(m, idx)| Ok((Some(m), take_record_batch(batch, &UInt32Array::from(idx))?))).collect()
}

/// Rows per data file at most: ten row groups, so a large dataset becomes a few files of tens of
/// MB instead of one per input batch, and a reader still loads files in parallel.
pub const FILE_ROWS: usize = 10 * ROW_GROUP;

/// A Parquet file being written in memory, for one partition.
struct OpenFile {
    writer: ArrowWriter<Vec<u8>>,
    rows: usize,
    /// The time columns' ranges so far (the file's entry records them).
    bounds: BTreeMap<String, ColumnRange>,
}

impl OpenFile {
    fn close(self, month: Option<YearMonth>) -> Result<ClosedFile, IngestError> {
        Ok(ClosedFile { month, bytes: self.writer.into_inner()?, rows: self.rows, bounds: self.bounds })
    }
}

/// Open files by partition.
type OpenFiles = BTreeMap<Option<YearMonth>, OpenFile>;

/// A finished file.
struct ClosedFile {
    month: Option<YearMonth>,
    bytes: Vec<u8>,
    rows: usize,
    bounds: BTreeMap<String, ColumnRange>,
}

type Closed = Vec<ClosedFile>;

/// Streams the record batches of one dataset into immutable Parquet objects: one open file per
/// month partition, rolled over at [`FILE_ROWS`]. Encoding runs on a blocking thread while the
/// caller prepares the next batch (a pipeline one batch deep), so parsing and encoding use two
/// cores; an encoding error surfaces at the next `write`, `flush` or `finish`.
pub struct DatasetWriter<'l> {
    lake: &'l Lake,
    run_id: String,
    dataset: DatasetId,
    fetched_at: DateTime<Utc>,
    next_part: usize,
    file_rows: usize,
    /// The schema files are written with (the dataset's, its columns' Iceberg field ids stamped),
    /// read from the table at the first batch.
    file_schema: Option<SchemaRef>,
    /// The open files while no encoding is in flight.
    open: OpenFiles,
    /// The encoding in flight: it owns the open files until it hands them back.
    encoding: Option<tokio::task::JoinHandle<Result<(OpenFiles, Closed), IngestError>>>,
    written: Vec<FileEntry>,
}

impl<'l> DatasetWriter<'l> {
    /// Files are numbered from `first_part` (a backfill continues its numbering across months).
    pub fn new(lake: &'l Lake, run_id: &str, dataset: DatasetId, fetched_at: DateTime<Utc>, first_part: usize) -> Self {
        DatasetWriter {
            lake,
            run_id: run_id.to_string(),
            dataset,
            fetched_at,
            next_part: first_part,
            file_rows: FILE_ROWS,
            file_schema: None,
            open: BTreeMap::new(),
            encoding: None,
            written: Vec::new(),
        }
    }

    /// Rolls files over at `rows` rows instead of [`FILE_ROWS`].
    pub fn with_file_rows(mut self, rows: usize) -> Self {
        self.file_rows = rows.max(1);
        self
    }

    /// Appends a batch, which must follow the dataset's schema. Returns once the previous batch is
    /// encoded (and the files it filled are written) and this one's encoding has started.
    pub async fn write(&mut self, batch: RecordBatch) -> Result<(), IngestError> {
        let dataset = self.dataset;
        if !sitrep_schemas::fingerprint::fingerprint_matches(&dataset.schema(), &batch.schema()) {
            return Err(IngestError::Validation(format!("{dataset}: batch schema differs from the lake contract")));
        }
        self.flush().await?;
        let schema = match &self.file_schema {
            Some(schema) => schema.clone(),
            None => {
                // Files without ids are still read right (the table's name mapping), so a table
                // that cannot be read now costs the ids, not the run.
                let schema = self.lake.file_schema(dataset).await.unwrap_or_else(|e| {
                    tracing::warn!(%dataset, error = %e, "the Iceberg table was not read: files carry no field ids");
                    dataset.schema()
                });
                self.file_schema.insert(schema).clone()
            }
        };
        let (open, file_rows) = (std::mem::take(&mut self.open), self.file_rows);
        self.encoding =
            Some(tokio::task::spawn_blocking(move || encode_into(open, dataset, &schema, &batch, file_rows)));
        Ok(())
    }

    /// Waits for the encoding in flight and writes the files it filled.
    pub async fn flush(&mut self) -> Result<(), IngestError> {
        let Some(task) = self.encoding.take() else { return Ok(()) };
        let (open, closed) = task.await.map_err(encoder_gone)??;
        self.open = open;
        self.put(closed).await
    }

    /// Closes every open file, writes it, and returns the entries of all files written, in order.
    /// Each file closes (its last row group encoded, its footer written) on a thread of its own:
    /// parsing is over, so nothing else would use the second core during a run's tail.
    pub async fn finish(mut self) -> Result<Vec<FileEntry>, IngestError> {
        self.flush().await?;
        let closing = std::mem::take(&mut self.open).into_iter().map(|(month, f)| async move {
            tokio::task::spawn_blocking(move || f.close(month)).await.map_err(encoder_gone)?
        });
        let closed = futures::future::try_join_all(closing).await?;
        self.put(closed).await?;
        Ok(self.written)
    }

    /// Names the closed files in order, then hashes and writes them concurrently.
    async fn put(&mut self, closed: Closed) -> Result<(), IngestError> {
        let named: Vec<_> = closed
            .into_iter()
            .map(|file| {
                let path = sitrep_lake::layout::part_key(self.dataset, &self.run_id, self.next_part);
                self.next_part += 1;
                (path, file)
            })
            .collect();
        let (lake, run_id, dataset, fetched_at) = (self.lake, &self.run_id, self.dataset, self.fetched_at);
        let writes = named.into_iter().map(|(path, ClosedFile { month, bytes, rows, bounds })| async move {
            let bytes = Bytes::from(bytes);
            let digest = bytes.clone();
            let sha256 = tokio::task::spawn_blocking(move || hex::encode(Sha256::digest(&digest)))
                .await
                .map_err(encoder_gone)?;
            let entry = FileEntry {
                rows: rows as u64,
                bytes: bytes.len() as u64,
                sha256,
                schema_fingerprint: dataset.fingerprint(),
                run_id: run_id.clone(),
                fetched_at,
                partition: month.map(|m| m.to_string()),
                bounds,
                extra: Default::default(),
                path: path.clone(),
            };
            lake.put_data(&path, bytes).await?;
            Ok::<_, IngestError>(entry)
        });
        self.written.extend(futures::future::try_join_all(writes).await?);
        Ok(())
    }
}

/// A blocking task of the writer (encoding, closing, hashing) that panicked or was cancelled.
fn encoder_gone(e: tokio::task::JoinError) -> IngestError {
    IngestError::Validation(format!("writer task: {e}"))
}

/// Encodes `batch` into the open files of its partitions, written with `schema` (the dataset's,
/// field ids stamped); hands back the files that reached `file_rows`, closed.
fn encode_into(
    mut open: OpenFiles,
    dataset: DatasetId,
    schema: &SchemaRef,
    batch: &RecordBatch,
    file_rows: usize,
) -> Result<(OpenFiles, Closed), IngestError> {
    let mut closed = Closed::new();
    for (month, part) in split_by_month(dataset, batch)? {
        if part.num_rows() == 0 {
            continue;
        }
        let file = match open.entry(month) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => e.insert(OpenFile {
                writer: ArrowWriter::try_new(Vec::new(), schema.clone(), Some(properties()))?,
                rows: 0,
                bounds: BTreeMap::new(),
            }),
        };
        file.writer.write(&conform(&part, schema)?)?;
        file.rows += part.num_rows();
        for (column, range) in time_ranges(&part) {
            let merged = file.bounds.get(&column).map_or(range, |r| r.union(range));
            file.bounds.insert(column, merged);
        }
        if file.rows >= file_rows {
            if let Some(full) = open.remove(&month) {
                closed.push(full.close(month)?);
            }
        }
    }
    Ok((open, closed))
}

/// One batch as a dataset's files (see [`DatasetWriter`]); `next_part` advances past them.
pub async fn write_dataset(
    lake: &Lake,
    run_id: &str,
    dataset: DatasetId,
    batch: &RecordBatch,
    fetched_at: DateTime<Utc>,
    next_part: &mut usize,
) -> Result<Vec<FileEntry>, IngestError> {
    let mut writer = DatasetWriter::new(lake, run_id, dataset, fetched_at, *next_part);
    writer.write(batch.clone()).await?;
    let files = writer.finish().await?;
    // Files are numbered consecutively from `next_part`.
    *next_part += files.len();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use arrow::array::AsArray;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use sitrep_pipelines::{acled, synthetic::AcledGenerator};

    use super::*;

    #[tokio::test]
    async fn streams_batches_into_month_files_rolled_over_at_the_row_limit() {
        let lake = Lake::in_memory();
        let as_of = DateTime::parse_from_rfc3339("2026-11-20T06:00:00Z").unwrap().with_timezone(&Utc);
        let mut gen = AcledGenerator::new(2_500, 7, as_of, 90);
        let mut writer = DatasetWriter::new(&lake, "01TESTRUN", DatasetId::ARMED_EVENTS, as_of, 3).with_file_rows(500);
        while let Some(page) = gen.next_page(300) {
            let parsed = acled::parse_page(&page).unwrap();
            writer.write(acled::normalise(parsed.data.iter(), usize::MAX).unwrap()).await.unwrap();
        }
        let files = writer.finish().await.unwrap();

        let numbers: Vec<String> = files.iter().map(|f| f.path.rsplit('/').next().unwrap().to_string()).collect();
        let expected: Vec<String> = (3..3 + files.len()).map(|n| format!("part-{n:05}.parquet")).collect();
        assert_eq!(numbers, expected, "files are numbered consecutively from the first part");
        assert_eq!(files.iter().map(|f| f.rows).sum::<u64>(), 2_500);
        let mut per_month: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        for f in &files {
            let bytes = lake.get_bytes(&f.path).await.unwrap();
            let mut rows = 0;
            let mut range = ColumnRange::default();
            let reader = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
            // Every column carries its Iceberg field id, numbered as the dataset's first schema.
            let ids: Vec<String> =
                reader.schema().fields().iter().map(|f| f.metadata()["PARQUET:field_id"].clone()).collect();
            assert_eq!(ids[0], "1", "{}", f.path);
            for batch in reader.build().unwrap() {
                let batch = batch.unwrap();
                let ms = batch.column_by_name("occurred_at").unwrap().as_primitive::<TimestampMillisecondType>();
                for v in ms.values() {
                    assert_eq!(Some(YearMonth::of_ms(*v).to_string()), f.partition, "{}", f.path);
                    range = range.union(ColumnRange { min: Some(*v), max: Some(*v), nulls: 0 });
                }
                rows += batch.num_rows() as u64;
            }
            assert_eq!(rows, f.rows, "{}: the entry matches the file", f.path);
            assert_eq!(f.bounds["occurred_at"], range, "{}: the entry's range is the file's", f.path);
            per_month.entry(f.partition.clone().unwrap()).or_default().push(f.rows);
        }
        assert!(per_month.len() >= 3, "90 days span at least three months");
        for (month, sizes) in per_month {
            // Every file but a month's last was rolled over once it reached the limit.
            assert!(sizes[..sizes.len() - 1].iter().all(|r| *r >= 500), "{month}: {sizes:?}");
        }
    }

    #[tokio::test]
    async fn refuses_a_batch_of_another_schema() {
        let lake = Lake::in_memory();
        let mut writer = DatasetWriter::new(&lake, "01TESTRUN", DatasetId::HUMANITARIAN, Utc::now(), 0);
        let as_of = Utc::now();
        let page = AcledGenerator::new(10, 1, as_of, 5).next_page(10).unwrap();
        let parsed = acled::parse_page(&page).unwrap();
        let armed = acled::normalise(parsed.data.iter(), usize::MAX).unwrap();
        assert!(matches!(writer.write(armed).await, Err(IngestError::Validation(_))));
        assert!(writer.finish().await.unwrap().is_empty(), "nothing was written");
    }
}
