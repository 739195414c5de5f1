//! Idempotency records (SUPPLEMENT 1.13): scope = (principal or IP, route, key); identity = SHA-256
//! of the raw body; 24 h TTL; an in-flight lock of 180 s released when the handler finishes.

use sqlx::Row;

use super::{StateError, StateStore};

const TTL_MS: i64 = 24 * 60 * 60 * 1000;
const LOCK_MS: i64 = 180 * 1000;

#[derive(Debug, Clone, PartialEq)]
pub struct StoredResponse {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// First use (or an expired/abandoned record): the caller runs the handler.
    Claimed,
    /// Completed earlier with the same body.
    Replay(StoredResponse),
    /// Another request with this key holds the lock.
    InFlight,
    /// The key was used with a different body.
    Mismatch,
}

impl StateStore {
    /// What a claim would find, without claiming: `None` when the key is free (absent, expired or
    /// abandoned). Lets a replay answer before the rate limiter counts the request (SUPPLEMENT 1.13).
    pub async fn idempotency_peek(
        &self,
        scope_key: &str,
        body_hash: &str,
        now_ms: i64,
    ) -> Result<Option<Claim>, StateError> {
        let row = sqlx::query("SELECT body_hash, completed, status, content_type, body, locked_until, created_at FROM idempotency WHERE scope_key = $1")
            .bind(scope_key)
            .fetch_optional(&self.pool)
            .await?;
        let Some(r) = row else { return Ok(None) };
        if r.try_get::<i64, _>("created_at")? < now_ms - TTL_MS {
            return Ok(None);
        }
        Ok(match existing(&r, body_hash, now_ms)? {
            Claim::Claimed => None,
            other => Some(other),
        })
    }

    /// Deletes records past their 24 h TTL; returns how many. Run periodically, so records expire
    /// even when their key is never used again.
    pub async fn idempotency_sweep(&self, now_ms: i64) -> Result<u64, StateError> {
        let done = sqlx::query("DELETE FROM idempotency WHERE created_at < $1")
            .bind(now_ms - TTL_MS)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }

    /// Claims the key for a request with `body_hash`. Each statement is atomic on its own, so two
    /// truly concurrent requests cannot both claim: the loser sees `InFlight`.
    pub async fn idempotency_claim(&self, scope_key: &str, body_hash: &str, now_ms: i64) -> Result<Claim, StateError> {
        sqlx::query("DELETE FROM idempotency WHERE scope_key = $1 AND created_at < $2")
            .bind(scope_key)
            .bind(now_ms - TTL_MS)
            .execute(&self.pool)
            .await?;
        let inserted = sqlx::query(
            "INSERT INTO idempotency (scope_key, body_hash, completed, created_at, locked_until) VALUES ($1, $2, 0, $3, $4)
             ON CONFLICT (scope_key) DO NOTHING",
        )
        .bind(scope_key)
        .bind(body_hash)
        .bind(now_ms)
        .bind(now_ms + LOCK_MS)
        .execute(&self.pool)
        .await?;
        if inserted.rows_affected() == 1 {
            return Ok(Claim::Claimed);
        }
        let row = sqlx::query("SELECT body_hash, completed, status, content_type, body, locked_until FROM idempotency WHERE scope_key = $1")
            .bind(scope_key)
            .fetch_optional(&self.pool)
            .await?;
        let Some(r) = row else { return Ok(Claim::InFlight) }; // released between the two statements
        let found = existing(&r, body_hash, now_ms)?;
        if found != Claim::Claimed {
            return Ok(found);
        }
        // An abandoned claim whose lock ran out: take it over, unless another request just did.
        let taken = sqlx::query(
            "UPDATE idempotency SET locked_until = $1 WHERE scope_key = $2 AND completed = 0 AND locked_until <= $3",
        )
        .bind(now_ms + LOCK_MS)
        .bind(scope_key)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        Ok(if taken.rows_affected() == 1 { Claim::Claimed } else { Claim::InFlight })
    }

