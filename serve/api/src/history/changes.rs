//! ListDatasetChanges: the rows added, removed and changed between the versions of a dataset
//! current at `since` and at `until` (default now), keyed by the dataset's declared row key and
//! paged with dataset cursors, which pin both versions (`gen` the newer, `s` the older).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use poem::Request;
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::{check_jmespath_length, dataset_get, Answer, Provenance},
        canonical::Canonical,
        cursor::{self, CursorPayload},
        dataset_read::{at, pinned, switched_off, unavailable},
        error::{ApiError, Violation, Violations},
        paged_list::{next_cursor, Pagination},
        params::{Param, ParamKind, RawQuery, CURSOR, JMESPATH, PAGE_SIZE},
        parse::in_declared_order,
    },
    registry::Operation,
    snapshot::DatasetDb,
};
use sitrep_schemas::DatasetId;

use crate::context::context;

use super::{
    dataset_param,
    diff::{materialise_file, DiffError, Totals, MAX_BYTES},
    diff_cache::Outcome,
    model::*,
};

pub const SINCE: Param = Param {
    name: "since",
    kind: ParamKind::Instant,
    required: true,
    description: "The older end (RFC 3339 or epoch milliseconds): the version current then.",
};

pub const UNTIL: Param = Param {
    name: "until",
    kind: ParamKind::Instant,
    required: false,
    description: "The newer end (RFC 3339 or epoch milliseconds): the version current then; absent = now.",
};

/// The two versions a page compares, the older first.
struct Pair {
    older: Arc<DatasetDb>,
    newer: Arc<DatasetDb>,
}

