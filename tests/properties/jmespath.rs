//! jmespath: the official compliance suite; expressions generated from the grammar over the
//! largest answer the replayed lake gives, each evaluated within the budget (or refused with the
//! documented envelope); and the same answers as the `jmespath` crate's own evaluation wherever
//! that one is safe to run.

use proptest::prelude::*;
use serde_json::{json, Value};
use sitrep_platform::kit::{
    error::ApiError,
    jmes::{project, project_costed, MAX_MADE_BYTES, MAX_OUTPUT_BYTES, MAX_STEPS},
};

use super::{app, config, RUNTIME};

/// jmespath's equality of two JSON results: numbers by value, objects in any order.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            x == y || (x - y).abs() <= f64::EPSILON * (x.abs() + y.abs())
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_json(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, p)| y.get(k).is_some_and(|q| same_json(p, q)))
        }
        _ => a == b,
    }
}

/// [`same_json`] with every array's elements in any order: an object's values and keys come in
/// the object's order, which jmespath leaves open (the crate sorts them by key; we keep the body's).
fn same_json_any_order(a: &Value, b: &Value) -> bool {
    fn canonical(v: &Value) -> Value {
        match v {
            Value::Array(items) => {
                let mut items: Vec<Value> = items.iter().map(canonical).collect();
                items.sort_by_key(|i| i.to_string());
                Value::Array(items)
            }
            Value::Object(m) => {
                let mut entries: Vec<(&String, Value)> = m.iter().map(|(k, v)| (k, canonical(v))).collect();
                entries.sort_by(|x, y| x.0.cmp(y.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            other => other.clone(),
        }
    }
    same_json(&canonical(a), &canonical(b))
}

/// The official compliance suite, as the `jmespath` crate ships it: read from its sources in
/// Cargo's registry, at the version `Cargo.lock` pins. (Not through `cargo metadata --offline`: on
/// a fresh machine that wants the manifests of every platform's dependencies, which a build for
/// this one never downloads.)
fn compliance_suite() -> Vec<(String, Value)> {
    let lock = std::fs::read_to_string(sitrep_tests::repo_root().join("Cargo.lock")).expect("Cargo.lock");
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains("\nname = \"jmespath\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")?.strip_suffix('"')))
        .expect("jmespath in Cargo.lock");
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cargo"));
    let sources = std::fs::read_dir(cargo_home.join("registry/src")).expect("Cargo's registry sources");
    let folder = sources
        .filter_map(|index| Some(index.ok()?.path().join(format!("jmespath-{version}"))))
        .find(|folder| folder.is_dir())
        .expect("the jmespath crate's sources");
    let dir = folder.join("tests/compliance");
    let mut suites = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("compliance suite") {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("name").to_string_lossy().into_owned();
        suites.push((name, serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json")));
    }
    suites
}

#[test]
fn passes_the_jmespath_compliance_suite() {
    let (mut passed, mut failed) = (0, Vec::new());
    for (file, suites) in compliance_suite() {
        for suite in suites.as_array().expect("suites") {
            let given = &suite["given"];
            for case in suite["cases"].as_array().expect("cases") {
                let expression = case["expression"].as_str().expect("expression");
                if case.get("bench").is_some() {
                    continue;
                }
                let got = project(expression, given);
                let ok = match (case.get("result"), case.get("error")) {
                    (Some(want), _) => match &got {
                        Ok(bytes) => serde_json::from_slice(bytes).is_ok_and(|got: Value| same_json(&got, want)),
                        Err(_) => false,
                    },
                    (None, Some(_)) => got.is_err(),
                    _ => continue,
                };
                if ok {
                    passed += 1;
                } else {
                    failed.push(format!("{file}: {expression}: {:?}", got.map(String::from_utf8)));
                }
            }
        }
    }
    assert!(failed.is_empty(), "{} of {} failed:\n{}", failed.len(), passed + failed.len(), failed.join("\n"));
    assert!(passed > 700, "{passed} cases: the suite was not found whole");
}

/// The largest answer of the replayed lake: every GET operation at its largest page.
fn largest_answer() -> &'static Value {
    static LARGEST: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    LARGEST.get_or_init(|| {
        let app = app();
        RUNTIME.block_on(async {
            let mut largest = (0, Value::Null);
            for op in app.registry.operations().filter(|op| op.method == sitrep_platform::registry::Method::Get) {
                let (status, body) = app.json(&format!("{}?page_size=100&limit=1000", op.path)).await;
                let (status, body) = if status == 200 { (status, body) } else { app.json(op.path).await };
                let size = serde_json::to_vec(&body).map_or(0, |b| b.len());
                if status == 200 && size > largest.0 {
                    largest = (size, body);
                }
            }
            assert!(largest.0 > 20_000, "the largest replayed answer is {} bytes", largest.0);
            largest.1
        })
    })
}

/// Every member name of `v`, at any depth (the fields generated expressions ask for).
fn names(v: &Value, out: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, item) in m {
                out.insert(k.clone());
                names(item, out);
            }
        }
        Value::Array(items) => items.iter().take(5).for_each(|item| names(item, out)),
        _ => {}
    }
}

