//! The REST surface: operation groups, the shared GET pipeline and the error edge. Each group
//! module exports its operations as a [`Group`]; [`GROUPS`] is the list the server is built from.

use crate::registry::{Group, Registry};

pub mod answer;
pub mod aviation;
pub mod batch;
pub mod canonical;
pub mod climate;
pub mod conflict;
pub mod consumer_prices;
pub mod cursor;
pub mod dataset_read;
pub mod embedded_json;
pub mod encoding;
pub mod error;
pub mod intelligence;
pub mod jmes;
pub mod json_body;
pub mod meta;
pub mod openapi_doc;
pub mod paged_list;
pub mod params;
pub mod parse;
pub mod records;
pub mod sql_values;

/// The groups of operations this server answers, in the order of the MCP tool list.
pub static GROUPS: &[&Group] = &[
    &aviation::GROUP,
    &consumer_prices::GROUP,
    &climate::GROUP,
    &conflict::GROUP,
    &intelligence::GROUP,
    &batch::GROUP,
];

/// The registry of [`GROUPS`] (their declarations are checked by the tests, so this cannot fail
/// in a build that passed them).
pub fn registry() -> Registry {
    Registry::new(GROUPS).unwrap_or_else(|e| panic!("misdeclared operation: {e}"))
}

#[cfg(test)]
mod tests {
    use sitrep_schemas::DatasetId;

    use super::*;
    use crate::registry::{Answering, Method, Operation};

    #[test]
    fn every_group_is_well_declared_and_every_dataset_is_read() {
        let registry = Registry::new(GROUPS).unwrap_or_else(|e| panic!("{e}"));
        for dataset in DatasetId::ALL {
            assert!(registry.reading(dataset).next().is_some(), "no operation reads {dataset}");
        }
        for op in registry.operations() {
            assert!(op.path.contains(&format!("/{}/", op.group_segment())));
            assert_eq!(registry.find(op.path).map(|o| o.id), Some(op.id));
            if let Some(name) = op.tool_name() {
                assert_eq!(registry.by_tool(&name).map(|o| o.id), Some(op.id));
            }
        }
    }

    const GOOD: Operation = Operation {
        id: "GetThing",
        path: "/api/things/v1/get-thing",
        summary: "a thing.",
        answer: Answering { schema: Some(crate::registry::Schema::of::<String>()), ..Operation::GET.answer },
        ..Operation::GET
    };
    const SAME_PATH: Operation = Operation { id: "GetOtherThing", ..GOOD };
    const NO_ANSWER: Operation = Operation { answer: Operation::GET.answer, ..GOOD };
    const BAD_PATH: Operation = Operation { path: "/api/things/get-thing", ..GOOD };
    const GET_WITH_BODY: Operation = Operation { body: Some(|| serde_json::json!({})), ..GOOD };
    const POST_TOOL: Operation = Operation {
        method: Method::Post,
        body: Some(|| serde_json::json!({})),
        mcp: Some(crate::registry::McpTool { title: "t", description: "d", open_world: false }),
        ..GOOD
    };

    #[test]
    fn misdeclared_operations_are_refused() {
        let group = |ops: &'static [&'static Operation]| -> &'static Group {
            Box::leak(Box::new(Group { tag: "Things", description: "", operations: ops }))
        };
        assert!(Registry::new(&[group(&[&GOOD])]).is_ok());
        for (ops, why) in [
            (&[&GOOD, &SAME_PATH][..], "path declared twice"),
            (&[&GOOD, &GOOD][..], "id declared twice"),
            (&[&NO_ANSWER][..], "must be declared"),
            (&[&BAD_PATH][..], "path must be"),
            (&[&GET_WITH_BODY][..], "declares its body"),
            (&[&POST_TOOL][..], "no MCP tool"),
        ] {
            let leaked: &'static [&'static Operation] = Box::leak(ops.to_vec().into_boxed_slice());
            let e = Registry::new(&[group(leaked)]).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(why), "{why}: {e}");
        }
    }
}
