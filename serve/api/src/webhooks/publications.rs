//! `dataset.version.published`: the lake is the truth of what was published, and every replica
//! follows it. Each dataset's cursor in the state store says how far the announcements have
//! come; the versions the lake's history holds after it (oldest first) are written as events in
//! the transaction that moves it, so a version is announced once, and one published while no
//! server ran is announced when one starts (within the lake's retention). A dataset is followed
//! from the version current when it was first seen; with no endpoint wanting it, the cursor
//! moves on without events (and without the diffs their counts take).

use serde_json::json;
use sitrep_platform::app_state::AppState;
use sitrep_schemas::DatasetId;
use sitrep_webhooks::{store::NewEvent, EventType, WebhookError};

use super::webhooks;
use crate::company_monitoring::records::iso;

#[derive(Debug, thiserror::Error)]
pub enum AnnounceError {
    #[error(transparent)]
    Store(#[from] WebhookError),
    #[error("the lake's history of {0}: {1}")]
    History(DatasetId, String),
}

/// Announces what was published since the cursors, for every dataset the deployment serves.
pub async fn announce(state: &AppState) -> Result<(), AnnounceError> {
    let Some(generation) = state.snapshots.current() else { return Ok(()) };
    let store = &webhooks(state).store;
    let mut unfollowed = Vec::new();
    for dataset in DatasetId::ALL {
        let Some(current) = generation.commit.dataset(dataset).and_then(|e| e.version) else { continue };
        if !state.settings.serves(dataset) {
            continue;
        }
        let name = dataset.to_string();
        let Some(announced) = store.dataset_cursor(&name).await? else {
            unfollowed.push((name, current));
            continue;
        };
        if announced >= current {
            continue;
        }
        let events = if store.dataset_wanted(&name).await? {
            events_after(state, dataset, announced, current).await?
        } else {
            Vec::new()
        };
        store.announce_versions(&name, announced, current, &events, state.clock.now_ms()).await?;
    }
    store.follow_datasets(&unfollowed).await?;
    Ok(())
}

/// One event per version of `dataset` published after `announced` up to `current`, each counted
/// against the version before it.
async fn events_after(
    state: &AppState,
    dataset: DatasetId,
    announced: u64,
    current: u64,
) -> Result<Vec<NewEvent>, AnnounceError> {
    let history = state.snapshots.history(dataset).await.map_err(|e| AnnounceError::History(dataset, e.to_string()))?;
    let mut versions: Vec<_> = history.iter().filter(|v| v.version > announced && v.version <= current).collect();
    versions.sort_by_key(|v| v.version);
    let previous_at = history.iter().find(|v| v.version == announced).map(|v| v.published_at);
    let site = state.settings.site_origin();
    let mut events = Vec::with_capacity(versions.len());
    let (mut previous, mut since) = (announced, previous_at);
    for v in versions {
        let totals = crate::history::totals_between(state, dataset, previous, v.version).await.ok().flatten();
        let changes_url = since.map(|since| {
            format!(
                "{site}/api/history/v1/list-dataset-changes?dataset={dataset}&since={}&until={}",
                since.timestamp_millis(),
                v.published_at.timestamp_millis()
            )
        });
        events.push(NewEvent {
            event_type: EventType::DatasetVersionPublished,
            account_id: None,
            subject: dataset.to_string(),
            dedupe_key: Some(format!("{dataset}:{}", v.version)),
            data: json!({
                "dataset": dataset.to_string(),
                "version": v.version.to_string(),
                "previousVersion": previous.to_string(),
                "publishedAt": iso(v.published_at.timestamp_millis()),
                "rows": v.entry.files.iter().map(|f| f.rows).sum::<u64>(),
                // Absent when the older version is no longer retained (nothing to compare).
                "changes": totals.map(|t| json!({"added": t.added, "removed": t.removed, "changed": t.changed})),
                "changesUrl": changes_url,
            }),
        });
        (previous, since) = (v.version, Some(v.published_at));
    }
    Ok(events)
}