const FUNCTIONS: &[&str] = &[
    "abs",
    "avg",
    "ceil",
    "contains",
    "ends_with",
    "floor",
    "join",
    "keys",
    "length",
    "map",
    "max",
    "max_by",
    "merge",
    "min",
    "min_by",
    "not_null",
    "reverse",
    "sort",
    "sort_by",
    "starts_with",
    "sum",
    "to_array",
    "to_number",
    "to_string",
    "type",
    "values",
    "nope",
];

fn identifier(fields: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(fields).prop_map(|f| {
            if f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !f.starts_with(|c: char| c.is_ascii_digit()) {
                f
            } else {
                serde_json::to_string(&f).expect("quoted")
            }
        }),
        1 => "[a-z_][a-z0-9_]{0,6}",
        1 => "\"[^\"\\\\]{0,6}\"",
    ]
}

fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("`1`".to_string()),
        Just("`-2.5`".to_string()),
        Just("`\"x\"`".to_string()),
        Just("`[1, 2, \"a\"]`".to_string()),
        Just("`{\"a\": [true, null]}`".to_string()),
        Just("`null`".to_string()),
        "'[a-z ]{0,8}'",
        (-5i32..5).prop_map(|n| format!("`{n}`")),
    ]
}

/// Expressions from the grammar: every construct, nested, with the body's own field names.
fn expression(fields: Vec<String>) -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => identifier(fields.clone()),
        1 => Just("@".to_string()),
        1 => literal(),
    ];
    leaf.prop_recursive(6, 48, 4, move |inner| {
        let field = identifier(fields.clone());
        prop_oneof![
            3 => (inner.clone(), field).prop_map(|(e, f)| format!("{e}.{f}")),
            2 => (inner.clone(), -4i32..6).prop_map(|(e, i)| format!("{e}[{i}]")),
            1 => (inner.clone(), proptest::option::of(-6i32..6), proptest::option::of(-6i32..6), proptest::option::of(-3i32..4))
                .prop_map(|(e, a, b, c)| {
                    let show = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_default();
                    match c {
                        Some(c) => format!("{e}[{}:{}:{c}]", show(a), show(b)),
                        None => format!("{e}[{}:{}]", show(a), show(b)),
                    }
                }),
            2 => inner.clone().prop_map(|e| format!("{e}[*]")),
            1 => inner.clone().prop_map(|e| format!("{e}[]")),
            1 => inner.clone().prop_map(|e| format!("{e}.*")),
            2 => (inner.clone(), inner.clone(), proptest::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]))
                .prop_map(|(e, c, op)| format!("{e}[?{c} {op} `1`]")),
            2 => proptest::collection::vec(inner.clone(), 1..4).prop_map(|es| format!("[{}]", es.join(", "))),
            2 => proptest::collection::vec(inner.clone(), 1..4).prop_map(|es| {
                let pairs: Vec<String> = es.iter().enumerate().map(|(i, e)| format!("k{i}: {e}")).collect();
                format!("{{{}}}", pairs.join(", "))
            }),
            2 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} | {b}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} || {b}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            1 => inner.clone().prop_map(|e| format!("!{e}")),
            1 => inner.clone().prop_map(|e| format!("({e})")),
            1 => (inner.clone(), inner.clone(), proptest::sample::select(vec!["==", "!=", "<", ">="]))
                .prop_map(|(a, b, op)| format!("{a} {op} {b}")),
            3 => (proptest::sample::select(FUNCTIONS), proptest::collection::vec(
                prop_oneof![3 => inner.clone(), 1 => inner.clone().prop_map(|e| format!("&{e}"))], 0..4))
                .prop_map(|(f, args)| format!("{f}({})", args.join(", "))),
            // The doubling of the security issue, anywhere in an expression, and given to functions.
            2 => (inner.clone(), 1usize..45).prop_map(|(e, n)| format!("{e} | {}", vec!["[@,@]"; n].join("|"))),
            2 => (inner.clone(), 1usize..45, proptest::sample::select(vec![
                "to_string", "length", "sort", "reverse", "type", "not_null", "to_array", "max", "sum", "contains"]))
                .prop_map(|(e, n, f)| {
                    let doubled = format!("{e} | {}", vec!["[@,@]"; n].join("|"));
                    if f == "contains" { format!("contains({doubled}, @)") } else { format!("{f}({doubled})") }
                }),
        ]
    })
}

fn check_envelope(expression: &str, result: &Result<Vec<u8>, ApiError>) -> Result<(), TestCaseError> {
    match result {
        Ok(bytes) => {
            prop_assert!(bytes.len() <= MAX_OUTPUT_BYTES, "{expression}: {} bytes", bytes.len());
            prop_assert!(serde_json::from_slice::<Value>(bytes).is_ok(), "{expression}: not JSON");
        }
        Err(ApiError::Jmespath { error, .. }) => {
            let kind = error.split(':').next().unwrap_or_default();
            prop_assert!(
                ["expression_too_long", "invalid_expression", "projection_too_large"].contains(&kind),
                "{expression}: {error}"
            );
        }
        Err(other) => prop_assert!(false, "{expression}: {other:?}"),
    }
    Ok(())
}

