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

    /// A short, secret-free reason for a dataset row or a component (`HTTP 503`, `timeout`,
    /// `unreachable`, `malformed response`, `HTML answer`): URLs may carry keys, so the full
    /// message stays in logs.
    pub fn brief(&self) -> String {
        match self {
            SourceError::Status { status: 200..=299, .. } => "HTML answer".into(),
            SourceError::Status { status, .. } => format!("HTTP {status}"),
            SourceError::Transport { detail, .. } if detail.contains("timed out") || detail.contains("timeout") => {
                "timeout".into()
            }
            SourceError::Transport { .. } => "unreachable".into(),
            SourceError::Parse { .. } => "malformed response".into(),
            other => other.kind().to_string(),
        }
    }

    pub fn parse(what: impl Into<String>, detail: impl std::fmt::Display) -> Self {
        SourceError::Parse { what: what.into(), detail: detail.to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brief_reasons() {
        let status = |status| SourceError::Status { url: "u".into(), status, snippet: String::new() };
        assert_eq!(status(503).brief(), "HTTP 503");
        assert_eq!(status(200).brief(), "HTML answer", "a 2xx refused by ensure_ok is an HTML page");
        assert_eq!(SourceError::parse("x", "bad").brief(), "malformed response");
        let timeout = SourceError::Transport { url: "u".into(), detail: "operation timed out".into() };
        assert_eq!(timeout.brief(), "timeout");
        assert_eq!(SourceError::Transport { url: "u".into(), detail: "refused".into() }.brief(), "unreachable");
        assert_eq!(SourceError::Upstream("x".into()).brief(), "upstream_error");
    }
}
