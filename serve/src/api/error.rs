//! The ONE error type at the HTTP edge. Every failure a client can see is rendered here with the
//! exact bodies of API.md / SUPPLEMENT.md 1.5; nothing else writes an error body.
//!
//! Policy: handlers return `ApiError` for client-visible outcomes; internal faults (store, DuckDB)
//! are logged with their cause and rendered as the generic 500 body, never with their message.

use poem::{http::HeaderValue, http::StatusCode, Response};
use serde::Serialize;
use serde_json::json;

#[derive(Debug, Clone, Serialize, PartialEq, poem_openapi::Object)]
pub struct Violation {
    pub field: String,
    pub description: String,
}

#[derive(Debug, Clone, Serialize, poem_openapi::Object)]
pub struct ValidationError {
    pub violations: Vec<Violation>,
}

#[derive(Debug, Clone, Serialize, poem_openapi::Object)]
pub struct ErrorBody {
    pub error: String,
}

#[derive(Debug, Clone, Serialize, poem_openapi::Object)]
pub struct MessageBody {
    pub message: String,
}

#[derive(Debug)]
pub enum ApiError {
    Validation(Vec<Violation>),
    Jmespath {
        error: String,
        original_keys: Vec<String>,
    },
    InvalidBody,
    MissingCredential {
        challenge: String,
    },
    InvalidApiKey {
        challenge: String,
    },
    /// The account is suspended: every operation is refused.
    Suspended,
    NotFound,
    MethodNotAllowed {
        allow: &'static str,
    },
    TooLarge,
    InvalidIdempotencyKey,
    IdempotencyInFlight {
        key: String,
    },
    IdempotencyReused {
        key: String,
    },
    Internal(String),
}

fn json_response(status: StatusCode, body: serde_json::Value) -> Response {
    Response::builder()
        .status(status)
        .content_type("application/json; charset=utf-8")
        .body(serde_json::to_vec(&body).unwrap_or_default())
}

impl ApiError {
    pub fn internal(e: impl std::fmt::Display) -> Self {
        ApiError::Internal(e.to_string())
    }

    pub fn into_response(self) -> Response {
        match self {
            ApiError::Validation(violations) => {
                let mut r = json_response(StatusCode::BAD_REQUEST, json!({ "violations": violations }));
                r.headers_mut().insert("cache-control", HeaderValue::from_static("no-store"));
                r
            }
            ApiError::Jmespath { error, original_keys } => {
                let mut r = json_response(
                    StatusCode::BAD_REQUEST,
                    json!({ "_jmespath_error": error, "original_keys": original_keys }),
                );
                r.headers_mut().insert("cache-control", HeaderValue::from_static("no-store"));
                r.headers_mut().insert("x-content-type-options", HeaderValue::from_static("nosniff"));
                r
            }
            ApiError::InvalidBody => {
                json_response(StatusCode::BAD_REQUEST, json!({ "message": "Invalid request body" }))
            }
            ApiError::MissingCredential { challenge } => {
                let mut r =
                    json_response(StatusCode::UNAUTHORIZED, json!({ "error": "API key or bearer token required" }));
                r.headers_mut().insert(
                    "www-authenticate",
                    challenge.parse().unwrap_or_else(|_| HeaderValue::from_static("Bearer")),
                );
                r.headers_mut().insert("cache-control", HeaderValue::from_static("no-store"));
                r
            }
            ApiError::InvalidApiKey { challenge } => {
                let mut r = json_response(StatusCode::UNAUTHORIZED, json!({ "error": "Invalid API key" }));
                r.headers_mut().insert(
                    "www-authenticate",
                    challenge.parse().unwrap_or_else(|_| HeaderValue::from_static("Bearer")),
                );
                r.headers_mut().insert("cache-control", HeaderValue::from_static("no-store"));
                r
            }
            ApiError::Suspended => {
                json_response(StatusCode::FORBIDDEN, json!({ "error": "API access requires an active subscription" }))
            }
            ApiError::NotFound => json_response(StatusCode::NOT_FOUND, json!({ "error": "Not found" })),
            ApiError::MethodNotAllowed { allow } => {
                let mut r = json_response(StatusCode::METHOD_NOT_ALLOWED, json!({ "error": "Method not allowed" }));
                r.headers_mut().insert("allow", HeaderValue::from_static(allow));
                r
            }
            ApiError::TooLarge => {
                json_response(StatusCode::PAYLOAD_TOO_LARGE, json!({ "message": "Request body too large" }))
            }
            ApiError::InvalidIdempotencyKey => json_response(
                StatusCode::BAD_REQUEST,
                json!({ "error": "invalid_idempotency_key", "message": "The Idempotency-Key header must be 1-255 printable ASCII characters." }),
            ),
            ApiError::IdempotencyInFlight { key } => {
                let mut r = json_response(
                    StatusCode::CONFLICT,
                    json!({ "error": "idempotency_conflict", "message": "A request with this Idempotency-Key is still being processed. Retry shortly." }),
                );
                r.headers_mut()
                    .insert("idempotency-key", key.parse().unwrap_or_else(|_| HeaderValue::from_static("invalid")));
                r.headers_mut().insert("retry-after", HeaderValue::from_static("2"));
                r
            }
            ApiError::IdempotencyReused { key } => {
                let mut r = json_response(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    json!({ "error": "idempotency_key_reused", "message": "This Idempotency-Key was already used with a different request body." }),
                );
                r.headers_mut()
                    .insert("idempotency-key", key.parse().unwrap_or_else(|_| HeaderValue::from_static("invalid")));
                r
            }
            ApiError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                json_response(StatusCode::INTERNAL_SERVER_ERROR, json!({ "message": "Internal server error" }))
            }
        }
    }
}

impl From<crate::snapshot::DbError> for ApiError {
    fn from(e: crate::snapshot::DbError) -> Self {
        ApiError::internal(e)
    }
}

impl From<crate::state::StateError> for ApiError {
    fn from(e: crate::state::StateError) -> Self {
        ApiError::internal(e)
    }
}

/// Collects violations in field order.
#[derive(Debug, Default)]
pub struct Violations(pub Vec<Violation>);

impl Violations {
    pub fn push(&mut self, field: &str, description: impl Into<String>) {
        self.0.push(Violation { field: field.to_string(), description: description.into() });
    }
    pub fn into_result(self) -> Result<(), ApiError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation(self.0))
        }
    }
}
