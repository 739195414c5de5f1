use thiserror::Error;

#[derive(Debug, Error)]
pub enum IngestError {
    #[error("lake: {0}")]
    Lake(#[from] sitrep_lake::LakeError),
    #[error("object store: {0}")]
    Store(#[from] object_store::Error),
    #[error("refused before commit: {0}")]
    Validation(String),
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error("arrow: {0}")]
    Arrow(#[from] arrow::error::ArrowError),
    #[error("source: {0}")]
    Source(#[from] sitrep_pipelines::SourceError),
    #[error("{0}")]
    Usage(String),
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
}
