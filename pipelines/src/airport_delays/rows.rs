//! The lake rows of `airport-delays` (see its schema): written from a run's components and alerts,
//! and read back from the current version so a later run can reuse a component.

use arrow::{
    array::{Array, AsArray, RecordBatch},
    datatypes::{Float64Type, Int32Type, TimestampMillisecondType},
};
use sitrep_schemas::{aviation::AirportRegion, DatasetId};

use super::{
    hubs::{HubStats, HubStatus},
    merge::Alert,
    notam::{AirportNotam, NotamKind},
    ComponentState,
};
use crate::{
    arrow_util::{batch as make_batch, f64_column, i32_column, instant_column, text_column},
    SourceError,
};

/// One row under construction: every column optional but `row_kind`, `position`, `component`.
#[derive(Default)]
struct Row<'a> {
    kind: &'a str,
    position: i32,
    component: &'a str,
    iata: Option<&'a str>,
    icao: Option<&'a str>,
    name: Option<&'a str>,
    city: Option<&'a str>,
    country: Option<&'a str>,
    latitude: Option<f64>,
    longitude: Option<f64>,
    region: Option<AirportRegion>,
    id: Option<&'a str>,
    delay_type: Option<&'a str>,
    severity: Option<&'a str>,
    avg_delay_minutes: Option<i32>,
    delayed_flights_pct: Option<f64>,
    cancelled_flights: Option<i32>,
    total_flights: Option<i32>,
    reason: Option<&'a str>,
    source: Option<&'a str>,
    updated_at: Option<i64>,
    status: Option<&'a str>,
    message: Option<&'a str>,
    notam_flag: Option<&'a str>,
    notam_text: Option<&'a str>,
    coverage: Option<&'a str>,
}

/// The run's rows: components, hubs, NOTAMs and alerts.
pub fn batch<'a>(
    alerts: &'a [Alert],
    hubs: &'a [HubStats],
    notams: Option<(&'a [AirportNotam], i64)>,
    components: &'a [ComponentState],
) -> Result<RecordBatch, SourceError> {
    let mut rows: Vec<Row<'a>> = Vec::new();
    for (i, c) in components.iter().enumerate() {
        rows.push(Row {
            kind: "component",
            position: i as i32,
            component: c.name,
            status: Some(c.status),
            message: Some(&c.message),
            updated_at: (c.updated_at > 0).then_some(c.updated_at),
            ..Default::default()
        });
    }
    for (i, h) in hubs.iter().enumerate() {
        rows.push(Row {
            kind: "hub",
            position: i as i32,
            component: "aviationstack",
            iata: Some(&h.iata),
            status: Some(h.status.as_str()),
            message: Some(&h.message),
            total_flights: Some(h.total_flights),
            cancelled_flights: Some(h.cancelled_flights),
            delayed_flights_pct: Some(h.delayed_flights_pct),
            avg_delay_minutes: Some(h.avg_delay_minutes),
            updated_at: Some(h.fetched_at),
            ..Default::default()
        });
    }
    if let Some((notams, at)) = notams {
        for (i, n) in notams.iter().enumerate() {
            rows.push(Row {
                kind: "notam",
                position: i as i32,
                component: "notam",
                icao: Some(&n.icao),
                notam_flag: Some(n.kind.flag()),
                notam_text: Some(&n.text),
                updated_at: Some(at),
                ..Default::default()
            });
        }
    }
    for (i, a) in alerts.iter().enumerate() {
        let p = a.airport;
        rows.push(Row {
            kind: "alert",
            position: i as i32,
            component: a.component,
            iata: Some(p.iata),
            icao: Some(p.icao),
            name: Some(p.name),
            city: Some(p.city),
            country: Some(p.country),
            latitude: Some(p.lat),
            longitude: Some(p.lon),
            region: AirportRegion::of_registry(p.region),
            id: Some(&a.id),
            delay_type: Some(a.delay_type),
            severity: Some(a.severity.name()),
            avg_delay_minutes: Some(a.avg_delay_minutes),
            delayed_flights_pct: Some(a.delayed_flights_pct),
            cancelled_flights: Some(a.cancelled_flights),
            total_flights: Some(a.total_flights),
            reason: Some(&a.reason),
            source: Some(a.source),
            updated_at: Some(a.updated_at),
            notam_flag: a.notam.as_ref().map(|(k, _)| k.flag()),
            notam_text: a.notam.as_ref().map(|(_, t)| t.as_str()),
            coverage: Some(a.coverage),
            ..Default::default()
        });
    }
    make_batch(
        DatasetId::AIRPORT_DELAYS,
        vec![
            text_column(&rows, |r| Some(r.kind)),
            i32_column(&rows, |r| Some(r.position)),
            text_column(&rows, |r| Some(r.component)),
            text_column(&rows, |r| r.iata),
            text_column(&rows, |r| r.icao),
            text_column(&rows, |r| r.name),
            text_column(&rows, |r| r.city),
            text_column(&rows, |r| r.country),
            f64_column(&rows, |r| r.latitude),
            f64_column(&rows, |r| r.longitude),
            text_column(&rows, |r| r.region.map(AirportRegion::as_str)),
            text_column(&rows, |r| r.id),
            text_column(&rows, |r| r.delay_type),
            text_column(&rows, |r| r.severity),
            i32_column(&rows, |r| r.avg_delay_minutes),
            f64_column(&rows, |r| r.delayed_flights_pct),
            i32_column(&rows, |r| r.cancelled_flights),
            i32_column(&rows, |r| r.total_flights),
            text_column(&rows, |r| r.reason),
            text_column(&rows, |r| r.source),
            instant_column(&rows, |r| r.updated_at),
            text_column(&rows, |r| r.status),
            text_column(&rows, |r| r.message),
            text_column(&rows, |r| r.notam_flag),
            text_column(&rows, |r| r.notam_text),
            text_column(&rows, |r| r.coverage),
        ],
    )
}

