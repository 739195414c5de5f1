//! `get_sources` (SUPPLEMENT 6.6): the dataset descriptors (the source registry of 1.16) with
//! their live freshness from the current generation. No network, no credential.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};
use sitrep_schemas::DatasetId;

use sitrep_platform::{app_state::AppState, dataset_health::DatasetHealth, registry::Registry};

const DEFAULT_LIMIT: u64 = 50;
const MAX_LIMIT: u64 = 200;

/// "2m", "30m", "3h", "7d": the cadence as people write it.
fn cadence(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        s if s % 86_400 == 0 && s > 0 => format!("{}d", s / 86_400),
        s if s % 3_600 == 0 && s > 0 => format!("{}h", s / 3_600),
        s if s % 60 == 0 && s > 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// The tool group of a dataset: where its operations live (`consumer-prices` → `consumer_prices`).
fn group_of(dataset: DatasetId) -> String {
    dataset.descriptor().group.replace('-', "_")
}

fn limit_of(arg: Option<&Value>) -> Result<u64, Value> {
    let bad = || json!({"error": "limit must be an integer between 1 and 200"});
    let n = match arg {
        None | Some(Value::Null) => return Ok(DEFAULT_LIMIT),
        Some(Value::Number(n)) => n.as_u64().ok_or_else(bad)?,
        Some(Value::String(s)) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse().map_err(|_| bad())?
        }
        Some(_) => return Err(bad()),
    };
    if (1..=MAX_LIMIT).contains(&n) {
        Ok(n)
    } else {
        Err(bad())
    }
}

/// The tool's result value (an `{"error": …}` object for bad arguments, as 6.6 says).
pub fn get_sources(
    state: &AppState,
    registry: &Registry,
    groups: &[String],
    args: &Value,
    now: DateTime<Utc>,
) -> Value {
    let group = match args.get("group") {
        None | Some(Value::Null) => None,
        Some(Value::String(g)) if groups.contains(g) => Some(g.as_str()),
        Some(_) => return json!({"error": format!("group must be one of: {}", groups.join(", "))}),
    };
    let limit = match limit_of(args.get("limit")) {
        Ok(n) => n as usize,
        Err(e) => return e,
    };
    let query = args.get("query").and_then(Value::as_str).map(str::to_lowercase).filter(|q| !q.is_empty());
    let generation = state.snapshots.current();
    let matched: Vec<Value> = DatasetId::ALL
        .into_iter()
        .filter(|d| group.is_none_or(|g| group_of(*d) == g))
        .filter(|d| {
            query
                .as_deref()
                .is_none_or(|q| d.as_str().contains(q) || d.descriptor().provider.to_lowercase().contains(q))
        })
        .map(|d| {
            let descriptor = d.descriptor();
            let health = DatasetHealth::of(d, generation.as_ref().and_then(|g| g.commit.dataset(d)), now);
            let operations: Vec<&str> = registry.reading(d).map(|op| op.path).collect();
            json!({
                "dataset": d.as_str(),
                "provider": descriptor.provider,
                "group": group_of(d),
                "operations": operations,
                "license": descriptor.license,
                "cadence": cadence(descriptor.cadence),
                "freshness": {
                    "state": health.state.as_str(),
                    "generation": health.version.map(|v| v.to_string()),
                    "asOf": health.as_of.map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true)),
                    "ageSeconds": health.age_seconds,
                    "staleReason": health.stale_reason.map(|r| r.as_str()),
                    "contentAgeSeconds": health.content_age_seconds,
                },
            })
        })
        .collect();
    let sources: Vec<Value> = matched.iter().take(limit).cloned().collect();
    json!({"matched": matched.len(), "returned": sources.len(), "sources": sources})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cadences_and_limits() {
        use std::time::Duration;
        assert_eq!(cadence(Duration::from_secs(120)), "2m");
        assert_eq!(cadence(Duration::from_secs(3 * 3600)), "3h");
        assert_eq!(cadence(Duration::from_secs(7 * 86_400)), "7d");
        assert_eq!(limit_of(None), Ok(50));
        assert_eq!(limit_of(Some(&json!("7"))), Ok(7));
        assert_eq!(limit_of(Some(&json!(200))), Ok(200));
        for bad in [json!(0), json!(201), json!("x"), json!(1.5), json!(-1), json!("")] {
            assert!(limit_of(Some(&bad)).is_err(), "{bad}");
        }
    }
}
