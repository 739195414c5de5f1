use thiserror::Error;

/// Why a fetch failed. The runner records `kind()` and the message in the dataset's freshness and
/// keeps the last good version serving.
#[derive(Debug, Error)]
pub enum SourceError {
    #[error("missing_credentials: {0}")]
    NotConfigured(String),
    #[error("disabled: {0}")]
    Disabled(String),
    #[error("http_status: {url} answered {status}: {snippet}")]
    Status { url: String, status: u16, snippet: String },
    #[error("transport: {url}: {detail}")]
    Transport { url: String, detail: String },
    #[error("parse: {what}: {detail}")]
    Parse { what: String, detail: String },
    #[error("upstream_error: {0}")]
    Upstream(String),
    #[error("io: {0}")]
    Io(String),
    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl SourceError {
    pub fn kind(&self) -> &'static str {
        match self {
            SourceError::NotConfigured(_) => "missing_credentials",
            SourceError::Disabled(_) => "disabled",
            SourceError::Status { .. } => "http_status",
            SourceError::Transport { .. } => "transport",
            SourceError::Parse { .. } => "parse",
            SourceError::Upstream(_) => "upstream_error",
            SourceError::Io(_) => "io",
            SourceError::Unsupported(_) => "unsupported",
        }
    }

    pub fn parse(what: impl Into<String>, detail: impl std::fmt::Display) -> Self {
        SourceError::Parse { what: what.into(), detail: detail.to_string() }
    }
}
