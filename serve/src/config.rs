//! Server configuration: flags with `SITREP_*` env fallbacks, plus the spec-named settings
//! (`DATA_CURSOR_SECRET`, `API_KEY_PREFIX`, `AUTH_REALM`, `PUBLIC_ORIGINS`, `IRAN_EVENTS_ENABLED`).
//! Secrets come only from the environment and are never logged.

use anyhow::Context;
use std::path::PathBuf;

use clap::Args;

use sitrep_agents::{AgentSettings, DEFAULT_ASSISTANT_CALLBACKS};
use sitrep_api::ApiSettings;
use sitrep_cm::settings::CmSettings;
use sitrep_platform::{
    app_state::Settings,
    edge::{client_addr::TrustedProxies, rate_limit::Limits},
};

use crate::{app::RequestLimits, http_server::ConnectionLimits, send_rate::SendRate};

#[derive(Debug, Clone, Args)]
pub struct LakeArgs {
    /// Lake location: a directory, `file://…`, `memory://` or `s3://bucket/prefix`.
    #[arg(long, env = "SITREP_LAKE", default_value = "./var/lake")]
    pub lake: String,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "SITREP_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// The operator's address, serving `/metrics` only (loopback by default; `:0` takes a free
    /// port, logged; `off` serves no metrics). The public address does not serve them.
    #[arg(long, env = "SITREP_METRICS_LISTEN", default_value = "127.0.0.1:9464")]
    pub metrics_listen: String,
    /// Local cache of lake files and per-dataset DuckDB databases.
    #[arg(long, env = "SITREP_CACHE_DIR", default_value = "./var/cache")]
    pub cache_dir: PathBuf,
    /// How often to look for a new generation, in seconds.
    #[arg(long, env = "SITREP_POLL_SECONDS", default_value_t = 5)]
    pub poll_seconds: u64,
    /// Every dataset version current within this many hours stays readable (cursors, `as_of`;
    /// SUPPLEMENT 1.7's `LAKE_RETENTION`, 48 h by issue 31; the newest three always do). Must
    /// match the garbage collector's (`sitrep-ingest lake gc` reads the same variables).
    #[arg(long, env = "LAKE_RETENTION_HOURS", default_value_t = 48)]
    pub retention_hours: i64,
    /// Then the version current at the end of each UTC day, for this many days.
    #[arg(long, env = "LAKE_RETENTION_DAYS", default_value_t = 90)]
    pub retention_days: i64,
    /// Memory limit of the server's one DuckDB instance.
    #[arg(long, env = "SITREP_DUCKDB_MEMORY", default_value = "256MB")]
    pub duckdb_memory: String,
    /// Memory limit of a dataset version's serving-file build, a transient DuckDB instance, one
    /// thread, spilling beyond this to disk. Resident memory is this plus what serving holds.
    #[arg(long, env = "SITREP_BUILD_MEMORY", default_value = "128MB")]
    pub build_memory: String,
    /// Memory limit of a version pair's diff (ListDatasetChanges), a transient DuckDB instance,
    /// one thread, one at a time: callers start it, so it is kept small and spills to disk.
    #[arg(long, env = "SITREP_DIFF_MEMORY", default_value = sitrep_platform::snapshot::DIFF_MEMORY)]
    pub diff_memory: String,
    /// Also run the ingest scheduler in this process (single-process deployments).
    #[arg(long, env = "SITREP_WITH_INGEST")]
    pub with_ingest: bool,
    /// Seconds a resolved API key is trusted before the state store is asked again (the most a
    /// revocation or suspension made by another process takes to apply).
    #[arg(long, env = "SITREP_KEY_CACHE_SECONDS", default_value_t = 5)]
    pub key_cache_seconds: u64,
    /// Where rate-limit windows are counted: `in-process` (one replica), or `redis://…` shared by
    /// every replica.
    #[arg(long, env = "SITREP_RATE_LIMIT", default_value = "in-process")]
    pub rate_limit: String,
    /// Where read-through operations get their answers: `live` upstreams (with the credentials in
    /// the environment) or `replay`ed recordings (`make run`).
    #[arg(long, env = "SITREP_READ_THROUGH", value_enum, default_value_t = ReadThroughMode::Live)]
    pub read_through: ReadThroughMode,
    /// Recorded upstream responses for `--read-through replay`.
    #[arg(long, env = "SITREP_FIXTURES", default_value = "./data/fixtures")]
    pub read_through_fixtures: PathBuf,
    /// Seconds a connection has to send a request's headers, from its start or from the end of
    /// its last response (so also how long an idle keep-alive connection stays open).
    #[arg(long, env = "SITREP_HEADER_READ_SECONDS", default_value_t = ConnectionLimits::default().header_read.as_secs())]
    pub header_read_seconds: u64,
    /// Seconds a request's body has to arrive, from the end of its headers.
    #[arg(long, env = "SITREP_BODY_READ_SECONDS", default_value_t = ConnectionLimits::default().body_read.as_secs())]
    pub body_read_seconds: u64,
    /// Connections open at once; one more is closed as soon as it is accepted.
    #[arg(long, env = "SITREP_MAX_CONNECTIONS", default_value_t = ConnectionLimits::default().max_connections)]
    pub max_connections: usize,
    /// Seconds a response may wait for its client before the minimum send rate applies.
    #[arg(long, env = "SITREP_SEND_GRACE_SECONDS", default_value_t = SendRate::default().grace.as_secs())]
    pub send_grace_seconds: u64,
    /// Bytes a second a client must take its response at, on average, once it keeps the server
    /// waiting past the grace; a slower one's connection is closed and its response dropped.
    #[arg(long, env = "SITREP_MIN_SEND_RATE", default_value_t = SendRate::default().min_rate)]
    pub min_send_rate: u64,
    /// Seconds from a request's arrival to its response; past them its query is interrupted and
    /// it is answered 503 `deadline_exceeded`.
    #[arg(long, env = "SITREP_REQUEST_DEADLINE_SECONDS", default_value_t = RequestLimits::default().deadline.as_secs())]
    pub request_deadline_seconds: u64,
    /// Requests in flight at once; one more is answered 503 `overloaded` at once (health probes
    /// are never refused).
    #[arg(long, env = "SITREP_MAX_IN_FLIGHT", default_value_t = RequestLimits::default().max_in_flight)]
    pub max_in_flight: usize,
    /// Seconds between sweeps of expired state rows (OAuth nonces, codes and tokens, dashboard
    /// sessions, abandoned registered clients, idempotency records).
    #[arg(long, env = "SITREP_SWEEP_SECONDS", default_value_t = 900)]
    pub sweep_seconds: u64,
}

