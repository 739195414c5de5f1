use thiserror::Error;

#[derive(Debug, Error)]
pub enum IngestError {
    #[error("object store: {0}")]
    Store(#[from] object_store::Error),
    #[error("lake url `{url}`: {detail}")]
    LakeUrl { url: String, detail: String },
    #[error("commit {key} is not valid JSON: {detail}")]
    CorruptCommit { key: String, detail: String },
    #[error("refused before commit: {0}")]
    Validation(String),
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error("arrow: {0}")]
    Arrow(#[from] arrow::error::ArrowError),
    #[error("publish gave up after {0} concurrent-commit retries")]
    Contention(u32),
    #[error("source: {0}")]
    Source(#[from] sitrep_pipelines::SourceError),
    #[error("{0}")]
    Usage(String),
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
}
