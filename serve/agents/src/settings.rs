//! The agents' settings: what the MCP transport and the authorization server accept.

/// SUPPLEMENT 5.4's default assistant callbacks.
pub const DEFAULT_ASSISTANT_CALLBACKS: [&str; 3] = [
    "https://claude.ai/api/mcp/auth_callback",
    "https://claude.com/api/mcp/auth_callback",
    "https://chatgpt.com/connector_platform_oauth_redirect",
];

#[derive(Debug, Clone)]
pub struct AgentSettings {
    /// Browser origins allowed on `/mcp` besides the public ones and loopback (`MCP_ALLOWED_ORIGINS`).
    pub mcp_allowed_origins: Vec<String>,
    /// Redirect URIs of AI assistants that dynamic client registration accepts exactly (`OAUTH_ASSISTANT_CALLBACKS`).
    pub oauth_assistant_callbacks: Vec<String>,
    /// Test-only: Client ID Metadata Documents may be fetched from loopback (`OAUTH_CIMD_ALLOW_LOOPBACK=on`).
    pub oauth_cimd_allow_loopback: bool,
    /// An extra root certificate (PEM) for fetching metadata documents (`OAUTH_CIMD_CA_FILE`).
    pub oauth_cimd_ca: Option<Vec<u8>>,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            mcp_allowed_origins: Vec::new(),
            oauth_assistant_callbacks: DEFAULT_ASSISTANT_CALLBACKS.map(String::from).to_vec(),
            oauth_cimd_allow_loopback: false,
            oauth_cimd_ca: None,
        }
    }
}
