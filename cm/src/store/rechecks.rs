//! The daily re-check of evidence URLs (SUPPLEMENT 4.8): for 7 days after an impact is admitted
//! its evidence is fetched again once a day, and an impact whose every evidence URL answers 404
//! or 410 is retracted.

use sqlx::Row;

use super::{impacts::next_changed_at, CmError, CmStore};

/// How long after admission an impact's evidence is re-checked, and how often.
pub const RECHECK_FOR_MS: i64 = 7 * 24 * 3600 * 1000;
pub const RECHECK_EVERY_MS: i64 = 24 * 3600 * 1000;

impl CmStore {
    /// Up to `limit` evidence items due a re-check at `now`: (evidence id, canonical URL).
    pub async fn evidence_due_for_check(&self, now: i64, limit: usize) -> Result<Vec<(String, String)>, CmError> {
        let sql = format!(
            "SELECT v.evidence_id, v.canonical_url FROM cm_evidence v JOIN cm_impacts i ON i.event_id = v.event_id \
             WHERE i.lifecycle <> 'retracted' AND i.admitted_at >= $1 \
             AND (v.checked_at IS NULL OR v.checked_at <= $2) ORDER BY v.evidence_id LIMIT {limit}"
        );
        let rows =
            sqlx::query(&sql).bind(now - RECHECK_FOR_MS).bind(now - RECHECK_EVERY_MS).fetch_all(&self.pool).await?;
        rows.iter().map(|r| Ok((r.try_get(0)?, r.try_get(1)?))).collect()
    }

    /// Records re-checks (evidence id, whether its URL is gone), each in its account's
    /// transaction, retracting an impact once every one of its evidence URLs is gone (a new
    /// revision with the account's next changedAt). Returns how many impacts were retracted.
    pub async fn record_checks(&self, checks: &[(String, bool)], now: i64) -> Result<usize, CmError> {
        let mut retracted = 0;
        for (evidence_id, gone) in checks {
            let owner = sqlx::query(
                "SELECT i.account_id, i.impact_id, i.lifecycle FROM cm_evidence v \
                 JOIN cm_impacts i ON i.event_id = v.event_id WHERE v.evidence_id = $1",
            )
            .bind(evidence_id)
            .fetch_optional(&self.pool)
            .await?;
            let Some(owner) = owner else { continue };
            let (account, impact_id, lifecycle): (String, String, String) =
                (owner.try_get(0)?, owner.try_get(1)?, owner.try_get(2)?);
            let mut tx = self.begin_for(&account, now).await?;
            sqlx::query(
                "UPDATE cm_evidence SET checked_at = $1, gone_at = CASE WHEN $2 = 1 THEN COALESCE(gone_at, $1) END \
                 WHERE evidence_id = $3",
            )
            .bind(now)
            .bind(i64::from(*gone))
            .bind(evidence_id)
            .execute(&mut *tx)
            .await?;
            let live: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM cm_evidence v JOIN cm_impacts i ON i.event_id = v.event_id \
                 WHERE i.impact_id = $1 AND v.gone_at IS NULL",
            )
            .bind(&impact_id)
            .fetch_one(&mut *tx)
            .await?;
            if live == 0 && lifecycle != "retracted" {
                let changed_at = next_changed_at(&mut tx, &account, now).await?;
                sqlx::query(
                    "UPDATE cm_impacts SET lifecycle = 'retracted', impact_revision = impact_revision + 1, \
                     changed_at = $1 WHERE impact_id = $2",
                )
                .bind(changed_at)
                .bind(&impact_id)
                .execute(&mut *tx)
                .await?;
                retracted += 1;
            }
            tx.commit().await?;
        }
        Ok(retracted)
    }
}
