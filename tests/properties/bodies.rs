//! The JSON request bodies of every POST operation: any JSON value, any bytes, the wrong content
//! type, an `Idempotency-Key` of any text. Each answer is the operation's or a documented refusal,
//! never a server error.

use proptest::prelude::*;
use sitrep_platform::registry::Method;

use super::{any_json, any_text, app, business_key, config, send, well_answered};

#[derive(Debug, Clone)]
enum Body {
    Json(serde_json::Value),
    /// A JSON object with the operation's declared members, each any value.
    Members(Vec<(String, serde_json::Value)>),
    Bytes(Vec<u8>),
}

fn body() -> impl Strategy<Value = Body> {
    let names = proptest::sample::select(vec![
        "countryCodes",
        "operations",
        "company",
        "clientRequestId",
        "companies",
        "id",
        "state",
        "changes",
        "name",
        "domicileCountry",
        "domains",
        "aliases",
        "path",
        "rows",
    ]);
    prop_oneof![
        3 => any_json().prop_map(Body::Json),
        3 => proptest::collection::vec((names.prop_map(str::to_string), any_json()), 0..6).prop_map(Body::Members),
        1 => proptest::collection::vec(any::<u8>(), 0..512).prop_map(Body::Bytes),
    ]
}

#[test]
fn every_post_answers_any_body_without_a_server_error() {
    let app = app();
    let posts: Vec<&'static str> =
        app.registry.operations().filter(|op| op.method == Method::Post).map(|op| op.path).collect();
    let content_type =
        proptest::sample::select(vec!["application/json", "text/plain", "application/json; charset=utf-8", ""]);
    let idempotency = proptest::option::of(any_text());
    let strategy = (proptest::sample::select(posts), body(), content_type, idempotency);
    let mut runner = proptest::test_runner::TestRunner::new(config(2_000));
    runner
        .run(&strategy, |(path, body, content_type, idempotency)| {
            let bytes = match &body {
                Body::Json(v) => v.to_string().into_bytes(),
                Body::Members(members) => {
                    serde_json::Value::Object(members.iter().cloned().collect()).to_string().into_bytes()
                }
                Body::Bytes(b) => b.clone(),
            };
            let mut request = poem::Request::builder()
                .method(poem::http::Method::POST)
                .uri(path.parse().expect("uri"))
                .header("x-service-key", business_key());
            if !content_type.is_empty() {
                request = request.content_type(content_type);
            }
            if let Some(key) = idempotency.as_deref().filter(|k| poem::http::HeaderValue::from_str(k).is_ok()) {
                request = request.header("idempotency-key", key);
            }
            let answer = send(request.body(bytes));
            well_answered(&format!("{path} {body:?}"), &answer)
        })
        .unwrap();
}
