//! The climate feeds and ReliefWeb's disaster reports → `climate-news` (SUPPLEMENT 2.2.6), read
//! with the same feed parser as aviation news: items need a title, a URL and a date; summaries
//! are plain text of at most 300 characters; one item per URL, newest first, at most 100.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use sitrep_schemas::DatasetId;
use url::Url;

use crate::{
    arrow_util::{batch, finish, i32s, instants, strings},
    feeds::{self, plain_text, FeedItem},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

pub const FEEDS: [(&str, &str); 8] = [
    ("Carbon Brief", "https://www.carbonbrief.org/feed"),
    ("The Guardian Environment", "https://www.theguardian.com/environment/climate-crisis/rss"),
    ("NASA Earth Observatory", "https://earthobservatory.nasa.gov/feeds/earth-observatory.rss"),
    ("UNEP", "https://www.unep.org/rss.xml"),
    ("Phys.org Earth Sciences", "https://phys.org/rss-feed/earth-news/earth-sciences/"),
    ("Copernicus Climate", "https://climate.copernicus.eu/rss.xml"),
    ("Inside Climate News", "https://insideclimatenews.org/feed/"),
    ("Climate Central", "https://www.climatecentral.org/rss"),
];
const RELIEFWEB_REPORTS: &str = "https://api.reliefweb.int/v2/reports";
const RELIEFWEB_NAME: &str = "ReliefWeb Disasters";
const TIMEOUT: Duration = Duration::from_secs(10);
const MAX_BODY_CHARS: usize = 500_000;
const SUMMARY_CHARS: usize = 300;
const MAX_ITEMS: usize = 100;

#[derive(Debug, Clone, PartialEq)]
pub struct ClimateNewsItem {
    pub id: String,
    pub title: String,
    pub url: String,
    pub source_name: String,
    pub summary: String,
    pub published_at: i64,
}

fn item(source_name: &str, title: &str, url: &str, summary: String, published: DateTime<Utc>) -> ClimateNewsItem {
    let published_at = published.timestamp_millis();
    ClimateNewsItem {
        id: format!("{}-{published_at}", &hex::encode(Sha256::digest(url.as_bytes()))[..16]),
        title: title.to_string(),
        url: url.to_string(),
        source_name: source_name.to_string(),
        summary,
        published_at,
    }
}

/// A feed's items that have a title, a URL and a date.
pub fn items_of(source_name: &str, parsed: Vec<FeedItem>) -> Vec<ClimateNewsItem> {
    parsed
        .into_iter()
        .filter_map(|i| {
            let (title, url) = (i.title.trim(), i.link.trim());
            let published = i.published?;
            if title.is_empty() || url.is_empty() {
                return None;
            }
            Some(item(source_name, title, url, plain_text(&i.description, SUMMARY_CHARS), published))
        })
        .collect()
}

#[derive(Deserialize)]
struct Reports {
    #[serde(default)]
    data: Vec<Report>,
}

#[derive(Deserialize)]
struct Report {
    fields: ReportFields,
}

#[derive(Deserialize)]
struct ReportFields {
    #[serde(default)]
    title: String,
    #[serde(default)]
    url_alias: String,
    #[serde(default)]
    date: Option<ReportDate>,
}

#[derive(Deserialize)]
struct ReportDate {
    #[serde(default)]
    created: Option<String>,
}

/// ReliefWeb's latest disaster reports (theme 4590) as items with an empty summary.
pub fn parse_reports(body: &[u8]) -> Result<Vec<ClimateNewsItem>, SourceError> {
    let reports: Reports = serde_json::from_slice(body).map_err(|e| SourceError::parse("reliefweb reports", e))?;
    Ok(reports
        .data
        .into_iter()
        .filter_map(|r| {
            let f = r.fields;
            let created = f.date.and_then(|d| d.created)?;
            let published = DateTime::parse_from_rfc3339(&created).ok()?.with_timezone(&Utc);
            if f.title.trim().is_empty() || f.url_alias.is_empty() {
                return None;
            }
            let url = format!("https://reliefweb.int{}", f.url_alias);
            Some(item(RELIEFWEB_NAME, f.title.trim(), &url, String::new(), published))
        })
        .collect())
}

async fn reports(ctx: &FetchContext, appname: &str) -> Result<Vec<ClimateNewsItem>, SourceError> {
    let mut url = Url::parse(RELIEFWEB_REPORTS).map_err(|e| SourceError::parse("reliefweb url", e))?;
    url.query_pairs_mut()
        .append_pair("appname", appname)
        .append_pair("limit", "20")
        .append_pair("preset", "latest")
        .append_pair("filter[field]", "theme.id")
        .append_pair("filter[value]", "4590")
        .append_pair("fields[include][]", "title")
        .append_pair("fields[include][]", "url_alias")
        .append_pair("fields[include][]", "date.created");
    let reply = ctx.http.get_ok(&url, Default::default()).await?;
    parse_reports(&reply.body)
}

/// Newest first, one per URL (the newest), at most 100.
pub fn merge(mut items: Vec<ClimateNewsItem>) -> Vec<ClimateNewsItem> {
    items.sort_by(|a, b| b.published_at.cmp(&a.published_at).then(a.id.cmp(&b.id)));
    let mut seen = std::collections::HashSet::new();
    items.retain(|i| seen.insert(i.url.clone()));
    items.truncate(MAX_ITEMS);
    items
}

#[derive(Default)]
pub struct ClimateNewsSource;

#[async_trait::async_trait]
impl Source for ClimateNewsSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::CLIMATE_NEWS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["climate-news"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("climate-news keeps the latest items only".into()));
        }
        let relief = async {
            match ctx.config.reliefweb_appname.as_deref() {
                Some(appname) => Some(reports(ctx, appname).await),
                None => None,
            }
        };
        let (feeds, relief) = tokio::join!(feeds::fetch_feeds(&ctx.http, &FEEDS, TIMEOUT, MAX_BODY_CHARS), relief);
        let mut items = Vec::new();
        let mut failures = Vec::new();
        for (name, answer) in feeds {
            match answer {
                Ok(parsed) => items.extend(items_of(name, parsed)),
                Err(e) => failures.push(e),
            }
        }
        match relief {
            Some(Ok(found)) => items.extend(found),
            Some(Err(e)) => {
                tracing::warn!(error = %e, "reliefweb reports failed");
                failures.push(e);
            }
            None => {}
        }
        let asked = FEEDS.len() + usize::from(ctx.config.reliefweb_appname.is_some());
        if failures.len() == asked {
            return Err(failures.remove(0));
        }
        Ok(Fetched {
            partial_error: None,
            batch: rows(&merge(items))?,
            scope: Scope::All,
            as_of: ctx.now,
            upstream_version: None,
        })
    }
}