    pub async fn idempotency_complete(&self, scope_key: &str, response: &StoredResponse) -> Result<(), StateError> {
        sqlx::query("UPDATE idempotency SET completed = 1, status = $1, content_type = $2, body = $3, locked_until = 0 WHERE scope_key = $4")
            .bind(response.status as i64)
            .bind(&response.content_type)
            .bind(&response.body)
            .bind(scope_key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Drops a claim whose response is not stored, so the next retry runs again.
    pub async fn idempotency_release(&self, scope_key: &str) -> Result<(), StateError> {
        sqlx::query("DELETE FROM idempotency WHERE scope_key = $1 AND completed = 0")
            .bind(scope_key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// What an unexpired record means for a request with `body_hash`; `Claimed` = free to take.
fn existing(r: &sqlx::any::AnyRow, body_hash: &str, now_ms: i64) -> Result<Claim, sqlx::Error> {
    let stored_hash: String = r.try_get("body_hash")?;
    Ok(if stored_hash != body_hash {
        Claim::Mismatch
    } else if r.try_get::<i64, _>("completed")? != 0 {
        Claim::Replay(StoredResponse {
            status: r.try_get::<i64, _>("status")? as u16,
            content_type: r.try_get("content_type")?,
            body: r.try_get("body")?,
        })
    } else if r.try_get::<i64, _>("locked_until")? > now_ms {
        Claim::InFlight
    } else {
        Claim::Claimed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn claim_replay_conflict_and_mismatch() {
        let s = StateStore::open("sqlite::memory:").await.unwrap();
        assert_eq!(s.idempotency_claim("k", "h1", 1000).await.unwrap(), Claim::Claimed);
        assert_eq!(s.idempotency_claim("k", "h1", 1001).await.unwrap(), Claim::InFlight);
        assert_eq!(s.idempotency_claim("k", "h2", 1001).await.unwrap(), Claim::Mismatch);
        let stored = StoredResponse { status: 200, content_type: "application/json".into(), body: b"{}".to_vec() };
        s.idempotency_complete("k", &stored).await.unwrap();
        assert_eq!(s.idempotency_claim("k", "h1", 1002).await.unwrap(), Claim::Replay(stored));
        // Expired after 24 h: claimable again.
        assert_eq!(s.idempotency_claim("k", "h2", 1000 + TTL_MS + 1).await.unwrap(), Claim::Claimed);
        // Released claims run again.
        s.idempotency_release("k").await.unwrap();
        assert_eq!(s.idempotency_claim("k", "h3", 1000 + TTL_MS + 2).await.unwrap(), Claim::Claimed);
    }

    #[tokio::test]
    async fn peek_claims_nothing_and_the_sweep_expires_unused_keys() {
        let s = StateStore::open("sqlite::memory:").await.unwrap();
        assert_eq!(s.idempotency_peek("k", "h1", 1000).await.unwrap(), None);
        assert_eq!(s.idempotency_claim("k", "h1", 1000).await.unwrap(), Claim::Claimed, "peeking took nothing");
        assert_eq!(s.idempotency_peek("k", "h1", 1001).await.unwrap(), Some(Claim::InFlight));
        assert_eq!(s.idempotency_peek("k", "h2", 1001).await.unwrap(), Some(Claim::Mismatch));
        // The lock ran out: the key is free again.
        assert_eq!(s.idempotency_peek("k", "h1", 1000 + LOCK_MS + 1).await.unwrap(), None);
        s.idempotency_claim("young", "h", 1000 + TTL_MS).await.unwrap();
        assert_eq!(s.idempotency_sweep(1000 + TTL_MS + 1).await.unwrap(), 1, "only the expired record");
        assert_eq!(s.idempotency_peek("young", "h", 1000 + TTL_MS + 2).await.unwrap(), Some(Claim::InFlight));
    }
}
