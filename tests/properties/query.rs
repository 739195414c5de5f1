//! Every query-parameter parser: each GET operation of the registry, asked with values of each of
//! its declared parameters drawn from what the parameter takes, its edges and anything at all,
//! repeated or unknown parameters among them. Each answer is the operation's or a documented
//! refusal (400 with violations, or the jmespath envelope): never a 5xx.

use proptest::prelude::*;
use sitrep_platform::{
    kit::params::{Param, ParamKind, AS_OF, JMESPATH},
    registry::{Method, Operation},
};

use super::{any_text, app, business_key, config, send, well_answered};

/// Values a parameter of `kind` might be sent: in range, at and past its edges, and malformed.
fn value_for(kind: ParamKind) -> BoxedStrategy<String> {
    let edges: Vec<String> = match kind {
        ParamKind::Int32 { min, max, default } => {
            [min, max, default, 0, min.saturating_sub(1), max.saturating_add(1), -1, i32::MAX, i32::MIN]
                .iter()
                .map(|n| n.to_string())
                .chain(["1.5".into(), "0x10".into(), " 7".into(), "+3".into()])
                .collect()
        }
        ParamKind::EpochMs | ParamKind::Instant => {
            ["0", "1700000000000", "-1", "9223372036854775807", "2026-11-20T00:00:00Z", "2026-11-20", "yesterday"]
                .iter()
                .map(|s| s.to_string())
                .collect()
        }
        ParamKind::Country | ParamKind::CountryCode => {
            ["UA", "ua", "SD", "XX", "U", "UKR", "Ü"].iter().map(|s| s.to_string()).collect()
        }
        ParamKind::Cursor => ["dsc1.", "dsc1.AAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "cmc1.x.y"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        ParamKind::Bool => ["true", "false", "1", "0", "TRUE", "yes", ""].iter().map(|s| s.to_string()).collect(),
        ParamKind::OneOf { values } | ParamKind::Enum { values, .. } => {
            values.iter().map(|v| v.to_string()).chain(["NOPE".into(), "".into()]).collect()
        }
        ParamKind::Double { min, max } => [min, max, min - 1.0, max + 1.0, 0.0]
            .iter()
            .map(|f| f.to_string())
            .chain(["NaN".into(), "inf".into(), "1e400".into()])
            .collect(),
        ParamKind::Text { .. } | ParamKind::Checked { .. } | ParamKind::Repeated { .. } => {
            ["IST", "TK2120", "events[0]", "a", ""].iter().map(|s| s.to_string()).collect()
        }
    };
    prop_oneof![3 => proptest::sample::select(edges), 2 => any_text()].boxed()
}

/// The declared parameters of `op` that a GET takes, `jmespath` and `as_of` included.
fn params_of(op: &Operation) -> Vec<Param> {
    let mut params: Vec<Param> = op.params.to_vec();
    params.push(JMESPATH);
    if op.reads_versions() {
        params.push(AS_OF);
    }
    params
}

/// A query for `op`: each declared parameter absent, once or twice, plus now and then one the
/// operation does not declare.
fn query_for(path: &'static str) -> BoxedStrategy<(&'static str, String)> {
    let op = app().registry.find(path).expect("a declared path");
    let per_param: Vec<BoxedStrategy<Vec<(String, String)>>> = params_of(op)
        .into_iter()
        .map(|p| {
            proptest::collection::vec(value_for(p.kind), 0..3)
                .prop_map(move |values| values.into_iter().map(|v| (p.name.to_string(), v)).collect())
                .boxed()
        })
        .collect();
    let unknown = proptest::option::of(("[a-z_]{1,10}", any_text()));
    (per_param, unknown)
        .prop_map(move |(pairs, unknown)| {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            for (name, value) in pairs.into_iter().flatten().chain(unknown) {
                query.append_pair(&name, &value);
            }
            (path, query.finish())
        })
        .boxed()
}

#[test]
fn every_get_answers_any_query_without_a_server_error() {
    let app = app();
    let key = business_key();
    let gets: Vec<&'static str> =
        app.registry.operations().filter(|op| op.method == Method::Get).map(|op| op.path).collect();
    let strategy = proptest::sample::select(gets).prop_flat_map(query_for);
    let mut runner = proptest::test_runner::TestRunner::new(config(3_000));
    runner
        .run(&strategy, |(path, query)| {
            let uri = format!("{path}?{query}");
            let request = poem::Request::builder().uri(uri.parse().expect("uri")).header("x-service-key", key).finish();
            let answer = send(request);
            well_answered(&uri, &answer)?;
            prop_assert!([200, 400].contains(&answer.0), "{uri}: {} {}", answer.0, String::from_utf8_lossy(&answer.2));
            Ok(())
        })
        .unwrap();
}
