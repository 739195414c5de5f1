//! `ocean-ice` (SUPPLEMENT 2.2.4): NSIDC sea ice, NASA sea level, NCEI ocean heat content and
//! NOAA's ocean temperature series, each fetched on its own. A failed source keeps the values of
//! the previous version (read back through `FetchContext::previous`) and is named in the
//! dataset's `lastError`; the run fails only when every source failed.

pub mod parse;

use arrow::{
    array::{Array, AsArray, RecordBatch},
    datatypes::{Float64Type, TimestampMillisecondType},
};
use chrono::NaiveDate;
use sitrep_schemas::DatasetId;
use url::Url;

use self::parse::SeaIce;
use crate::{
    arrow_util::{batch, f64_column, finish, i32s, instant_column, text_column},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

const NSIDC: &str = "https://noaadata.apps.nsidc.org/NOAA/G02135/north/daily/data";
const NASA: &str = "https://sealevel.nasa.gov/overlay-global-mean-sea-level";
const NCEI_OHC: &str =
    "https://www.ncei.noaa.gov/data/oceans/woa/DATA_ANALYSIS/3M_HEAT_CONTENT/DATA/basin/yearly/h22-w0-700m.dat";
const NOAA_V6: &str = "https://www.ncei.noaa.gov/data/noaa-global-surface-temperature/v6/access/timeseries/";
pub const SOURCES: [&str; 4] = ["nsidc", "nasa-sea-level", "ncei-ohc", "noaa-sst"];

/// The sea-ice values as the dataset keeps them.
#[derive(Debug, Clone, PartialEq)]
pub struct IceValues {
    pub extent: f64,
    pub anomaly: f64,
    pub trend: String,
    /// The day the extent describes (epoch ms).
    pub day_ms: i64,
    /// (`YYYY-MM`, extent, anomaly) of the last 12 months.
    pub months: Vec<(String, f64, f64)>,
}

/// Everything the dataset carries; a source's fields are `None` when it has never answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OceanIce {
    pub ice: Option<IceValues>,
    /// Millimetres above 1993 and the annual rise in mm.
    pub sea_level: Option<(f64, f64)>,
    /// Zettajoules (0–700 m) and the mid-year it describes (epoch ms).
    pub ohc: Option<(f64, i64)>,
    /// °C and the month it describes (epoch ms).
    pub sst: Option<(f64, i64)>,
}

fn ms(day: NaiveDate) -> i64 {
    day.and_hms_opt(0, 0, 0).map(|t| t.and_utc().timestamp_millis()).unwrap_or(0)
}

async fn text(ctx: &FetchContext, url: &str) -> Result<String, SourceError> {
    let url = Url::parse(url).map_err(|e| SourceError::parse("ocean-ice url", e))?;
    let reply = ctx.http.get_ok(&url, Default::default()).await?;
    Ok(String::from_utf8_lossy(&reply.body).into_owned())
}

/// An HTML page that is itself the data (NASA's sea-level page, NOAA's directory index): any 2xx.
async fn page(ctx: &FetchContext, url: &str) -> Result<String, SourceError> {
    let url = Url::parse(url).map_err(|e| SourceError::parse("ocean-ice url", e))?;
    let reply = ctx.http.send(reqwest::Method::GET, &url, Default::default(), None, None).await?;
    if !reply.status.is_success() {
        return Err(SourceError::Status {
            url: crate::transport::redact(&url),
            status: reply.status.as_u16(),
            snippet: String::new(),
        });
    }
    Ok(String::from_utf8_lossy(&reply.body).into_owned())
}

async fn fetch_ice(ctx: &FetchContext) -> Result<SeaIce, SourceError> {
    let (daily_url, climatology_url) = (
        format!("{NSIDC}/N_seaice_extent_daily_v4.0.csv"),
        format!("{NSIDC}/N_seaice_extent_climatology_1981-2010_v4.0.csv"),
    );
    let (daily, climatology) = tokio::try_join!(text(ctx, &daily_url), text(ctx, &climatology_url))?;
    parse::sea_ice(&parse::nsidc_daily(&daily)?, &parse::nsidc_median(&climatology)?)
}

async fn fetch_sst(ctx: &FetchContext) -> Result<(NaiveDate, f64), SourceError> {
    let file = parse::noaa_latest_file(&page(ctx, NOAA_V6).await?)?;
    parse::noaa_sst(&text(ctx, &format!("{NOAA_V6}{file}")).await?)
}

