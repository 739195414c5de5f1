//! Conversions of DuckDB values that several groups' row mappers share.

/// A list cell of a serving table (JSON array text, see `sitrep_schemas::sql`) as strings; null
/// and non-text items are dropped, and so is a cell that is not a JSON array of strings.
pub fn text_list(cell: Option<String>) -> Vec<String> {
    cell.and_then(|json| serde_json::from_str::<Vec<Option<String>>>(&json).ok())
        .map(|items| items.into_iter().flatten().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::text_list;

    #[test]
    fn list_cells_are_json_arrays_of_text() {
        let cell = |s: &str| Some(s.to_string());
        assert_eq!(text_list(cell(r#"["a","b \"q\" ,c"]"#)), ["a", "b \"q\" ,c"]);
        assert_eq!(text_list(cell(r#"["a",null]"#)), ["a"], "null items are dropped");
        assert!(text_list(cell("[]")).is_empty());
        assert!(text_list(None).is_empty(), "a null cell is an empty list");
        assert!(text_list(cell("not json")).is_empty());
    }
}
