//! Health, readiness and discovery endpoints (no credential needed).

use std::sync::Arc;

use chrono::Utc;
use poem::{handler, web::Data, Response};
use serde_json::json;
use sitrep_schemas::DatasetId;

use crate::{app_state::AppState, dataset_health::DatasetHealth, kit::answer::DataState};

fn json(status: u16, body: serde_json::Value, cache: &str) -> Response {
    Response::builder()
        .status(poem::http::StatusCode::from_u16(status).unwrap_or(poem::http::StatusCode::OK))
        .content_type("application/json; charset=utf-8")
        .header("cache-control", cache)
        .body(serde_json::to_vec(&body).unwrap_or_default())
}

fn datasets(state: &AppState) -> (serde_json::Value, bool, Option<u64>) {
    let generation = state.snapshots.current();
    let now = Utc::now();
    let mut degraded = false;
    let mut map = serde_json::Map::new();
    for id in DatasetId::ALL {
        let entry = generation.as_ref().and_then(|g| g.commit.dataset(id));
        let health = DatasetHealth::of(id, entry, now);
        degraded |= health.state == DataState::Unavailable;
        map.insert(
            id.as_str().into(),
            json!({
                "state": health.state.as_str(),
                "staleReason": health.stale_reason.map(|r| r.as_str()),
                "contentAt": health.content_at.map(|t| t.to_rfc3339()),
                "mode": entry.map(|e| e.freshness.mode.as_str()),
                "generation": entry.and_then(|e| e.version),
                "asOf": entry.and_then(|e| e.freshness.as_of).map(|t| t.to_rfc3339()),
                "fetchedAt": entry.and_then(|e| e.freshness.fetched_at).map(|t| t.to_rfc3339()),
                "upstreamVersion": entry.and_then(|e| e.freshness.upstream_version.clone()),
                "rows": entry.map(|e| e.freshness.rows).unwrap_or(0),
                "status": entry.map(|e| format!("{:?}", e.freshness.status).to_lowercase()),
                // Public: the class of the last failure, never an upstream's response text.
                "lastErrorClass": entry.and_then(|e| e.freshness.last_error.as_deref()).map(error_class),
            }),
        );
    }
    (serde_json::Value::Object(map), degraded, generation.map(|g| g.number))
}

/// The leading `kind` of a recorded failure (`http_status: … answered 503: <body>` → `http_status`).
pub fn error_class(recorded: &str) -> &str {
    let kind = recorded.split(':').next().unwrap_or("").trim();
    if !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
        kind
    } else {
        "error"
    }
}

/// `GET /metrics`: the OpenMetrics exposition Prometheus scrapes.
#[handler]
pub fn metrics(state: Data<&Arc<AppState>>) -> Response {
    Response::builder()
        .content_type("application/openmetrics-text; version=1.0.0; charset=utf-8")
        .header("cache-control", "no-store")
        .body(state.metrics.render(&state.cache, &state.snapshots))
}

/// Liveness: the process answers.
#[handler]
pub fn healthz() -> Response {
    json(200, json!({ "status": "ok" }), "no-store")
}

/// Readiness: 200 once a generation is loaded, with each dataset's freshness; 503 before.
#[handler]
pub fn readyz(state: Data<&Arc<AppState>>) -> Response {
    let (datasets, _, generation) = datasets(&state);
    let ready = generation.is_some();
    json(
        if ready { 200 } else { 503 },
        json!({ "ready": ready, "generation": generation, "datasets": datasets }),
        "no-store",
    )
}

/// `GET /api/health` (SUPPLEMENT 5.3).
#[handler]
pub fn api_health(state: Data<&Arc<AppState>>) -> Response {
    let (datasets, degraded, _) = datasets(&state);
    json(
        200,
        json!({
            "status": if degraded { "degraded" } else { "ok" },
            "version": env!("CARGO_PKG_VERSION"),
            "time": Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "datasets": datasets,
        }),
        "no-store",
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_the_error_class_is_public() {
        assert_eq!(super::error_class("http_status: https://x answered 503: <html>secret</html>"), "http_status");
        assert_eq!(super::error_class("missing_credentials: ACLED_ACCESS_TOKEN"), "missing_credentials");
        assert_eq!(super::error_class("<html>oops</html>"), "error");
    }
}
