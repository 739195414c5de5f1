//! Ingest configuration: flags with `SITREP_*` env fallbacks; upstream secrets only from the env
//! names of SUPPLEMENT.md (never flags, never logged).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use sitrep_pipelines::UpstreamConfig;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Connectors read recorded upstream responses from the fixtures directory.
    Replay,
    /// Connectors call the real upstreams with the credentials in the environment.
    Live,
}

#[derive(Debug, Clone, Args)]
pub struct LakeArgs {
    /// Lake location: a directory, `file://…`, `memory://` or `s3://bucket/prefix`.
    #[arg(long, env = "SITREP_LAKE", default_value = "./var/lake")]
    pub lake: String,
}

#[derive(Debug, Clone, Args)]
pub struct SourceArgs {
    /// Where connectors get their data: the upstreams (`live`, the default) or recorded fixtures
    /// (`replay`; `make run` and the tests choose it explicitly, and its data is labelled as such).
    #[arg(long, env = "SITREP_MODE", value_enum, default_value = "live")]
    pub mode: Mode,
    /// Recorded upstream responses used by replay mode.
    #[arg(long, env = "SITREP_FIXTURES", default_value = "./data/fixtures")]
    pub fixtures: PathBuf,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn env_flag(name: &str) -> bool {
    env(name).is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "on" | "yes"))
}

/// Live-mode upstream settings from the environment.
pub fn upstream_from_env() -> UpstreamConfig {
    UpstreamConfig {
        acled_email: env("ACLED_EMAIL"),
        acled_password: env("ACLED_PASSWORD"),
        acled_access_token: env("ACLED_ACCESS_TOKEN"),
        ucdp_access_token: env("UCDP_ACCESS_TOKEN"),
        hdx_app_identifier: env("HDX_HAPI_APP_IDENTIFIER"),
        iran_events_enabled: env_flag("IRAN_EVENTS_ENABLED"),
        iran_events_file: env("IRAN_EVENTS_FILE").map(PathBuf::from),
        adsb_base_url: env("ADSB_BASE_URL"),
    }
}
