//! Which dataset version a GET reads, and how its answer is described: the current generation's
//! version, or (for a cursor) the version the cursor pins.

use std::{future::Future, sync::Arc};

use chrono::{DateTime, Utc};
use poem::Request;
use poem_openapi::types::Type;
use sitrep_schemas::DatasetId;

use super::{
    answer::{dataset_get, Answer, DataState, Provenance},
    error::{ApiError, Violations},
    paged_list::{ListParams, NoFilters},
    params::{Param, AS_OF},
    parse::{parse, Parsed},
};
use crate::{
    app_state::AppState,
    registry::Operation,
    snapshot::{DatasetDb, Generation},
};

/// The whole GET of an operation without parameters whose answer is one dataset version (besides
/// jmespath): [`params_get`] with no filters.
pub async fn whole_dataset_get<T, R, F, Fut>(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
    empty: R,
    render: F,
) -> Answer<T>
where
    T: Type,
    R: serde::Serialize + Send + 'static,
    F: FnOnce(Arc<DatasetDb>) -> Fut,
    Fut: Future<Output = Result<R, ApiError>>,
{
    params_get::<NoFilters, T, R, _, _, _>(state, req, op, |_| empty, |db, _| render(db)).await
}

/// The GET of an operation whose dataset the deployment turned off: the documented `empty` answer
/// ([`switched_off`]).
pub async fn disabled_get<T: Type, R: serde::Serialize + Send + 'static>(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
    empty: R,
) -> Answer<T> {
    let jmespath = match parse::<NoFilters, T>(state, req, op) {
        Ok(parsed) => parsed.jmespath,
        Err(e) => return e.into(),
    };
    switched_off(state, req, op.dataset(), jmespath.as_deref(), empty).await
}

/// The answer about `dataset`, which the deployment turned off, of any operation that reads or
/// names it: `empty`, unavailable and never cached, marked [`DisabledByDeployment`] (jmespath
/// still applies).
pub async fn switched_off<T: Type, R: serde::Serialize + Send + 'static>(
    state: &AppState,
    req: &Request,
    dataset: DatasetId,
    jmespath: Option<&str>,
    empty: R,
) -> Answer<T> {
    let (provenance, _) = current(state, dataset);
    let answer =
        dataset_get::<T, R, _>(&state.cache, req, None, jmespath, unavailable(provenance), async { Ok(empty) });
    let mut response = answer.await.0;
    response.extensions_mut().insert(DisabledByDeployment);
    Answer::from_response(response)
}

/// The GET of an operation whose answer is one version of its dataset read with parameters: `P`
/// parsed ([`parse`]), the current version, the body-cache key from `P`'s canonical form,
/// `empty(&P)` before the first publication, and `render` only on a body-cache miss.
pub async fn params_get<P, T, R, E, F, Fut>(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
    empty: E,
    render: F,
) -> Answer<T>
where
    P: ListParams,
    T: Type,
    R: serde::Serialize + Send + 'static,
    E: FnOnce(&P) -> R,
    F: FnOnce(Arc<DatasetDb>, P) -> Fut,
    Fut: Future<Output = Result<R, ApiError>>,
{
    let Parsed { params, jmespath, as_of } = match parse::<P, T>(state, req, op) {
        Ok(parsed) => parsed,
        Err(e) => return e.into(),
    };
    let jmespath = jmespath.as_deref();
    let (provenance, db) = match read_at(state, op.dataset(), as_of).await {
        Ok(read) => read,
        Err(e) => return e.into(),
    };
    let key = db.as_ref().map(|d| params.canonical().answer_key(op.segment(), &[d.version as i64]));
    dataset_get(&state.cache, req, key, jmespath, provenance, async move {
        match db {
            Some(db) => render(db, params).await,
            None => Ok(empty(&params)),
        }
    })
    .await
}

