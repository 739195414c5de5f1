//! A POST's JSON body (SUPPLEMENT 1.1: `Content-Type: application/json`, parameters allowed). The
//! edge has already read it within the size limit; anything else is a malformed request body.

use poem::Request;
use serde_json::Value;

use super::error::ApiError;

/// Whether a Content-Type names JSON: `application/json` or a `+json` type, any parameters.
fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// The request's body as JSON, taken out of the request.
pub async fn take(req: &mut Request) -> Result<Value, ApiError> {
    if !req.content_type().is_some_and(is_json) {
        return Err(ApiError::InvalidBody);
    }
    let bytes = req.take_body().into_bytes().await.map_err(|_| ApiError::InvalidBody)?;
    serde_json::from_slice(&bytes).map_err(|_| ApiError::InvalidBody)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn json_of_a_json_content_type_only() {
        let mut req = Request::builder().content_type("application/json; charset=utf-8").body(r#"{"a":1}"#);
        assert_eq!(take(&mut req).await.ok(), Some(serde_json::json!({"a": 1})));
        let mut req = Request::builder().content_type("text/plain").body(r#"{"a":1}"#);
        assert!(matches!(take(&mut req).await, Err(ApiError::InvalidBody)));
        let mut req = Request::builder().body(r#"{"a":1}"#);
        assert!(matches!(take(&mut req).await, Err(ApiError::InvalidBody)), "no content type");
        let mut req = Request::builder().content_type("application/json").body("{");
        assert!(matches!(take(&mut req).await, Err(ApiError::InvalidBody)), "malformed");
        assert!(is_json("application/problem+json"));
    }
}
