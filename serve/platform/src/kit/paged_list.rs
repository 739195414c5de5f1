//! The one GET pipeline of paged dataset lists (SUPPLEMENT 1.6, 1.7). A list operation declares a
//! [`PagedList`] — its dataset, the bounds it pins on the first page, its page query and its
//! response shape — plus a [`ListParams`] struct for its filters; everything else (page size,
//! cursors and their checks, the dataset version, the canonical request behind the cache key
//! and the cursor's filter hash, jmespath, unavailable answers) happens here once.

use std::sync::Arc;

use duckdb::Connection;
use poem::Request;
use poem_openapi::{types::Type, Object};
use serde::Serialize;

use super::{
    answer::{check_jmespath_length, dataset_get, Answer},
    canonical::Canonical,
    cursor::{self, CursorPayload},
    dataset_read,
    error::{ApiError, Violations},
    params::{RawQuery, AS_OF, CURSOR, JMESPATH, PAGE_SIZE},
    parse::{self, in_declared_order},
};
use crate::{app_state::AppState, registry::Operation, snapshot::DatasetDb};

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Pagination {
    /// Cursor of the next page; empty when no rows remain.
    pub next_cursor: String,
    /// Rows matching the filters in the dataset version.
    pub total_count: i32,
}

/// An operation's parameters, parsed from the query (every violation pushed, none returned early).
pub trait QueryParams: Sized + Send + 'static {
    fn parse(q: &RawQuery, v: &mut Violations) -> Self;
    /// Defaults that come from the deployment (the default consumer-prices market, kept by the
    /// group's crate in the state), applied after parsing and before the canonical form is taken.
    fn apply_deployment(&mut self, _state: &AppState) {}
}

/// A dataset answer's parameters: what the answer is a function of.
pub trait ListParams: QueryParams + Sync {
    /// The filters in canonical form: the cursor's filter hash and part of the cache key.
    fn canonical(&self) -> Canonical;
}

/// The filters of a list that has none (besides paging): its canonical filter string is empty.
#[derive(Debug, Clone, Copy)]
pub struct NoFilters;

impl QueryParams for NoFilters {
    fn parse(_: &RawQuery, _: &mut Violations) -> Self {
        NoFilters
    }
}

impl ListParams for NoFilters {
    fn canonical(&self) -> Canonical {
        Canonical::default()
    }
}

/// Inclusive bounds fixed on the first page and carried by its cursors (SUPPLEMENT 1.7 `s`, `e`),
/// so defaults such as "end = as-of" do not move while paging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub start: i64,
    pub end: i64,
}

/// Rows `offset .. offset + limit` of the filtered list.
#[derive(Debug, Clone, Copy)]
pub struct Page {
    pub limit: i64,
    pub offset: i64,
}

/// A page of rows and the total count of rows matching the filters.
pub type PageOf<Row> = duckdb::Result<(Vec<Row>, i64)>;

/// What a paged list operation declares besides its [`Operation`] (whose path segment is the
/// cursor's `op`, whose first dataset is the one paged, whose parameters order the violations).
pub struct PagedList<P, Row, Body> {
    /// The bounds of a first page, from its filters and the version's as-of (epoch ms); `None` for
    /// lists without a time range (their cursors carry no `s`/`e`).
    pub bounds: Option<fn(&P, as_of_ms: i64) -> Bounds>,
    /// The page and the total count of rows matching the filters, on a pooled connection.
    pub page: fn(&Connection, &DatasetDb, &P, Bounds, Page) -> PageOf<Row>,
    pub respond: fn(Vec<Row>, Pagination) -> Body,
}