#[derive(Default)]
pub struct OceanIceSource;

#[async_trait::async_trait]
impl Source for OceanIceSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::OCEAN_ICE
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["ocean-ice"]
    }

    fn reads_previous(&self) -> bool {
        true
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("ocean-ice keeps the latest values only".into()));
        }
        let previous = previous(ctx.previous.as_ref());
        let (ice, sea, ohc, sst) = tokio::join!(
            fetch_ice(ctx),
            async { parse::nasa_sea_level(&page(ctx, NASA).await?) },
            async { parse::ncei_ohc(&text(ctx, NCEI_OHC).await?) },
            fetch_sst(ctx),
        );
        let mut value = OceanIce::default();
        let mut states: Vec<(&str, &str, String)> = Vec::new();
        let mut failed = Vec::new();
        let mut record = |name: &'static str, result: Result<(), SourceError>, had_previous: bool| match result {
            Ok(()) => states.push((name, "ok", String::new())),
            Err(e) => {
                failed.push(format!("{name}: {}", e.brief()));
                states.push((name, if had_previous { "reused" } else { "failed" }, e.brief()));
            }
        };
        let ice = ice.map(|i| {
            value.ice = Some(IceValues {
                extent: i.latest.extent,
                anomaly: i.anomaly,
                trend: i.trend.as_str().to_string(),
                day_ms: ms(i.latest.day),
                months: i.months,
            });
        });
        if ice.is_err() {
            value.ice = previous.ice.clone();
        }
        record("nsidc", ice, previous.ice.is_some());
        let sea = sea.map(|s| value.sea_level = Some(s));
        if sea.is_err() {
            value.sea_level = previous.sea_level;
        }
        record("nasa-sea-level", sea, previous.sea_level.is_some());
        let ohc = ohc.map(|(year, zj)| {
            let mid_year = NaiveDate::from_ymd_opt(year.floor() as i32, 7, 1).map(ms).unwrap_or(0);
            value.ohc = Some((zj, mid_year));
        });
        if ohc.is_err() {
            value.ohc = previous.ohc;
        }
        record("ncei-ohc", ohc, previous.ohc.is_some());
        let sst = sst.map(|(month, anomaly)| value.sst = Some((anomaly, ms(month))));
        if sst.is_err() {
            value.sst = previous.sst;
        }
        record("noaa-sst", sst, previous.sst.is_some());
        if failed.len() == SOURCES.len() {
            return Err(SourceError::Upstream(format!("every ocean-ice source failed ({})", failed.join("; "))));
        }
        let partial_error =
            (!failed.is_empty()).then(|| format!("kept from the previous version: {}", failed.join("; ")));
        Ok(Fetched {
            partial_error,
            batch: rows(&value, &states)?,
            scope: Scope::All,
            as_of: ctx.now,
            upstream_version: None,
        })
    }
}

/// One dataset row under construction: `row_kind`, `position`, and the columns of its kind.
#[derive(Default)]
struct Row<'a> {
    kind: &'a str,
    position: usize,
    extent: Option<f64>,
    anomaly: Option<f64>,
    trend: Option<&'a str>,
    ice_at: Option<i64>,
    sea: Option<f64>,
    rise: Option<f64>,
    ohc: Option<f64>,
    ohc_at: Option<i64>,
    sst: Option<f64>,
    sst_at: Option<i64>,
    month: Option<&'a str>,
    month_extent: Option<f64>,
    month_anomaly: Option<f64>,
    source: Option<&'a str>,
    status: Option<&'a str>,
    message: Option<&'a str>,
}

