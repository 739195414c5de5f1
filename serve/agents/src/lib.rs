//! The agents' surfaces: the MCP server (`/mcp`), the OAuth 2.1 authorization server and the
//! dashboard and status pages. They reach operations only through the registry and
//! `sitrep_platform::dispatch` (never a group's handler directly), so they serve whatever groups
//! the assembly registered.

mod context;
pub mod dashboard;
pub mod html;
pub mod mcp;
pub mod oauth;
mod settings;

pub use context::{context, AgentContext};
pub use settings::{AgentSettings, DEFAULT_ASSISTANT_CALLBACKS};
