//! Our retail basket observations feed (SUPPLEMENT 2.4.0) → `consumer-prices`: a CSV or JSONL file,
//! or a directory listing of such files, at `CONSUMER_PRICES_FEED_URL` (bearer token optional),
//! read against the markets' basket configs. The version holds the baskets and the accepted
//! observations; the indices, series, categories and movers are derived from it by serve.

pub mod basket;
pub mod feed;

use std::collections::HashMap;

use arrow::array::{ArrayRef, Date32Array, Int64Array, RecordBatch};
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use sitrep_schemas::DatasetId;
use url::Url;

use self::{
    basket::Basket,
    feed::{Observation, Tally},
};
use crate::{
    arrow_util::{batch, f64_column, i32_column, instant_column, text_column},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

const WEEK_MS: i64 = 7 * 24 * 3600 * 1000;

/// The feed files a directory listing links to (`.csv`, `.jsonl`, `.ndjson`), resolved against
/// the listing's URL, in name order.
pub fn listing_links(base: &Url, html: &str) -> Vec<Url> {
    let mut links: Vec<Url> = html
        .split("href=")
        .skip(1)
        .filter_map(|rest| {
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let value = rest[1..].split(quote).next()?;
            let lower = value.to_ascii_lowercase();
            [".csv", ".jsonl", ".ndjson"].iter().any(|ext| lower.ends_with(ext)).then(|| base.join(value).ok())?
        })
        .collect();
    links.sort();
    links.dedup();
    links
}

fn is_jsonl(url: &Url, body: &[u8]) -> bool {
    let path = url.path().to_ascii_lowercase();
    path.ends_with(".jsonl")
        || path.ends_with(".ndjson")
        || (!path.ends_with(".csv") && body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'))
}

/// Minutes since each retailer's latest observation, averaged over the retailers seen in the last
/// 7 days before `now`, rounded; `None` when none was.
pub fn freshness_lag_min(observations: &[&Observation], now_ms: i64) -> Option<i32> {
    let mut latest: HashMap<&str, i64> = HashMap::new();
    for o in observations {
        let at = latest.entry(o.retailer.as_str()).or_insert(o.observed_at);
        *at = (*at).max(o.observed_at);
    }
    let lags: Vec<f64> =
        latest.values().filter(|at| now_ms - **at <= WEEK_MS).map(|at| (now_ms - at) as f64 / 60_000.0).collect();
    (!lags.is_empty()).then(|| (lags.iter().sum::<f64>() / lags.len() as f64).round() as i32)
}

/// One row of the version (see `consumer_prices_schema`).
#[derive(Default)]
struct Row<'a> {
    kind: &'static str,
    market: &'a str,
    retailer: Option<&'a str>,
    item_id: Option<&'a str>,
    item_name: Option<&'a str>,
    category: Option<&'a str>,
    weight: Option<f64>,
    unit: Option<&'a str>,
    price: Option<f64>,
    currency: Option<&'a str>,
    observed_at: Option<i64>,
    basket_slug: Option<&'a str>,
    base_date: Option<i32>,
    lag: Option<i32>,
    tally: Option<Tally>,
}

fn rows(
    baskets: &[Basket],
    observations: &[Observation],
    tally: Tally,
    now_ms: i64,
) -> Result<RecordBatch, SourceError> {
    let mut rows: Vec<Row> = vec![Row { kind: "feed", tally: Some(tally), ..Default::default() }];
    for b in baskets {
        let of_market: Vec<&Observation> = observations.iter().filter(|o| o.market_code == b.market_code).collect();
        let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).expect("epoch");
        rows.push(Row {
            kind: "market",
            market: &b.market_code,
            currency: Some(&b.currency),
            basket_slug: Some(&b.slug),
            base_date: Some((b.base_date - epoch).num_days() as i32),
            lag: freshness_lag_min(&of_market, now_ms),
            ..Default::default()
        });
        rows.extend(b.items.iter().map(|i| Row {
            kind: "item",
            market: &b.market_code,
            item_id: Some(&i.item_id),
            item_name: Some(&i.name),
            category: Some(&i.category),
            weight: Some(i.weight),
            ..Default::default()
        }));
        rows.extend(of_market.iter().map(|o| Row {
            kind: "observation",
            market: &o.market_code,
            retailer: Some(&o.retailer),
            item_id: Some(&o.item_id),
            item_name: Some(&o.item_name),
            category: b.item(&o.item_id).map(|i| i.category.as_str()),
            unit: Some(&o.unit),
            price: Some(o.price),
            currency: Some(&o.currency),
            observed_at: Some(o.observed_at),
            ..Default::default()
        }));
    }
    let count = |f: fn(&Tally) -> u64| -> ArrayRef {
        std::sync::Arc::new(rows.iter().map(|r| r.tally.as_ref().map(|t| f(t) as i64)).collect::<Int64Array>())
    };
    batch(
        DatasetId::CONSUMER_PRICES,
        vec![
            text_column(&rows, |r| Some(r.kind)),
            text_column(&rows, |r| Some(r.market)),
            text_column(&rows, |r| r.retailer),
            text_column(&rows, |r| r.item_id),
            text_column(&rows, |r| r.item_name),
            text_column(&rows, |r| r.category),
            f64_column(&rows, |r| r.weight),
            text_column(&rows, |r| r.unit),
            f64_column(&rows, |r| r.price),
            text_column(&rows, |r| r.currency),
            instant_column(&rows, |r| r.observed_at),
            text_column(&rows, |r| r.basket_slug),
            std::sync::Arc::new(rows.iter().map(|r| r.base_date).collect::<Date32Array>()),
            i32_column(&rows, |r| r.lag),
            count(|t| t.read),
            count(|t| t.rejected),
            count(|t| t.ignored),
        ],
    )
}

