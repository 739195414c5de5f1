//! Rows that have served their purpose, deleted on a schedule (issue 45): without it every
//! authorize request, code, token and sign-in left a row behind for ever, and an unauthenticated
//! flood of authorize requests or registrations grew the store without bound.
//!
//! - OAuth nonces, codes and tokens, and dashboard sessions: once expired (refused from then on
//!   anyway; a refresh token's reuse is only detected while it lives).
//! - Dynamically registered clients never used within [`UNUSED_CLIENT_SECONDS`] of registering,
//!   and any client idle past [`CLIENT_IDLE_SECONDS`] (already refused), unless an authorization
//!   still names it.
//! - Idempotency records past their 24 hours.

use super::{StateError, StateStore, CLIENT_IDLE_SECONDS};

/// A registered client no authorization used within a day is taken to be abandoned (or a flood).
pub const UNUSED_CLIENT_SECONDS: i64 = 86_400;

/// Rows one sweep deleted, by kind.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub nonces: u64,
    pub codes: u64,
    pub tokens: u64,
    pub sessions: u64,
    pub clients: u64,
    pub idempotency: u64,
}

impl Swept {
    pub fn total(&self) -> u64 {
        self.nonces + self.codes + self.tokens + self.sessions + self.clients + self.idempotency
    }
}

impl StateStore {
    /// Deletes what has expired at `now` (seconds, the OAuth clock) and `now_ms` (idempotency's).
    /// Each statement is one bounded delete; a failure leaves the rest for the next sweep.
    pub async fn sweep_expired(&self, now: i64, now_ms: i64) -> Result<Swept, StateError> {
        let deleted = |sql: &'static str, bound: i64| async move {
            Ok::<u64, StateError>(sqlx::query(sql).bind(bound).execute(&self.pool).await?.rows_affected())
        };
        Ok(Swept {
            nonces: deleted("DELETE FROM oauth_nonces WHERE expires_at <= $1", now).await?,
            codes: deleted("DELETE FROM oauth_codes WHERE expires_at <= $1", now).await?,
            tokens: deleted("DELETE FROM oauth_tokens WHERE expires_at <= $1", now).await?,
            sessions: deleted("DELETE FROM dashboard_sessions WHERE expires_at <= $1", now).await?,
            clients: sqlx::query(
                "DELETE FROM oauth_clients
                 WHERE ((last_used_at = created_at AND created_at <= $1) OR last_used_at <= $2)
                   AND NOT EXISTS (SELECT 1 FROM oauth_families f WHERE f.client_id = oauth_clients.client_id)",
            )
            .bind(now - UNUSED_CLIENT_SECONDS)
            .bind(now - CLIENT_IDLE_SECONDS)
            .execute(&self.pool)
            .await?
            .rows_affected(),
            idempotency: self.idempotency_sweep(now_ms).await?,
        })
    }
}

/// Sweeps every `every`, by the state store's clock (every replica's sweep is the same delete).
pub fn spawn_sweeper(store: StateStore, every: std::time::Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match store.db().clock_ms().await {
                Ok(now_ms) => match store.sweep_expired(now_ms / 1000, now_ms).await {
                    Ok(swept) if swept.total() == 0 => {}
                    Ok(swept) => tracing::info!(?swept, "swept expired state rows"),
                    Err(e) => tracing::warn!(error = %e, "state sweep failed"),
                },
                Err(e) => tracing::warn!(error = %e, "state sweep: the state store's clock is unreadable"),
            }
            tokio::time::sleep(every).await;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Family, PendingConsent, Plan};

    fn consent(client_id: &str) -> PendingConsent {
        PendingConsent {
            client_id: client_id.into(),
            redirect_uri: "https://app.example/cb".into(),
            code_challenge: "c".repeat(43),
            scope: "mcp".into(),
            state: None,
        }
    }

    #[tokio::test]
    async fn expired_rows_and_abandoned_clients_go_and_live_ones_stay() {
        let s = StateStore::open("sqlite::memory:").await.unwrap();
        let now = 10_000_000;
        // Nonces: one expired, one live.
        s.create_nonce("old", &consent("c1"), now - 1).await.unwrap();
        s.create_nonce("new", &consent("c1"), now + 600).await.unwrap();
        // Clients: registered and never used a day ago (gone), registered now (stays), registered
        // long ago and used since (stays), and one never used that an authorization names (stays).
        s.register_client("abandoned", "a", &["https://a.example/cb".into()], "web", now - UNUSED_CLIENT_SECONDS)
            .await
            .unwrap();
        s.register_client("fresh", "f", &["https://f.example/cb".into()], "web", now).await.unwrap();
        s.register_client("used", "u", &["https://u.example/cb".into()], "web", now - 5 * 86_400).await.unwrap();
        assert!(s.client("used", now - 86_400).await.unwrap().is_some(), "its use slides its window");
        s.register_client("named", "n", &["https://n.example/cb".into()], "web", now - 2 * 86_400).await.unwrap();
        let account = s.create_account("acct", Plan::Pro).await.unwrap();
        let key = s.create_key(&account.id, "k", "di", &["mcp"], false).await.unwrap();
        let family = Family {
            id: "fam".into(),
            client_id: Some("named".into()),
            account_id: account.id.clone(),
            key_id: key.record.id.clone(),
            scope: "mcp".into(),
        };
        s.create_family(&family, now).await.unwrap();
        // Tokens and codes of that family: expired and live.
        s.store_token("t-old", "access", &family.id, now).await.unwrap();
        s.store_token("t-new", "access", &family.id, now + 3600).await.unwrap();
        s.create_code("code-old", &family.id, &consent("named"), now - 10).await.unwrap();
        // Sessions: expired and live.
        s.create_session("s-old", &account.id, &key.record.id, "csrf", now).await.unwrap();
        s.create_session("s-new", &account.id, &key.record.id, "csrf", now + 3600).await.unwrap();

        let swept = s.sweep_expired(now, now * 1000).await.unwrap();
        assert_eq!(swept, Swept { nonces: 1, codes: 1, tokens: 1, sessions: 1, clients: 1, idempotency: 0 });
        assert!(s.client("abandoned", now).await.unwrap().is_none());
        for live in ["fresh", "used", "named"] {
            assert!(s.client(live, now).await.unwrap().is_some(), "{live} was swept");
        }
        assert!(s.live_access_token("t-new", now).await.unwrap().is_some(), "a live token was swept");
        assert_eq!(s.sweep_expired(now, now * 1000).await.unwrap().total(), 0, "a second sweep finds nothing");
    }
}
