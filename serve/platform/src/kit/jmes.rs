//! jmespath projection of a rendered GET body (SUPPLEMENT 1.9): 1024-byte expression cap, 256 KB
//! output cap, the `_jmespath_error` envelope with `original_keys`.

use serde_json::Value;

use super::error::ApiError;

pub const MAX_EXPRESSION_BYTES: usize = 1024;
pub const MAX_OUTPUT_BYTES: usize = 262_144;

fn original_keys(v: &Value) -> Vec<String> {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<String> = m.keys().take(50).cloned().collect();
            if m.len() > 50 {
                keys.push(format!("...<{} more>", m.len() - 50));
            }
            keys
        }
        Value::Array(a) => vec![format!("<array length={}>", a.len())],
        Value::String(_) => vec!["string".into()],
        Value::Number(_) => vec!["number".into()],
        Value::Bool(_) => vec!["boolean".into()],
        Value::Null => vec!["null".into()],
    }
}

/// Projects `body` with `expression`; returns the serialised projection.
pub fn project(expression: &str, body: &Value) -> Result<Vec<u8>, ApiError> {
    let fail = |error: String| ApiError::Jmespath { error, original_keys: original_keys(body) };
    if expression.len() > MAX_EXPRESSION_BYTES {
        return Err(fail(format!("expression_too_long: {} > {MAX_EXPRESSION_BYTES}", expression.len())));
    }
    let expr = jmespath::compile(expression).map_err(|e| fail(format!("invalid_expression: {e}")))?;
    let result = expr.search(body).map_err(|e| fail(format!("invalid_expression: {e}")))?;
    let bytes = serde_json::to_vec(&*result).map_err(|e| fail(format!("invalid_expression: {e}")))?;
    if bytes.len() > MAX_OUTPUT_BYTES {
        return Err(fail(format!("projection_too_large: {} > {MAX_OUTPUT_BYTES}", bytes.len())));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(r: Result<Vec<u8>, ApiError>) -> (String, Vec<String>) {
        match r {
            Err(ApiError::Jmespath { error, original_keys }) => (error, original_keys),
            other => panic!("expected jmespath error, got {other:?}"),
        }
    }

    #[test]
    fn projects_and_reports_errors_in_order() {
        let body = json!({"events": [{"id": "a"}, {"id": "b"}], "pagination": {"totalCount": 2}});
        assert_eq!(project("events[].id", &body).unwrap(), br#"["a","b"]"#);
        assert_eq!(project("nothing", &body).unwrap(), b"null");
        let (e, keys) = err(project(&"a".repeat(1025), &body));
        assert_eq!(e, "expression_too_long: 1025 > 1024");
        assert_eq!(keys, ["events", "pagination"]);
        assert!(err(project("events[", &body)).0.starts_with("invalid_expression: "));
        let big = json!({"s": "x".repeat(MAX_OUTPUT_BYTES)});
        assert!(err(project("s", &big)).0.starts_with("projection_too_large: 262146 > 262144"));
        let exact = json!({"s": "x".repeat(MAX_OUTPUT_BYTES - 2)});
        assert_eq!(project("s", &exact).unwrap().len(), MAX_OUTPUT_BYTES);
        assert_eq!(err(project("events[", &json!([1, 2]))).1, ["<array length=2>"]);
    }
}
