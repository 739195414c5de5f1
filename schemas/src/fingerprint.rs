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