impl ServeArgs {
    pub fn connection_limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            header_read: std::time::Duration::from_secs(self.header_read_seconds.max(1)),
            body_read: std::time::Duration::from_secs(self.body_read_seconds.max(1)),
            max_connections: self.max_connections.max(1),
            send_rate: SendRate {
                grace: std::time::Duration::from_secs(self.send_grace_seconds.max(1)),
                min_rate: self.min_send_rate.max(1),
            },
        }
    }

    pub fn request_limits(&self) -> RequestLimits {
        RequestLimits {
            deadline: std::time::Duration::from_secs(self.request_deadline_seconds.max(1)),
            max_in_flight: self.max_in_flight.max(1),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReadThroughMode {
    Live,
    Replay,
}

#[derive(Debug, Clone, Args)]
pub struct StateArgs {
    /// State store URL (`sqlite://path`, `sqlite::memory:` or `postgres://…`).
    #[arg(long, env = "SITREP_STATE", default_value = "sqlite://var/state.db")]
    pub state: String,
    /// Prefix of minted API keys.
    #[arg(long, env = "API_KEY_PREFIX", default_value = "di")]
    pub api_key_prefix: String,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The origin a client on this machine reaches a server listening on `listen`: a wildcard address
/// (`0.0.0.0`, `[::]`) is not an address a client can use, so it becomes the loopback one.
pub fn reachable_origin(listen: &str) -> String {
    match listen.parse::<std::net::SocketAddr>() {
        Ok(addr) if addr.ip().is_unspecified() => {
            let ip: std::net::IpAddr = if addr.is_ipv4() {
                std::net::Ipv4Addr::LOCALHOST.into()
            } else {
                std::net::Ipv6Addr::LOCALHOST.into()
            };
            format!("http://{}", std::net::SocketAddr::new(ip, addr.port()))
        }
        _ => format!("http://{listen}"),
    }
}

pub fn settings_from_env(serve: &ServeArgs, api_key_prefix: &str) -> anyhow::Result<Settings> {
    let origins = env("PUBLIC_ORIGINS")
        .map(|v| v.split(',').map(|s| s.trim().trim_end_matches('/').to_string()).filter(|s| !s.is_empty()).collect())
        .unwrap_or_else(|| vec![reachable_origin(&serve.listen)]);
    let rate_limits = Limits::parse(&env("SITREP_RATE_LIMITS").unwrap_or_default())
        .map_err(|e| anyhow::anyhow!("SITREP_RATE_LIMITS: {e}"))?;
    Ok(Settings {
        realm: env("AUTH_REALM").unwrap_or_else(|| "data-intelligence".into()),
        public_origins: origins,
        api_key_prefix: api_key_prefix.to_string(),
        key_cache_ttl: std::time::Duration::from_secs(serve.key_cache_seconds),
        rate_limits,
        edge_ua_filter: env("EDGE_UA_FILTER")
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "on" | "true" | "1")),
        trusted_proxies: TrustedProxies::parse(&env("SITREP_TRUSTED_PROXIES").unwrap_or_default())
            .map_err(|e| anyhow::anyhow!("SITREP_TRUSTED_PROXIES: {e}"))?,
        datasets_off: if env("IRAN_EVENTS_ENABLED")
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "on" | "yes"))
        {
            Vec::new()
        } else {
            vec![sitrep_schemas::DatasetId::IRAN_EVENTS]
        },
    })
}

