//! The tool list (SUPPLEMENT 6.4), generated from the operation registry: `get_sources`,
//! `describe_tool`, then one read tool per registered GET that declares an MCP tool. Input
//! schemas mirror the REST parameters, so the same declaration validates both.

use serde_json::{json, Map, Value};

use sitrep_platform::{
    kit::params::{Param, ParamKind, AS_OF_PATTERN},
    registry::{Access, Operation, Registry},
};

pub const GET_SOURCES: &str = "get_sources";
pub const DESCRIBE_TOOL: &str = "describe_tool";

/// The groups `get_sources` filters by: those of the data tools, in snake case (`consumer_prices`), sorted.
pub fn groups(registry: &Registry) -> Vec<String> {
    let mut groups: Vec<String> = registry.tools().map(|op| op.group_segment().replace('-', "_")).collect();
    groups.sort_unstable();
    groups.dedup();
    groups
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
        ParamKind::Instant => json!({"anyOf": [
            {"type": "string", "pattern": AS_OF_PATTERN},
            {"type": "integer", "minimum": 0},
        ]}),
        ParamKind::OneOf { values } => json!({"type": "string", "enum": values}),
        ParamKind::Checked { .. } | ParamKind::Repeated { .. } | ParamKind::Enum { .. } => p.schema(),
    };
    schema["description"] = json!(p.description);
    schema
}

fn input_schema(op: &Operation) -> Value {
    let mut properties = Map::new();
    for p in op.params.iter().chain(op.pipeline_params()) {
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
        "name": op.tool_name(),
        "title": tool.title,
        "description": tool.description,
        "inputSchema": input_schema(op),
        "annotations": annotations(tool.open_world),
        "_meta": {"access": access(op)},
    }))
}

fn metadata_tools(groups: &[String]) -> [Value; 2] {
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
                    "group": {"type": "string", "enum": groups},
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

/// Every tools/list entry of a registry's operations (built once per server).
pub fn list(registry: &Registry) -> Vec<Value> {
    metadata_tools(&groups(registry)).into_iter().chain(registry.tools().filter_map(data_tool_entry)).collect()
}

/// `describe_tool`'s answer for `name` (6.5), from the server's `list`.
pub fn describe(list: &[Value], name: Option<&str>) -> Value {
    let Some(name) = name.filter(|n| !n.is_empty()) else {
        return json!({"error": "missing_tool_name", "hint": "pass tool_name"});
    };
    match list.iter().find(|t| t["name"] == name) {
        Some(entry) => entry.clone(),
        None => {
            let mut available: Vec<&str> = list.iter().filter_map(|t| t["name"].as_str()).collect();
            available.sort_unstable();
            json!({"error": "unknown_tool", "requested": name, "available": available})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitrep_platform::registry::Method;

    #[test]
    fn every_read_of_the_tool_groups_has_exactly_one_tool() {
        let registry = sitrep_api::registry();
        let list = list(&registry);
        let tool_groups = groups(&registry);
        assert_eq!(tool_groups, ["aviation", "climate", "conflict", "consumer_prices", "intelligence"]);
        for op in registry.operations() {
            let in_tool_group = tool_groups.contains(&op.group_segment().replace('-', "_"));
            let expected = op.method == Method::Get && in_tool_group;
            let tools = list.iter().filter(|t| op.tool_name().is_some_and(|m| t["name"] == m.as_str())).count();
            assert_eq!(tools, usize::from(expected), "{}", op.id);
        }
        let names: Vec<&str> = list.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(&names[..2], [GET_SOURCES, DESCRIBE_TOOL]);
    }

    #[test]
    fn input_schemas_mirror_the_rest_parameters() {
        let registry = sitrep_api::registry();
        let list = list(&registry);
        let armed = describe(&list, Some("list_armed_events"));
        let schema = &armed["inputSchema"];
        assert_eq!(schema["additionalProperties"], false);
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        let op = registry.by_tool("list_armed_events").unwrap();
        let mut rest: Vec<&str> = op.params.iter().map(|p| p.name).collect();
        rest.extend(["jmespath", "as_of"]);
        assert_eq!(props, rest);
        assert_eq!(schema["properties"]["page_size"]["maximum"], 100);
        assert_eq!(schema["properties"]["jmespath"]["maxLength"], 1024);
        assert_eq!(schema["properties"]["as_of"]["anyOf"][1], json!({"type": "integer", "minimum": 0}));
        assert_eq!(armed["annotations"]["openWorldHint"], false);
        assert_eq!(armed["_meta"]["access"], "subscription");
        let hum = describe(&list, Some("get_humanitarian_summary"));
        assert_eq!(hum["inputSchema"]["required"], json!(["country_code"]));
        assert_eq!(describe(&list, None), json!({"error": "missing_tool_name", "hint": "pass tool_name"}));
        let unknown = describe(&list, Some("nope"));
        assert_eq!(unknown["error"], "unknown_tool");
        let available: Vec<&str> =
            unknown["available"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert!(available.windows(2).all(|w| w[0] < w[1]));
    }
}
