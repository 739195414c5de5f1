//! `GET /docs/mcp`: how to connect to the tool server, and its tools (from the same list
//! `tools/list` answers).

use poem::{http::StatusCode, Response};
use serde_json::Value;

use super::revision;
use crate::html::{cell, document, escape};

pub fn page(site: &str, tools: &[Value]) -> Response {
    let rows: String = tools
        .iter()
        .map(|t| {
            let text = |v: &Value| escape(v.as_str().unwrap_or_default());
            let cells = [
                cell("Name", &format!("<code>{}</code>", text(&t["name"]))),
                cell("Title", &text(&t["title"])),
                cell("Description", &text(&t["description"])),
                cell("Access", &text(&t["_meta"]["access"])),
            ];
            format!("<tr>{}</tr>", cells.concat())
        })
        .collect();
    let body = format!(
        "<h1>sitrep MCP tool server</h1>\
<p>Endpoint: <code>{site}/mcp</code> (Streamable HTTP, JSON responses). Protocol revisions: {versions} — the 2025 line \
with the <code>initialize</code> handshake, 2026-07-28 stateless with <code>server/discover</code>.</p>\
<p><code>get_sources</code> and <code>describe_tool</code> need no credential. Data tools take an API key \
(<code>X-Service-Key</code>) or an OAuth access token (<code>Authorization: Bearer</code>; see <a href=\"/auth.md\">/auth.md</a>). \
Every data tool accepts <code>jmespath</code>, and every tool over datasets (not the live ones) <code>as_of</code>, a past time \
(RFC 3339 or epoch ms) to answer from the versions current then (with the access the tool itself asks: a PRO tool's past \
answers need a Pro plan too); results carry the snapshot generation and as-of time in <code>_meta</code>. \
A <code>jmespath</code> expression is evaluated within a budget of 2,000,000 steps and 8 MiB; past it, the result carries \
<code>_jmespath_error</code> (<code>invalid_expression: evaluation exceeds its budget …</code>).</p>\
<h2>Tools</h2><div class=\"table\"><table><thead><tr><th>Name</th><th>Title</th><th>Description</th><th>Access</th></tr></thead>\
<tbody>{rows}</tbody></table></div>",
        site = escape(site),
        versions = revision::SUPPORTED.join(", "),
    );
    document(StatusCode::OK, "MCP tool server — sitrep", &body)
}
