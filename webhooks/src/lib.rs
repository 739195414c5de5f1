//! Webhooks (issue 59): what the service pushes to its accounts' endpoints, signed to the
//! Standard Webhooks specification. This crate keeps their state in the state store (endpoints,
//! the outbox a change writes its event into in its own transaction, deliveries claimed under a
//! lease, attempts) and decides signatures and retries; the server's delivery worker sends.

pub mod event_type;
pub mod ids;
pub mod schedule;
pub mod signing;
pub mod store;

pub use event_type::EventType;
pub use store::{WebhookError, WebhookStore};
