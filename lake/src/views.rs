//! `lake views`: SQL (DuckDB) or JSON (Polars, pandas) describing a generation's files, so analysts
//! query the lake directly.

use sitrep_schemas::{Commit, DatasetId};

use crate::Lake;

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `CREATE OR REPLACE VIEW` statements, one per dataset; a dataset with no files gets a typed empty view.
pub fn views_sql(lake: &Lake, commit: &Commit) -> String {
    let mut out = format!("-- sitrep lake generation {} ({})\n", commit.generation, commit.committed_at.to_rfc3339());
    for id in DatasetId::ALL {
        let files: Vec<String> = commit
            .dataset(id)
            .map(|e| e.files.iter().map(|f| quote(&lake.external_path(&f.path))).collect())
            .unwrap_or_default();
        let body = if files.is_empty() {
            format!("SELECT {} WHERE false", sitrep_schemas::sql::null_columns(id))
        } else {
            format!("SELECT * FROM read_parquet([{}])", files.join(", "))
        };
        out.push_str(&format!("CREATE OR REPLACE VIEW {} AS {body};\n", id.table_name()));
    }
    out
}

/// `{"generation": n, "tables": {"armed_events": ["<path>", …], …}}`.
pub fn views_json(lake: &Lake, commit: &Commit) -> serde_json::Value {
    let tables: serde_json::Map<String, serde_json::Value> = DatasetId::ALL
        .into_iter()
        .map(|id| {
            let files: Vec<String> = commit
                .dataset(id)
                .map(|e| e.files.iter().map(|f| lake.external_path(&f.path)).collect())
                .unwrap_or_default();
            (id.table_name().to_string(), serde_json::json!(files))
        })
        .collect();
    serde_json::json!({ "generation": commit.generation, "tables": tables })
}
