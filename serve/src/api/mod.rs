//! The REST surface: operation groups, the shared response pipeline and the error edge.

pub mod answer;
pub mod conflict;
pub mod cursor;
pub mod error;
pub mod jmes;
pub mod meta;
pub mod params;

/// Every REST operation (method, path). Used to answer 405 with `Allow` and to apply auth only to
/// real operations, so routing errors (404/405) come before authentication (SUPPLEMENT 1.1 order).
pub const OPERATIONS: &[(&str, &str)] = &[
    ("GET", "/api/conflict/v1/list-armed-events"),
    ("GET", "/api/conflict/v1/list-violence-events"),
    ("GET", "/api/conflict/v1/get-humanitarian-summary"),
    ("GET", "/api/conflict/v1/list-iran-events"),
    ("POST", "/api/conflict/v1/get-humanitarian-summary-batch"),
];

/// POST operations that take the `Idempotency-Key` layer.
pub const IDEMPOTENT_POSTS: &[&str] = &["/api/conflict/v1/get-humanitarian-summary-batch"];

pub fn allowed_method(path: &str) -> Option<&'static str> {
    OPERATIONS.iter().find(|(_, p)| *p == path).map(|(m, _)| *m)
}