/// How an operation computed from its several datasets (the energy-shock scenario) reads them.
pub struct InputSet<P> {
    /// The dataset whose version describes the answer (unavailable until it is published).
    pub primary: fn(&P) -> DatasetId,
    /// How long an answer may be reused, besides its inputs' versions.
    pub ttl: std::time::Duration,
}

/// The GET of an operation computed from several datasets of one generation: `P` parsed as in
/// [`params_get`]; the answer described by the primary dataset's version (unavailable before it
/// is published, stale when any loaded input is); the body cache keyed by the canonical
/// parameters, every input's version and the `ttl` window; `render` gets the loaded versions in
/// `op.datasets` order (None: not published).
pub async fn inputs_get<P, T, R, F, Fut>(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
    inputs: &InputSet<P>,
    render: F,
) -> Answer<T>
where
    P: ListParams,
    T: Type,
    R: serde::Serialize + Send + 'static,
    F: FnOnce(Vec<Option<Arc<DatasetDb>>>, P) -> Fut,
    Fut: Future<Output = Result<R, ApiError>>,
{
    let Parsed { params, jmespath, as_of } = match parse::<P, T>(state, req, op) {
        Ok(parsed) => parsed,
        Err(e) => return e.into(),
    };
    let jmespath = jmespath.as_deref();
    // One generation for every input, so the answer never mixes two (as of a past time: each
    // input's version then).
    let generation = state.snapshots.current();
    let mut reads = Vec::with_capacity(op.datasets.len());
    for d in op.datasets {
        reads.push(match as_of {
            None => in_generation(generation.as_deref(), *d),
            Some(_) => match read_at(state, *d, as_of).await {
                Ok(read) => read,
                Err(e) => return e.into(),
            },
        });
    }
    let primary = (inputs.primary)(&params);
    let Some(mut provenance) = op.datasets.iter().position(|d| *d == primary).map(|i| reads[i].0) else {
        return ApiError::internal(format!("{} does not declare its primary input {primary}", op.id)).into();
    };
    let (window, window_end) = reuse_window(inputs.ttl, Utc::now());
    // What the answer is a function of besides its parameters: the window, each input's version.
    let (mut scope, mut dbs) = (vec![window as i64], Vec::with_capacity(op.datasets.len()));
    for (p, db) in reads {
        if db.is_some() && p.state == DataState::Stale && provenance.state == DataState::Fresh {
            provenance.state = DataState::Stale;
        }
        if db.is_some() {
            // The answer's state turns when any loaded input's does.
            provenance.until = provenance.until.zip(p.until).map(|(a, b)| a.min(b));
        }
        provenance.replay |= p.replay;
        scope.push(db.as_ref().map_or(0, |d| d.version as i64));
        dbs.push(db);
    }
    provenance.until = provenance.until.zip(window_end).map(|(a, b)| a.min(b));
    let key = (provenance.state != DataState::Unavailable).then(|| params.canonical().answer_key(op.segment(), &scope));
    dataset_get(&state.cache, req, key, jmespath, provenance, render(dbs, params)).await
}

/// The `ttl`-long window `now` falls in (its number, part of the cache key) and when it ends.
fn reuse_window(ttl: std::time::Duration, now: chrono::DateTime<Utc>) -> (u64, Option<chrono::DateTime<Utc>>) {
    let ttl = ttl.as_secs().max(1);
    let window = now.timestamp().max(0) as u64 / ttl;
    (window, chrono::DateTime::from_timestamp(((window + 1) * ttl) as i64, 0))
}

/// The version of `dataset` a request reads, with the provenance of an answer built from it: the
/// current one, or `as_of` a past time the newest retained version published at or before it (the
/// current one from its publication on, the future included). `as_of` before every retained
/// version is a violation of `asOf` naming the oldest.
pub async fn read_at(
    state: &AppState,
    dataset: DatasetId,
    as_of: Option<DateTime<Utc>>,
) -> Result<(Provenance, Option<Arc<DatasetDb>>), ApiError> {
    let mut v = Violations::default();
    let read = at(state, dataset, as_of, &AS_OF, &mut v).await?;
    v.into_result()?;
    Ok(read)
}

