//! Ingest configuration: flags with `SITREP_*` env fallbacks; upstream secrets only from the env
//! names of SUPPLEMENT.md (never flags, never logged).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

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
    /// Replay mode: `upstream=scenario` replays that scenario over the upstream's `normal` one
    /// (repeatable; `noaa-gml=frozen` is an upstream answering the same content days later).
    #[arg(long = "scenario", value_delimiter = ',')]
    pub scenarios: Vec<String>,
}
