//! Iran regional events → `iran-events`, from an operator-supplied export file (`IRAN_EVENTS_FILE`),
//! only when `IRAN_EVENTS_ENABLED` is on. Mapping of SUPPLEMENT 2.3.4: relative times resolved
//! against `exportedAt`, category names, gazetteer location, keyword severity.

mod gazetteer;

use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use sitrep_schemas::DatasetId;

use crate::{
    arrow_util::{batch, f64s, finish, instants, strings, truncate_chars},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

pub struct IranSource;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Export {
    pub exported_at: DateTime<Utc>,
    #[serde(default)]
    pub items: Vec<Item>,
}

#[derive(Debug, Deserialize)]
pub struct Item {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub category: String,
    #[serde(default)]
    pub link: String,
    #[serde(default)]
    pub time: String,
}

pub fn category(code: &str) -> &'static str {
    match code {
        "cat1" => "military",
        "cat2" => "international",
        "cat6" => "political",
        "cat7" => "civil",
        "cat9" => "intelligence",
        "cat10" => "airstrike",
        "cat11" => "defense",
        _ => "general",
    }
}

pub fn severity(title: &str) -> &'static str {
    let t = title.to_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if any(&["killed", "dead", "casualties", "death toll", "wounded"]) {
        "critical"
    } else if any(&["airstrike", "bombing", "missile", "explosion", "struck", "destroyed"]) {
        "high"
    } else if any(&["intercept", "defense", "sirens", "alert"]) {
        "elevated"
    } else {
        "moderate"
    }
}

/// `<n> min ago`, `<n> hours ago`, `a day ago`, `<n> days ago` (singular forms too) → offset.
pub fn relative_age(time: &str) -> Option<Duration> {
    let t = time.trim().to_lowercase();
    let rest = t.strip_suffix(" ago")?;
    let (n, unit) = rest.split_once(' ')?;
    let n: i64 = if n == "a" || n == "an" { 1 } else { n.parse().ok()? };
    match unit.trim_end_matches('s') {
        "min" | "minute" => Some(Duration::minutes(n)),
        "hour" => Some(Duration::hours(n)),
        "day" => Some(Duration::days(n)),
        _ => None,
    }
}

pub fn parse_export(body: &[u8]) -> Result<Export, SourceError> {
    serde_json::from_slice(body).map_err(|e| SourceError::parse("iran events export", e))
}

pub fn normalise(export: &Export) -> Result<arrow::record_batch::RecordBatch, SourceError> {
    let exported_ms = export.exported_at.timestamp_millis();
    let mut rows: Vec<(&Item, i64)> = export
        .items
        .iter()
        .filter(|i| !i.id.is_empty())
        .map(|i| (i, exported_ms - relative_age(&i.time).map(|d| d.num_milliseconds()).unwrap_or(0)))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id)));
    let n = rows.len();
    let (mut id, mut title, mut cat, mut url, mut lat, mut lon, mut loc, mut ts, mut sev) =
        (strings(n), strings(n), strings(n), strings(n), f64s(n), f64s(n), strings(n), instants(n), strings(n));
    for (item, at) in rows {
        let place = gazetteer::locate(&item.title);
        id.append_value(&item.id);
        title.append_value(truncate_chars(&item.title, 500));
        cat.append_value(category(&item.category));
        url.append_value(&item.link);
        lat.append_value(place.latitude);
        lon.append_value(place.longitude);
        loc.append_value(place.name);
        ts.append_value(at);
        sev.append_value(severity(&item.title));
    }
    batch(
        DatasetId::IRAN_EVENTS,
        vec![
            finish(id),
            finish(title),
            finish(cat),
            finish(url),
            finish(lat),
            finish(lon),
            finish(loc),
            finish(ts),
            finish(sev),
        ],
    )
}

#[async_trait::async_trait]
impl Source for IranSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::IRAN_EVENTS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        // Not an HTTP upstream: nothing to replay.
        &[]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("iran-events is rebuilt from the export file".into()));
        }
        if !ctx.config.iran_events_enabled {
            return Err(SourceError::Disabled("IRAN_EVENTS_ENABLED is off".into()));
        }
        let path = ctx
            .config
            .iran_events_file
            .as_ref()
            .ok_or_else(|| SourceError::NotConfigured("set IRAN_EVENTS_FILE".into()))?;
        let body = tokio::fs::read(path).await.map_err(|e| SourceError::Io(format!("{}: {e}", path.display())))?;
        let export = parse_export(&body)?;
        let batch = normalise(&export)?;
        Ok(Fetched { partial_error: None, batch, scope: Scope::All, as_of: export.exported_at, upstream_version: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_categories_and_severity() {
        assert_eq!(relative_age("5 min ago"), Some(Duration::minutes(5)));
        assert_eq!(relative_age("3 hours ago"), Some(Duration::hours(3)));
        assert_eq!(relative_age("a day ago"), Some(Duration::days(1)));
        assert_eq!(relative_age("4 days ago"), Some(Duration::days(4)));
        assert_eq!(relative_age("yesterday"), None);
        assert_eq!(category("cat10"), "airstrike");
        assert_eq!(category("cat99"), "general");
        assert_eq!(severity("Two killed in missile strike"), "critical");
        assert_eq!(severity("Missile hits depot"), "high");
        assert_eq!(severity("Air defense sirens heard"), "elevated");
        assert_eq!(severity("Talks resume"), "moderate");
    }
}
