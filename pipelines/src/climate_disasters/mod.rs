//! ReliefWeb, NASA EONET and GDACS (SUPPLEMENT 2.2.2) → `climate-disasters`: each upstream mapped
//! to one record shape, natural events placed in a country by point-in-polygon (`admin0`), then
//! merged: de-duplicated by id and by (type, country, name, day) in source priority order,
//! newest first, at most 300. A failed upstream keeps its events of the previous version and is
//! named in `lastError`; the run fails only when every upstream asked failed.

pub mod eonet;
pub mod gdacs;
pub mod reliefweb;

use std::collections::HashSet;

use arrow::array::{Array, Float64Array, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use sitrep_schemas::{
    climate::{DisasterSeverity as Severity, DisasterStatus as Status, DisasterType as Kind},
    closed_set::ClosedSet,
    DatasetId,
};

use crate::{
    admin0::Admin0,
    arrow_util::{batch, column, f64_column, i32_column, instant_column, text_column},
    FetchContext, Fetched, Scope, SourceError, Window,
};

const MAX_ROWS: usize = 300;
const DAY_MS: i64 = 24 * 3600 * 1000;

/// The upstreams, in de-duplication priority order (the closed set's declaration order).
pub use sitrep_schemas::climate::DisasterSource as Source;

/// A source's rank in de-duplication: ReliefWeb first, then GDACS, then EONET.
fn priority(source: Source) -> usize {
    Source::VALUES.iter().position(|s| *s == source).unwrap_or(usize::MAX)
}

/// One disaster, as the API shows it (`affectedPopulation` is 0: no upstream field is mapped to it).
#[derive(Debug, Clone, PartialEq)]
pub struct Disaster {
    pub id: String,
    pub kind: Kind,
    pub name: String,
    pub country: String,
    pub country_code: String,
    pub lat: f64,
    pub lng: f64,
    pub severity: Severity,
    pub started_at: i64,
    pub status: Status,
    pub source: Source,
    pub source_url: String,
}

/// Status of a natural (GDACS, EONET) event: past once closed, alert when red or orange.
pub fn natural_status(closed: bool, severity: Severity) -> Status {
    match (closed, severity) {
        (true, _) => Status::Past,
        (false, Severity::Red | Severity::Orange) => Status::Alert,
        _ => Status::Ongoing,
    }
}

fn is_emoji_part(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0x2300..=0x23FF | 0xFE00..=0xFE0F | 0x200D | 0x20E3 | 0xE0020..=0xE007F)
}

/// A title without its leading emoji (and the space after it).
pub fn without_leading_emoji(title: &str) -> String {
    title.trim_start_matches(|c: char| is_emoji_part(c) || c.is_whitespace()).trim_end().to_string()
}

/// The merged list: duplicates by id, then by (type, country, lower-case name, UTC day of start)
/// dropped, keeping the first in source priority (each upstream's own order within a source);
/// newest first, then id; at most 300.
pub fn merge(mut all: Vec<Disaster>) -> Vec<Disaster> {
    all.sort_by_key(|d| priority(d.source));
    let mut ids = HashSet::new();
    all.retain(|d| ids.insert(d.id.clone()));
    let mut keys = HashSet::new();
    all.retain(|d| {
        keys.insert((d.kind, d.country_code.clone(), d.name.to_lowercase(), d.started_at.div_euclid(DAY_MS)))
    });
    all.sort_by(|a, b| b.started_at.cmp(&a.started_at).then_with(|| a.id.cmp(&b.id)));
    all.truncate(MAX_ROWS);
    all
}

/// The events of `source` in a previous version (kept when that upstream fails).
fn previous_of(rows: &RecordBatch, source: Source) -> Result<Vec<Disaster>, SourceError> {
    let what = "climate-disasters";
    let text = |name: &str| column::<StringArray>(rows, name, what);
    let (id, kind, name, country, code) =
        (text("id")?, text("type")?, text("name")?, text("country")?, text("country_code")?);
    let (severity, status, origin, url) = (text("severity")?, text("status")?, text("source")?, text("source_url")?);
    let (lat, lng) = (column::<Float64Array>(rows, "lat", what)?, column::<Float64Array>(rows, "lng", what)?);
    let started = column::<TimestampMillisecondArray>(rows, "started_at", what)?;
    let mut out = Vec::new();
    for i in 0..rows.num_rows() {
        if origin.value(i) != source.as_str() || started.is_null(i) {
            continue;
        }
        let (Some(k), Some(sev), Some(st)) = (
            Kind::from_wire_name(kind.value(i)),
            Severity::from_wire_name(severity.value(i)),
            Status::from_wire_name(status.value(i)),
        ) else {
            continue;
        };
        out.push(Disaster {
            id: id.value(i).to_string(),
            kind: k,
            name: name.value(i).to_string(),
            country: country.value(i).to_string(),
            country_code: code.value(i).to_string(),
            lat: lat.value(i),
            lng: lng.value(i),
            severity: sev,
            started_at: started.value(i),
            status: st,
            source,
            source_url: url.value(i).to_string(),
        });
    }
    Ok(out)
}

