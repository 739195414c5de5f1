//! The five Conflict operations: shapes, filters, defaults, paging, violations, jmespath, ETags.

use serde_json::Value;
use sitrep_tests::TestApp;

const ARMED: &str = "/api/conflict/v1/list-armed-events";
const VIOLENCE: &str = "/api/conflict/v1/list-violence-events";

fn violations(body: &Value) -> Vec<(String, String)> {
    body["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| (v["field"].as_str().unwrap().to_string(), v["description"].as_str().unwrap().to_string()))
        .collect()
}

#[tokio::test]
async fn armed_events_default_window_country_filter_and_order() {
    let app = TestApp::start().await;
    let (status, body) = app.json(&format!("{ARMED}?country=ua")).await;
    assert_eq!(status, 200);
    let events = body["events"].as_array().unwrap();
    // Fixture: 46 Ukrainian events in 2026-10-21..2026-11-20; the default window starts at
    // 00:00 UTC of (as-of date 2026-11-20 − 30 days) = 2026-10-21.
    assert_eq!(body["pagination"]["totalCount"], 46);
    assert_eq!(events.len(), 46);
    assert_eq!(body["pagination"]["nextCursor"], "");
    assert!(events.iter().all(|e| e["country"] == "Ukraine"));
    let times: Vec<i64> = events.iter().map(|e| e["occurredAt"].as_i64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");
    assert!(times.iter().all(|t| *t >= 1_792_540_800_000), "on or after 2026-10-21");
    let first = &events[0];
    for field in ["id", "eventType", "country", "location", "occurredAt", "fatalities", "actors", "source", "admin1"] {
        assert!(first.get(field).is_some(), "missing {field}");
    }
    assert!(first["id"].as_str().unwrap().starts_with("acled-"));
    assert_eq!(first.as_object().unwrap().len(), 9, "exactly the documented fields");
}

#[tokio::test]
async fn armed_events_explicit_range_is_inclusive_by_date_and_invalid_rows_are_dropped() {
    let app = TestApp::start().await;
    // Whole history of the rolling window: 446 rows recorded, 2 with invalid coordinates dropped.
    let (_, all) = app.json(&format!("{ARMED}?start=0&end=1800000000000")).await;
    assert_eq!(all["pagination"]["totalCount"], 444);
    // A range whose end is mid-day still includes that whole UTC day.
    let day = 1_792_540_800_000i64; // 2026-10-21
    let (_, one_day) = app.json(&format!("{ARMED}?start={day}&end={}", day + 1)).await;
    let n = one_day["pagination"]["totalCount"].as_i64().unwrap();
    assert!(one_day["events"].as_array().unwrap().iter().all(|e| e["occurredAt"] == day));
    let (_, same) = app.json(&format!("{ARMED}?start={}&end={}", day + 5, day + 86_399_999)).await;
    assert_eq!(same["pagination"]["totalCount"].as_i64().unwrap(), n);
}

#[tokio::test]
async fn paging_walks_every_row_once() {
    let app = TestApp::start().await;
    let mut seen = std::collections::HashSet::new();
    let mut url = format!("{ARMED}?start=0&end=1800000000000&page_size=50");
    let mut pages = 0;
    loop {
        let (status, body) = app.json(&url).await;
        assert_eq!(status, 200, "{body}");
        for e in body["events"].as_array().unwrap() {
            assert!(seen.insert(e["id"].as_str().unwrap().to_string()), "duplicate across pages");
        }
        pages += 1;
        let next = body["pagination"]["nextCursor"].as_str().unwrap().to_string();
        if next.is_empty() {
            break;
        }
        // The cursor carries the filters; page_size may change between pages.
        url = format!("{ARMED}?start=0&end=1800000000000&page_size=100&cursor={next}");
    }
    assert_eq!(seen.len(), 444);
    assert_eq!(pages, 1 + (444 - 50 + 99) / 100);
}

#[tokio::test]
async fn violations_are_reported_together_in_field_order() {
    let app = TestApp::start().await;
    let (status, body) = app.json(&format!("{ARMED}?start=abc&end=1.5&page_size=101&country=UKR")).await;
    assert_eq!(status, 400);
    assert_eq!(
        violations(&body),
        vec![
            ("start".into(), "value must be a base-10 integer string".into()),
            ("end".into(), "value must be a base-10 integer string".into()),
            ("pageSize".into(), "number must be less than or equal to 100".into()),
            ("country".into(), "string must match pattern ^[A-Za-z]{2}$".into()),
        ]
    );
    let (_, body) = app.json(&format!("{ARMED}?page_size=x")).await;
    assert_eq!(violations(&body), vec![("pageSize".into(), "value must be a finite number".into())]);
    let (_, body) = app.json(&format!("{ARMED}?page_size=2.5")).await;
    assert_eq!(violations(&body), vec![("pageSize".into(), "value must be an integer".into())]);
    let (_, body) = app.json(&format!("{ARMED}?page_size=-1")).await;
    assert_eq!(violations(&body), vec![("pageSize".into(), "number must be greater than or equal to 1".into())]);
    let (_, body) = app.json(&format!("{ARMED}?start=20&end=10")).await;
    assert_eq!(violations(&body), vec![("start".into(), "start must be less than or equal to end".into())]);
    let (_, body) = app.json(&format!("{VIOLENCE}?start=-5")).await;
    assert_eq!(violations(&body), vec![("start".into(), "number must be greater than or equal to 0".into())]);
    // page_size=0 means the default.
    let (status, body) = app.json(&format!("{ARMED}?page_size=0&start=0")).await;
    assert_eq!(status, 200);
    assert_eq!(body["events"].as_array().unwrap().len(), 100);
}

#[tokio::test]
async fn cursor_failures_in_check_order() {
    let app = TestApp::start().await;
    let (_, first) = app.json(&format!("{ARMED}?start=0&page_size=10")).await;
    let cursor = first["pagination"]["nextCursor"].as_str().unwrap().to_string();
    let cases = [
        (format!("{ARMED}?start=0&cursor=garbage"), "cursor is malformed"),
        (
            format!("{ARMED}?start=0&cursor={}", cursor.replace(&cursor[cursor.len() - 4..], "AAAA")),
            "cursor signature is invalid",
        ),
        (format!("{VIOLENCE}?start=0&cursor={cursor}"), "cursor was issued for a different operation"),
        (format!("{ARMED}?start=0&country=YE&cursor={cursor}"), "cursor does not match the request filters"),
    ];
    for (url, msg) in cases {
        let (status, body) = app.json(&url).await;
        assert_eq!(status, 400, "{url}");
        assert_eq!(violations(&body), vec![("cursor".to_string(), msg.to_string())], "{url}");
    }
}

#[tokio::test]
async fn violence_events_fields_merge_and_filters() {
    let app = TestApp::start().await;
    let (status, body) = app.json(&format!("{VIOLENCE}?country=SD&page_size=100")).await;
    assert_eq!(status, 200);
    let events = body["events"].as_array().unwrap();
    assert!(!events.is_empty());
    let e = &events[0];
    assert_eq!(e.as_object().unwrap().len(), 12);
    assert!(e["violenceType"].as_str().unwrap().starts_with("UCDP_VIOLENCE_TYPE_"));
    let starts: Vec<i64> = events.iter().map(|e| e["dateStart"].as_i64().unwrap()).collect();
    assert!(starts.windows(2).all(|w| w[0] >= w[1]));
    // Candidate rows win over annual rows with the same id (fixture id 549287: best 1 → 5).
    let (_, all) = app.json(&format!("{VIOLENCE}?country=UA&jmespath=events[?id=='549287'].deathsBest")).await;
    assert_eq!(all, serde_json::json!([5]));
    // Long text is cut to the documented lengths (fixture id 618710 has a 385-character source_original).
    let (_, cut) = app.json(&format!("{VIOLENCE}?jmespath=events[?id=='618710'].sourceOriginal")).await;
    assert_eq!(cut.as_array().unwrap().len(), 1, "fixture row present");
    assert_eq!(cut[0].as_str().unwrap().chars().count(), 300);
}

#[tokio::test]
async fn humanitarian_summary_single_and_validation() {
    let app = TestApp::start().await;
    let (status, body) = app.json("/api/conflict/v1/get-humanitarian-summary?country_code=SD").await;
    assert_eq!(status, 200);
    let s = &body["summary"];
    assert_eq!(s["countryCode"], "SD");
    assert_eq!(s["referencePeriod"], "2026-10-01");
    assert_eq!(s.as_object().unwrap().len(), 8);
    let total = s["conflictEventsTotal"].as_i64().unwrap();
    assert!(
        total >= s["conflictPoliticalViolenceEvents"].as_i64().unwrap() + s["conflictDemonstrations"].as_i64().unwrap()
    );
    // A valid code without data answers {}.
    let (status, body) = app.json("/api/conflict/v1/get-humanitarian-summary?country_code=IS").await;
    assert_eq!((status, body), (200, serde_json::json!({})));
    for (q, msg) in [
        ("", "value is required"),
        ("?country_code=SDN", "string length must be exactly 2"),
        ("?country_code=sd", "string must match pattern ^[A-Z]{2}$"),
        ("?country_code=ZZ", "enum value must be defined"),
    ] {
        let (status, body) = app.json(&format!("/api/conflict/v1/get-humanitarian-summary{q}")).await;
        assert_eq!(status, 400);
        assert_eq!(violations(&body), vec![("countryCode".to_string(), msg.to_string())]);
    }
}

#[tokio::test]
async fn humanitarian_batch_normalises_codes() {
    let app = TestApp::start().await;
    let r = app
        .post("/api/conflict/v1/get-humanitarian-summary-batch")
        .json(&serde_json::json!({"countryCodes": [" sd", "YE", "YE", "XXX", "IS", "ua"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["requested"], 4, "SD, UA, YE, IS after trim/upper/dedupe/drop");
    assert_eq!(body["fetched"], 3);
    assert_eq!(body["results"].as_object().unwrap().keys().collect::<Vec<_>>(), ["SD", "UA", "YE"]);
    for (payload, field, msg) in [
        (serde_json::json!({"countryCodes": []}), "countryCodes", "array must contain at least 1 item(s)"),
        (serde_json::json!({}), "countryCodes", "value is required"),
        (serde_json::json!({"countryCodes": "SD"}), "countryCodes", "value must be an array"),
        (serde_json::json!({"countryCodes": ["SD", 4]}), "countryCodes[1]", "value must be a string"),
        (serde_json::json!([1]), "$request", "value must be an object"),
    ] {
        let r = app.post("/api/conflict/v1/get-humanitarian-summary-batch").json(&payload).send().await.unwrap();
        assert_eq!(r.status(), 400);
        assert_eq!(violations(&r.json().await.unwrap()), vec![(field.to_string(), msg.to_string())]);
    }
    let r = app
        .post("/api/conflict/v1/get-humanitarian-summary-batch")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap(), serde_json::json!({"message": "Invalid request body"}));
}

#[tokio::test]
async fn iran_events_mapping() {
    let app = TestApp::start().await;
    let (status, body) = app.json("/api/conflict/v1/list-iran-events").await;
    assert_eq!(status, 200);
    let events = body["events"].as_array().unwrap();
    assert_eq!(events.len(), 42);
    // exportedAt 2026-11-20T05:30:00Z
    assert_eq!(body["scrapedAt"], "1795152600000");
    let ts: Vec<i64> = events.iter().map(|e| e["timestamp"].as_str().unwrap().parse().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] >= w[1]));
    assert!(events.iter().all(|e| e["title"].as_str().unwrap().chars().count() <= 500));
    let cats: std::collections::HashSet<&str> = events.iter().map(|e| e["category"].as_str().unwrap()).collect();
    assert!(cats.contains("general") && cats.contains("airstrike"));
    let sev: std::collections::HashSet<&str> = events.iter().map(|e| e["severity"].as_str().unwrap()).collect();
    assert!(sev.is_subset(&["critical", "high", "elevated", "moderate"].into_iter().collect()));
}

#[tokio::test]
async fn jmespath_projection_and_limits() {
    let app = TestApp::start().await;
    let (status, body) = app.json(&format!("{ARMED}?country=YE&jmespath=pagination.totalCount")).await;
    assert_eq!(status, 200);
    assert!(body.is_number());
    let long = "a".repeat(1025);
    let (status, body) = app.json(&format!("{ARMED}?jmespath={long}")).await;
    assert_eq!(status, 400);
    assert_eq!(body["_jmespath_error"], "expression_too_long: 1025 > 1024");
    assert_eq!(body["original_keys"], serde_json::json!(["events", "pagination"]));
    let (status, body) = app.json(&format!("{ARMED}?jmespath=events[")).await;
    assert_eq!(status, 400);
    assert!(body["_jmespath_error"].as_str().unwrap().starts_with("invalid_expression: "));
}

#[tokio::test]
async fn etag_and_if_none_match_and_snapshot_headers() {
    let app = TestApp::start().await;
    let r = app.get(&format!("{ARMED}?country=YE")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(etag.len(), 34);
    assert_eq!(r.headers()["x-snapshot-generation"], "1");
    assert!(r.headers().contains_key("x-data-as-of"));
    assert_eq!(r.headers()["cache-control"], "private, max-age=60");
    assert!(r.headers().contains_key("x-request-id"));
    let r2 = app.get(&format!("{ARMED}?country=YE")).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(r2.status(), 304);
    assert_eq!(r2.headers()["etag"].to_str().unwrap(), etag);
}

/// The position index answers exactly what sorting at query time answers: every country, ranges
/// that cut through days, and offsets across and past the end.
#[tokio::test]
async fn positioned_pages_equal_sorted_pages() {
    use sitrep_api::conflict::queries::{armed_events, violence_events, EventFilter};
    use sitrep_schemas::DatasetId;

    let app = TestApp::start().await;
    let generation = app.snapshots.current().unwrap();
    const DAY: i64 = 86_400_000;
    let mut compared = 0;
    for dataset in [DatasetId::ARMED_EVENTS, DatasetId::VIOLENCE_EVENTS] {
        let db = generation.dataset(dataset).unwrap().clone();
        let to = db.as_of().unwrap().timestamp_millis();
        let countries: Vec<String> = ["UA", "SD", "YE", "SY", "MM", "CD", "PS", "XX"].map(String::from).to_vec();
        for country in countries {
            for (from_ms, to_ms) in [(0, to), (to - 30 * DAY, to), (to - 45 * DAY + 1, to - 10 * DAY - 1), (to, 0)] {
                for (limit, offset) in [(100, 0), (7, 0), (7, 7), (5, 40), (10, 10_000)] {
                    let filter = |positions| EventFilter {
                        from_ms,
                        to_ms,
                        country: Some(country.clone()),
                        positions,
                        limit,
                        offset,
                    };
                    let positions = db.positions(&country, from_ms, to_ms);
                    assert!(positions.is_some(), "{dataset} is indexed");
                    let (sorted, positioned) = (filter(None), filter(positions));
                    let ids = |dataset| {
                        let db = db.clone();
                        move |f: EventFilter| async move {
                            let table = db.table().to_string();
                            db.query(move |c| {
                                if dataset == DatasetId::ARMED_EVENTS {
                                    armed_events(c, &table, &f)
                                        .map(|(e, t)| (e.into_iter().map(|e| e.id).collect::<Vec<_>>(), t))
                                } else {
                                    violence_events(c, &table, &f)
                                        .map(|(e, t)| (e.into_iter().map(|e| e.id).collect(), t))
                                }
                            })
                            .await
                            .unwrap()
                        }
                    };
                    let expected = ids(dataset)(sorted).await;
                    let got = ids(dataset)(positioned).await;
                    assert_eq!(got, expected, "{dataset} {country} {from_ms}..{to_ms} limit {limit} offset {offset}");
                    compared += usize::from(!expected.0.is_empty());
                }
            }
        }
    }
    assert!(compared > 50, "the comparison covered non-empty pages ({compared})");
}