pub async fn list_dataset_changes(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<ListDatasetChangesResponse> {
    let q = RawQuery::of(req);
    let mut v = Violations::default();
    let dataset = dataset_param(&q, &mut v);
    if SINCE.raw(&q).is_none() {
        v.push(&SINCE.field(), "value is required");
    }
    let since = SINCE.instant(&q, &mut v);
    let until = UNTIL.instant(&q, &mut v);
    if since.zip(until).is_some_and(|(s, u)| s > u) {
        v.push(&SINCE.field(), "since must be less than or equal to until");
    }
    let page_size = PAGE_SIZE.int32(&q, &mut v);
    let filters = Canonical::new(vec![("dataset", dataset.map(|d| d.to_string()).unwrap_or_default())]);
    let (Some(dataset), Some(since)) = (dataset, since) else { return refused(v, op).into() };
    if !state.settings.serves(dataset) && v.0.is_empty() {
        let jmespath = JMESPATH.raw(&q);
        if let Err(e) = check_jmespath_length::<ListDatasetChangesResponse>(jmespath) {
            return e.into();
        }
        let empty = ListDatasetChangesResponse { dataset: dataset.to_string(), ..Default::default() };
        return switched_off(state, req, dataset, jmespath, empty).await;
    }
    let (provenance, pair, offset) = match CURSOR.raw(&q) {
        Some(c) => match cursor::decode(&state.cursor_secret, c, op.segment(), &filters.filter_hash()) {
            Err(msg) => {
                v.push(&CURSOR.field(), msg);
                return refused(v, op).into();
            }
            Ok(p) => match pinned_pair(state, dataset, &p).await {
                Ok(Some(pair)) => (pinned(&pair.newer), Some(pair), p.off),
                Ok(None) => {
                    v.push(&CURSOR.field(), cursor::NO_LONGER_AVAILABLE);
                    return refused(v, op).into();
                }
                Err(e) => return e.into(),
            },
        },
        None => match pair_at(state, dataset, since, until, &mut v).await {
            Ok((provenance, pair)) => (provenance, pair, 0),
            Err(e) => return e.into(),
        },
    };
    if !v.0.is_empty() {
        return refused(v, op).into();
    }
    let jmespath = JMESPATH.raw(&q);
    if let Err(e) = check_jmespath_length::<ListDatasetChangesResponse>(jmespath) {
        return e.into();
    }
    let Some(pair) = pair else {
        let empty = ListDatasetChangesResponse { dataset: dataset.to_string(), ..Default::default() };
        return dataset_get(&state.cache, req, None, jmespath, provenance, async { Ok(empty) }).await;
    };
    // Not remembered by the edge: which version is current at `since` moves with retention.
    // Nor kept in the body cache: a page is already a range read of the rendered diff (well under
    // a millisecond), and a client paging a large diff would otherwise fill the cache with pages
    // no one reads twice, evicting other accounts' answers.
    let provenance = Provenance { until: None, ..provenance };
    let render = async move {
        let diff = diff_of(state, dataset, &pair.older, &pair.newer).await.map_err(|e| not_had(&e))?;
        let totals = diff.totals;
        // Held until the page is read: an eviction meanwhile deletes the file after it.
        let lines = tokio::task::spawn_blocking(move || diff.page(offset, page_size as u64))
            .await
            .map_err(ApiError::internal)?
            .map_err(|e| ApiError::internal(format!("a diff's page: {e}")))?;
        let rows = lines.iter().map(|l| parsed(l)).collect::<Result<Vec<RowChange>, _>>()?;
        let this_page = CursorPayload {
            op: op.segment().into(),
            gen: pair.newer.version,
            off: offset,
            fh: filters.filter_hash(),
            s: Some(pair.older.version as i64),
            e: None,
        };
        let next_cursor = next_cursor(&state.cursor_secret, this_page, rows.len(), totals.all());
        respond(dataset, &pair, rows, totals, next_cursor)
    };
    dataset_get(&state.cache, req, None, jmespath, provenance, render).await
}

/// The diff of two versions of `dataset`, computed once and kept while the cache keeps it (what
/// ListDatasetChanges pages, and what a webhook's counts are read from).
pub(super) async fn diff_of(
    state: &AppState,
    dataset: DatasetId,
    older: &Arc<DatasetDb>,
    newer: &Arc<DatasetDb>,
) -> Outcome {
    let (older, newer) = (older.clone(), newer.clone());
    let versions = (dataset, older.version, newer.version);
    let memory = state.snapshots.diff_memory().to_string();
    context(state)
        .diffs
        .get_or_compute(&state.snapshots.scratch_dir(), versions, state.snapshots.work_time(), move |into, running| {
            materialise_file(&older, &newer, into, &memory, MAX_BYTES, running)
        })
        .await
}

/// The versions current at `since` and at `until` (now when absent), described by the newer;
/// `None` when the dataset was never published. A time before every retained version is pushed
/// to `v`.
async fn pair_at(
    state: &AppState,
    dataset: DatasetId,
    since: DateTime<Utc>,
    until: Option<DateTime<Utc>>,
    v: &mut Violations,
) -> Result<(Provenance, Option<Pair>), ApiError> {
    let (provenance, newer) = at(state, dataset, until, &UNTIL, v).await?;
    let (_, older) = at(state, dataset, Some(since), &SINCE, v).await?;
    Ok(match newer.zip(older) {
        Some((newer, older)) => (provenance, Some(Pair { older, newer })),
        None => (unavailable(provenance), None),
    })
}

/// The answer when a diff was not had: a caller whose time is spent is asked to come back; one
/// whose versions are too far apart to list, to ask for closer times.
fn not_had(e: &DiffError) -> ApiError {
    match e {
        DiffError::Busy(spent) => ApiError::RateLimited { retry_after: spent.retry_after.as_secs().max(1) },
        DiffError::InProgress { retry_after } => ApiError::StillComputing { retry_after: retry_after.as_secs().max(1) },
        DiffError::TooLarge { limit } => ApiError::Validation(vec![Violation {
            field: SINCE.field().to_string(),
            description: format!(
                "the changes since then take more than {limit} bytes to list; ask for a later since or an earlier until"
            ),
        }]),
        other => ApiError::internal(other),
    }
}

/// The 400 of the violations found (they are never none when this is called).
fn refused(v: Violations, op: &Operation) -> ApiError {
    let missing = || ApiError::internal("a required parameter parsed without a value or a violation");
    in_declared_order(v, op.params).into_result().err().unwrap_or_else(missing)
}

/// The versions a cursor pins, if both are still retained.
async fn pinned_pair(state: &AppState, dataset: DatasetId, p: &CursorPayload) -> Result<Option<Pair>, ApiError> {
    let Some(older) = p.s.and_then(|s| u64::try_from(s).ok()) else { return Ok(None) };
    let load = |version| state.snapshots.version_or_load(dataset, version);
    let newer = load(p.gen).await.map_err(ApiError::from)?;
    let older = load(older).await.map_err(ApiError::from)?;
    Ok(newer.zip(older).map(|(newer, older)| Pair { older, newer }))
}

fn respond(
    dataset: DatasetId,
    pair: &Pair,
    changes: Vec<RowChange>,
    totals: Totals,
    next_cursor: String,
) -> Result<ListDatasetChangesResponse, ApiError> {
    let version =
        |db: &DatasetDb| VersionRef { version: db.version as i64, published_at: db.published_at.timestamp_millis() };
    Ok(ListDatasetChangesResponse {
        dataset: dataset.to_string(),
        key: dataset.row_key().iter().map(|k| k.to_string()).collect(),
        since: version(&pair.older),
        until: version(&pair.newer),
        summary: ChangeSummary { added: totals.added, removed: totals.removed, changed: totals.changed },
        changes,
        pagination: Pagination { next_cursor, total_count: totals.all() as i32 },
    })
}

/// A changed row as DuckDB rendered it (a line of the diff file).
fn parsed<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, ApiError> {
    serde_json::from_str(s).map_err(|e| ApiError::internal(format!("a changed row's JSON: {e}")))
}
