//! Before a commit references a file, re-open its Parquet footer from the store: the row count and
//! the Arrow schema must match what the run staged. A corrupt or schema-mismatched file is refused.

use arrow::datatypes::Schema;
use object_store::ObjectStoreExt;
use parquet::{
    arrow::parquet_to_arrow_schema,
    file::metadata::{FooterTail, ParquetMetaDataReader},
};
use sitrep_schemas::{fingerprint::fingerprint_matches, DatasetId, FileEntry};

use crate::{Lake, LakeError};

const FOOTER: u64 = 8;

/// A file's footer as the lake wrote it: its row count and Arrow schema.
pub(crate) struct Footer {
    pub rows: u64,
    pub schema: Schema,
}

/// Reads `file`'s Parquet footer from the store (two ranged reads), checking its size first.
pub(crate) async fn read_footer(lake: &Lake, file: &FileEntry) -> Result<Footer, LakeError> {
    let refuse = |why: String| LakeError::Validation(format!("{}: {why}", file.path));
    let path = Lake::path(&file.path);
    let meta = lake.store.head(&path).await?;
    if meta.size != file.bytes || meta.size < FOOTER {
        return Err(refuse(format!("size {} differs from staged {}", meta.size, file.bytes)));
    }
    let tail = lake.store.get_range(&path, meta.size - FOOTER..meta.size).await?;
    let tail: [u8; 8] = tail.as_ref().try_into().map_err(|_| refuse("short footer".into()))?;
    let footer = FooterTail::try_from(tail).map_err(|e| refuse(format!("not parquet: {e}")))?;
    let len = footer.metadata_length() as u64;
    if len + FOOTER > meta.size {
        return Err(refuse("footer length exceeds file".into()));
    }
    let raw = lake.store.get_range(&path, meta.size - FOOTER - len..meta.size - FOOTER).await?;
    let md = ParquetMetaDataReader::decode_metadata(&raw).map_err(|e| refuse(format!("corrupt footer: {e}")))?;
    let fm = md.file_metadata();
    let schema = parquet_to_arrow_schema(fm.schema_descr(), fm.key_value_metadata())
        .map_err(|e| refuse(format!("unreadable schema: {e}")))?;
    Ok(Footer { rows: fm.num_rows() as u64, schema })
}

pub(crate) async fn validate_file(lake: &Lake, dataset: DatasetId, file: &FileEntry) -> Result<(), LakeError> {
    let refuse = |why: String| LakeError::Validation(format!("{}: {why}", file.path));
    let footer = read_footer(lake, file).await?;
    if footer.rows != file.rows {
        return Err(refuse(format!("footer says {} rows, staged {}", footer.rows, file.rows)));
    }
    if !fingerprint_matches(&dataset.schema(), &footer.schema) || file.schema_fingerprint != dataset.fingerprint() {
        return Err(refuse(format!("schema does not match {dataset} ({})", dataset.fingerprint())));
    }
    Ok(())
}
