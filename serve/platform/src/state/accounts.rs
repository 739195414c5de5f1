//! Accounts with a plan, and their API keys (only the SHA-256 of a key is stored).

use chrono::Utc;
use rand::RngCore;
use sha2::{Digest, Sha256};
use sqlx::Row;

use super::{StateError, StateStore};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    Free,
    Pro,
    Business,
}

impl Plan {
    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Pro => "pro",
            Plan::Business => "business",
        }
    }
    pub fn tier(self) -> u8 {
        match self {
            Plan::Free => 0,
            Plan::Pro => 1,
            Plan::Business => 2,
        }
    }
    /// `pro_data`: the PRO operations (SUPPLEMENT 1.10).
    pub fn has_pro_data(self) -> bool {
        self != Plan::Free
    }
    /// `company_monitoring`.
    pub fn has_company_monitoring(self) -> bool {
        self == Plan::Business
    }
    pub fn parse(s: &str) -> Option<Plan> {
        match s {
            "free" => Some(Plan::Free),
            "pro" => Some(Plan::Pro),
            "business" => Some(Plan::Business),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Account {
    pub id: String,
    pub name: String,
    pub plan: Plan,
    /// As stored: `active`, `lapsed` or `suspended`. See [`Account::standing`].
    pub status: String,
    /// End of a paid plan's validity (RFC 3339); past it, the plan's paid entitlements lapse.
    pub valid_until: Option<String>,
}

/// What an account may do right now (SUPPLEMENT 1.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    Active,
    /// A paid plan past its `validUntil` (or marked lapsed): paid entitlements are refused,
    /// free-level operations keep working.
    Lapsed,
    Suspended,
}

impl Account {
    pub fn standing(&self, now: chrono::DateTime<Utc>) -> Standing {
        match self.status.as_str() {
            "suspended" => Standing::Suspended,
            "lapsed" => Standing::Lapsed,
            _ if self.lapses_at().is_some_and(|t| t < now) => Standing::Lapsed,
            _ => Standing::Active,
        }
    }

    /// When a paid plan's entitlements lapse by date (its `valid_until`); `None` for the free
    /// plan, which cannot lapse, and for a plan without an end.
    pub fn lapses_at(&self) -> Option<chrono::DateTime<Utc>> {
        if self.plan == Plan::Free {
            return None;
        }
        let t = chrono::DateTime::parse_from_rfc3339(self.valid_until.as_deref()?).ok()?;
        Some(t.with_timezone(&Utc))
    }
}

#[derive(Debug, Clone)]
pub struct ApiKeyRecord {
    pub id: String,
    pub account_id: String,
    pub name: String,
    pub display_prefix: String,
    pub scopes: Vec<String>,
    pub operator: bool,
    pub created_at: String,
    pub last_used_at: Option<String>,
    pub revoked_at: Option<String>,
}

/// A freshly minted key: the secret is returned once and never stored.
pub struct NewKey {
    pub record: ApiKeyRecord,
    pub secret: String,
}

/// What the store keeps of a secret (an API key, an OAuth code, token or nonce, a dashboard
/// session): the hex of its SHA-256 ([`key_digest`]).
pub fn hash_secret(secret: &str) -> String {
    hex::encode(key_digest(secret))
}

/// A key's SHA-256, the form the key cache holds (hex is only needed to ask the store).
pub fn key_digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// `<prefix>_` + 40 lowercase hex (20 random bytes), SUPPLEMENT 5.1.
pub fn looks_like_api_key(s: &str) -> bool {
    let Some((prefix, hexpart)) = s.split_once('_') else { return false };
    (2..=8).contains(&prefix.len())
        && prefix.bytes().all(|b| b.is_ascii_lowercase())
        && hexpart.len() == 40
        && hexpart.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Mints a key of `account_id` inside `tx`.
async fn insert_key(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    account_id: &str,
    name: &str,
    prefix: &str,
    scopes: &[&str],
    operator: bool,
) -> Result<NewKey, StateError> {
    let mut raw = [0u8; 20];
    rand::thread_rng().fill_bytes(&mut raw);
    let hexpart = hex::encode(raw);
    let secret = format!("{prefix}_{hexpart}");
    if !looks_like_api_key(&secret) {
        return Err(StateError::Invalid(format!("API key prefix `{prefix}` must be 2-8 lowercase letters")));
    }
    let exists: Option<String> =
        sqlx::query_scalar("SELECT id FROM accounts WHERE id = $1").bind(account_id).fetch_optional(&mut **tx).await?;
    if exists.is_none() {
        return Err(StateError::NotFound(format!("no account {account_id}")));
    }
    let rec = ApiKeyRecord {
        id: format!("key_{}", ulid::Ulid::new().to_string().to_lowercase()),
        account_id: account_id.to_string(),
        name: name.to_string(),
        display_prefix: format!("{prefix}_{}", &hexpart[..5]),
        scopes: scopes.iter().map(|s| s.to_string()).collect(),
        operator,
        created_at: now(),
        last_used_at: None,
        revoked_at: None,
    };
    sqlx::query(
        "INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, scopes, operator, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(&rec.id)
    .bind(&rec.account_id)
    .bind(&rec.name)
    .bind(hash_secret(&secret))
    .bind(&rec.display_prefix)
    .bind(rec.scopes.join(" "))
    .bind(operator as i64)
    .bind(&rec.created_at)
    .execute(&mut **tx)
    .await?;
    Ok(NewKey { record: rec, secret })
}

pub(super) fn record(row: &sqlx::any::AnyRow) -> Result<ApiKeyRecord, sqlx::Error> {
    let scopes: String = row.try_get("scopes")?;
    Ok(ApiKeyRecord {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        name: row.try_get("name")?,
        display_prefix: row.try_get("display_prefix")?,
        scopes: scopes.split_whitespace().map(str::to_string).collect(),
        operator: row.try_get::<i64, _>("operator")? != 0,
        created_at: row.try_get("created_at")?,
        last_used_at: row.try_get("last_used_at")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

pub(super) const KEY_WITH_ACCOUNT: &str =
    "SELECT k.*, a.name AS account_name, a.plan AS account_plan, a.status AS account_status,
     a.valid_until AS account_valid_until
     FROM api_keys k JOIN accounts a ON a.id = k.account_id";

/// The account columns of a [`KEY_WITH_ACCOUNT`] row (or of an accounts row aliased the same way).
pub(super) fn account_of_row(row: &sqlx::any::AnyRow) -> Result<Account, StateError> {
    let plan: String = row.try_get("account_plan")?;
    Ok(Account {
        id: row.try_get("account_id")?,
        name: row.try_get("account_name")?,
        plan: Plan::parse(&plan).ok_or_else(|| StateError::Invalid(format!("unknown plan {plan}")))?,
        status: row.try_get("account_status")?,
        valid_until: row.try_get("account_valid_until")?,
    })
}

impl StateStore {
    pub async fn create_account(&self, name: &str, plan: Plan) -> Result<Account, StateError> {
        let id = format!("acct_{}", ulid::Ulid::new().to_string().to_lowercase());
        sqlx::query("INSERT INTO accounts (id, name, plan, status, created_at) VALUES ($1, $2, $3, 'active', $4)")
            .bind(&id)
            .bind(name)
            .bind(plan.as_str())
            .bind(now())
            .execute(&self.pool)
            .await?;
        Ok(Account { id, name: name.to_string(), plan, status: "active".into(), valid_until: None })
    }

    pub async fn find_account(&self, id: &str) -> Result<Option<Account>, StateError> {
        let row = sqlx::query(
            "SELECT id AS account_id, name AS account_name, plan AS account_plan, status AS account_status,
                    valid_until AS account_valid_until
             FROM accounts WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(account_of_row).transpose()
    }

    pub async fn find_account_by_name(&self, name: &str) -> Result<Option<Account>, StateError> {
        let row = sqlx::query(
            "SELECT id AS account_id, name AS account_name, plan AS account_plan, status AS account_status,
                    valid_until AS account_valid_until
             FROM accounts WHERE name = $1 ORDER BY created_at LIMIT 1",
        )
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(account_of_row).transpose()
    }

    pub async fn create_key(
        &self,
        account_id: &str,
        name: &str,
        prefix: &str,
        scopes: &[&str],
        operator: bool,
    ) -> Result<NewKey, StateError> {
        let mut tx = self.pool.begin().await?;
        // A write first: on SQLite a transaction that reads and then writes fails at once
        // ("database is locked") when another writer committed in between.
        sqlx::query("UPDATE accounts SET id = id WHERE id = $1").bind(account_id).execute(&mut *tx).await?;
        let key = insert_key(&mut tx, account_id, name, prefix, scopes, operator).await?;
        tx.commit().await?;
        Ok(key)
    }

    /// [`Self::create_key`] unless the account already has `max_active` live keys (`None`). One
    /// transaction that first takes the account's row for writing, so concurrent mints are counted
    /// one after another (SQLite: the database's write lock; PostgreSQL: the row's lock).
    pub async fn create_key_within(
        &self,
        account_id: &str,
        name: &str,
        prefix: &str,
        scopes: &[&str],
        max_active: usize,
    ) -> Result<Option<NewKey>, StateError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE accounts SET id = id WHERE id = $1").bind(account_id).execute(&mut *tx).await?;
        let active: i64 =
            sqlx::query_scalar("SELECT count(*) FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL")
                .bind(account_id)
                .fetch_one(&mut *tx)
                .await?;
        if active >= max_active as i64 {
            return Ok(None);
        }
        let key = insert_key(&mut tx, account_id, name, prefix, scopes, false).await?;
        tx.commit().await?;
        Ok(Some(key))
    }

    /// Sets an account's status (`active`, `lapsed`, `suspended`).
    pub async fn set_account_status(&self, account_id: &str, status: &str) -> Result<(), StateError> {
        sqlx::query("UPDATE accounts SET status = $1 WHERE id = $2")
            .bind(status)
            .bind(account_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Sets or clears the end of a paid plan's validity.
    pub async fn set_account_valid_until(
        &self,
        account_id: &str,
        valid_until: Option<chrono::DateTime<Utc>>,
    ) -> Result<(), StateError> {
        sqlx::query("UPDATE accounts SET valid_until = $1 WHERE id = $2")
            .bind(valid_until.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)))
            .bind(account_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn list_keys(&self) -> Result<Vec<(ApiKeyRecord, Account)>, StateError> {
        let rows = sqlx::query(&format!("{KEY_WITH_ACCOUNT} ORDER BY k.created_at")).fetch_all(&self.pool).await?;
        rows.iter().map(|r| Ok((record(r)?, account_of_row(r)?))).collect()
    }

    /// Revokes by key id or display prefix; returns whether a live key was revoked. A display
    /// prefix names 20 bits of a key, so keys of other accounts may share it: a prefix that names
    /// more than one live key is refused (revoke by id), never applied to all of them.
    pub async fn revoke_key(&self, id_or_prefix: &str) -> Result<bool, StateError> {
        let live: Vec<String> =
            sqlx::query_scalar("SELECT id FROM api_keys WHERE (id = $1 OR display_prefix = $1) AND revoked_at IS NULL")
                .bind(id_or_prefix)
                .fetch_all(&self.pool)
                .await?;
        match live.as_slice() {
            [] => Ok(false),
            [id] => self.revoke_key_id(id).await,
            many => Err(StateError::Invalid(format!(
                "`{id_or_prefix}` names {} live keys; revoke one by its id (keys list shows them)",
                many.len()
            ))),
        }
    }

    /// Revokes the key `key_id`, and every OAuth token family authorised through it (SUPPLEMENT 5.7).
    pub(super) async fn revoke_key_id(&self, key_id: &str) -> Result<bool, StateError> {
        let mut tx = self.pool.begin().await?;
        let revoked: Vec<String> =
            sqlx::query_scalar("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id")
                .bind(now())
                .bind(key_id)
                .fetch_all(&mut *tx)
                .await?;
        for key_id in &revoked {
            sqlx::query("UPDATE oauth_families SET revoked_at = $1 WHERE key_id = $2 AND revoked_at IS NULL")
                .bind(Utc::now().timestamp())
                .bind(key_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(!revoked.is_empty())
    }

    /// The live (unrevoked) key whose secret hashes to `key_hash`, and its account. A pure read:
    /// callers on the request path cache it and record use with [`StateStore::touch_key`].
    pub async fn live_key(&self, key_hash: &str) -> Result<Option<(ApiKeyRecord, Account)>, StateError> {
        let row = sqlx::query(&format!("{KEY_WITH_ACCOUNT} WHERE k.key_hash = $1 AND k.revoked_at IS NULL"))
            .bind(key_hash)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| Ok((record(&r)?, account_of_row(&r)?))).transpose()
    }

    /// Records that a key was used now (`lastUsedAt`).
    pub async fn touch_key(&self, key_id: &str) -> Result<(), StateError> {
        sqlx::query("UPDATE api_keys SET last_used_at = $1 WHERE id = $2")
            .bind(now())
            .bind(key_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
