//! The group's refusals with SUPPLEMENT 4.7's codes, statuses and messages.

use poem::http::StatusCode;
use sitrep_platform::kit::error::ApiError;

fn coded(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::Coded { status, code, message: message.into() }
}

pub fn disabled() -> ApiError {
    coded(
        StatusCode::SERVICE_UNAVAILABLE,
        "COMPANY_MONITORING_DISABLED",
        "Company monitoring is not enabled on this deployment.",
    )
}

pub fn writes_disabled() -> ApiError {
    coded(StatusCode::FORBIDDEN, "WRITES_DISABLED", "company monitoring REST writes are disabled")
}

pub fn company_not_found() -> ApiError {
    coded(StatusCode::NOT_FOUND, "NOT_FOUND", "company not found")
}

pub fn removed_is_terminal() -> ApiError {
    coded(StatusCode::UNPROCESSABLE_ENTITY, "REMOVED_COMPANY_IS_TERMINAL", "a removed company cannot change lifecycle")
}

pub fn claim_not_found(claim_id: &str) -> ApiError {
    coded(StatusCode::NOT_FOUND, "CLAIM_NOT_FOUND", format!("claim not found: {claim_id}"))
}

pub fn reference_conflict() -> ApiError {
    coded(StatusCode::CONFLICT, "CUSTOMER_REFERENCE_CONFLICT", "customerReference is already used by another company")
}

pub fn claim_budget_exceeded() -> ApiError {
    coded(StatusCode::UNPROCESSABLE_ENTITY, "CLAIM_BUDGET_EXCEEDED", "company claims exceed 81")
}

pub fn replay_conflict() -> ApiError {
    coded(StatusCode::CONFLICT, "REPLAY_CONFLICT", "clientRequestId was already used with a different company")
}

pub fn limit_reached(limit: i64) -> ApiError {
    coded(StatusCode::UNPROCESSABLE_ENTITY, "COMPANY_LIMIT_REACHED", format!("company limit reached ({limit})"))
}

pub fn impact_not_found() -> ApiError {
    coded(StatusCode::NOT_FOUND, "NOT_FOUND", "impact not found")
}
