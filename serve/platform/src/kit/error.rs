//! The ONE error type at the HTTP edge. Every failure a client can see is rendered here with the
//! exact bodies of API.md / SUPPLEMENT.md 1.5; nothing else writes an error body.
//!
//! Policy: handlers return `ApiError` for client-visible outcomes; internal faults (store, DuckDB)
//! are logged with their cause and rendered as the generic 500 body, never with their message.

use poem::{
    http::{HeaderValue, StatusCode},
    Response,
};
use serde::Serialize;
use serde_json::json;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Violation {
    pub field: String,
    pub description: String,
}

#[derive(Debug)]
pub enum ApiError {
    Validation(Vec<Violation>),
    Jmespath {
        error: String,
        original_keys: Vec<String>,
    },
    InvalidBody,
    /// ExecuteBatch called from inside a batch.
    NestedBatch,
    /// The edge User-Agent filter (SUPPLEMENT 1.15): an HTML page, not JSON.
    UserAgentRefused,
    MissingCredential {
        challenge: String,
    },
    InvalidApiKey {
        challenge: String,
    },
    InvalidAccessToken {
        challenge: String,
    },
    /// The account is suspended: every operation is refused.
    Suspended,
    ProRequired {
        current_tier: u8,
        plan_key: &'static str,
    },
    Lapsed {
        plan_key: &'static str,
    },
    InsufficientScope {
        scope: &'static str,
    },
    CmAccessDenied {
        lapsed: bool,
    },
    NotFound,
    /// A group's own refusal with a `{"code", "message"}` body (company monitoring, 4.7).
    Coded {
        status: StatusCode,
        code: &'static str,
        message: String,
    },
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
    RateLimited {
        retry_after: u64,
    },
    /// The limiter could not be asked on a fail-closed policy.
    LimiterUnavailable,
    /// The account or entitlement store could not be read.
    EntitlementUnavailable,
    /// More requests in flight than the server takes: refused at once, before any work
    /// (SUPPLEMENT has no body for it: **decision**, shaped like the other 503s).
    Overloaded,
    /// The request ran past its deadline; its query was interrupted (a **decision** as above).
    DeadlineExceeded,
    /// A computation the request waits for (a large diff) goes on past the caller's patience:
    /// asked again after `retry_after` seconds, the caller gets it (a **decision**, issue 58).
    StillComputing {
        retry_after: u64,
    },
    Internal(String),
}

