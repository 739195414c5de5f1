//! Conversions of DuckDB values that several groups' row mappers share.

use duckdb::types::Value;

/// A `VARCHAR[]` cell as strings (null and non-text items dropped).
pub fn text_list(v: Value) -> Vec<String> {
    match v {
        Value::List(items) | Value::Array(items) => items
            .into_iter()
            .filter_map(|i| match i {
                Value::Text(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}
