//! Errors of the commit protocol.

#[derive(Debug, thiserror::Error)]
pub enum LakeError {
    #[error("object store: {0}")]
    Store(#[from] object_store::Error),
    #[error("lake url `{url}`: {detail}")]
    LakeUrl { url: String, detail: String },
    #[error("commit {key} is not valid JSON: {detail}")]
    CorruptCommit { key: String, detail: String },
    #[error("refused before commit: {0}")]
    Validation(String),
    #[error("publish gave up after {0} concurrent-commit retries")]
    Contention(u32),
    #[error("{0}")]
    Usage(String),
    #[error("local file: {0}")]
    Io(#[from] std::io::Error),
}
