//! The API: the groups of operations, their handlers and response types. Each group module
//! exports its operations as a [`Group`]; [`GROUPS`] is the list the server is built from. Built
//! on `sitrep-platform` (the registry's types and the answer kit); the platform knows no group.

use sitrep_platform::registry::{Group, Registry};

pub mod aviation;
pub mod batch;
pub mod climate;
pub mod company_monitoring;
pub mod conflict;
pub mod consumer_prices;
mod context;
pub mod history;
pub mod intelligence;
pub mod read_through;
pub mod records;
pub mod sql_values;
pub mod webhooks;

pub use context::{context, ApiContext, ApiSettings};

/// The groups of operations this server answers, in the order of the MCP tool list.
pub static GROUPS: &[&Group] = &[
    &aviation::GROUP,
    &consumer_prices::GROUP,
    &climate::GROUP,
    &conflict::GROUP,
    &intelligence::GROUP,
    &company_monitoring::GROUP,
    &history::GROUP,
    &webhooks::GROUP,
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
    use sitrep_platform::registry::{Answering, Method, Operation};

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
        answer: Answering { schema: Some(sitrep_platform::registry::Schema::of::<String>()), ..Operation::GET.answer },
        ..Operation::GET
    };
    const SAME_PATH: Operation = Operation { id: "GetOtherThing", ..GOOD };
    const NO_ANSWER: Operation = Operation { answer: Operation::GET.answer, ..GOOD };
    const BAD_PATH: Operation = Operation { path: "/api/things/get-thing", ..GOOD };
    const GET_WITH_BODY: Operation = Operation { body: Some(|| serde_json::json!({})), ..GOOD };
    const POST_TOOL: Operation = Operation {
        method: Method::Post,
        body: Some(|| serde_json::json!({})),
        mcp: Some(sitrep_platform::registry::McpTool { title: "t", description: "d", open_world: false }),
        ..GOOD
    };
    const BAD_LINK: Operation = Operation {
        id: "GetLinkedThing",
        path: "/api/things/v1/get-linked-thing",
        links: &[sitrep_platform::registry::Link { operation_id: "GetThing", parameter: "thing_id", pointer: "/id" }],
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
            (&[&GOOD, &BAD_LINK][..], "a link to GetThing's `thing_id`"),
        ] {
            let leaked: &'static [&'static Operation] = Box::leak(ops.to_vec().into_boxed_slice());
            let e = Registry::new(&[group(leaked)]).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(why), "{why}: {e}");
        }
    }
}