impl<P, Row, Body> PagedList<P, Row, Body>
where
    P: ListParams,
    Row: Send + 'static,
    Body: Serialize + Type + Default + Send + 'static,
{
    pub async fn answer(&'static self, state: &AppState, req: &Request, op: &'static Operation) -> Answer<Body> {
        let q = RawQuery::of(req);
        let mut v = Violations::default();
        let page_size = PAGE_SIZE.int32(&q, &mut v);
        let mut params = P::parse(&q, &mut v);
        params.apply_deployment(state);
        let filters = params.canonical();
        let as_of = parse::as_of(op, &q, &mut v);
        // A cursor pins its own version; otherwise the current one, or the one as of a past time.
        let (current_provenance, current) = if CURSOR.raw(&q).is_some() {
            dataset_read::current(state, op.dataset())
        } else {
            match dataset_read::at(state, op.dataset(), as_of, &AS_OF, &mut v).await {
                Ok(read) => read,
                Err(e) => return e.into(),
            }
        };
        let mut pinned: Option<(CursorPayload, Arc<DatasetDb>)> = None;
        if let Some(c) = CURSOR.raw(&q) {
            match cursor::decode(&state.cursor_secret, c, op.segment(), &filters.filter_hash()) {
                Err(msg) => v.push("cursor", msg),
                Ok(p) => {
                    let db = match current.clone().filter(|d| d.version == p.gen) {
                        Some(db) => Some(db),
                        None => match state.snapshots.version_or_load(op.dataset(), p.gen).await {
                            Ok(db) => db,
                            Err(e) => return ApiError::from(e).into(),
                        },
                    };
                    match db {
                        Some(db) => pinned = Some((p, db)),
                        None => v.push("cursor", cursor::NO_LONGER_AVAILABLE),
                    }
                }
            }
        }
        let db = pinned.as_ref().map(|(_, d)| d.clone()).or(current);
        let as_of_ms = db.as_ref().and_then(|d| d.as_of()).map(|t| t.timestamp_millis()).unwrap_or(0);
        let bounds = match &pinned {
            Some((p, _)) => Bounds { start: p.s.unwrap_or(0), end: p.e.unwrap_or(as_of_ms) },
            None => {
                let b = self.bounds.map(|f| f(&params, as_of_ms)).unwrap_or(Bounds { start: 0, end: as_of_ms });
                if b.start > b.end {
                    v.push("start", "start must be less than or equal to end");
                }
                b
            }
        };
        if let Err(e) = in_declared_order(v, op.params).into_result() {
            return e.into();
        }
        let jmespath = JMESPATH.raw(&q);
        if let Err(e) = check_jmespath_length::<Body>(jmespath) {
            return e.into();
        }
        let Some(db) = db else {
            let empty = (self.respond)(Vec::new(), Pagination::default());
            let provenance = dataset_read::unavailable(current_provenance);
            return dataset_get(&state.cache, req, None, jmespath, provenance, async { Ok(empty) }).await;
        };
        let offset = pinned.as_ref().map(|(p, _)| p.off).unwrap_or(0);
        let provenance = if pinned.is_some() { dataset_read::pinned(&db) } else { current_provenance };
        let scope = [db.version as i64, bounds.start, bounds.end, offset as i64, page_size as i64];
        let key = filters.answer_key(op.segment(), &scope);
        // Runs only on a body-cache miss: a hit needs no cursor, hash or query.
        let render = async move {
            let this_page = CursorPayload {
                op: op.segment().into(),
                gen: db.version,
                off: offset,
                fh: filters.filter_hash(),
                s: self.bounds.map(|_| bounds.start),
                e: self.bounds.map(|_| bounds.end),
            };
            let page = Page { limit: page_size as i64, offset: offset as i64 };
            let query_db = db.clone();
            let (rows, total) = db
                .query(move |conn| (self.page)(conn, &query_db, &params, bounds, page))
                .await
                .map_err(ApiError::from)?;
            let pagination = Pagination {
                next_cursor: next_cursor(&state.cursor_secret, this_page, rows.len(), total),
                total_count: total as i32,
            };
            Ok((self.respond)(rows, pagination))
        };
        dataset_get(&state.cache, req, Some(key), jmespath, provenance, render).await
    }
}

/// `nextCursor` after a page of `rows` rows: the same pinned query at the next offset, or "" at the end.
pub fn next_cursor(secret: &[u8], mut page: CursorPayload, rows: usize, total: i64) -> String {
    page.off += rows as u64;
    if rows == 0 || page.off >= total.max(0) as u64 {
        return String::new();
    }
    cursor::encode(secret, &page)
}