fn rows(items: &[ClimateNewsItem]) -> Result<arrow::array::RecordBatch, SourceError> {
    let n = items.len();
    let (mut position, mut id, mut title, mut url, mut source, mut summary, mut published) =
        (i32s(n), strings(n), strings(n), strings(n), strings(n), strings(n), instants(n));
    for (i, item) in items.iter().enumerate() {
        position.append_value(i as i32);
        id.append_value(&item.id);
        title.append_value(&item.title);
        url.append_value(&item.url);
        source.append_value(&item.source_name);
        summary.append_value(&item.summary);
        published.append_value(item.published_at);
    }
    batch(
        DatasetId::CLIMATE_NEWS,
        vec![
            finish(position),
            finish(id),
            finish(title),
            finish(url),
            finish(source),
            finish(summary),
            finish(published),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_need_a_date_and_summaries_are_plain_and_short() {
        let parsed = feeds::parse(br#"<rss xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
            <item><title>Dated by dc:date</title><link>https://a.example/1</link><dc:date>2026-11-19T08:00:00Z</dc:date>
              <content:encoded><![CDATA[<p>Heat &amp; drought</p>]]></content:encoded></item>
            <item><title>Undated</title><link>https://a.example/2</link></item>
        </channel></rss>"#)
        .unwrap();
        let items = items_of("Feed", parsed);
        assert_eq!(items.len(), 1, "an item without a date is dropped");
        assert_eq!(items[0].summary, "Heat & drought");
        assert_eq!(items[0].published_at, 1_795_075_200_000, "2026-11-19T08:00Z from dc:date");
        assert!(items[0].id.ends_with(&format!("-{}", items[0].published_at)));
        assert_eq!(items[0].id.len(), 16 + 1 + 13);
        let long = item("F", "t", "u", plain_text(&"x".repeat(400), SUMMARY_CHARS), Utc::now());
        assert_eq!(long.summary.chars().count(), 300);
    }

    #[test]
    fn reliefweb_reports_and_the_merge() {
        let reports = parse_reports(br#"{"totalCount":2,"data":[
            {"id":"4101","fields":{"title":"Flash floods in Sudan","url_alias":"/report/sudan/flash-floods","date":{"created":"2026-11-19T10:00:00+00:00"}}},
            {"id":"4102","fields":{"title":"No date","url_alias":"/report/x"}}]}"#)
        .unwrap();
        assert_eq!(reports.len(), 1);
        assert_eq!(
            (reports[0].url.as_str(), reports[0].summary.as_str()),
            ("https://reliefweb.int/report/sudan/flash-floods", "")
        );
        let old = ClimateNewsItem { published_at: 1, ..reports[0].clone() };
        let merged = merge(vec![old, reports[0].clone()]);
        assert_eq!(merged.len(), 1, "one per URL, the newest");
        assert_eq!(merged[0].published_at, reports[0].published_at);
    }
}