/// The API groups' settings (`CONSUMER_PRICES_DEFAULT_MARKET`, the AviationStack budgets).
/// `WEBHOOKS_ALLOW_LOOPBACK=on`: plain http to loopback receivers (`make run`, the tests), never
/// in a deployment.
pub fn webhook_settings_from_env() -> sitrep_api::webhooks::WebhookSettings {
    sitrep_api::webhooks::WebhookSettings {
        allow_loopback: env("WEBHOOKS_ALLOW_LOOPBACK").is_some_and(|v| v.eq_ignore_ascii_case("on")),
        extra_root_pem: None,
    }
}

pub fn api_settings_from_env() -> anyhow::Result<ApiSettings> {
    Ok(ApiSettings {
        aviationstack_budget: sitrep_pipelines::budget::AviationStackBudget::from_env().map_err(anyhow::Error::msg)?,
        flight_search_account_per_minute: match env("FLIGHT_SEARCH_ACCOUNT_PER_MINUTE") {
            Some(n) => {
                n.trim().parse().ok().filter(|n| *n > 0).with_context(|| {
                    format!("FLIGHT_SEARCH_ACCOUNT_PER_MINUTE: `{n}` is not a positive whole number")
                })?
            }
            None => 10,
        },
        consumer_prices_default_market: match env("CONSUMER_PRICES_DEFAULT_MARKET") {
            Some(m) if m.len() == 2 && m.bytes().all(|b| b.is_ascii_alphabetic()) => m.to_ascii_lowercase(),
            Some(m) => anyhow::bail!("CONSUMER_PRICES_DEFAULT_MARKET: `{m}` is not a two-letter market code"),
            None => "ae".into(),
        },
    })
}

/// The MCP server's and the authorization server's settings (`MCP_ALLOWED_ORIGINS`, `OAUTH_*`).
pub fn agent_settings_from_env() -> anyhow::Result<AgentSettings> {
    let list = |v: String| v.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect::<Vec<_>>();
    Ok(AgentSettings {
        oauth_assistant_callbacks: env("OAUTH_ASSISTANT_CALLBACKS")
            .map(list)
            .unwrap_or_else(|| DEFAULT_ASSISTANT_CALLBACKS.map(String::from).to_vec()),
        oauth_cimd_allow_loopback: env("OAUTH_CIMD_ALLOW_LOOPBACK").is_some_and(|v| v.eq_ignore_ascii_case("on")),
        oauth_cimd_ca: match env("OAUTH_CIMD_CA_FILE") {
            Some(path) => Some(std::fs::read(&path).with_context(|| format!("OAUTH_CIMD_CA_FILE {path}"))?),
            None => None,
        },
        mcp_allowed_origins: env("MCP_ALLOWED_ORIGINS")
            .map(|v| list(v).into_iter().map(|o| o.trim_end_matches('/').to_string()).collect())
            .unwrap_or_default(),
    })
}

/// Company monitoring's settings (SUPPLEMENT 4.1): `CM_CURSOR_SECRET`, `SEARCH_PROVIDER_URL`, the
/// `CM_FLAG_*` flags (`on`/`off`) and `CM_COMPANY_LIMIT_FREE` / `_PRO` / `_BUSINESS`.
pub fn cm_settings_from_env() -> anyhow::Result<CmSettings> {
    Ok(CmSettings::from_env()?)
}

/// The least a dataset cursor secret may be: HMAC-SHA256's block of security, as company
/// monitoring's `CM_CURSOR_SECRET` (a short one makes every cursor forgeable by search).
pub const MIN_CURSOR_SECRET_BYTES: usize = 32;

/// `DATA_CURSOR_SECRET`, when set: at least [`MIN_CURSOR_SECRET_BYTES`] bytes, or the server does
/// not start (unset, the first replica keeps a random one in the state store).
pub fn cursor_secret_from_env() -> anyhow::Result<Option<String>> {
    cursor_secret(env("DATA_CURSOR_SECRET"))
}

fn cursor_secret(value: Option<String>) -> anyhow::Result<Option<String>> {
    match value {
        Some(s) if s.len() < MIN_CURSOR_SECRET_BYTES => anyhow::bail!(
            "DATA_CURSOR_SECRET must be at least {MIN_CURSOR_SECRET_BYTES} bytes (it has {}); `head -c 32 /dev/urandom | base64` makes one",
            s.len()
        ),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_data_cursor_secret_is_refused() {
        assert!(cursor_secret(Some("short".into())).unwrap_err().to_string().contains("at least 32 bytes (it has 5)"));
        assert!(cursor_secret(Some("x".repeat(31))).is_err());
        assert_eq!(cursor_secret(Some("x".repeat(32))).unwrap(), Some("x".repeat(32)));
        assert_eq!(cursor_secret(None).unwrap(), None);
    }

    #[test]
    fn wildcard_listen_addresses_become_reachable_origins() {
        assert_eq!(reachable_origin("0.0.0.0:8080"), "http://127.0.0.1:8080");
        assert_eq!(reachable_origin("[::]:9000"), "http://[::1]:9000");
        assert_eq!(reachable_origin("127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(reachable_origin("api.example:80"), "http://api.example:80");
    }
}
