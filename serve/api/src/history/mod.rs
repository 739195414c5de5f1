//! The History group (issue 31): what the lake keeps of each dataset. ListDatasetVersions lists the
//! retained versions (the retention policy the garbage collector keeps the files of);
//! ListDatasetChanges compares two of them row by row.

mod changes;
mod diff;
pub mod diff_cache;
mod diff_file;
pub mod model;
mod row_render;
mod side_rows;

use poem::Request;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_schemas::DatasetId;

use self::model::*;
use sitrep_platform::{
    answered_by,
    app_state::AppState,
    kit::{
        answer::{dataset_get, Answer},
        dataset_read::{current, switched_off},
        error::{ApiError, Violations},
        params::{Param, ParamKind, RawQuery, CURSOR, PAGE_SIZE},
        parse::parse_with,
    },
    registry::{Group, Operation},
};

pub use diff::Totals;

/// The rows added, removed and changed from version `older` of `dataset` to `newer`, from their
/// diff (computed unless kept: a webhook's counts, and the ListDatasetChanges page a receiver
/// asks next, share it); `None` when either version is no longer retained. A diff longer than a
/// caller's patience is waited for.
pub async fn totals_between(
    state: &AppState,
    dataset: DatasetId,
    older: u64,
    newer: u64,
) -> Result<Option<Totals>, ApiError> {
    let load = |version| state.snapshots.version_or_load(dataset, version);
    let (Some(older), Some(newer)) = (load(older).await?, load(newer).await?) else { return Ok(None) };
    loop {
        match changes::diff_of(state, dataset, &older, &newer).await {
            Ok(diff) => return Ok(Some(diff.totals)),
            Err(e) => match &*e {
                diff::DiffError::InProgress { retry_after } => tokio::time::sleep(*retry_after).await,
                other => return Err(ApiError::internal(other)),
            },
        }
    }
}

pub static GROUP: Group = Group {
    tag: "History",
    description: "The versions the lake keeps of each dataset.",
    operations: &[&LIST_DATASET_VERSIONS, &LIST_DATASET_CHANGES],
};

pub const DATASET: Param = Param {
    name: "dataset",
    kind: ParamKind::OneOf { values: &DatasetId::ALL_IDS },
    required: true,
    description: "A scheduled dataset's id (`armed-events`, `co2-monitoring`, …; `get_sources` lists them). Asks what the dataset's own operations ask: a dataset a PRO operation reads needs a PRO plan (403 otherwise); one the deployment does not serve answers empty, unavailable.",
};

pub static LIST_DATASET_VERSIONS: Operation = Operation {
    id: "ListDatasetVersions",
    path: "/api/history/v1/list-dataset-versions",
    summary:
        "the retained versions of a dataset, newest first: when each was published, its rows, content hash and mode.",
    params: &[DATASET],
    dataset_param: Some(DATASET),
    answer: answered_by!(ListDatasetVersionsResponse, list_dataset_versions),
    ..Operation::GET
};

pub static LIST_DATASET_CHANGES: Operation = Operation {
    id: "ListDatasetChanges",
    path: "/api/history/v1/list-dataset-changes",
    summary: "the rows added, removed and changed between the versions of a dataset current at two times, matched by its row key.",
    params: &[DATASET, changes::SINCE, changes::UNTIL, PAGE_SIZE, CURSOR],
    dataset_param: Some(DATASET),
    answer: answered_by!(ListDatasetChangesResponse, changes::list_dataset_changes),
    ..Operation::GET
};

/// The `dataset` parameter: required, one of the known ids.
pub fn dataset_param(q: &RawQuery, v: &mut Violations) -> Option<DatasetId> {
    if DATASET.raw(q).is_none() {
        v.push(&DATASET.field(), "value is required");
        return None;
    }
    DATASET.one_of(q, v).and_then(|id| id.parse().ok())
}

async fn list_dataset_versions(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<ListDatasetVersionsResponse> {
    let parsed = match parse_with::<ListDatasetVersionsResponse, _>(req, op, dataset_param) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let Some(dataset) = parsed.params else { return ApiError::internal("dataset parsed without a value").into() };
    if !state.settings.serves(dataset) {
        let empty = ListDatasetVersionsResponse { dataset: dataset.as_str().to_string(), versions: Vec::new() };
        return switched_off(state, req, dataset, parsed.jmespath.as_deref(), empty).await;
    }
    let (mut provenance, db) = current(state, dataset);
    let current = db.map(|d| d.version);
    // Not remembered by the edge: the retention window slides with the clock.
    provenance.until = None;
    let history = state.snapshots.retained_history(dataset);
    dataset_get(&state.cache, req, None, parsed.jmespath.as_deref(), provenance, async move {
        let versions = history
            .await
            .map_err(|e| ApiError::internal(format!("dataset history: {e}")))?
            .iter()
            .map(|v| DatasetVersion {
                version: v.version as i64,
                published_at: v.published_at.timestamp_millis(),
                rows: v.entry.freshness.rows as i64,
                content_hash: v.entry.content_hash.clone().unwrap_or_default(),
                mode: WireName(v.entry.freshness.mode),
                current: Some(v.version) == current,
            })
            .collect();
        Ok(ListDatasetVersionsResponse { dataset: dataset.as_str().to_string(), versions })
    })
    .await
}
