use serde_json::json;

use super::*;

fn err(r: Result<Vec<u8>, ApiError>) -> (String, Vec<String>) {
    match r {
        Err(ApiError::Jmespath { error, original_keys }) => (error, original_keys),
        other => panic!("expected jmespath error, got {other:?}"),
    }
}

#[test]
fn projects_and_reports_errors_in_order() {
    let body = json!({"events": [{"id": "a"}, {"id": "b"}], "pagination": {"totalCount": 2}});
    assert_eq!(project("events[].id", &body).unwrap(), br#"["a","b"]"#);
    assert_eq!(project("nothing", &body).unwrap(), b"null");
    let (e, keys) = err(project(&"a".repeat(1025), &body));
    assert_eq!(e, "expression_too_long: 1025 > 1024");
    assert_eq!(keys, ["events", "pagination"]);
    assert!(err(project("events[", &body)).0.starts_with("invalid_expression: "));
    let big = json!({"s": "x".repeat(MAX_OUTPUT_BYTES)});
    assert!(err(project("s", &big)).0.starts_with("projection_too_large: 262146 > 262144"));
    let exact = json!({"s": "x".repeat(MAX_OUTPUT_BYTES - 2)});
    assert_eq!(project("s", &exact).unwrap().len(), MAX_OUTPUT_BYTES);
    assert_eq!(err(project("events[", &json!([1, 2]))).1, ["<array length=2>"]);
}

#[test]
fn keeps_the_bodys_order_and_the_expressions_order() {
    let body = json!({"z": 1, "a": {"y": true, "b": null}});
    assert_eq!(project("@", &body).unwrap(), br#"{"z":1,"a":{"y":true,"b":null}}"#);
    assert_eq!(project("{z: a, a: z}", &body).unwrap(), br#"{"z":{"y":true,"b":null},"a":1}"#);
    assert_eq!(project("keys(a)", &body).unwrap(), br#"["y","b"]"#);
    assert_eq!(project("merge(a, {b: `1`, c: `2`})", &body).unwrap(), br#"{"y":true,"b":1,"c":2}"#);
}

#[test]
fn runtime_errors_read_as_the_crate_words_them() {
    let body = json!({"a": "text"});
    let (e, _) = err(project("abs(a)", &body));
    assert!(e.starts_with("invalid_expression: Runtime error: Argument 0 expects type number, given string"), "{e}");
    assert!(err(project("nope(a)", &body)).0.contains("Call to undefined function nope"));
    assert!(err(project("length(a, a)", &body)).0.contains("Too many arguments"));
    assert!(err(project("a[::0]", &json!({"a": [1]}))).0.contains("Invalid slice"));
}

/// `[@,@]` `times` times, piped: each doubles the logical size of the result for almost no work.
fn doubling(times: usize) -> String {
    vec!["[@,@]"; times].join("|")
}

#[test]
fn a_result_that_doubles_forty_times_is_measured_not_written() {
    let body = json!({"events": [{"id": "a", "title": "x".repeat(1000)}]});
    let bomb = doubling(40);
    assert_eq!(bomb.len(), 239);
    let (result, cost) = project_costed(&bomb, &body);
    let (e, keys) = err(result);
    // The exact size it would have: 2^40 copies of the body, 2^40 - 1 commas and the brackets.
    let body_len = serde_json::to_vec(&body).unwrap().len() as u64;
    let mut size = body_len;
    for _ in 0..40 {
        size = 2 * size + 3;
    }
    assert_eq!(e, format!("projection_too_large: {size} > 262144"));
    assert_eq!(keys, ["events"]);
    assert!(cost.steps < 1_000 && cost.made < 10_000, "{cost:?}");
}

#[test]
fn functions_that_would_walk_a_doubled_value_are_refused_before_they_start() {
    let body = json!({"events": [{"id": "a"}]});
    let bomb = doubling(40);
    for expression in [
        format!("to_string({bomb})"),
        format!("length(to_string({bomb}))"),
        format!("{bomb} | to_string(@)"),
        format!("join(',', [to_string({bomb})])"),
        format!("contains([to_string({bomb})], 'x')"),
    ] {
        let (result, cost) = project_costed(&expression, &body);
        let (e, _) = err(result);
        assert!(e.starts_with("invalid_expression: evaluation exceeds its budget"), "{expression}: {e}");
        assert!(cost.steps < 1_000 && cost.made < 10_000, "{expression}: {cost:?}");
    }
}

#[test]
fn doubled_values_compare_and_count_in_as_many_steps_as_they_have_parts() {
    let body = json!({"events": [{"id": "a"}]});
    let bomb = doubling(40);
    for (expression, answer) in [
        (format!("({bomb}) == ({bomb})"), "true"),
        (format!("({bomb}) != ({bomb}|[0])"), "true"),
        (format!("length({bomb})"), "2"),
        (format!("contains({bomb}, @)"), "false"),
        (format!("{bomb} | [0][1][0] == [0][0][1]"), "true"),
    ] {
        let (result, cost) = project_costed(&expression, &body);
        assert_eq!(String::from_utf8(result.unwrap()).unwrap(), answer, "{expression}");
        assert!(cost.steps < 10_000 && cost.made < 100_000, "{expression}: {cost:?}");
    }
}

#[test]
fn work_beyond_the_step_budget_is_refused_without_overrunning_it() {
    // Every element of a 100k array, sorted by a key computed from every element again.
    let body = json!({"n": (0..100_000).collect::<Vec<_>>()});
    let (result, cost) = project_costed("n[*].[@, @, @] | sort_by(@, &length(to_string(@)))", &body);
    assert!(err(result).0.starts_with("invalid_expression: evaluation exceeds its budget"));
    assert!(cost.steps <= MAX_STEPS && cost.made <= MAX_MADE_BYTES, "{cost:?}");
}

#[test]
fn deep_expressions_evaluate_on_a_worker_threads_stack() {
    // Tokio's worker threads have 2 MiB stacks; the deepest expressions of 1,024 bytes fit.
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let body = json!({"a": [[[[1]]]]});
            for expression in [
                format!("{}a{}", "(".repeat(511), ")".repeat(511)),
                format!("{}a", "!".repeat(1023)),
                format!("{}@{}", "[".repeat(511), "]".repeat(511)),
                format!("{}a", "a.".repeat(511)),
                format!("{}1{}", "abs(".repeat(204), ")".repeat(204)),
            ] {
                let _ = project_costed(&expression, &body);
            }
        })
        .unwrap();
    handle.join().expect("no stack overflow");
}
