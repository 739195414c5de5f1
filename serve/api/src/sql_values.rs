//! Conversions of DuckDB values that several groups' row mappers share.

/// The list cell in column `idx` of a serving table (JSON array text, see `sitrep_schemas::sql`)
/// as strings: a null cell is an empty list and null items are dropped. A cell that is not a JSON
/// array of strings is an error, not an empty list: the serving file is ours, so such a cell is a
/// bug to surface rather than data to lose quietly.
pub fn text_list(row: &duckdb::Row<'_>, idx: usize) -> duckdb::Result<Vec<String>> {
    let Some(json) = row.get::<_, Option<String>>(idx)? else { return Ok(Vec::new()) };
    parse_text_list(&json)
        .map_err(|e| duckdb::Error::FromSqlConversionFailure(idx, duckdb::types::Type::Text, Box::new(e)))
}

fn parse_text_list(json: &str) -> serde_json::Result<Vec<String>> {
    Ok(serde_json::from_str::<Vec<Option<String>>>(json)?.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_cells_are_json_arrays_of_text() {
        assert_eq!(parse_text_list(r#"["a","b \"q\" ,c"]"#).unwrap(), ["a", "b \"q\" ,c"]);
        assert_eq!(parse_text_list(r#"["a",null]"#).unwrap(), ["a"], "null items are dropped");
        assert!(parse_text_list("[]").unwrap().is_empty());
        assert!(parse_text_list("not json").is_err());
        assert!(parse_text_list("[1,2]").is_err(), "numbers are not text");
    }

    #[test]
    fn a_null_cell_is_an_empty_list_and_a_malformed_one_an_error() {
        let conn = sitrep_platform::snapshot::open_duckdb().unwrap();
        let read = |sql: &str| conn.query_row(sql, [], |r| text_list(r, 0));
        assert_eq!(read("SELECT '[\"x\"]'").unwrap(), ["x"]);
        assert!(read("SELECT NULL::VARCHAR").unwrap().is_empty());
        let err = read("SELECT 'x,y'").unwrap_err();
        assert!(matches!(err, duckdb::Error::FromSqlConversionFailure(0, _, _)), "{err}");
    }
}