/// The edge User-Agent filter's page: what was refused and what to send instead.
const USER_AGENT_REFUSED_PAGE: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>403 Forbidden</title></head>\n<body><h1>403 Forbidden</h1><p>Automated clients must identify themselves with a descriptive User-Agent, for example <code>acme-agent/1.4 (+https://acme.example/contact)</code>, or authenticate with an API key.</p></body></html>\n";

fn json_response(status: StatusCode, body: serde_json::Value) -> Response {
    Response::builder()
        .status(status)
        .content_type("application/json; charset=utf-8")
        .body(serde_json::to_vec(&body).unwrap_or_default())
}

fn with(mut r: Response, headers: &[(&'static str, &str)]) -> Response {
    for (name, value) in headers {
        if let Ok(v) = HeaderValue::from_str(value) {
            r.headers_mut().insert(*name, v);
        }
    }
    r
}

impl ApiError {
    pub fn internal(e: impl std::fmt::Display) -> Self {
        ApiError::Internal(e.to_string())
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Validation(_)
            | ApiError::Jmespath { .. }
            | ApiError::InvalidBody
            | ApiError::NestedBatch
            | ApiError::InvalidIdempotencyKey => StatusCode::BAD_REQUEST,
            ApiError::MissingCredential { .. }
            | ApiError::InvalidApiKey { .. }
            | ApiError::InvalidAccessToken { .. } => StatusCode::UNAUTHORIZED,
            ApiError::Suspended
            | ApiError::ProRequired { .. }
            | ApiError::Lapsed { .. }
            | ApiError::InsufficientScope { .. }
            | ApiError::CmAccessDenied { .. }
            | ApiError::UserAgentRefused => StatusCode::FORBIDDEN,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::Coded { status, .. } => *status,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::IdempotencyInFlight { .. } => StatusCode::CONFLICT,
            ApiError::IdempotencyReused { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::LimiterUnavailable
            | ApiError::EntitlementUnavailable
            | ApiError::Overloaded
            | ApiError::DeadlineExceeded
            | ApiError::StillComputing { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn into_response(self) -> Response {
        let status = self.status();
        let no_store = [("cache-control", "no-store")];
        match self {
            ApiError::Validation(violations) => {
                with(json_response(status, json!({ "violations": violations })), &no_store)
            }
            ApiError::Jmespath { error, original_keys } => with(
                json_response(status, json!({ "_jmespath_error": error, "original_keys": original_keys })),
                &[("cache-control", "no-store"), ("x-content-type-options", "nosniff")],
            ),
            ApiError::InvalidBody => json_response(status, json!({ "message": "Invalid request body" })),
            ApiError::NestedBatch => {
                json_response(status, json!({ "message": "Nested batch requests are not allowed" }))
            }
            ApiError::UserAgentRefused => Response::builder()
                .status(status)
                .content_type("text/html; charset=utf-8")
                .header("cache-control", "no-store")
                .body(USER_AGENT_REFUSED_PAGE),
            ApiError::MissingCredential { challenge } => with(
                json_response(status, json!({ "error": "API key or bearer token required" })),
                &[("www-authenticate", &challenge), no_store[0]],
            ),
            ApiError::InvalidApiKey { challenge } => with(
                json_response(status, json!({ "error": "Invalid API key" })),
                &[("www-authenticate", &challenge), no_store[0]],
            ),
            ApiError::InvalidAccessToken { challenge } => with(
                json_response(status, json!({ "error": "Invalid or expired access token" })),
                &[("www-authenticate", &challenge), no_store[0]],
            ),
            ApiError::Suspended => {
                json_response(status, json!({ "error": "API access requires an active subscription" }))
            }
            ApiError::ProRequired { current_tier, plan_key } => json_response(
                status,
                json!({ "error": "Pro subscription required", "requiredTier": 1, "currentTier": current_tier, "planKey": plan_key }),
            ),
            ApiError::Lapsed { plan_key } => with(
                json_response(
                    status,
                    json!({ "error": "Subscription lapsed", "code": "subscription_lapsed", "requiredTier": 1, "currentTier": 0, "planKey": plan_key }),
                ),
                &[("x-billing-verification", "subscription_lapsed")],
            ),
            ApiError::InsufficientScope { scope } => with(
                json_response(
                    status,
                    json!({ "error": "insufficient_scope", "message": format!("This operation requires scope {scope}.") }),
                ),
                &[("www-authenticate", &format!("Bearer error=\"insufficient_scope\", scope=\"{scope}\""))],
            ),
            ApiError::CmAccessDenied { lapsed } => json_response(
                status,
                json!({
                    "error": "ACCESS_DENIED",
                    "code": "ACCESS_DENIED",
                    "message": if lapsed { "company monitoring entitlement has lapsed" } else { "company monitoring is not available for this account" },
                }),
            ),
            ApiError::NotFound => json_response(status, json!({ "error": "Not found" })),
            // `error` repeats the code: the reference contract requires the field (SUPPLEMENT 1.5).
            ApiError::Coded { code, message, .. } => {
                json_response(status, json!({ "error": code, "code": code, "message": message }))
            }
            ApiError::MethodNotAllowed { allow } => {
                with(json_response(status, json!({ "error": "Method not allowed" })), &[("allow", allow)])
            }
            ApiError::TooLarge => json_response(status, json!({ "message": "Request body too large" })),
            ApiError::InvalidIdempotencyKey => json_response(
                status,
                json!({ "error": "invalid_idempotency_key", "message": "The Idempotency-Key header must be 1-255 printable ASCII characters." }),
            ),
            ApiError::IdempotencyInFlight { key } => with(
                json_response(
                    status,
                    json!({ "error": "idempotency_conflict", "message": "A request with this Idempotency-Key is still being processed. Retry shortly." }),
                ),
                &[("idempotency-key", &key), ("retry-after", "2")],
            ),
            ApiError::IdempotencyReused { key } => with(
                json_response(
                    status,
                    json!({ "error": "idempotency_key_reused", "message": "This Idempotency-Key was already used with a different request body." }),
                ),
                &[("idempotency-key", &key)],
            ),
            ApiError::RateLimited { retry_after } => with(
                json_response(status, json!({ "error": "Too many requests" })),
                &[("retry-after", &retry_after.to_string())],
            ),
            ApiError::LimiterUnavailable => with(
                json_response(status, json!({ "error": "Rate-limit service temporarily unavailable" })),
                &[("retry-after", "5"), ("x-ratelimit-mode", "degraded")],
            ),
            ApiError::EntitlementUnavailable => with(
                json_response(
                    status,
                    json!({ "error": "Entitlement verification unavailable", "code": "entitlement_verification_unavailable" }),
                ),
                &[("retry-after", "5")],
            ),
            ApiError::Overloaded => with(
                json_response(status, json!({ "error": "Server busy. Retry shortly.", "code": "overloaded" })),
                &[("retry-after", "1"), ("cache-control", "no-store")],
            ),
            ApiError::StillComputing { retry_after } => with(
                json_response(
                    status,
                    json!({ "error": "Still being computed. Retry after the time given.", "code": "still_computing" }),
                ),
                &[("retry-after", &retry_after.to_string()), ("cache-control", "no-store")],
            ),
            ApiError::DeadlineExceeded => with(
                json_response(
                    status,
                    json!({ "error": "The request ran past its deadline", "code": "deadline_exceeded" }),
                ),
                &[("retry-after", "5"), ("cache-control", "no-store")],
            ),
            ApiError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                json_response(status, json!({ "message": "Internal server error" }))
            }
        }
    }
}

impl From<crate::snapshot::DbError> for ApiError {
    fn from(e: crate::snapshot::DbError) -> Self {
        ApiError::internal(e)
    }
}

/// A past version not had: a caller whose time for heavy work is spent is asked to come back.
impl From<crate::snapshot::SnapshotError> for ApiError {
    fn from(e: crate::snapshot::SnapshotError) -> Self {
        match e {
            crate::snapshot::SnapshotError::Busy(spent) => {
                ApiError::RateLimited { retry_after: spent.retry_after.as_secs().max(1) }
            }
            other => ApiError::internal(other),
        }
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