#[derive(Default)]
pub struct ConsumerPricesSource;

#[async_trait::async_trait]
impl Source for ConsumerPricesSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::CONSUMER_PRICES
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["consumer-prices"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("the feed is read whole on every run".into()));
        }
        let (url, token) = ctx
            .config
            .consumer_prices_feed
            .as_ref()
            .ok_or_else(|| SourceError::NotConfigured("CONSUMER_PRICES_FEED_URL is not set".into()))?;
        let url = Url::parse(url).map_err(|e| SourceError::parse("CONSUMER_PRICES_FEED_URL", e))?;
        let mut headers = HeaderMap::new();
        if let Some(token) = token {
            let value =
                HeaderValue::from_str(&format!("Bearer {token}")).map_err(|e| SourceError::parse("feed token", e))?;
            headers.insert(AUTHORIZATION, value);
        }
        let first = ctx.http.send(reqwest::Method::GET, &url, headers.clone(), None, None).await?;
        let first = crate::http::ensure_success(&url, first)?;
        let files = if first.is_html() {
            let links = listing_links(&url, &String::from_utf8_lossy(&first.body));
            let mut files = Vec::with_capacity(links.len());
            for link in links {
                let reply = ctx.http.get_ok(&link, headers.clone()).await?;
                files.push((link, reply.body));
            }
            files
        } else {
            vec![(url, first.body)]
        };
        let (mut observations, mut tally) = (Vec::new(), Tally::default());
        for (link, body) in &files {
            let name = link.path().rsplit('/').next().unwrap_or("feed").to_string();
            let (accepted, t) = feed::parse_file(&name, body, is_jsonl(link, body))?;
            observations.extend(accepted);
            tally.add(t);
        }
        tracing::info!(
            files = files.len(),
            read = tally.read,
            rejected = tally.rejected,
            ignored = tally.ignored,
            "consumer-prices feed"
        );
        Ok(Fetched {
            batch: rows(basket::all(), &observations, tally, ctx.now.timestamp_millis())?,
            scope: Scope::All,
            as_of: ctx.now,
            upstream_version: None,
            partial_error: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_links_its_feed_files() {
        let base = Url::parse("https://feed.example/prices/").unwrap();
        let html = r#"<a href="../">..</a><a href="2026-11-19.csv">x</a><a href='extra/b.JSONL'>y</a><a href="notes.txt">n</a><a href="https://other.example/c.csv">c</a>"#;
        let links: Vec<String> = listing_links(&base, html).into_iter().map(String::from).collect();
        assert_eq!(
            links,
            [
                "https://feed.example/prices/2026-11-19.csv",
                "https://feed.example/prices/extra/b.JSONL",
                "https://other.example/c.csv"
            ]
        );
    }

    #[test]
    fn freshness_lag_over_retailers_seen_this_week() {
        let at = |retailer: &str, minutes_ago: i64| Observation {
            market_code: "ae".into(),
            retailer: retailer.into(),
            item_id: "eggs_12".into(),
            item_name: String::new(),
            unit: String::new(),
            price: 1.0,
            currency: "AED".into(),
            observed_at: 1_000_000_000_000 - minutes_ago * 60_000,
        };
        let obs = [at("a", 30), at("a", 90), at("b", 61), at("c", 8 * 24 * 60)];
        let refs: Vec<&Observation> = obs.iter().collect();
        // a: 30 min (its latest), b: 61 min; c is older than 7 days → (30 + 61) / 2 = 45.5 → 46.
        assert_eq!(freshness_lag_min(&refs, 1_000_000_000_000), Some(46));
        assert_eq!(freshness_lag_min(&refs[3..], 1_000_000_000_000), None);
    }
}
