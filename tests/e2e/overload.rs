//! Callers that do not behave, on the real listener (issue 45): sockets that dribble their
//! headers or bodies are closed at their deadlines, a full house answers 503 `overloaded` at once
//! (health probes still answer), a request past its deadline answers 503 `deadline_exceeded`, and
//! requests whose clients left give their places back.

use std::time::{Duration, Instant};

use serde_json::Value;
use sitrep_serve::{app::RequestLimits, http_server::ConnectionLimits};
use sitrep_tests::{normal_lake, Options, TestApp};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

/// The key stays in memory throughout (`key_cache_ttl`): a held request never waits on the state
/// store, which on a machine busy with every other test could answer it 503 and free its place.
async fn app_with(connection_limits: ConnectionLimits, request_limits: RequestLimits) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let lake = normal_lake(&dir).await;
    let options =
        Options { connection_limits, request_limits, key_cache_ttl: Duration::from_secs(300), ..Options::default() };
    let app = TestApp::serve_with(dir, lake, options, |a| a).await;
    assert_eq!(get(&app, PATH).await.0, 200, "the key is read once, here");
    app
}

async fn socket(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.base.trim_start_matches("http://")).await.expect("connect")
}

/// What the server sends on `s` until it closes it, and when; `None` if it still holds it open
/// after `patience`.
async fn until_closed(s: &mut TcpStream, patience: Duration) -> Option<(String, Duration)> {
    let started = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(patience.saturating_sub(started.elapsed()), s.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some((String::from_utf8_lossy(&got).into_owned(), started.elapsed())),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// A POST of ExecuteBatch whose body never finishes: it holds a place in flight, inside the
/// application, until the server gives up on it or the socket closes.
async fn stalled_post(app: &TestApp) -> TcpStream {
    let mut s = socket(app).await;
    let head = format!(
        "POST /api/batch/v1/execute HTTP/1.1\r\nHost: t\r\nX-Api-Key: {}\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{{\"requests\":[",
        app.key
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s
}

async fn get(app: &TestApp, path: &str) -> (u16, Option<String>, Value) {
    let r = app.http.get(format!("{}{path}", app.base)).header("X-Api-Key", &app.key).send().await.expect("get");
    let status = r.status().as_u16();
    let retry_after = r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
    (status, retry_after, r.json().await.unwrap_or(Value::Null))
}

const PATH: &str = "/api/conflict/v1/list-armed-events?page_size=5";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dribbling_sockets_are_closed_at_their_deadlines_while_others_are_answered() {
    let limits = ConnectionLimits {
        header_read: Duration::from_secs(1),
        body_read: Duration::from_secs(1),
        ..Default::default()
    };
    let app = app_with(limits, RequestLimits::default()).await;
    // Silent sockets, half-sent headers, and one that sends a byte of its headers every 200 ms
    // (activity alone does not keep a socket: the headers must end in time).
    let mut silent = Vec::new();
    for i in 0..100 {
        let mut s = socket(&app).await;
        if i % 2 == 0 {
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Pad: ").await.unwrap();
        }
        silent.push(s);
    }
    let mut trickle = socket(&app).await;
    let trickled = tokio::spawn(async move {
        for b in b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".iter() {
            if trickle.write_all(&[*b]).await.is_err() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        false
    });
    // Meanwhile, a well-behaved client is answered.
    for _ in 0..5 {
        assert_eq!(get(&app, PATH).await.0, 200);
    }
    for s in &mut silent {
        let closed = until_closed(s, Duration::from_secs(5)).await;
        assert!(closed.is_some(), "a socket that never finished its headers is still open");
    }
    assert!(trickled.await.unwrap(), "a socket trickling its headers was kept past the header deadline");

    // An idle keep-alive connection is closed once its next request's headers are late.
    let mut kept = socket(&app).await;
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n").await.unwrap();
    let mut first = [0u8; 12];
    kept.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    assert!(until_closed(&mut kept, Duration::from_secs(5)).await.is_some(), "an idle keep-alive connection stayed");

    // A body that stops arriving is refused as unreadable once its deadline passes.
    let mut slow_body = stalled_post(&app).await;
    let (answer, after) =
        until_closed(&mut slow_body, Duration::from_secs(5)).await.expect("the stalled body was dropped");
    assert!(answer.starts_with("HTTP/1.1 400"), "a late body: {answer}");
    assert!(after >= Duration::from_millis(900), "refused before its deadline ({after:?})");
    assert_eq!(get(&app, PATH).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_house_is_refused_at_once_and_health_probes_still_answer() {
    let limits = ConnectionLimits { body_read: Duration::from_secs(60), ..Default::default() };
    let app = app_with(limits, RequestLimits { max_in_flight: 2, ..Default::default() }).await;
    let mut first = stalled_post(&app).await;
    let mut second = stalled_post(&app).await;
    // Both requests are in the application once the server has accepted their connections and
    // holds their bodies' reads (on a machine busy with every other test, that can take seconds:
    // the GETs below ride a connection accepted before). A stalled request that arrives while a
    // GET holds the other place is itself refused: it is sent again.
    let mut refused = None;
    let waiting = Instant::now();
    while waiting.elapsed() < Duration::from_secs(20) {
        let answer = get(&app, PATH).await;
        if answer.0 == 503 {
            refused = Some(answer);
            break;
        }
        for stalled in [&mut first, &mut second] {
            if until_closed(stalled, Duration::from_millis(1)).await.is_some() {
                *stalled = stalled_post(&app).await;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if refused.is_none() {
        // What the two requests were answered instead of being held, for the failure's message.
        let first = until_closed(&mut first, Duration::from_millis(500)).await;
        let second = until_closed(&mut second, Duration::from_millis(500)).await;
        panic!("two requests in flight did not fill a house of two: they got {first:?} and {second:?}");
    }
    let (_, retry_after, body) = refused.expect("refused");
    assert_eq!(retry_after.as_deref(), Some("1"));
    assert_eq!(body, serde_json::json!({ "error": "Server busy. Retry shortly.", "code": "overloaded" }));
    for probe in ["/healthz", "/readyz", "/api/health"] {
        assert_eq!(get(&app, probe).await.0, 200, "{probe} was shed");
    }
    assert_eq!(get(&app, "/status").await.0, 503, "the status page renders for anyone: it is shed");
    let metrics = app.metrics().await;
    assert!(
        metrics.lines().any(|l| l.contains("operation=\"ListArmedEvents\"") && l.contains("status=\"503\"")),
        "shed requests are counted"
    );
    // The clients leave: their requests give their places back.
    drop((first, second));
    let mut answered = false;
    let waiting = Instant::now();
    while waiting.elapsed() < Duration::from_secs(20) {
        if get(&app, PATH).await.0 == 200 {
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(answered, "requests whose clients left kept their places");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_its_deadline_is_answered_503() {
    let limits = ConnectionLimits { body_read: Duration::from_secs(60), ..Default::default() };
    let app = app_with(limits, RequestLimits { deadline: Duration::from_secs(1), ..Default::default() }).await;
    let mut late = stalled_post(&app).await;
    let (answer, after) = until_closed(&mut late, Duration::from_secs(10)).await.expect("answered");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a response");
    assert!(head.starts_with("HTTP/1.1 503"), "{head}");
    assert!(head.to_ascii_lowercase().contains("retry-after: 5"), "{head}");
    assert!(body.contains(r#""code":"deadline_exceeded""#), "{body}");
    assert!(after >= Duration::from_millis(900) && after < Duration::from_secs(15), "answered after {after:?}");
    assert_eq!(get(&app, PATH).await.0, 200);
}

/// Guessing keys: each wrong one counts against the address's window, and once it is full the
/// guesses are answered 429 without a read of their own (proved with the store gone: a read would
/// answer 503), while a caller with a live key in memory is still answered, and so is a key
/// created after the window filled (its digest is found among the credentials that exist).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_credentials_fill_their_addresses_window_and_then_cost_no_store_read() {
    let dir = tempfile::tempdir().unwrap();
    let lake = normal_lake(&dir).await;
    let rate_limits = sitrep_platform::edge::rate_limit::Limits::parse("default=5").unwrap();
    let app = TestApp::serve_with(dir, lake, Options { rate_limits, ..Options::default() }, |a| a).await;
    // The live key is in memory before the store goes.
    assert_eq!(get(&app, PATH).await.0, 200);
    let guess = |n: u32| {
        let (http, url) = (app.http.clone(), format!("{}{PATH}", app.base));
        async move {
            let key = format!("di_{n:040x}");
            let r = http.get(url).header("X-Api-Key", key).send().await.unwrap();
            (r.status().as_u16(), r.headers().get("ratelimit-remaining").map(|v| v.to_str().unwrap().to_string()))
        }
    };
    let mut remaining = Vec::new();
    for n in 0..5 {
        let (status, left) = guess(n).await;
        assert_eq!(status, 401, "guess {n}");
        remaining.push(left.unwrap());
    }
    assert_eq!(remaining, ["4", "3", "2", "1", "0"], "each wrong key counts in the address's window");
    assert_eq!(guess(5).await.0, 429, "the window is full");
    let account = app.store.create_account("behind-the-same-address", sitrep_platform::state::Plan::Pro).await.unwrap();
    let created = app.store.create_key(&account.id, "new", "di", &["mcp"], false).await.unwrap().secret;
    let r = app.http.get(format!("{}{PATH}", app.base)).header("X-Api-Key", &created).send().await.unwrap();
    assert_eq!(r.status(), 200, "a credential that exists is read whatever its address's window says");
    app.store.close().await;
    for n in 5..50 {
        assert_eq!(guess(n).await.0, 429, "guess {n} past the window");
    }
    // A wrong access token too (refused by the same window, unread).
    let token = app.http.get(format!("{}{PATH}", app.base)).bearer_auth("not-a-key-but-a-token").send().await.unwrap();
    assert_eq!(token.status(), 429);
    // MCP's answer stays its own -32001, and reads nothing either.
    let mcp = app
        .http
        .post(format!("{}/mcp", app.base))
        .header("X-Api-Key", format!("di_{:040x}", 99))
        .header("Accept", "application/json, text/event-stream")
        .json(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(mcp.status(), 401, "MCP read the store (a gone store answers 503)");
    assert_eq!(get(&app, PATH).await.0, 200, "a live key in memory is answered from the same address");
}

/// Past the connection cap a new connection is closed as soon as it is accepted; one that ends
/// gives its place back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_cap_are_closed_at_once() {
    let limits = ConnectionLimits { max_connections: 4, ..Default::default() };
    let app = app_with(limits, RequestLimits::default()).await;
    // Sockets are held open until one is closed at once, unanswered: the cap is four, less the
    // keep-alive connections the test client holds from its own requests (one or two, as its
    // pool happens to keep them), so one to four are held.
    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..5 {
        let mut s = socket(&app).await;
        match until_closed(&mut s, Duration::from_secs(2)).await {
            Some((answer, _)) => {
                assert!(answer.is_empty(), "a refused connection got {answer:?}");
                refused += 1;
                break;
            }
            None => held.push(s),
        }
    }
    assert!((1..=4).contains(&held.len()) && refused == 1, "{} held, {refused} refused", held.len());
    drop(held.pop());
    let mut answered = false;
    let waiting = Instant::now();
    while waiting.elapsed() < Duration::from_secs(20) {
        let mut s = socket(&app).await;
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").await.unwrap();
        if let Some((answer, _)) = until_closed(&mut s, Duration::from_secs(2)).await {
            if answer.starts_with("HTTP/1.1 200") {
                answered = true;
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(answered, "a place given back was not taken again");
}