/// The reusable components of the current version: the hubs and the NOTAMs with their component
/// rows (status, message, fetch time), when that version carried them fresh or reused.
#[derive(Debug, Default)]
pub struct Previous {
    pub hubs: Option<(Vec<HubStats>, ComponentState)>,
    pub notams: Option<(Vec<AirportNotam>, ComponentState)>,
}

/// A text cell, null read as "".
fn s(a: &arrow::array::StringArray, i: usize) -> &str {
    if a.is_null(i) {
        ""
    } else {
        a.value(i)
    }
}

pub fn previous(batch: Option<&RecordBatch>) -> Result<Previous, SourceError> {
    let Some(b) = batch else { return Ok(Previous::default()) };
    let missing = |name: &str| SourceError::parse("airport-delays previous version", format!("no column {name}"));
    let text = |name: &str| b.column_by_name(name).and_then(|c| c.as_string_opt::<i32>()).ok_or_else(|| missing(name));
    let (kind, component, status) = (text("row_kind")?, text("component")?, text("status")?);
    let (iata, icao, message) = (text("iata")?, text("icao")?, text("message")?);
    let (flag, notam_text) = (text("notam_flag")?, text("notam_text")?);
    let int = |name: &str| {
        b.column_by_name(name).and_then(|c| c.as_primitive_opt::<Int32Type>()).ok_or_else(|| missing(name))
    };
    let (total, cancelled, avg) = (int("total_flights")?, int("cancelled_flights")?, int("avg_delay_minutes")?);
    let pct = b
        .column_by_name("delayed_flights_pct")
        .and_then(|c| c.as_primitive_opt::<Float64Type>())
        .ok_or_else(|| missing("delayed_flights_pct"))?;
    let updated = b
        .column_by_name("updated_at")
        .and_then(|c| c.as_primitive_opt::<TimestampMillisecondType>())
        .ok_or_else(|| missing("updated_at"))?;
    let mut out = Previous::default();
    let mut hubs = Vec::new();
    let mut notams = Vec::new();
    for i in 0..b.num_rows() {
        match kind.value(i) {
            "component" => {
                let carried = matches!(s(status, i), "ok" | "reused") && !updated.is_null(i);
                let state = |name| ComponentState {
                    name,
                    status: if s(status, i) == "ok" { "ok" } else { "reused" },
                    message: s(message, i).to_string(),
                    updated_at: updated.value(i),
                };
                match (component.value(i), carried) {
                    ("aviationstack", true) => out.hubs = Some((Vec::new(), state("aviationstack"))),
                    ("notam", true) => out.notams = Some((Vec::new(), state("notam"))),
                    _ => {}
                }
            }
            "hub" => hubs.push(HubStats {
                iata: s(iata, i).to_string(),
                status: HubStatus::parse(s(status, i)),
                total_flights: total.value(i),
                cancelled_flights: cancelled.value(i),
                delayed_flights_pct: pct.value(i),
                avg_delay_minutes: avg.value(i),
                fetched_at: updated.value(i),
                message: s(message, i).to_string(),
            }),
            "notam" => {
                if let Some(kind) = NotamKind::from_flag(s(flag, i)) {
                    notams.push(AirportNotam {
                        icao: s(icao, i).to_string(),
                        kind,
                        text: s(notam_text, i).to_string(),
                    });
                }
            }
            _ => {}
        }
    }
    if let Some((h, _)) = out.hubs.as_mut() {
        *h = hubs;
    }
    if let Some((n, _)) = out.notams.as_mut() {
        *n = notams;
    }
    Ok(out)
}