#[test]
fn every_expression_over_the_largest_answer_stays_within_the_budget() {
    let body = largest_answer();
    let mut fields = std::collections::BTreeSet::new();
    names(body, &mut fields);
    let mut runner = proptest::test_runner::TestRunner::new(config(10_000));
    // How the cases ended: answered, refused by kind, and refused for the budget.
    let outcomes = std::sync::Mutex::new(std::collections::BTreeMap::<String, u32>::new());
    runner
        .run(&expression(fields.into_iter().collect()), |expression| {
            let (result, cost) = project_costed(&expression, body);
            check_envelope(&expression, &result)?;
            prop_assert!(cost.steps <= MAX_STEPS && cost.made <= MAX_MADE_BYTES, "{expression}: {cost:?}");
            let outcome = match &result {
                Ok(_) => "answered".to_string(),
                Err(ApiError::Jmespath { error, .. }) if error.contains("exceeds its budget") => "over budget".into(),
                Err(ApiError::Jmespath { error, .. }) => error.split(':').next().unwrap_or_default().to_string(),
                Err(_) => "other".into(),
            };
            *outcomes.lock().unwrap().entry(outcome).or_default() += 1;
            Ok(())
        })
        .unwrap();
    let outcomes = outcomes.into_inner().unwrap();
    eprintln!("jmespath over the largest answer ({} bytes): {outcomes:?}", serde_json::to_vec(body).unwrap().len());
    let total: u32 = outcomes.values().sum();
    for kind in ["answered", "invalid_expression", "projection_too_large", "over budget"] {
        assert!(outcomes.get(kind).copied().unwrap_or(0) * 500 > total, "too few cases {kind}: {outcomes:?}");
    }
}

/// A small body with every kind of value, for comparing with the crate's own evaluation.
fn small_body() -> Value {
    json!({
        "a": {"b": [1, 2, 3], "c": "text", "d": {"e": null}},
        "people": [{"name": "ann", "age": 30, "tags": ["x", "y"]}, {"name": "bob", "age": 25.5, "tags": []}],
        "n": 3.5, "s": "abc", "t": true, "f": false, "nil": null,
        "nested": [[1, [2, 3]], [4], 5, "six"],
        "words": ["pear", "apple", "fig"]
    })
}

#[test]
fn answers_as_the_crate_does_where_its_evaluation_is_safe() {
    let body = small_body();
    let mut fields = std::collections::BTreeSet::new();
    names(&body, &mut fields);
    let mut runner = proptest::test_runner::TestRunner::new(config(3_000));
    runner
        .run(&expression(fields.into_iter().collect()), |expression| {
            // Where the two differ on purpose: the crate's to_number takes any JSON text and its
            // avg([]) is an error (the specification: a number or null, and null); a doubling
            // makes the crate's own evaluation too slow to compare with.
            if expression.len() > 200
                || expression.contains("[@,@]")
                || expression.contains("to_number")
                || expression.contains("avg")
            {
                return Ok(());
            }
            let (ours, cost) = project_costed(&expression, &body);
            if cost.steps > 20_000 {
                return Ok(());
            }
            let theirs = jmespath::compile(&expression).and_then(|e| e.search(&body));
            match (&ours, &theirs) {
                (Ok(bytes), Ok(value)) => {
                    let ours: Value = serde_json::from_slice(bytes).expect("json");
                    let theirs = serde_json::to_value(&**value).expect("their json");
                    // An object's values and keys come in its order, which jmespath leaves open (the
                    // crate sorts them; we keep the body's): what is picked from them by position
                    // may differ, so those answers are compared as sets, and only when nothing is
                    // picked by position.
                    // to_string writes an object's members in that order too.
                    let order_is_open =
                        [".*", "values(", "keys(", "merge(", "to_string("].iter().any(|f| expression.contains(f));
                    let by_position = ["[", "max_by", "min_by", "sort_by", "reverse", "join", "to_string"]
                        .iter()
                        .any(|f| expression.replace("[*]", "").replace("[]", "").contains(f));
                    let same = match (order_is_open, by_position) {
                        (false, _) => same_json(&ours, &theirs),
                        (true, false) => same_json_any_order(&ours, &theirs),
                        (true, true) => true,
                    };
                    prop_assert!(same, "{expression}: ours {ours}, theirs {theirs}");
                }
                (Err(ApiError::Jmespath { error, .. }), Err(_)) => {
                    prop_assert!(error.starts_with("invalid_expression"))
                }
                (Err(ApiError::Jmespath { error, .. }), Ok(_)) => {
                    // An expression reference in a result: the crate prints its debug form.
                    let expected = error.contains("an expression reference is not a JSON value")
                        || error.starts_with("projection_too_large");
                    prop_assert!(expected, "{expression}: {error}");
                }
                (ours, Err(e)) => prop_assert!(false, "{expression}: ours {ours:?}, theirs {e}"),
                (Err(other), _) => prop_assert!(false, "{expression}: {other:?}"),
            }
            Ok(())
        })
        .unwrap();
}
