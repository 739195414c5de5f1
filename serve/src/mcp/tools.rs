//! The tool list (SUPPLEMENT 6.4), generated from the operation registry: `get_sources`,
//! `describe_tool`, then one read tool per registered GET that declares an MCP tool. Input
//! schemas mirror the REST parameters, so the same declaration validates both.

use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use crate::{
    api::params::{Param, ParamKind, JMESPATH},
    registry::{Access, Operation, OPERATIONS},
};

pub const GET_SOURCES: &str = "get_sources";
pub const DESCRIBE_TOOL: &str = "describe_tool";
pub const GROUPS: [&str; 5] = ["aviation", "climate", "conflict", "consumer_prices", "intelligence"];

/// The operations exposed as data tools, in registry order.
pub fn data_tools() -> impl Iterator<Item = &'static Operation> {
    OPERATIONS.iter().filter(|op| op.mcp.is_some())
}

pub fn find_data_tool(name: &str) -> Option<&'static Operation> {
    data_tools().find(|op| op.mcp.is_some_and(|t| t.name == name))
}

/// A parameter as a JSON Schema property of a tool's input.
fn property(p: &Param) -> Value {
    let mut schema = match p.kind {
        ParamKind::Int32 { min, max, .. } => {
            // 0 means "the default", as over REST.
            json!({"type": "integer", "minimum": if min > 0 { 0 } else { min }, "maximum": max})
        }
        // Either form, as `anyOf` branches of one type each (portable to single-type schema dialects).
        ParamKind::EpochMs => {
            json!({"anyOf": [{"type": "string", "pattern": "^[0-9]+$"}, {"type": "integer", "minimum": 0}]})
        }
        ParamKind::Country => json!({"type": "string", "pattern": "^[A-Za-z]{2}$"}),
        ParamKind::CountryCode => json!({"type": "string", "enum": sitrep_schemas::countries::API_COUNTRY_CODES}),
        ParamKind::Cursor => json!({"type": "string"}),
        ParamKind::Text { max_bytes: Some(n) } => json!({"type": "string", "maxLength": n}),
        ParamKind::Text { max_bytes: None } => json!({"type": "string"}),
        ParamKind::Double { min, max } => json!({"type": "number", "minimum": min, "maximum": max}),
        ParamKind::Bool => json!({"type": "boolean"}),
        ParamKind::OneOf { values } => json!({"type": "string", "enum": values}),
        ParamKind::Checked { .. } | ParamKind::Repeated { .. } | ParamKind::Enum { .. } => p.schema(),
    };
    schema["description"] = json!(p.description);
    schema
}

fn input_schema(op: &Operation) -> Value {
    let mut properties = Map::new();
    for p in op.params.iter().chain([&JMESPATH]) {
        properties.insert(p.name.to_string(), property(p));
    }
    let required: Vec<&str> = op.params.iter().filter(|p| p.required).map(|p| p.name).collect();
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn access(op: &Operation) -> &'static str {
    match op.access {
        Access::Public => "anonymous",
        Access::Pro => "pro",
        _ => "subscription",
    }
}

fn annotations(open_world: bool) -> Value {
    json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": open_world})
}

fn data_tool_entry(op: &Operation) -> Option<Value> {
    let tool = op.mcp?;
    Some(json!({
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": input_schema(op),
        "annotations": annotations(tool.open_world),
        "_meta": {"access": access(op)},
    }))
}

fn metadata_tools() -> [Value; 2] {
    let limit = json!({"anyOf": [{"type": "integer", "minimum": 1, "maximum": 200}, {"type": "string", "pattern": "^[0-9]+$"}],
        "description": "Sources to return, 1–200 (default 50)."});
    [
        json!({
            "name": GET_SOURCES,
            "title": "List data sources",
            "description": "The datasets and upstream sources behind every tool: provider, license, cadence and current freshness. No credential needed.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "group": {"type": "string", "enum": GROUPS},
                    "query": {"type": "string", "description": "Case-insensitive substring of a provider or dataset."},
                    "limit": limit,
                },
                "additionalProperties": false,
            },
            "annotations": annotations(false),
            "_meta": {"access": "anonymous"},
        }),
        json!({
            "name": DESCRIBE_TOOL,
            "title": "Describe a tool",
            "description": "The full tools/list entry of one tool (input schema, annotations, access). No credential needed.",
            "inputSchema": {
                "type": "object",
                "properties": {"tool_name": {"type": "string"}},
                "required": ["tool_name"],
                "additionalProperties": false,
            },
            "annotations": annotations(false),
            "_meta": {"access": "anonymous"},
        }),
    ]
}

/// Every tools/list entry, built once.
pub fn list() -> &'static [Value] {
    static LIST: OnceLock<Vec<Value>> = OnceLock::new();
    LIST.get_or_init(|| metadata_tools().into_iter().chain(data_tools().filter_map(data_tool_entry)).collect())
}

/// `describe_tool`'s answer for `name` (6.5).
pub fn describe(name: Option<&str>) -> Value {
    let Some(name) = name.filter(|n| !n.is_empty()) else {
        return json!({"error": "missing_tool_name", "hint": "pass tool_name"});
    };
    match list().iter().find(|t| t["name"] == name) {
        Some(entry) => entry.clone(),
        None => {
            let mut available: Vec<&str> = list().iter().filter_map(|t| t["name"].as_str()).collect();
            available.sort_unstable();
            json!({"error": "unknown_tool", "requested": name, "available": available})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Group, Method};

    #[test]
    fn every_read_of_the_tool_groups_has_exactly_one_tool() {
        let tool_groups =
            [Group::Aviation, Group::Climate, Group::Conflict, Group::ConsumerPrices, Group::Intelligence];
        for op in OPERATIONS {
            let expected = op.method == Method::Get && tool_groups.contains(&op.group);
            let tools = list().iter().filter(|t| op.mcp.is_some_and(|m| t["name"] == m.name)).count();
            assert_eq!(tools, usize::from(expected), "{}", op.id);
        }
        let names: Vec<&str> = list().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(&names[..2], [GET_SOURCES, DESCRIBE_TOOL]);
    }

    #[test]
    fn input_schemas_mirror_the_rest_parameters() {
        let armed = describe(Some("list_armed_events"));
        let schema = &armed["inputSchema"];
        assert_eq!(schema["additionalProperties"], false);
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        let op = find_data_tool("list_armed_events").unwrap();
        let mut rest: Vec<&str> = op.params.iter().map(|p| p.name).collect();
        rest.push("jmespath");
        assert_eq!(props, rest);
        assert_eq!(schema["properties"]["page_size"]["maximum"], 100);
        assert_eq!(schema["properties"]["jmespath"]["maxLength"], 1024);
        assert_eq!(armed["annotations"]["openWorldHint"], false);
        assert_eq!(armed["_meta"]["access"], "subscription");
        let hum = describe(Some("get_humanitarian_summary"));
        assert_eq!(hum["inputSchema"]["required"], json!(["country_code"]));
        assert_eq!(describe(None), json!({"error": "missing_tool_name", "hint": "pass tool_name"}));
        let unknown = describe(Some("nope"));
        assert_eq!(unknown["error"], "unknown_tool");
        let available: Vec<&str> =
            unknown["available"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert!(available.windows(2).all(|w| w[0] < w[1]));
    }
}
