//! Backfill: fetch historical month partitions one by one, writing each month's Parquet as soon as
//! it is fetched and recording it in a checkpoint (`staging/…json`), then publish ONE commit that
//! replaces exactly those months. An interrupted backfill resumes from its checkpoint.

use std::collections::BTreeMap;

use bytes::Bytes;
use chrono::Utc;
use object_store::{ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};
use sitrep_pipelines::{time::YearMonth, Scope, Window};
use sitrep_schemas::{Commit, DatasetId, FileEntry};

use crate::{
    lake::{Outcome, Staged},
    runner::Runner,
    writer::write_dataset,
    IngestError, Lake,
};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    pub run_id: String,
    pub dataset: DatasetId,
    pub from: String,
    pub to: String,
    pub next_part: usize,
    /// Month → the files written for it (possibly none for an empty month).
    pub done: BTreeMap<String, Vec<FileEntry>>,
}

fn checkpoint_key(dataset: DatasetId, from: YearMonth, to: YearMonth) -> String {
    format!("staging/backfill-{dataset}-{from}-{to}.json")
}

async fn save(lake: &Lake, key: &str, cp: &Checkpoint) -> Result<(), IngestError> {
    let body = serde_json::to_vec_pretty(cp).map_err(|e| IngestError::Validation(e.to_string()))?;
    // Checkpoints are the one mutable kind of object: they describe work in progress, not data.
    lake.store().put(&Lake::path(key), PutPayload::from(Bytes::from(body))).await?;
    Ok(())
}

pub async fn backfill(
    runner: &Runner,
    dataset: DatasetId,
    from: YearMonth,
    to: YearMonth,
    mut progress: impl FnMut(YearMonth, bool),
) -> Result<Commit, IngestError> {
    if from > to {
        return Err(IngestError::Usage(format!("FROM {from} is after TO {to}")));
    }
    let source = runner.source(dataset).ok_or_else(|| IngestError::Usage(format!("no source for {dataset}")))?;
    if !source.supports_backfill() {
        return Err(IngestError::Usage(format!(
            "{dataset} does not support backfill (its upstream has no date windows)"
        )));
    }
    let lake = &runner.lake;
    let key = checkpoint_key(dataset, from, to);
    let mut cp = match lake.get_bytes(&key).await {
        Ok(b) => serde_json::from_slice(&b).map_err(|e| IngestError::Validation(format!("{key}: {e}")))?,
        Err(sitrep_lake::LakeError::Store(object_store::Error::NotFound { .. })) => Checkpoint {
            run_id: ulid::Ulid::new().to_string(),
            dataset,
            from: from.to_string(),
            to: to.to_string(),
            next_part: 0,
            done: BTreeMap::new(),
        },
        Err(e) => return Err(e.into()),
    };
    let months = YearMonth::range(from, to);
    for &month in &months {
        if cp.done.contains_key(&month.to_string()) {
            progress(month, true);
            continue;
        }
        let ctx = runner.env.context();
        let fetched = source.fetch(&ctx, Window::Month(month)).await?;
        let mut next = cp.next_part;
        let files = write_dataset(lake, &cp.run_id, dataset, &fetched.batch, Utc::now(), &mut next).await?;
        cp.next_part = next;
        cp.done.insert(month.to_string(), files);
        save(lake, &key, &cp).await?;
        progress(month, false);
    }
    let now = Utc::now();
    let staged = Staged {
        run_stats: Vec::new(),
        run_id: cp.run_id.clone(),
        operation: format!("backfill {dataset} {from}..{to}"),
        outcomes: vec![Outcome::Fetched {
            partial_error: None,
            dataset,
            files: cp.done.values().flatten().cloned().collect(),
            scope: Scope::Months(months),
            fetched_at: now,
            as_of: runner.env.context().now,
            upstream_version: None,
            keeps_as_of: true,
            mode: runner.env.mode(),
            content_hash: None,
            content_at: None,
        }],
    };
    let commit = lake.publish(&staged).await?;
    lake.store().delete(&Lake::path(&key)).await?;
    Ok(commit)
}
