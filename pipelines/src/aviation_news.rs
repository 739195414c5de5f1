//! The nine aviation feeds → `aviation-news` (SUPPLEMENT 2.1.11): the first 30 items of each,
//! items without a title or link dropped, undated items dated by the fetch, plain-text snippets,
//! de-duplicated by link, the last 168 hours kept. The same fetch answers ListAviationNews live
//! when its dataset is not fresh enough for an entity query.

use std::time::Duration;

use arrow::record_batch::RecordBatch;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use sitrep_schemas::DatasetId;

use crate::{
    arrow_util::{batch, finish, instants, strings},
    feeds::{self, plain_text},
    http::Http,
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

pub const FEEDS: [(&str, &str); 9] = [
    ("FlightGlobal", "https://www.flightglobal.com/rss"),
    ("Simple Flying", "https://simpleflying.com/feed/"),
    ("AeroTime", "https://aerotime.aero/feed"),
    ("The Points Guy", "https://thepointsguy.com/feed/"),
    ("Airline Geeks", "https://airlinegeeks.com/feed/"),
    ("One Mile at a Time", "https://onemileatatime.com/feed/"),
    ("View from the Wing", "https://viewfromthewing.com/feed/"),
    ("Aviation Pros", "https://www.aviationpros.com/rss"),
    ("Aviation Week", "https://www.aviationweek.com/rss"),
];
const ITEMS_PER_FEED: usize = 30;
const SNIPPET_CHARS: usize = 200;
pub const KEEP_HOURS: i64 = 168;
const TIMEOUT: Duration = Duration::from_secs(8);

/// One news item, as the dataset and the API carry it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewsItem {
    pub id: String,
    pub title: String,
    pub url: String,
    pub source_name: String,
    pub published_at_ms: i64,
    pub snippet: String,
    pub image_url: String,
    pub match_text: String,
}

fn item_id(link: &str) -> String {
    hex::encode(Sha256::digest(link.as_bytes()))[..32].to_string()
}

/// A feed's items under 2.1.11's mapping (`now` dates undated items).
pub fn items_of(source_name: &str, parsed: Vec<feeds::FeedItem>, now: DateTime<Utc>) -> Vec<NewsItem> {
    parsed
        .into_iter()
        .take(ITEMS_PER_FEED)
        .filter(|i| !i.title.trim().is_empty() && !i.link.trim().is_empty())
        .map(|i| {
            let description = plain_text(&i.description, usize::MAX);
            NewsItem {
                id: item_id(i.link.trim()),
                title: i.title.trim().to_string(),
                url: i.link.trim().to_string(),
                source_name: source_name.to_string(),
                published_at_ms: i.published.unwrap_or(now).timestamp_millis(),
                snippet: description.chars().take(SNIPPET_CHARS).collect(),
                image_url: i.image,
                match_text: format!("{} {description}", i.title.trim()),
            }
        })
        .collect()
}

/// Every feed fetched at once: the merged items (newest first, one per link, the last 168 hours)
/// and how many feeds failed. An error only when every feed failed.
pub async fn fetch_all(http: &Http, now: DateTime<Utc>) -> Result<Vec<NewsItem>, SourceError> {
    let mut items = Vec::new();
    let mut failures = Vec::new();
    for (name, answer) in feeds::fetch_feeds(http, &FEEDS, TIMEOUT, usize::MAX).await {
        match answer {
            Ok(parsed) => items.extend(items_of(name, parsed, now)),
            Err(e) => failures.push(e),
        }
    }
    if failures.len() == FEEDS.len() {
        return Err(failures.remove(0));
    }
    let oldest = now.timestamp_millis() - KEEP_HOURS * 3_600_000;
    items.retain(|i| i.published_at_ms >= oldest);
    items.sort_by(|a, b| b.published_at_ms.cmp(&a.published_at_ms).then(a.id.cmp(&b.id)));
    let mut seen = std::collections::HashSet::new();
    items.retain(|i| seen.insert(i.url.clone()));
    Ok(items)
}

pub fn normalise(items: &[NewsItem]) -> Result<RecordBatch, SourceError> {
    let n = items.len();
    let (mut id, mut title, mut url, mut source, mut published, mut snippet, mut image, mut text) =
        (strings(n), strings(n), strings(n), strings(n), instants(n), strings(n), strings(n), strings(n));
    for i in items {
        id.append_value(&i.id);
        title.append_value(&i.title);
        url.append_value(&i.url);
        source.append_value(&i.source_name);
        published.append_value(i.published_at_ms);
        snippet.append_value(&i.snippet);
        image.append_value(&i.image_url);
        text.append_value(&i.match_text);
    }
    batch(
        DatasetId::AVIATION_NEWS,
        vec![
            finish(id),
            finish(title),
            finish(url),
            finish(source),
            finish(published),
            finish(snippet),
            finish(image),
            finish(text),
        ],
    )
}

#[derive(Default)]
pub struct AviationNewsSource;

#[async_trait::async_trait]
impl Source for AviationNewsSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::AVIATION_NEWS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["aviation-news"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("aviation-news keeps 168 hours; there is nothing to backfill".into()));
        }
        let items = fetch_all(&ctx.http, ctx.now).await?;
        Ok(Fetched {
            partial_error: None,
            batch: normalise(&items)?,
            scope: Scope::All,
            as_of: ctx.now,
            upstream_version: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mapping_of_2_1_11() {
        let now = DateTime::parse_from_rfc3339("2026-11-20T06:00:00Z").unwrap().with_timezone(&Utc);
        let parsed = feeds::parse(br#"<rss><channel>
            <item><title>Kept</title><link>https://a.example/1</link><description>&lt;b&gt;Bold&lt;/b&gt; text</description></item>
            <item><title></title><link>https://a.example/2</link></item>
            <item><title>No link</title></item>
        </channel></rss>"#)
        .unwrap();
        let items = items_of("Feed", parsed, now);
        assert_eq!(items.len(), 1, "items without a title or link are dropped");
        assert_eq!(items[0].published_at_ms, now.timestamp_millis(), "undated: the fetch time");
        assert_eq!((items[0].snippet.as_str(), items[0].match_text.as_str()), ("Bold text", "Kept Bold text"));
        assert_eq!(items[0].id, item_id("https://a.example/1"));
        assert_eq!(items[0].id.len(), 32);
    }
}
