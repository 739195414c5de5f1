//! ListAviationNews (SUPPLEMENT 2.1.11): from the current `aviation-news` version; a query with
//! entities is answered from it only while it is fresh (fetched less than 15 minutes ago), else
//! the feeds are read live through the read-through cache (900 s).

use std::sync::Arc;

use poem::Request;
use sitrep_pipelines::aviation_news::{self, NewsItem};

use super::{
    model::{AviationNewsItem, ListAviationNewsResponse, NewsSource},
    params::{ENTITIES, MAX_ITEMS, WINDOW_HOURS},
};
use crate::read_through::Fresh;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::{dataset_get, Answer},
        canonical::{Canonical, LiveKey},
        dataset_read,
        parse::{parse_with, Parsed},
    },
    registry::Operation,
    snapshot::DatasetDb,
};

const FRESH_FOR_ENTITIES_SECONDS: i64 = 15 * 60;
const LIVE_TTL: i64 = 900;
const LIVE_FAILURE_TTL: i64 = 30;

/// What a query asks for, normalised.
struct Query {
    /// Trimmed and upper-cased, in request order.
    entities: Vec<String>,
    window_hours: i64,
    max_items: usize,
}

/// The items published since `now − window`, matching the entities (any of them, anywhere in the
/// title or description), newest first, at most `max_items`.
fn select(items: impl Iterator<Item = NewsItem>, q: &Query, now_ms: i64) -> Vec<AviationNewsItem> {
    let since = now_ms - q.window_hours * 3_600_000;
    items
        .filter(|i| i.published_at_ms >= since)
        .filter_map(|i| {
            let text = i.match_text.to_uppercase();
            let matched: Vec<String> = q.entities.iter().filter(|e| text.contains(e.as_str())).cloned().collect();
            let wanted = q.entities.is_empty() || !matched.is_empty();
            wanted.then_some(AviationNewsItem {
                id: i.id,
                title: i.title,
                url: i.url,
                source_name: i.source_name,
                published_at: i.published_at_ms,
                snippet: i.snippet,
                matched_entities: matched,
                image_url: i.image_url,
            })
        })
        .take(q.max_items)
        .collect()
}

fn stored_items(conn: &duckdb::Connection, table: &str, since_ms: i64) -> duckdb::Result<Vec<NewsItem>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, title, url, source_name, published_at, snippet, image_url, match_text FROM {table}
         WHERE published_at >= ? ORDER BY published_at DESC, id"
    ))?;
    let rows = stmt.query_map([since_ms], |r| {
        Ok(NewsItem {
            id: r.get(0)?,
            title: r.get(1)?,
            url: r.get(2)?,
            source_name: r.get(3)?,
            published_at_ms: r.get(4)?,
            snippet: r.get(5)?,
            image_url: r.get(6)?,
            match_text: r.get(7)?,
        })
    })?;
    rows.collect()
}

async fn from_dataset(
    db: Option<Arc<DatasetDb>>,
    q: Query,
) -> Result<ListAviationNewsResponse, sitrep_platform::kit::error::ApiError> {
    let Some(db) = db else {
        return Ok(ListAviationNewsResponse { items: Vec::new(), source: WireName(NewsSource::Error), updated_at: 0 });
    };
    // The window ends at the version's as-of: an answer is a function of the version.
    let as_of_ms = db.as_of().map(|t| t.timestamp_millis()).unwrap_or(0);
    let since = as_of_ms - q.window_hours * 3_600_000;
    let items = db.query_table(move |c, table| stored_items(c, table, since)).await?;
    Ok(ListAviationNewsResponse {
        items: select(items.into_iter(), &q, as_of_ms),
        source: WireName(NewsSource::Rss),
        updated_at: as_of_ms,
    })
}

pub async fn answer(state: &AppState, req: &Request, op: &'static Operation) -> Answer<ListAviationNewsResponse> {
    let Parsed { params: (entities, window_hours, max_items), jmespath, as_of } =
        match parse_with::<ListAviationNewsResponse, _>(req, op, |raw, v| {
            let entities: Vec<String> = ENTITIES.repeated(raw, v).iter().map(|e| e.to_uppercase()).collect();
            let window_hours = WINDOW_HOURS.int32(raw, v) as i64;
            let max_items = MAX_ITEMS.int32(raw, v) as usize;
            (entities, window_hours, max_items)
        }) {
            Ok(parsed) => parsed,
            Err(e) => return e.into(),
        };
    let jmespath = jmespath.as_deref();
    let q = Query { entities, window_hours, max_items };
    let (provenance, db) = match dataset_read::read_at(state, op.dataset(), as_of).await {
        Ok(read) => read,
        Err(e) => return e.into(),
    };
    let fetched_at =
        state.snapshots.current().and_then(|g| g.commit.dataset(op.dataset()).and_then(|e| e.freshness.fetched_at));
    let fresh = fetched_at.is_some_and(|t| state.clock.now() - t.timestamp() < FRESH_FOR_ENTITIES_SECONDS);
    // As of a past time, the dataset's version then: the feeds live are no answer about the past.
    if q.entities.is_empty() || as_of.is_some() || (fresh && db.is_some()) {
        let canonical =
            Canonical::new(vec![("max_items", q.max_items.to_string()), ("window_hours", q.window_hours.to_string())])
                .with_list("entities", q.entities.clone());
        let key = db.as_ref().map(|d| canonical.answer_key(op.segment(), &[d.version as i64]));
        return dataset_get(&state.cache, req, key, jmespath, provenance, from_dataset(db, q)).await;
    }
    // Entities and a dataset not fresh enough: the feeds, live, through the read-through cache.
    let rt = &crate::context(state).read_through;
    let (fetched, lease) = rt
        .get_or_fetch(
            &LiveKey::fixed("aviation-news"),
            || state.clock.now(),
            || async {
                let now = chrono::DateTime::from_timestamp(rt.upstream_now(state.clock.now()), 0).unwrap_or_default();
                match aviation_news::fetch_all(&rt.http, now).await {
                    Ok(items) => Fresh { value: Some((items, now.timestamp_millis())), ttl_seconds: LIVE_TTL },
                    Err(e) => {
                        tracing::warn!(error = %e, "every aviation feed failed");
                        Fresh { value: None, ttl_seconds: LIVE_FAILURE_TTL }
                    }
                }
            },
        )
        .await;
    let response = match fetched {
        Some((items, fetched_ms)) => ListAviationNewsResponse {
            items: select(items.into_iter(), &q, fetched_ms),
            source: WireName(NewsSource::Rss),
            updated_at: fetched_ms,
        },
        None => ListAviationNewsResponse { items: Vec::new(), source: WireName(NewsSource::Error), updated_at: 0 },
    };
    let degraded = response.source.0 == NewsSource::Error;
    rt.answer(state, req, jmespath, &response, degraded, lease)
}
