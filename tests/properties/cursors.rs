//! Data cursors (`dsc1.…`, SUPPLEMENT 1.7) and company-monitoring cursors (`cmc1.…`, 4.6): real
//! cursors, then the same with bytes flipped, cut, stretched, their parts swapped or replaced by
//! other JSON. The untouched cursor pages; every other is refused as a `cursor` violation with one
//! of the documented descriptions; nothing is a server error.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use proptest::prelude::*;
use serde_json::{json, Value};

use super::{any_json, any_text, business_key, config, send, well_answered};

const ARMED: &str = "/api/conflict/v1/list-armed-events?page_size=1";
const COMPANIES: &str = "/api/company-monitoring/v1/list-monitored-companies?page_size=1";
const CHANGES: &str = "/api/company-monitoring/v1/list-company-event-changes";

/// SUPPLEMENT 1.7's cursor failures and 4.6's (and 1.4's for a required cursor sent empty).
const DESCRIPTIONS: &[&str] = &[
    "value is required",
    "cursor is malformed",
    "cursor signature is invalid",
    "cursor payload is invalid",
    "cursor was issued for a different operation",
    "cursor does not match the request filters",
    "cursor refers to a dataset version that is no longer available; restart from the first page",
    "unsupported cursor envelope",
    "signed opaque cursor is malformed",
    "cursor version, surface or mode is not supported",
    "cursor lifetime is invalid",
    "cursor has expired",
    "cursor issue time is in the future",
    "cursor is bound to a different account",
    "cursor is bound to different filters",
    "cursor is bound to a different operation",
    "cursor mode does not match this operation",
    "cursor snapshot generation requires a new snapshot",
];

fn get(path_and_query: &str) -> (u16, String, Vec<u8>) {
    let request = poem::Request::builder()
        .uri(path_and_query.parse().expect("uri"))
        .header("x-service-key", business_key())
        .finish();
    send(request)
}

fn post(path: &str, body: Value) -> (u16, String, Vec<u8>) {
    let request = poem::Request::builder()
        .method(poem::http::Method::POST)
        .uri(path.parse().expect("uri"))
        .header("x-service-key", business_key())
        .content_type("application/json")
        .body(body.to_string());
    send(request)
}

fn json_of(answer: &(u16, String, Vec<u8>)) -> Value {
    serde_json::from_slice(&answer.2).expect("json")
}

/// Real cursors of each kind, with the request each continues.
fn real_cursors() -> Vec<(String, String)> {
    for name in ["Delta Corp", "Echo Ltd", "Foxtrot Inc"] {
        let body =
            json!({"clientRequestId": format!("cursor-{name}"), "company": {"name": name, "domicileCountry": "US"}});
        let (status, _, text) = post("/api/company-monitoring/v1/create-monitored-company", body);
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&text));
    }
    let armed = json_of(&get(ARMED));
    let companies = json_of(&get(COMPANIES));
    let data = armed["pagination"]["nextCursor"].as_str().expect("a data cursor").to_string();
    let list = companies["nextCursor"].as_str().expect("a list cursor").to_string();
    let poll = companies["snapshot"]["pollCursor"].as_str().expect("a poll cursor").to_string();
    vec![(ARMED.to_string(), data), (COMPANIES.to_string(), list), (CHANGES.to_string() + "?", poll)]
}

/// What may be done to a cursor.
#[derive(Debug, Clone)]
enum Mutation {
    None,
    Flip { at: usize, to: char },
    Cut { at: usize },
    Stretch { text: String },
    Swap,
    Payload(Value),
    Replace(String),
}

fn mutate(cursor: &str, mutation: &Mutation) -> String {
    let mut chars: Vec<char> = cursor.chars().collect();
    match mutation {
        Mutation::None => cursor.to_string(),
        Mutation::Flip { at, to } => {
            let i = at % chars.len();
            chars[i] = *to;
            chars.into_iter().collect()
        }
        Mutation::Cut { at } => chars[..at % chars.len()].iter().collect(),
        Mutation::Stretch { text } => format!("{cursor}{text}"),
        Mutation::Swap => {
            let parts: Vec<&str> = cursor.split('.').collect();
            format!("{}.{}.{}", parts[0], parts.get(2).unwrap_or(&""), parts.get(1).unwrap_or(&""))
        }
        Mutation::Payload(v) => {
            let parts: Vec<&str> = cursor.split('.').collect();
            format!("{}.{}.{}", parts[0], URL_SAFE_NO_PAD.encode(v.to_string()), parts.get(2).unwrap_or(&""))
        }
        Mutation::Replace(text) => text.clone(),
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => Just(Mutation::None),
        4 => (any::<usize>(), proptest::char::range('-', 'z')).prop_map(|(at, to)| Mutation::Flip { at, to }),
        2 => any::<usize>().prop_map(|at| Mutation::Cut { at }),
        2 => "[A-Za-z0-9_.=-]{1,20}".prop_map(|text| Mutation::Stretch { text }),
        1 => Just(Mutation::Swap),
        3 => any_json().prop_map(Mutation::Payload),
        2 => any_text().prop_map(Mutation::Replace),
    ]
}

#[test]
fn a_changed_cursor_is_refused_as_documented_and_the_real_one_pages() {
    let cursors = real_cursors();
    let mut runner = proptest::test_runner::TestRunner::new(config(2_000));
    runner
        .run(&(proptest::sample::select(cursors), mutation()), |((request, cursor), mutation)| {
            let sent = mutate(&cursor, &mutation);
            let encoded: String = url::form_urlencoded::byte_serialize(sent.as_bytes()).collect();
            let separator = if request.ends_with('?') { "" } else { "&" };
            let uri = format!("{request}{separator}cursor={encoded}");
            if uri.parse::<poem::http::Uri>().is_err() {
                // Longer than any request line HTTP carries (hyper refuses it before the server).
                return Ok(());
            }
            let answer = get(&uri);
            well_answered(&uri, &answer)?;
            if sent == cursor {
                prop_assert_eq!(answer.0, 200, "{}: {}", uri, String::from_utf8_lossy(&answer.2));
            } else if answer.0 != 200 {
                // A change the encoding cannot see (a flip to the same character) pages as before.
                prop_assert_eq!(answer.0, 400, "{}", uri);
                let body = json_of(&answer);
                prop_assert_eq!(&body["violations"][0]["field"], "cursor", "{}: {}", uri, body);
                let description = body["violations"][0]["description"].as_str().unwrap_or_default();
                prop_assert!(DESCRIPTIONS.contains(&description), "{}: {}", uri, description);
            }
            Ok(())
        })
        .unwrap();
}
