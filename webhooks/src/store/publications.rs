//! How far `dataset.version.published` announcements have followed the lake: a dataset's cursor
//! moves in the transaction that writes the events of the versions it passes, so a version is
//! announced once whoever announces it (every replica follows the lake) and none is skipped.

use super::{outbox::enqueue, NewEvent, WebhookError, WebhookStore};
use crate::EventType;

impl WebhookStore {
    /// The newest announced version of `dataset`, if it is followed yet.
    pub async fn dataset_cursor(&self, dataset: &str) -> Result<Option<u64>, WebhookError> {
        let v: Option<i64> = sqlx::query_scalar("SELECT version FROM webhook_dataset_cursors WHERE dataset = $1")
            .bind(dataset)
            .fetch_optional(&self.pool)
            .await?;
        Ok(v.and_then(|v| u64::try_from(v).ok()))
    }

    /// Starts following each dataset at its version: what was published before is not announced.
    /// One transaction, so a server's first look writes once.
    pub async fn follow_datasets(&self, datasets: &[(String, u64)]) -> Result<(), WebhookError> {
        if datasets.is_empty() {
            return Ok(());
        }
        let mut tx = self.pool.begin().await?;
        for (dataset, version) in datasets {
            sqlx::query(
                "INSERT INTO webhook_dataset_cursors (dataset, version) VALUES ($1, $2) ON CONFLICT (dataset) DO NOTHING",
            )
            .bind(dataset)
            .bind(*version as i64)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Writes `events` and moves the cursor from `from` to `to`, in one transaction; false (and
    /// nothing written) when another announcer moved it first.
    pub async fn announce_versions(
        &self,
        dataset: &str,
        from: u64,
        to: u64,
        events: &[NewEvent],
        now: i64,
    ) -> Result<bool, WebhookError> {
        let mut tx = self.pool.begin().await?;
        let moved = sqlx::query("UPDATE webhook_dataset_cursors SET version = $1 WHERE dataset = $2 AND version = $3")
            .bind(to as i64)
            .bind(dataset)
            .bind(from as i64)
            .execute(&mut *tx)
            .await?;
        if moved.rows_affected() == 0 {
            return Ok(false);
        }
        for event in events {
            enqueue(&mut tx, event, now).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Whether any enabled endpoint receives `dataset`'s versions (if none, announcing them, and
    /// the diffs their counts take, is work for no one).
    pub async fn dataset_wanted(&self, dataset: &str) -> Result<bool, WebhookError> {
        let sql = format!(
            "SELECT {} FROM webhook_endpoints WHERE enabled = 1 AND event_types LIKE $1",
            super::endpoints::COLUMNS
        );
        let pattern = format!("%\"{}\"%", EventType::DatasetVersionPublished.as_str());
        let rows = sqlx::query(&sql).bind(pattern).fetch_all(&self.pool).await?;
        for row in &rows {
            if super::endpoints::endpoint_of(row)?.wants(EventType::DatasetVersionPublished, dataset) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
