//! Which dataset version a GET reads, and how its answer is described: the current generation's
//! version, or (for a cursor) the version the cursor pins.

use std::{future::Future, sync::Arc};

use chrono::Utc;
use poem::Request;
use poem_openapi::types::Type;
use sitrep_schemas::DatasetId;

use super::{
    answer::{check_jmespath_length, dataset_get, Answer, DataState, Provenance},
    canonical::Canonical,
    error::ApiError,
    params::{RawQuery, JMESPATH},
};
use crate::{app_state::AppState, snapshot::DatasetDb};

/// The whole GET of an operation without parameters whose answer is one dataset version (besides
/// jmespath): the expression's length, the current version, its body-cache key (`op`), `empty`
/// before the first publication, and `render` only on a body-cache miss.
pub async fn whole_dataset_get<T, R, F, Fut>(
    state: &AppState,
    req: &Request,
    dataset: DatasetId,
    op: &'static str,
    empty: R,
    render: F,
) -> Answer<T>
where
    T: Type,
    R: serde::Serialize,
    F: FnOnce(Arc<DatasetDb>) -> Fut,
    Fut: Future<Output = Result<R, ApiError>>,
{
    let query = RawQuery::of(req);
    let jmespath = JMESPATH.raw(&query);
    if let Err(e) = check_jmespath_length::<T>(jmespath) {
        return e.into();
    }
    let (provenance, db) = current(state, dataset);
    let key = db.as_ref().map(|d| Canonical::default().cache_key(op, d.version, "", jmespath));
    dataset_get(&state.cache, req, key, jmespath, provenance, async move {
        match db {
            Some(db) => render(db).await,
            None => Ok(empty),
        }
    })
    .await
}

/// The current generation's version of `dataset` (None: never published or not loaded), with the
/// provenance of an answer built from it.
pub fn current(state: &AppState, dataset: DatasetId) -> (Provenance, Option<Arc<DatasetDb>>) {
    let generation = state.snapshots.current();
    let db = generation.as_ref().and_then(|g| g.dataset(dataset)).cloned();
    // The generation's freshness, not the loaded version's: an unchanged fetch moves the fetch
    // time of a version that stays loaded.
    let freshness = generation.as_ref().and_then(|g| g.commit.dataset(dataset)).map(|e| &e.freshness);
    let (number, published_at) =
        generation.as_ref().map(|g| (g.number, g.committed_at)).unwrap_or((0, chrono::DateTime::UNIX_EPOCH));
    let provenance = Provenance {
        generation: number,
        published_at,
        state: DataState::of(dataset, freshness.filter(|_| db.is_some()), Utc::now()),
        replay: db.as_ref().is_some_and(|d| d.is_replay()),
    };
    (provenance, db)
}

/// The provenance of an answer from a pinned version: the generation that published it.
pub fn pinned(db: &DatasetDb) -> Provenance {
    Provenance {
        generation: db.version,
        published_at: db.published_at,
        state: DataState::of(db.dataset, Some(&db.freshness), Utc::now()),
        replay: db.is_replay(),
    }
}

/// The answer of a dataset that is not available: never cached, `X-Data-State: unavailable`.
pub fn unavailable(mut provenance: Provenance) -> Provenance {
    provenance.state = DataState::Unavailable;
    provenance
}
