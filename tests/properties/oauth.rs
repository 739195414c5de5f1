//! The OAuth forms: token requests of any fields and values, registration documents of any JSON,
//! consent requests of any query and form. Each answer is the endpoint's or a documented refusal
//! (OAuth's `error` bodies, or an HTML page), never a server error.

use proptest::prelude::*;

use super::{any_json, any_text, app, config, send, well_answered};

fn form() -> impl Strategy<Value = Vec<(String, String)>> {
    let name = prop_oneof![
        3 => proptest::sample::select(vec![
            "grant_type", "code", "code_verifier", "client_id", "redirect_uri", "refresh_token", "client_secret",
            "resource", "scope", "response_type", "code_challenge", "code_challenge_method", "state", "nonce",
            "api_key", "decision",
        ])
        .prop_map(str::to_string),
        1 => "[a-z_]{1,12}",
    ];
    let value = prop_oneof![
        2 => proptest::sample::select(vec!["authorization_code", "refresh_token", "client_credentials", "S256", "mcp", "approve"])
            .prop_map(str::to_string),
        3 => any_text(),
    ];
    proptest::collection::vec((name, value), 0..8)
}

fn encoded(pairs: &[(String, String)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

#[test]
fn any_token_request_gets_an_oauth_answer() {
    let _ = app();
    let mut runner = proptest::test_runner::TestRunner::new(config(1_500));
    runner
        .run(&form(), |pairs| {
            let request = poem::Request::builder()
                .method(poem::http::Method::POST)
                .uri("/oauth/token".parse().expect("uri"))
                .content_type("application/x-www-form-urlencoded")
                .body(encoded(&pairs));
            well_answered(&format!("token {pairs:?}"), &send(request))
        })
        .unwrap();
}

#[test]
fn any_registration_document_gets_an_oauth_answer() {
    let _ = app();
    let mut runner = proptest::test_runner::TestRunner::new(config(1_000));
    runner
        .run(&any_json(), |document| {
            let request = poem::Request::builder()
                .method(poem::http::Method::POST)
                .uri("/oauth/register".parse().expect("uri"))
                .content_type("application/json")
                .body(document.to_string());
            well_answered(&format!("register {document}"), &send(request))
        })
        .unwrap();
}

#[test]
fn any_consent_request_gets_a_page_or_a_redirect() {
    let _ = app();
    let mut runner = proptest::test_runner::TestRunner::new(config(1_000));
    runner
        .run(&(form(), form(), any::<bool>()), |(query, body, post)| {
            let uri = format!("/oauth/authorize?{}", encoded(&query));
            let mut request = poem::Request::builder().uri(uri.parse().expect("uri"));
            if post {
                request = request.method(poem::http::Method::POST).content_type("application/x-www-form-urlencoded");
            }
            let answer = send(request.body(if post { encoded(&body) } else { String::new() }));
            well_answered(&format!("authorize {uri} {body:?}"), &answer)
        })
        .unwrap();
}