fn rows(v: &OceanIce, states: &[(&str, &str, String)]) -> Result<RecordBatch, SourceError> {
    let ice = v.ice.as_ref();
    let mut rows = vec![Row {
        kind: "summary",
        extent: ice.map(|i| i.extent),
        anomaly: ice.map(|i| i.anomaly),
        trend: ice.map(|i| i.trend.as_str()),
        ice_at: ice.map(|i| i.day_ms),
        sea: v.sea_level.map(|s| s.0),
        rise: v.sea_level.map(|s| s.1),
        ohc: v.ohc.map(|o| o.0),
        ohc_at: v.ohc.map(|o| o.1),
        sst: v.sst.map(|s| s.0),
        sst_at: v.sst.map(|s| s.1),
        ..Default::default()
    }];
    for (i, (m, e, a)) in ice.map(|i| i.months.as_slice()).unwrap_or(&[]).iter().enumerate() {
        rows.push(Row {
            kind: "ice_month",
            position: i,
            month: Some(m),
            month_extent: Some(*e),
            month_anomaly: Some(*a),
            ..Default::default()
        });
    }
    for (i, (name, state, why)) in states.iter().enumerate() {
        rows.push(Row {
            kind: "source",
            position: i,
            source: Some(name),
            status: Some(state),
            message: Some(why),
            ..Default::default()
        });
    }
    let n = rows.len();
    let mut position = i32s(n);
    rows.iter().for_each(|r| position.append_value(r.position as i32));
    batch(
        DatasetId::OCEAN_ICE,
        vec![
            text_column(&rows, |r| Some(r.kind)),
            finish(position),
            f64_column(&rows, |r| r.extent),
            f64_column(&rows, |r| r.anomaly),
            text_column(&rows, |r| r.trend),
            instant_column(&rows, |r| r.ice_at),
            f64_column(&rows, |r| r.sea),
            f64_column(&rows, |r| r.rise),
            f64_column(&rows, |r| r.ohc),
            instant_column(&rows, |r| r.ohc_at),
            f64_column(&rows, |r| r.sst),
            instant_column(&rows, |r| r.sst_at),
            text_column(&rows, |r| r.month),
            f64_column(&rows, |r| r.month_extent),
            f64_column(&rows, |r| r.month_anomaly),
            text_column(&rows, |r| r.source),
            text_column(&rows, |r| r.status),
            text_column(&rows, |r| r.message),
        ],
    )
}

/// The values of the current version, for the sources that fail this run.
pub fn previous(batch: Option<&RecordBatch>) -> OceanIce {
    let Some(b) = batch else { return OceanIce::default() };
    let f = |name: &str| b.column_by_name(name).and_then(|c| c.as_primitive_opt::<Float64Type>()).cloned();
    let t = |name: &str| b.column_by_name(name).and_then(|c| c.as_primitive_opt::<TimestampMillisecondType>()).cloned();
    let s = |name: &str| b.column_by_name(name).and_then(|c| c.as_string_opt::<i32>()).cloned();
    let (Some(kind), Some(month)) = (s("row_kind"), s("month")) else { return OceanIce::default() };
    let (Some(extent), Some(anomaly), Some(trend), Some(ice_at)) =
        (f("arctic_extent_mkm2"), f("arctic_extent_anomaly_mkm2"), s("arctic_trend"), t("ice_measured_at"))
    else {
        return OceanIce::default();
    };
    let (Some(sea), Some(rise), Some(ohc), Some(ohc_at), Some(sst), Some(sst_at), Some(m_extent), Some(m_anomaly)) = (
        f("sea_level_mm_above_1993"),
        f("sea_level_annual_rise_mm"),
        f("ohc_0700m_zj"),
        t("ohc_measured_at"),
        f("sst_anomaly_c"),
        t("sst_measured_at"),
        f("extent_mkm2"),
        f("anomaly_mkm2"),
    ) else {
        return OceanIce::default();
    };
    let mut out = OceanIce::default();
    let months: Vec<(String, f64, f64)> = (0..b.num_rows())
        .filter(|&i| kind.value(i) == "ice_month")
        .map(|i| (month.value(i).to_string(), m_extent.value(i), m_anomaly.value(i)))
        .collect();
    for i in (0..b.num_rows()).filter(|&i| kind.value(i) == "summary") {
        if !extent.is_null(i) {
            out.ice = Some(IceValues {
                extent: extent.value(i),
                anomaly: anomaly.value(i),
                trend: trend.value(i).to_string(),
                day_ms: ice_at.value(i),
                months: months.clone(),
            });
        }
        if !sea.is_null(i) {
            out.sea_level = Some((sea.value(i), rise.value(i)));
        }
        if !ohc.is_null(i) {
            out.ohc = Some((ohc.value(i), ohc_at.value(i)));
        }
        if !sst.is_null(i) {
            out.sst = Some((sst.value(i), sst_at.value(i)));
        }
    }
    out
}