/// [`read_at`] for a caller collecting violations: a time (of `param`) before every retained
/// version is pushed to `v` (the current version is returned then, never served with it).
pub async fn at(
    state: &AppState,
    dataset: DatasetId,
    as_of: Option<DateTime<Utc>>,
    param: &Param,
    v: &mut Violations,
) -> Result<(Provenance, Option<Arc<DatasetDb>>), ApiError> {
    let (provenance, db) = current(state, dataset);
    let Some(t) = as_of.filter(|t| db.as_ref().is_none_or(|d| !sitrep_lake::published_by(d.published_at, *t))) else {
        return Ok((provenance, db));
    };
    let retained = state.snapshots.retained_history(dataset).await.map_err(ApiError::internal)?;
    let Some(oldest) = retained.last() else {
        // Never published: unavailable then as now.
        return Ok((provenance, db));
    };
    let Some(then) = retained.iter().find(|p| p.published_by(t)) else {
        let oldest = oldest.published_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        v.push(&param.field(), format!("{} is before the oldest retained version ({oldest})", param.name));
        return Ok((provenance, db));
    };
    if db.as_ref().is_some_and(|d| d.version == then.version) {
        return Ok((provenance, db));
    }
    let then = state.snapshots.load_published(dataset, then).await.map_err(ApiError::from)?;
    Ok((pinned(&then), Some(then)))
}

/// The current generation's version of `dataset` (None: never published or not loaded), with the
/// provenance of an answer built from it.
pub fn current(state: &AppState, dataset: DatasetId) -> (Provenance, Option<Arc<DatasetDb>>) {
    in_generation(state.snapshots.current().as_deref(), dataset)
}

/// [`current`] in a given generation (an operation reading several datasets takes one).
fn in_generation(generation: Option<&Generation>, dataset: DatasetId) -> (Provenance, Option<Arc<DatasetDb>>) {
    let db = generation.and_then(|g| g.dataset(dataset)).cloned();
    // The generation's freshness, not the loaded version's: an unchanged fetch moves the fetch
    // time of a version that stays loaded.
    let freshness = generation.and_then(|g| g.commit.dataset(dataset)).map(|e| &e.freshness).filter(|_| db.is_some());
    let (number, published_at) =
        generation.map(|g| (g.number, g.committed_at)).unwrap_or((0, chrono::DateTime::UNIX_EPOCH));
    let state = DataState::of(dataset, freshness, Utc::now());
    let provenance = Provenance {
        generation: number,
        published_at,
        state,
        replay: db.as_ref().is_some_and(|d| d.is_replay()),
        until: state.holds_until(DataState::stale_from(dataset, freshness)),
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
        until: None,
    }
}

/// Marks an answer that is empty because the deployment turned its dataset off (not because the
/// data is missing): an agent is told the documented empty answer, not that data is unavailable.
#[derive(Debug, Clone, Copy)]
pub struct DisabledByDeployment;

/// The answer of a dataset that is not available: never cached, `X-Data-State: unavailable`.
pub fn unavailable(mut provenance: Provenance) -> Provenance {
    provenance.state = DataState::Unavailable;
    provenance.until = None;
    provenance
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_computed_answer_is_reused_until_its_window_ends() {
        let ttl = std::time::Duration::from_secs(300);
        let now = chrono::DateTime::from_timestamp(1_800_000_123, 0).unwrap();
        let (window, end) = reuse_window(ttl, now);
        let end = end.unwrap();
        assert!(now < end && end <= now + chrono::Duration::seconds(300), "{now} .. {end}");
        assert_eq!(reuse_window(ttl, end - chrono::Duration::seconds(1)).0, window, "the same window up to its end");
        assert_eq!(reuse_window(ttl, end).0, window + 1, "a new window, a new key, a new answer");
    }
}
