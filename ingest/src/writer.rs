//! Record batch → immutable Parquet objects under `data/<run>/<dataset>/part-<n>.parquet`, split by
//! month partition where the dataset is month-partitioned.

use std::collections::BTreeMap;

use arrow::{
    array::{AsArray, RecordBatch, UInt32Array},
    compute::take_record_batch,
    datatypes::Int64Type,
};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use parquet::{
    arrow::ArrowWriter,
    basic::Compression,
    file::properties::{EnabledStatistics, WriterProperties},
};
use sha2::{Digest, Sha256};
use sitrep_pipelines::time::YearMonth;
use sitrep_schemas::{DatasetId, FileEntry, Partitioning};

use crate::{IngestError, Lake};

/// Row groups the size DuckDB uses, so zone maps line up with its own.
const ROW_GROUP: usize = 122_880;

pub fn encode(batch: &RecordBatch) -> Result<Bytes, IngestError> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .build();
    let mut buf = Vec::with_capacity(batch.get_array_memory_size() / 2);
    let mut w = ArrowWriter::try_new(&mut buf, batch.schema(), Some(props))?;
    w.write(batch)?;
    w.close()?;
    Ok(Bytes::from(buf))
}

/// Splits by UTC month of the dataset's partition column, keeping row order within each month.
pub fn split_by_month(
    dataset: DatasetId,
    batch: &RecordBatch,
) -> Result<Vec<(Option<YearMonth>, RecordBatch)>, IngestError> {
    let (Partitioning::Month, Some(col)) = (dataset.partitioning(), dataset.partition_column()) else {
        return Ok(vec![(None, batch.clone())]);
    };
    let ms = batch
        .column_by_name(col)
        .ok_or_else(|| IngestError::Validation(format!("{dataset}: missing partition column {col}")))?
        .as_primitive::<Int64Type>();
    let mut groups: BTreeMap<YearMonth, Vec<u32>> = BTreeMap::new();
    for (i, v) in ms.values().iter().enumerate() {
        groups.entry(YearMonth::of_ms(*v)).or_default().push(i as u32);
    }
    groups.into_iter().map(|(m, idx)| Ok((Some(m), take_record_batch(batch, &UInt32Array::from(idx))?))).collect()
}

/// Validates the batch against the dataset schema, writes its partitions and returns their entries.
pub async fn write_dataset(
    lake: &Lake,
    run_id: &str,
    dataset: DatasetId,
    batch: &RecordBatch,
    fetched_at: DateTime<Utc>,
    next_part: &mut usize,
) -> Result<Vec<FileEntry>, IngestError> {
    if !sitrep_schemas::fingerprint::fingerprint_matches(&dataset.schema(), &batch.schema()) {
        return Err(IngestError::Validation(format!("{dataset}: batch schema differs from the lake contract")));
    }
    let mut entries = Vec::new();
    for (month, part) in split_by_month(dataset, batch)? {
        if part.num_rows() == 0 {
            continue;
        }
        let bytes = tokio::task::spawn_blocking(move || encode(&part).map(|b| (b, part.num_rows())))
            .await
            .map_err(|e| IngestError::Validation(format!("encoder task: {e}")))??;
        let (bytes, rows) = bytes;
        let path = format!("data/{run_id}/{dataset}/part-{:05}.parquet", *next_part);
        *next_part += 1;
        let entry = FileEntry {
            path: path.clone(),
            rows: rows as u64,
            bytes: bytes.len() as u64,
            sha256: hex::encode(Sha256::digest(&bytes)),
            schema_fingerprint: dataset.fingerprint(),
            run_id: run_id.to_string(),
            fetched_at,
            partition: month.map(|m| m.to_string()),
        };
        lake.put_data(&path, bytes).await?;
        entries.push(entry);
    }
    Ok(entries)
}
