//! The content hash of a fetch: SHA-256 over its scope and its normalised rows (Arrow IPC stream
//! of the batch, schema included). Equal hashes mean the fetch would publish the data the current
//! version already holds, so the run records the fetch time and publishes no new version.

use std::io::Write;

use arrow::{ipc::writer::StreamWriter, record_batch::RecordBatch};
use sha2::{Digest, Sha256};
use sitrep_schemas::partition::Scope;

use crate::IngestError;

/// A `Write` that only hashes what it is given (no copy of the IPC stream is kept).
struct Hashing(Sha256);

impl Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn content_hash(batch: &RecordBatch, scope: &Scope) -> Result<String, IngestError> {
    let mut hashing = Hashing(Sha256::new());
    match scope {
        Scope::All => hashing.0.update(b"scope=all\n"),
        Scope::Months(months) => {
            let names: Vec<String> = months.iter().map(ToString::to_string).collect();
            hashing.0.update(format!("scope=months:{}\n", names.join(",")).as_bytes());
        }
    }
    let mut writer = StreamWriter::try_new(&mut hashing, &batch.schema())?;
    writer.write(batch)?;
    writer.finish()?;
    drop(writer);
    Ok(hex::encode(hashing.0.finalize()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::{
        array::{Int64Array, StringArray},
        datatypes::{DataType, Field, Schema},
    };
    use sitrep_schemas::partition::YearMonth;

    use super::*;

    fn batch(ids: &[&str], n: &[i64]) -> RecordBatch {
        let schema =
            Schema::new(vec![Field::new("id", DataType::Utf8, false), Field::new("n", DataType::Int64, false)]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![Arc::new(StringArray::from(ids.to_vec())), Arc::new(Int64Array::from(n.to_vec()))],
        )
        .unwrap()
    }

    #[test]
    fn equal_content_equal_hash_and_any_difference_shows() {
        let a = content_hash(&batch(&["x", "y"], &[1, 2]), &Scope::All).unwrap();
        assert_eq!(a, content_hash(&batch(&["x", "y"], &[1, 2]), &Scope::All).unwrap());
        assert_ne!(a, content_hash(&batch(&["x", "y"], &[1, 3]), &Scope::All).unwrap(), "a value");
        assert_ne!(a, content_hash(&batch(&["y", "x"], &[2, 1]), &Scope::All).unwrap(), "the order");
        let may = Scope::Months(vec![YearMonth { year: 2026, month: 5 }]);
        assert_ne!(a, content_hash(&batch(&["x", "y"], &[1, 2]), &may).unwrap(), "the scope");
    }
}
