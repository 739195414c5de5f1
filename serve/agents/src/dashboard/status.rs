//! `GET /status` (public): every dataset's state, version, as-of, age, mode and last error class,
//! with a freshness chart; `?format=json` gives the same rows as JSON.

use chrono::{DateTime, Utc};
use poem::{http::StatusCode, Request, Response};
use serde_json::{json, Value};
use sitrep_schemas::{DatasetId, StaleReason};

use crate::html::{cell, classed_cell, document, escape};
use sitrep_platform::{app_state::AppState, dataset_health::DatasetHealth, meta::error_class};

struct Row {
    dataset: DatasetId,
    health: DatasetHealth,
    mode: Option<&'static str>,
    last_error_class: Option<String>,
}

fn rows(state: &AppState, now: DateTime<Utc>) -> (Option<u64>, Vec<Row>) {
    let generation = state.snapshots.current();
    let rows = DatasetId::ALL
        .into_iter()
        .map(|d| {
            let entry = generation.as_ref().and_then(|g| g.commit.dataset(d));
            Row {
                dataset: d,
                health: DatasetHealth::of(d, entry, now),
                mode: entry.map(|e| e.freshness.mode.as_str()),
                last_error_class: entry
                    .and_then(|e| e.freshness.last_error.as_deref())
                    .map(|e| error_class(e).to_string()),
            }
        })
        .collect();
    (generation.map(|g| g.number), rows)
}

fn age_words(seconds: Option<i64>) -> String {
    match seconds {
        None => "—".into(),
        Some(s) if s < 120 => format!("{s} s"),
        Some(s) if s < 7_200 => format!("{} min", s / 60),
        Some(s) if s < 172_800 => format!("{} h", s / 3_600),
        Some(s) => format!("{} days", s / 86_400),
    }
}

/// One bar per dataset: its age against the age at which it turns stale (2 × cadence).
fn chart(rows: &[Row]) -> String {
    let bar_height = 22;
    let height = rows.len() * bar_height + 10;
    let bars: String = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let stale_after = (r.dataset.cadence().as_secs() * 2).max(1) as f64;
            let fraction = r.health.age_seconds.map(|a| (a as f64 / stale_after).min(1.0)).unwrap_or(1.0);
            let y = i * bar_height + 5;
            format!(
                "<text x=\"0\" y=\"{ty}\" font-size=\"12\">{name}</text>\
<rect x=\"150\" y=\"{y}\" width=\"{w:.0}\" height=\"14\" class=\"{class}\" fill=\"currentColor\"><title>{name}: {age}</title></rect>",
                ty = y + 12,
                name = escape(r.dataset.as_str()),
                w = 1.0 + fraction * 300.0,
                class = r.health.state.as_str(),
                age = escape(&age_words(r.health.age_seconds)),
            )
        })
        .collect();
    format!(
        "<figure><svg role=\"img\" aria-label=\"Age of each dataset against its staleness threshold\" viewBox=\"0 0 460 {height}\" width=\"100%\">{bars}</svg>\
<figcaption>Bar length: age of the data relative to twice its refresh cadence (a full bar is stale or unavailable).</figcaption></figure>"
    )
}

pub fn page(state: &AppState, req: &Request) -> Response {
    let now = Utc::now();
    let (generation, rows) = rows(state, now);
    let as_json = req
        .uri()
        .query()
        .is_some_and(|q| url::form_urlencoded::parse(q.as_bytes()).any(|(k, v)| k == "format" && v == "json"));
    if as_json {
        let datasets: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({
                    "dataset": r.dataset.as_str(),
                    "state": r.health.state.as_str(),
                    "version": r.health.version,
                    "asOf": r.health.as_of.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                    "ageSeconds": r.health.age_seconds,
                    "staleReason": r.health.stale_reason.map(|x| x.as_str()),
                    "contentAt": r.health.content_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                    "contentAgeSeconds": r.health.content_age_seconds,
                    "mode": r.mode,
                    "lastErrorClass": r.last_error_class,
                })
            })
            .collect();
        return Response::builder()
            .content_type("application/json")
            .header("cache-control", "no-store")
            .body(json!({"generation": generation, "datasets": datasets}).to_string());
    }
    let table: String = rows
        .iter()
        .map(|r| {
            let state = r.health.state.as_str();
            let reason = match r.health.stale_reason {
                Some(StaleReason::FrozenUpstream) => " (frozen upstream)",
                _ => "",
            };
            let cells = [
                cell("Dataset", &escape(r.dataset.as_str())),
                classed_cell("State", state, &format!("{state}{reason}")),
                cell("Version", &r.health.version.map(|v| v.to_string()).unwrap_or_else(|| "—".into())),
                cell(
                    "As of",
                    &r.health.as_of.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()).unwrap_or_else(|| "—".into()),
                ),
                cell("Age", &age_words(r.health.age_seconds)),
                cell("Content age", &age_words(r.health.content_age_seconds)),
                cell("Mode", r.mode.unwrap_or("—")),
                cell("Last error", &escape(r.last_error_class.as_deref().unwrap_or("—"))),
            ];
            format!("<tr>{}</tr>", cells.concat())
        })
        .collect();
    let body = format!(
        "<h1>Data status</h1><p>Generation {}. <a href=\"/status?format=json\">JSON</a> · <a href=\"/dashboard\">Dashboard</a></p>\
<div class=\"table\"><table><thead><tr><th>Dataset</th><th>State</th><th>Version</th><th>As of</th><th>Age</th><th>Content age</th><th>Mode</th><th>Last error</th></tr></thead>\
<tbody>{table}</tbody></table></div>{}",
        generation.map(|g| g.to_string()).unwrap_or_else(|| "none yet".into()),
        chart(&rows),
    );
    document(StatusCode::OK, "Data status — sitrep", &body)
}
