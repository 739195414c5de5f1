//! Schema fingerprints: a short, stable hash of column names, types and nullability. A file whose
//! fingerprint differs from the dataset's is refused before commit.

use arrow::datatypes::Schema;
use sha2::{Digest, Sha256};

pub fn schema_fingerprint(schema: &Schema) -> String {
    let mut canonical = String::new();
    for f in schema.fields() {
        canonical.push_str(f.name());
        canonical.push(':');
        canonical.push_str(&format!("{:?}", f.data_type()));
        canonical.push(':');
        canonical.push(if f.is_nullable() { '?' } else { '!' });
        canonical.push(';');
    }
    hex::encode(&Sha256::digest(canonical.as_bytes())[..8])
}

/// Same fingerprint, ignoring metadata and list-item names, as read back from a Parquet footer.
pub fn fingerprint_matches(expected: &Schema, found: &Schema) -> bool {
    if expected.fields().len() != found.fields().len() {
        return false;
    }
    expected.fields().iter().zip(found.fields()).all(|(a, b)| {
        a.name() == b.name() && a.is_nullable() == b.is_nullable() && a.data_type().equals_datatype(b.data_type())
    })
}

/// `batch` under `schema`, which matches its schema ([`fingerprint_matches`]) but for field
/// metadata — the Iceberg field ids files carry, also on a list's element field, which a list
/// column's type holds. The columns' buffers are shared; only a list column's type is replaced.
pub fn conform(
    batch: &arrow::array::RecordBatch,
    schema: &arrow::datatypes::SchemaRef,
) -> Result<arrow::array::RecordBatch, arrow::error::ArrowError> {
    use arrow::array::{make_array, Array};
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(column, field)| {
            if column.data_type() == field.data_type() {
                return Ok(column.clone());
            }
            let data = column.to_data().into_builder().data_type(field.data_type().clone()).build()?;
            Ok(make_array(data))
        })
        .collect::<Result<Vec<_>, arrow::error::ArrowError>>()?;
    arrow::array::RecordBatch::try_new(schema.clone(), columns)
}