fn rows(disasters: &[Disaster]) -> Result<RecordBatch, SourceError> {
    let population: Int64Array = disasters.iter().map(|_| Some(0i64)).collect();
    let positions: Vec<i32> = (0..disasters.len() as i32).collect();
    batch(
        DatasetId::CLIMATE_DISASTERS,
        vec![
            i32_column(&positions, |p| Some(*p)),
            text_column(disasters, |d| Some(d.id.as_str())),
            text_column(disasters, |d| Some(d.kind.as_str())),
            text_column(disasters, |d| Some(d.name.as_str())),
            text_column(disasters, |d| Some(d.country.as_str())),
            text_column(disasters, |d| Some(d.country_code.as_str())),
            f64_column(disasters, |d| Some(d.lat)),
            f64_column(disasters, |d| Some(d.lng)),
            text_column(disasters, |d| Some(d.severity.as_str())),
            instant_column(disasters, |d| Some(d.started_at)),
            text_column(disasters, |d| Some(d.status.as_str())),
            std::sync::Arc::new(population),
            text_column(disasters, |d| Some(d.source.as_str())),
            text_column(disasters, |d| Some(d.source_url.as_str())),
        ],
    )
}

#[derive(Default)]
pub struct ClimateDisastersSource;

#[async_trait::async_trait]
impl crate::Source for ClimateDisastersSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::CLIMATE_DISASTERS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["climate-disasters"]
    }

    fn reads_previous(&self) -> bool {
        true
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("climate-disasters keeps only current events".into()));
        }
        // The index is built once per process, off the async workers.
        let admin0 = tokio::task::spawn_blocking(Admin0::get).await.map_err(|e| SourceError::Io(e.to_string()))?;
        let relief = async {
            match ctx.config.reliefweb_appname.as_deref() {
                Some(appname) => Some(reliefweb::fetch(ctx, appname, admin0).await),
                None => None,
            }
        };
        let (relief, gdacs, eonet) = tokio::join!(relief, gdacs::fetch(ctx, admin0), eonet::fetch(ctx, admin0));
        let results: Vec<(Source, Result<Vec<Disaster>, SourceError>)> =
            [(Source::ReliefWeb, relief), (Source::Gdacs, Some(gdacs)), (Source::Eonet, Some(eonet))]
                .into_iter()
                .filter_map(|(s, r)| r.map(|r| (s, r)))
                .collect();
        let asked = results.len();
        let (mut all, mut failures) = (Vec::new(), Vec::new());
        let mut first_error = None;
        for (source, result) in results {
            match result {
                Ok(events) => all.extend(events),
                Err(e) => {
                    tracing::warn!(source = source.as_str(), error = %e, "climate-disasters upstream failed");
                    failures.push(format!("{}: {}", source.as_str(), e.brief()));
                    if let Some(previous) = &ctx.previous {
                        all.extend(previous_of(previous, source)?);
                    }
                    first_error.get_or_insert(e);
                }
            }
        }
        if failures.len() == asked {
            return Err(first_error.unwrap_or_else(|| SourceError::Upstream("no upstream asked".into())));
        }
        let merged = merge(all);
        Ok(Fetched {
            batch: rows(&merged)?,
            scope: Scope::All,
            as_of: ctx.now,
            upstream_version: None,
            partial_error: (!failures.is_empty()).then(|| failures.join("; ")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: &str, source: Source, name: &str, day: i64) -> Disaster {
        Disaster {
            id: id.into(),
            kind: Kind::Volcano,
            name: name.into(),
            country: "Italy".into(),
            country_code: "IT".into(),
            lat: 37.75,
            lng: 14.99,
            severity: Severity::Orange,
            started_at: day * DAY_MS + 3_600_000,
            status: Status::Alert,
            source,
            source_url: String::new(),
        }
    }

    #[test]
    fn duplicates_keep_the_first_by_source_priority() {
        let merged = merge(vec![
            event("eonet-1", Source::Eonet, "Etna", 100),
            event("gdacs-VO-1", Source::Gdacs, "ETNA", 100),
            event("gdacs-VO-1", Source::Gdacs, "Etna (second episode)", 101),
            event("eonet-2", Source::Eonet, "Etna", 101),
            event("reliefweb-x", Source::ReliefWeb, "Stromboli", 99),
        ]);
        let ids: Vec<&str> = merged.iter().map(|d| d.id.as_str()).collect();
        // gdacs-VO-1 (day 100) beats eonet-1 (same type, country, name, day); its second copy goes by
        // id; eonet-2 is another day. Newest first.
        assert_eq!(ids, ["eonet-2", "gdacs-VO-1", "reliefweb-x"]);
    }

    #[test]
    fn ties_on_time_order_by_id_and_the_list_is_capped() {
        let many: Vec<Disaster> =
            (0..310).map(|i| event(&format!("eonet-{i:03}"), Source::Eonet, &format!("n{i}"), 5)).collect();
        let merged = merge(many);
        assert_eq!(merged.len(), 300);
        assert_eq!((merged[0].id.as_str(), merged[299].id.as_str()), ("eonet-000", "eonet-299"));
    }

    #[test]
    fn leading_emoji_and_statuses() {
        assert_eq!(without_leading_emoji("🔥 Dixie Creek Fire"), "Dixie Creek Fire");
        assert_eq!(without_leading_emoji("🌀️ Tropical Cyclone NALU-26"), "Tropical Cyclone NALU-26");
        assert_eq!(without_leading_emoji("Flood in Pakistan 🌊"), "Flood in Pakistan 🌊", "only a leading one");
        assert_eq!(
            [
                natural_status(true, Severity::Red),
                natural_status(false, Severity::Red),
                natural_status(false, Severity::Orange),
                natural_status(false, Severity::Green)
            ],
            [Status::Past, Status::Alert, Status::Alert, Status::Ongoing]
        );
    }

    fn recording(path: &str) -> Vec<u8> {
        std::fs::read(format!("{}/../data/fixtures/climate-disasters/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn each_recorded_upstream_parses() {
        let admin0 = Admin0::get();
        let relief = reliefweb::parse(&recording("normal/reliefweb.body.json"), admin0).unwrap();
        assert_eq!(relief.len(), 6, "8 rows less an epidemic and a past disaster");
        let no_glide = relief.iter().find(|d| d.id == "reliefweb-52360").unwrap();
        assert_eq!(
            (no_glide.kind, no_glide.severity, no_glide.country_code.as_str()),
            (Kind::Wildfire, Severity::High, "US")
        );
        // 2026-11-20T06:00:00Z, the recordings' time: the wildfire 50 h old is left out.
        let eonet = eonet::parse(&recording("normal/eonet.body.json"), 1_795_154_400_000, admin0).unwrap();
        let ids: Vec<&str> = eonet.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(eonet.len(), 8, "{ids:?}");
        assert!(
            !ids.contains(&"eonet-EONET_6498")
                && !ids.contains(&"eonet-EONET_6533")
                && !ids.contains(&"eonet-EONET_6530")
        );
        let gdacs = gdacs::parse(&recording("normal/gdacs.body.json"), admin0).unwrap();
        assert_eq!(gdacs.len(), 8, "10 features less a Green one and an earthquake; the repeated event twice");
        assert_eq!(gdacs.iter().find(|d| d.id == "gdacs-FL-1103456").map(|d| d.started_at), Some(1_794_268_800_000));
        for empty in [
            reliefweb::parse(&recording("empty/reliefweb.body.json"), admin0).unwrap(),
            eonet::parse(&recording("empty/eonet.body.json"), 0, admin0).unwrap(),
            gdacs::parse(&recording("empty/gdacs.body.json"), admin0).unwrap(),
        ] {
            assert!(empty.is_empty());
        }
        assert!(gdacs::parse(&recording("down/gdacs.body.html"), admin0).is_err());
    }

    #[test]
    fn previous_rows_of_one_source_read_back() {
        let rows =
            rows(&[event("gdacs-VO-1", Source::Gdacs, "Etna", 100), event("eonet-1", Source::Eonet, "Etna", 99)])
                .unwrap();
        let back = previous_of(&rows, Source::Eonet).unwrap();
        assert_eq!(back, vec![event("eonet-1", Source::Eonet, "Etna", 99)]);
    }
}
