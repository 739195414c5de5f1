//! Opening a lake by URL: a filesystem path (default), `file://…`, `memory://` (tests) or
//! `s3://bucket/prefix` (credentials and endpoint from the standard `AWS_*` environment).

use std::sync::Arc;

use object_store::{
    aws::AmazonS3Builder, local::LocalFileSystem, memory::InMemory, path::Path, prefix::PrefixStore, ObjectStore,
};

use crate::LakeError;

#[derive(Clone)]
pub struct Lake {
    pub(crate) store: Arc<dyn ObjectStore>,
    /// Where analysts' tools find the files (`/abs/path/` or `s3://bucket/prefix/`).
    pub(crate) display_root: String,
    /// Whether publishing writes the open tables (always, but for the bench's peer).
    pub(crate) open_tables: bool,
}

impl std::fmt::Debug for Lake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lake").field("root", &self.display_root).finish()
    }
}

impl Lake {
    pub fn open(url: &str) -> Result<Self, LakeError> {
        let bad = |detail: String| LakeError::LakeUrl { url: url.to_string(), detail };
        if url == "memory://" || url == "memory" {
            return Ok(Self::in_memory());
        }
        if let Some(rest) = url.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            let s3 = AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .with_conditional_put(object_store::aws::S3ConditionalPut::ETagMatch)
                .build()
                .map_err(|e| bad(e.to_string()))?;
            let prefix = prefix.trim_matches('/');
            let store: Arc<dyn ObjectStore> =
                if prefix.is_empty() { Arc::new(s3) } else { Arc::new(PrefixStore::new(s3, prefix)) };
            let display_root =
                if prefix.is_empty() { format!("s3://{bucket}/") } else { format!("s3://{bucket}/{prefix}/") };
            return Ok(Lake { store, display_root, open_tables: true });
        }
        let path = url.strip_prefix("file://").unwrap_or(url);
        std::fs::create_dir_all(path).map_err(|e| bad(e.to_string()))?;
        let abs = std::fs::canonicalize(path).map_err(|e| bad(e.to_string()))?;
        let fs = LocalFileSystem::new_with_prefix(&abs).map_err(|e| bad(e.to_string()))?;
        Ok(Lake { store: Arc::new(fs), display_root: format!("{}/", abs.display()), open_tables: true })
    }

    pub fn in_memory() -> Self {
        Lake { store: Arc::new(InMemory::new()), display_root: "memory://".into(), open_tables: true }
    }

    pub fn from_store(store: Arc<dyn ObjectStore>, display_root: &str) -> Self {
        Lake { store, display_root: display_root.to_string(), open_tables: true }
    }

    /// The same lake, its publishes writing the open tables or not (`make bench` compares the two).
    pub fn with_open_tables(mut self, on: bool) -> Self {
        self.open_tables = on;
        self
    }

    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// Location of a lake key for external readers (DuckDB, Polars).
    pub fn external_path(&self, key: &str) -> String {
        format!("{}{key}", self.display_root)
    }

    /// The object-store path of a lake key.
    pub fn path(key: &str) -> Path {
        Path::from(key)
    }
}
