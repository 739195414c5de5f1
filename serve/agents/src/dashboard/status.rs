//! `GET /status` (public): every dataset's state, version, as-of, age, mode and last error class,
//! and a picture of its retained history, in a table as wide as the screen (one line per date);
//! `?format=json` gives the same rows as JSON. (A bar chart of the ages below the table repeated
//! its Age column and was dropped, issue 60.)

use chrono::{DateTime, Utc};
use poem::{http::StatusCode, Request, Response};
use serde_json::{json, Value};
use sitrep_schemas::{DatasetId, StaleReason};

use crate::html::{cell, classed_cell, document, escape};
use sitrep_lake::PublishedVersion;
use sitrep_platform::{app_state::AppState, dataset_health::DatasetHealth, kit::answer::DataState, meta::error_class};

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

/// Columns the history picture judges the dataset's state in.
const HISTORY_COLUMNS: usize = 60;

/// A dataset's retained history as a picture (inline SVG, no script): its time axis runs from the
/// oldest retained version's publication to `now`; each column of it is shaded by the state the
/// version current then was in (stale, or stale because its upstream froze; fresh is unshaded),
/// a mark stands at each version's publication (`data-version`), the current one highlighted;
/// its title and description say the same in words for screen readers.
fn history_picture(
    dataset: DatasetId,
    versions: &[PublishedVersion],
    current: Option<u64>,
    now: DateTime<Utc>,
) -> String {
    let Some(first) = versions.iter().map(|v| v.published_at).min() else {
        return "—".into();
    };
    let span = (now - first).num_milliseconds().max(1) as f64;
    let x = |t: DateTime<Utc>| 2.0 + 196.0 * ((t - first).num_milliseconds() as f64 / span).clamp(0.0, 1.0);
    let mut shaded = [0usize; 2];
    let columns: String = (0..HISTORY_COLUMNS)
        .filter_map(|c| {
            let t = first + chrono::Duration::milliseconds((span * (c as f64 + 0.5) / HISTORY_COLUMNS as f64) as i64);
            let then = versions.iter().filter(|v| v.published_at <= t).max_by_key(|v| v.published_at)?;
            let (state, reason) = DataState::judged(dataset, Some(&then.entry.freshness), t);
            let class = match (state, reason) {
                (DataState::Stale, Some(StaleReason::FrozenUpstream)) => "frozen",
                (DataState::Stale, _) => "stale",
                _ => return None,
            };
            shaded[usize::from(class == "frozen")] += 1;
            let width = 196.0 / HISTORY_COLUMNS as f64;
            Some(format!(
                "<rect class=\"{class}\" x=\"{:.2}\" y=\"2\" width=\"{width:.2}\" height=\"16\" fill=\"currentColor\" opacity=\"0.35\"/>",
                2.0 + width * c as f64
            ))
        })
        .collect();
    let marks: String = versions
        .iter()
        .map(|v| {
            let is_current = Some(v.version) == current;
            format!(
                "<line data-version=\"{n}\"{cls} x1=\"{x:.2}\" x2=\"{x:.2}\" y1=\"{y1}\" y2=\"18\" stroke=\"currentColor\" stroke-width=\"{w}\"><title>version {n}, {at}{cur}</title></line>",
                n = v.version,
                cls = if is_current { " class=\"current\"" } else { "" },
                x = x(v.published_at),
                y1 = if is_current { 0 } else { 4 },
                w = if is_current { 3 } else { 1 },
                at = v.published_at.format("%Y-%m-%d %H:%M UTC"),
                cur = if is_current { " (current)" } else { "" },
            )
        })
        .collect();
    let share = |n: usize| n * 100 / HISTORY_COLUMNS;
    let words = format!(
        "{}: {} retained version{} since {}; stale {}% of that time, frozen upstream {}%{}",
        dataset.as_str(),
        versions.len(),
        if versions.len() == 1 { "" } else { "s" },
        first.format("%Y-%m-%d %H:%M UTC"),
        share(shaded[0]),
        share(shaded[1]),
        current.map(|c| format!("; current version {c}")).unwrap_or_default(),
    );
    format!(
        "<svg class=\"history\" data-dataset=\"{d}\" role=\"img\" aria-labelledby=\"h-{d}-t h-{d}-d\" viewBox=\"0 0 200 20\" width=\"320\" height=\"32\">\
<title id=\"h-{d}-t\">History of {d}</title><desc id=\"h-{d}-d\">{words}</desc><line x1=\"2\" x2=\"198\" y1=\"18\" y2=\"18\" stroke=\"currentColor\" opacity=\"0.3\"/>{columns}{marks}</svg>",
        d = escape(dataset.as_str()),
        words = escape(&words),
    )
}

pub async fn page(state: &AppState, req: &Request) -> Response {
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
    // Each dataset's retained versions (read from the lake once, then cached per generation); a
    // dataset whose history cannot be read shows none rather than failing the page.
    let mut pictures = Vec::with_capacity(rows.len());
    for r in &rows {
        let versions = state.snapshots.retained_history(r.dataset).await.ok();
        let versions = versions.as_deref().map(Vec::as_slice).unwrap_or_default();
        pictures.push(history_picture(r.dataset, versions, r.health.version, now));
    }
    let table: String = rows
        .iter()
        .zip(&pictures)
        .map(|(r, picture)| {
            let state = r.health.state.as_str();
            let reason = match r.health.stale_reason {
                Some(StaleReason::FrozenUpstream) => " (frozen upstream)",
                _ => "",
            };
            let cells = [
                cell("Dataset", &escape(r.dataset.as_str())),
                classed_cell("State", state, &format!("{state}{reason}")),
                cell("Version", &r.health.version.map(|v| v.to_string()).unwrap_or_else(|| "—".into())),
                classed_cell(
                    "As of",
                    "nowrap",
                    &r.health.as_of.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()).unwrap_or_else(|| "—".into()),
                ),
                cell("Age", &age_words(r.health.age_seconds)),
                cell("Content age", &age_words(r.health.content_age_seconds)),
                cell("Mode", r.mode.unwrap_or("—")),
                cell("Last error", &escape(r.last_error_class.as_deref().unwrap_or("—"))),
                cell("History", picture),
            ];
            format!("<tr>{}</tr>", cells.concat())
        })
        .collect();
    let body = format!(
        "<div class=\"wide-page\"><h1>Data status</h1><p>Generation {}. <a href=\"/status?format=json\">JSON</a> · <a href=\"/dashboard\">Dashboard</a></p>\
<div class=\"table\"><table><thead><tr><th>Dataset</th><th>State</th><th>Version</th><th>As of</th><th>Age</th><th>Content age</th><th>Mode</th><th>Last error</th><th>History</th></tr></thead>\
<tbody>{table}</tbody></table></div></div>",
        generation.map(|g| g.to_string()).unwrap_or_else(|| "none yet".into()),
    );
    document(StatusCode::OK, "Data status — sitrep", &body)
}
