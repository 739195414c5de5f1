//! The OAuth 2.1 authorization server (SUPPLEMENT Part 5) over real HTTP: discovery, registration,
//! consent, the token grants and their error rows, and the tokens on REST and `/mcp`.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use sitrep_tests::TestApp;

const CALLBACK: &str = "http://localhost:6274/oauth/callback";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-and-some-more-entropy";
const ARMED: &str = "/api/conflict/v1/list-armed-events?page_size=1";

fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

async fn register(app: &TestApp, body: Value) -> (u16, Value) {
    let r = app.http.post(format!("{}/oauth/register", app.base)).json(&body).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

async fn client_id(app: &TestApp) -> String {
    let (status, body) = register(app, json!({"client_name": "Test Agent", "redirect_uris": [CALLBACK]})).await;
    assert_eq!(status, 201, "{body}");
    body["client_id"].as_str().unwrap().to_string()
}

fn nonce_of(html: &str) -> String {
    let at = html.find("name=\"nonce\" value=\"").expect("a nonce in the form") + 20;
    html[at..].split('"').next().unwrap().to_string()
}

fn query_of(location: &str) -> std::collections::HashMap<String, String> {
    url::Url::parse(location).unwrap().query_pairs().into_owned().collect()
}

fn authorize_url(app: &TestApp, client_id: &str, extra: &str) -> String {
    format!(
        "{}/oauth/authorize?response_type=code&client_id={client_id}&code_challenge={}&code_challenge_method=S256&scope=mcp&state=xyz{extra}",
        app.base,
        challenge(VERIFIER)
    )
}

/// Consent approved with `key`: the redirect's query.
async fn approve(app: &TestApp, client_id: &str, key: &str) -> std::collections::HashMap<String, String> {
    let b = TestApp::no_redirects();
    let page = b.get(authorize_url(app, client_id, "")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["x-frame-options"], "DENY");
    let html = page.text().await.unwrap();
    assert!(html.contains("Test Agent") && html.contains("localhost"), "the page names the client and its host");
    let r = b
        .post(format!("{}/oauth/authorize", app.base))
        .form(&[("nonce", nonce_of(&html).as_str()), ("api_key", key), ("decision", "approve")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 302);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    assert!(location.starts_with(CALLBACK));
    query_of(&location)
}

/// The consent page at `url`, approved with `key`: the form's answer, unfollowed.
async fn consent(app: &TestApp, url: String, key: &str) -> reqwest::Response {
    let b = TestApp::no_redirects();
    let html = b.get(url).send().await.unwrap().text().await.unwrap();
    b.post(format!("{}/oauth/authorize", app.base))
        .form(&[("nonce", nonce_of(&html).as_str()), ("api_key", key), ("decision", "approve")])
        .send()
        .await
        .unwrap()
}

async fn token(app: &TestApp, form: &[(&str, &str)]) -> (u16, reqwest::header::HeaderMap, Value) {
    let r = app.http.post(format!("{}/oauth/token", app.base)).form(form).send().await.unwrap();
    let (status, headers) = (r.status().as_u16(), r.headers().clone());
    (status, headers, r.json().await.unwrap_or(Value::Null))
}

async fn rest_with(app: &TestApp, bearer: &str) -> u16 {
    app.http.get(format!("{}{ARMED}", app.base)).bearer_auth(bearer).send().await.unwrap().status().as_u16()
}

async fn mcp_with(app: &TestApp, bearer: &str) -> (u16, Value) {
    let r = app
        .http
        .post(format!("{}/mcp", app.base))
        .bearer_auth(bearer)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_iran_events"}}))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

#[tokio::test]
async fn discovery_documents_describe_the_origin_asked() {
    let app = TestApp::start().await;
    let r = app.http.get(format!("{}/.well-known/oauth-authorization-server", app.base)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "public, max-age=3600");
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
    let meta: Value = r.json().await.unwrap();
    assert_eq!(meta["issuer"], app.base);
    assert_eq!(meta["token_endpoint"], format!("{}/oauth/token", app.base));
    assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(meta["authorization_response_iss_parameter_supported"], true);
    assert_eq!(meta["agent_auth"]["skill"], format!("{}/auth.md", app.base));
    let r = app.http.head(format!("{}/.well-known/oauth-authorization-server", app.base)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = app
        .http
        .request(reqwest::Method::OPTIONS, format!("{}/.well-known/api-catalog", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let r = app.http.post(format!("{}/.well-known/oauth-protected-resource", app.base)).send().await.unwrap();
    assert_eq!((r.status().as_u16(), r.headers()["allow"].to_str().unwrap()), (405, "GET, HEAD, OPTIONS"));
    let (_, pr) = app.json("/.well-known/oauth-protected-resource/mcp").await;
    assert_eq!(pr["resource"], format!("{}/mcp", app.base));
    assert_eq!(pr["authorization_servers"], json!([app.base]));
    let r = app.http.get(format!("{}/.well-known/api-catalog", app.base)).send().await.unwrap();
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("application/linkset+json"));
    let catalog: Value = r.json().await.unwrap();
    assert_eq!(catalog["linkset"][0]["item"][1]["href"], format!("{}/mcp", app.base));
    let md = app.http.get(format!("{}/auth.md", app.base)).send().await.unwrap();
    assert!(md.headers()["content-type"].to_str().unwrap().starts_with("text/markdown"));
    assert!(md.text().await.unwrap().contains("/oauth/register"));
}

#[tokio::test]
async fn dynamic_client_registration() {
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("oauth-register=8").unwrap();
    let app = TestApp::start_with(sitrep_tests::Options { rate_limits: limits, ..Default::default() }).await;
    let bad_json = app.http.post(format!("{}/oauth/register", app.base)).body("{nope").send().await.unwrap();
    assert_eq!(
        bad_json.json::<Value>().await.unwrap(),
        json!({"error": "invalid_request", "error_description": "Invalid JSON body"})
    );
    for (body, error, description) in [
        (json!({}), "invalid_request", "redirect_uris is required"),
        (json!({"redirect_uris": []}), "invalid_request", "redirect_uris is required"),
        (
            json!({"redirect_uris": [CALLBACK, CALLBACK, CALLBACK, CALLBACK]}),
            "invalid_request",
            "Maximum 3 redirect_uris allowed",
        ),
        (
            json!({"redirect_uris": ["https://localhost/cb"]}),
            "invalid_redirect_uri",
            "Redirect URI not allowed: https://localhost/cb",
        ),
    ] {
        let (status, reply) = register(&app, body).await;
        assert_eq!((status, reply), (400, json!({"error": error, "error_description": description})));
    }
    let (status, body) = register(&app, json!({"redirect_uris": ["https://claude.ai/api/mcp/auth_callback"]})).await;
    assert_eq!(status, 201);
    assert_eq!(body["client_name"], "Unknown Client");
    assert_eq!(body["application_type"], "web");
    assert_eq!(body["token_endpoint_auth_method"], "none");
    assert!(uuid_like(body["client_id"].as_str().unwrap()));
    let (_, native) = register(&app, json!({"client_name": "x".repeat(150), "redirect_uris": [CALLBACK]})).await;
    assert_eq!(
        (native["application_type"].as_str(), native["client_name"].as_str().unwrap().len()),
        (Some("native"), 100)
    );
    let r = app.http.get(format!("{}/oauth/register", app.base)).send().await.unwrap();
    assert_eq!(r.status(), 405);
    // Per IP, 8 a minute here (5 by default): the 9th registration is refused.
    let (status, _) = register(&app, json!({"redirect_uris": [CALLBACK]})).await;
    assert_eq!(status, 201);
    let r = app
        .http
        .post(format!("{}/oauth/register", app.base))
        .json(&json!({"redirect_uris": [CALLBACK]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    assert_eq!(r.headers()["ratelimit-policy"], "\"oauth-register\";q=8;w=60");
    assert!(r.headers().contains_key("retry-after"));
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"error": "rate_limit_exceeded", "error_description": "Too many registration requests."})
    );
}

fn uuid_like(s: &str) -> bool {
    s.len() == 36 && s.chars().filter(|c| *c == '-').count() == 4
}

#[tokio::test]
async fn code_flow_refresh_rotation_and_family_revocation() {
    let app = TestApp::start().await;
    let client = client_id(&app).await;
    let answer = approve(&app, &client, &app.key).await;
    assert_eq!(answer["state"], "xyz");
    assert_eq!(answer["iss"], app.base);
    let code = answer["code"].clone();
    let (status, headers, tokens) = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("code_verifier", VERIFIER),
            ("client_id", &client),
            ("redirect_uri", CALLBACK),
        ],
    )
    .await;
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(
        (headers["cache-control"].to_str().unwrap(), headers["pragma"].to_str().unwrap()),
        ("no-store", "no-cache")
    );
    assert_eq!(
        (tokens["token_type"].as_str(), tokens["expires_in"].as_i64(), tokens["scope"].as_str()),
        (Some("Bearer"), Some(3600), Some("mcp"))
    );
    let access = tokens["access_token"].as_str().unwrap().to_string();
    let refresh1 = tokens["refresh_token"].as_str().unwrap().to_string();
    // The token works on REST and on /mcp.
    assert_eq!(rest_with(&app, &access).await, 200);
    let (status, body) = mcp_with(&app, &access).await;
    assert_eq!(status, 200, "{body}");

    // Rotation: a new pair; the old refresh token is spent.
    let (status, _, rotated) =
        token(&app, &[("grant_type", "refresh_token"), ("refresh_token", &refresh1), ("client_id", &client)]).await;
    assert_eq!(status, 200, "{rotated}");
    let refresh2 = rotated["refresh_token"].as_str().unwrap().to_string();
    let access2 = rotated["access_token"].as_str().unwrap().to_string();
    assert_ne!(refresh1, refresh2);
    assert_eq!(rest_with(&app, &access2).await, 200);
    // Replaying the spent one revokes the whole family: every token of it stops working.
    let (status, _, replay) =
        token(&app, &[("grant_type", "refresh_token"), ("refresh_token", &refresh1), ("client_id", &client)]).await;
    assert_eq!((status, replay["error"].as_str()), (400, Some("invalid_grant")));
    assert_eq!(replay["error_description"], "Refresh token is invalid, expired, or already used");
    assert_eq!(rest_with(&app, &access).await, 401);
    assert_eq!(rest_with(&app, &access2).await, 401);
    let (status, body) = mcp_with(&app, &access2).await;
    assert_eq!((status, &body["error"]["code"]), (401, &json!(-32001)));
    let (status, _, _) =
        token(&app, &[("grant_type", "refresh_token"), ("refresh_token", &refresh2), ("client_id", &client)]).await;
    assert_eq!(status, 400, "the family's newest refresh token is revoked too");

    // A code used twice: the second use fails and revokes what the first issued.
    let code = approve(&app, &client, &app.key).await["code"].clone();
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("code_verifier", VERIFIER),
        ("client_id", client.as_str()),
    ];
    let (_, _, first) = token(&app, &form).await;
    let first_access = first["access_token"].as_str().unwrap().to_string();
    assert_eq!(rest_with(&app, &first_access).await, 200);
    let (status, _, again) = token(&app, &form).await;
    assert_eq!(
        (status, again["error_description"].as_str()),
        (400, Some("Authorization code is invalid, expired, or already used"))
    );
    assert_eq!(rest_with(&app, &first_access).await, 401);

    // Revoking the API key revokes every family authorised through it.
    let code = approve(&app, &client, &app.key).await["code"].clone();
    let (_, _, t) = token(
        &app,
        &[("grant_type", "authorization_code"), ("code", &code), ("code_verifier", VERIFIER), ("client_id", &client)],
    )
    .await;
    let live = t["access_token"].as_str().unwrap().to_string();
    assert_eq!(rest_with(&app, &live).await, 200);
    let keys = app.state.store.list_keys().await.unwrap();
    assert!(app.state.store.revoke_key(&keys[0].0.id).await.unwrap());
    assert_eq!(rest_with(&app, &live).await, 401);
    let (status, _, _) = token(
        &app,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
            ("client_id", &client),
        ],
    )
    .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn authorization_errors_before_and_after_the_redirect_target_is_trusted() {
    let app = TestApp::start().await;
    let client = client_id(&app).await;
    let b = TestApp::no_redirects();
    // Before: HTML pages, never a redirect.
    let r = b.get(authorize_url(&app, "no-such-client", "")).send().await.unwrap();
    assert_eq!((r.status().as_u16(), r.headers()["x-frame-options"].to_str().unwrap()), (400, "DENY"));
    assert!(r.text().await.unwrap().contains("Unknown Client"));
    let r = b.get(authorize_url(&app, &client, "&redirect_uri=http://localhost:9/elsewhere")).send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("Redirect URI Mismatch"));
    // After: redirected errors with state and iss.
    let bad_type = authorize_url(&app, &client, "").replace("response_type=code", "response_type=token");
    let bad_pkce =
        authorize_url(&app, &client, "").replace("code_challenge_method=S256", "code_challenge_method=plain");
    let bad_target = authorize_url(&app, &client, "&resource=https://elsewhere.example/mcp");
    for (url, error) in
        [(bad_type, "unsupported_response_type"), (bad_pkce, "invalid_request"), (bad_target, "invalid_target")]
    {
        let r = b.get(&url).send().await.unwrap();
        assert_eq!(r.status(), 302, "{error}");
        let q = query_of(r.headers()["location"].to_str().unwrap());
        assert_eq!((q["error"].as_str(), q["state"].as_str(), q["iss"].as_str()), (error, "xyz", app.base.as_str()));
    }
    let ok = b.get(authorize_url(&app, &client, &format!("&resource={}/mcp", app.base))).send().await.unwrap();
    assert_eq!(ok.status(), 200, "our own resource is accepted");
    let html = ok.text().await.unwrap();
    let nonce = nonce_of(&html);
    // A wrong key re-renders the page with a new nonce; the used one is gone.
    let post = |form: Vec<(&'static str, String)>| b.post(format!("{}/oauth/authorize", app.base)).form(&form).send();
    let r = post(vec![
        ("nonce", nonce.clone()),
        ("api_key", "di_0000000000000000000000000000000000000000".into()),
        ("decision", "approve".into()),
    ])
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    let again = r.text().await.unwrap();
    assert!(again.contains("Invalid API key"));
    let fresh = nonce_of(&again);
    assert_ne!(fresh, nonce);
    let r = post(vec![("nonce", nonce), ("api_key", app.key.clone()), ("decision", "approve".into())]).await.unwrap();
    assert_eq!(r.status(), 400, "a used nonce");
    // Deny.
    let r = post(vec![("nonce", fresh), ("api_key", String::new()), ("decision", "deny".into())]).await.unwrap();
    assert_eq!(r.status(), 302);
    assert_eq!(query_of(r.headers()["location"].to_str().unwrap())["error"], "access_denied");
    // A foreign Origin on the form post.
    let r = b
        .post(format!("{}/oauth/authorize", app.base))
        .header("origin", "https://evil.example")
        .form(&[("nonce", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn token_endpoint_error_rows_and_client_credentials() {
    // More token requests than the default 10 a minute per IP.
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("oauth-token=100,oauth-token-address=100").unwrap();
    let app = TestApp::start_with(sitrep_tests::Options { rate_limits: limits, ..Default::default() }).await;
    let client = client_id(&app).await;
    let r = app
        .http
        .post(format!("{}/oauth/token", app.base))
        .json(&json!({"grant_type": "authorization_code"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_request");
    let (_, _, e) = token(&app, &[("grant_type", "authorization_code"), ("client_id", &client)]).await;
    assert_eq!(
        e,
        json!({"error": "invalid_request", "error_description": "Missing required parameters: code, code_verifier"})
    );
    let (_, _, e) = token(&app, &[("grant_type", "password")]).await;
    assert_eq!(e, json!({"error": "unsupported_grant_type"}));
    let (_, _, e) = token(
        &app,
        &[("grant_type", "authorization_code"), ("code", "x"), ("code_verifier", "short"), ("client_id", &client)],
    )
    .await;
    assert_eq!(e["error"], "invalid_request");
    let (status, _, e) = token(
        &app,
        &[("grant_type", "authorization_code"), ("code", "x"), ("code_verifier", VERIFIER), ("client_id", "gone")],
    )
    .await;
    assert_eq!((status, e["error"].as_str()), (401, Some("invalid_client")));
    assert_eq!(e["error_description"], "Client registration not found or expired. Please re-register.");
    let code = approve(&app, &client, &app.key).await["code"].clone();
    let wrong_verifier = "x".repeat(43);
    let (status, _, e) = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("code_verifier", &wrong_verifier),
            ("client_id", &client),
        ],
    )
    .await;
    assert_eq!((status, e["error_description"].as_str()), (400, Some("code_verifier does not match code_challenge")));
    // A wrong verifier used nothing up: the holder of the right one still redeems the code.
    let right = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("code_verifier", VERIFIER),
        ("client_id", client.as_str()),
    ];
    assert_eq!(token(&app, &right).await.0, 200, "the code survived a wrong verifier");
    let code = approve(&app, &client, &app.key).await["code"].clone();
    let mismatched = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("code_verifier", VERIFIER),
        ("client_id", client.as_str()),
        ("redirect_uri", "http://localhost:6274/other"),
    ];
    let (status, _, e) = token(&app, &mismatched).await;
    assert_eq!((status, e["error"].as_str()), (400, Some("invalid_grant")), "redirect_uri must match when present");
    let other = client_id(&app).await;
    let code = approve(&app, &client, &app.key).await["code"].clone();
    let foreign = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("code_verifier", VERIFIER),
        ("client_id", other.as_str()),
    ];
    let (status, _, e) = token(&app, &foreign).await;
    assert_eq!(
        (status, e["error_description"].as_str()),
        (400, Some("client_id does not match the authorization code"))
    );
    let (status, _, e) = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("code", "unknown"),
            ("code_verifier", VERIFIER),
            ("client_id", &client),
        ],
    )
    .await;
    assert_eq!((status, e["error"].as_str()), (400, Some("invalid_grant")));
    let (status, _, e) =
        token(&app, &[("grant_type", "refresh_token"), ("refresh_token", "nope"), ("client_id", &client)]).await;
    assert_eq!((status, e["error"].as_str()), (400, Some("invalid_grant")));

    // client_credentials: only operator keys.
    let (status, _, e) = token(&app, &[("grant_type", "client_credentials"), ("client_secret", &app.key)]).await;
    assert_eq!(
        (status, e),
        (401, json!({"error": "invalid_client", "error_description": "Invalid client credentials"}))
    );
    let account = app.state.store.find_account_by_name("test").await.unwrap().unwrap();
    let operator = app.state.store.create_key(&account.id, "ops", "di", &["mcp"], true).await.unwrap().secret;
    let (status, _, t) = token(&app, &[("grant_type", "client_credentials"), ("client_secret", &operator)]).await;
    assert_eq!(status, 200, "{t}");
    assert!(t.get("refresh_token").is_none());
    assert_eq!(rest_with(&app, t["access_token"].as_str().unwrap()).await, 200);
    // A resource this deployment does not serve (RFC 8707).
    let (status, _, e) = token(
        &app,
        &[
            ("grant_type", "client_credentials"),
            ("client_secret", &operator),
            ("resource", "https://elsewhere.example/mcp"),
        ],
    )
    .await;
    assert_eq!((status, e["error"].as_str()), (400, Some("invalid_target")));
    let mcp_resource = format!("{}/mcp", app.base);
    let (status, _, _) =
        token(&app, &[("grant_type", "client_credentials"), ("client_secret", &operator), ("resource", &mcp_resource)])
            .await;
    assert_eq!(status, 200);
    // A token this deployment never issued.
    assert_eq!(rest_with(&app, "forged-token-value-that-is-long-enough").await, 401);
}

#[tokio::test]
async fn lifetimes_on_a_controllable_clock() {
    let app = TestApp::start().await;
    let clock = &app.state.clock;
    let client = client_id(&app).await;
    let exchange = |code: String| {
        let client = client.clone();
        let app = &app;
        async move {
            token(
                app,
                &[
                    ("grant_type", "authorization_code"),
                    ("code", &code),
                    ("code_verifier", VERIFIER),
                    ("client_id", &client),
                ],
            )
            .await
        }
    };
    // A code lives 600 s.
    let code = approve(&app, &client, &app.key).await["code"].clone();
    clock.advance(601);
    let (status, _, e) = exchange(code).await;
    assert_eq!((status, e["error"].as_str()), (400, Some("invalid_grant")));
    // An access token lives 3600 s; its refresh token 7 days.
    let code = approve(&app, &client, &app.key).await["code"].clone();
    let (_, _, t) = exchange(code).await;
    let (access, refresh) =
        (t["access_token"].as_str().unwrap().to_string(), t["refresh_token"].as_str().unwrap().to_string());
    // Lifetimes count whole seconds and the wall clock moves on between the two requests (a
    // second's boundary may fall between them): one second of margin on each side.
    clock.advance(3_598);
    assert_eq!(rest_with(&app, &access).await, 200);
    clock.advance(3);
    assert_eq!(rest_with(&app, &access).await, 401);
    let (status, _, rotated) =
        token(&app, &[("grant_type", "refresh_token"), ("refresh_token", &refresh), ("client_id", &client)]).await;
    assert_eq!(status, 200, "a refresh token outlives its access token");
    clock.advance(7 * 86_400 + 1);
    let (status, _, _) = token(
        &app,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", rotated["refresh_token"].as_str().unwrap()),
            ("client_id", &client),
        ],
    )
    .await;
    assert_eq!(status, 400, "refresh tokens expire 7 days after their own issue");
    // A consent nonce lives 600 s.
    let b = TestApp::no_redirects();
    let html = b.get(authorize_url(&app, &client, "")).send().await.unwrap().text().await.unwrap();
    clock.advance(601);
    let r = b
        .post(format!("{}/oauth/authorize", app.base))
        .form(&[("nonce", nonce_of(&html).as_str()), ("api_key", app.key.as_str()), ("decision", "approve")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    // A registration lives 90 days after its last use (sliding).
    clock.advance(89 * 86_400);
    assert_eq!(b.get(authorize_url(&app, &client, "")).send().await.unwrap().status(), 200, "used: the window slides");
    clock.advance(89 * 86_400);
    assert_eq!(b.get(authorize_url(&app, &client, "")).send().await.unwrap().status(), 200);
    clock.advance(91 * 86_400);
    let r = b.get(authorize_url(&app, &client, "")).send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("Unknown Client"));
}

#[tokio::test]
async fn the_token_endpoint_answers_503_when_the_store_is_down() {
    let app = TestApp::start().await;
    let client = client_id(&app).await;
    app.state.store.close().await;
    let (status, headers, e) = token(
        &app,
        &[("grant_type", "authorization_code"), ("code", "x"), ("code_verifier", VERIFIER), ("client_id", &client)],
    )
    .await;
    assert_eq!(status, 503);
    assert_eq!(
        e,
        json!({"error": "server_error", "error_description": "Auth service temporarily unavailable. Please retry."})
    );
    assert_eq!(headers["cache-control"], "no-store");
}

/// Company monitoring's scopes in bearer tokens: a token granted `company_monitoring:read` reads
/// the account's companies; one granted only `mcp` is refused with `insufficient_scope`.
#[tokio::test]
async fn company_monitoring_scopes_travel_in_bearer_tokens() {
    let settings = sitrep_cm::settings::CmSettings {
        cursor_secret: Some(b"company-monitoring-cursor-secret".to_vec()),
        search_provider_url: Some("http://127.0.0.1:9/search".into()),
        ..Default::default()
    };
    let app = TestApp::start_with(sitrep_tests::Options { company_monitoring: settings, ..Default::default() }).await;
    let account = app.state.store.create_account("cm-oauth", sitrep_platform::state::Plan::Business).await.unwrap();
    let scopes = ["mcp", "company_monitoring:read", "company_monitoring:write"];
    let key = app.state.store.create_key(&account.id, "owner", "di", &scopes, false).await.unwrap().secret;
    let client = client_id(&app).await;
    let list = "/api/company-monitoring/v1/list-monitored-companies";
    for (scope, expected) in [("mcp%20company_monitoring%3Aread", 200), ("mcp", 403)] {
        let url = authorize_url(&app, &client, "").replace("scope=mcp", &format!("scope={scope}"));
        let r = consent(&app, url, &key).await;
        let code = query_of(r.headers()["location"].to_str().unwrap())["code"].clone();
        let (status, _, tokens) = token(
            &app,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("code_verifier", VERIFIER),
                ("client_id", &client),
                ("redirect_uri", CALLBACK),
            ],
        )
        .await;
        assert_eq!(status, 200, "{tokens}");
        let bearer = tokens["access_token"].as_str().unwrap();
        let r = app.http.get(format!("{}{list}", app.base)).bearer_auth(bearer).send().await.unwrap();
        assert_eq!(r.status().as_u16(), expected, "scope {scope}");
        if expected == 403 {
            assert_eq!(r.json::<Value>().await.unwrap()["error"], "insufficient_scope");
        }
    }
}

/// A code or refresh token presented with another client's id is refused and stays the owner's:
/// nothing is used up, rotated or revoked by it.
#[tokio::test]
async fn a_grant_presented_by_another_client_is_refused_and_not_spent() {
    let app = TestApp::start().await;
    let (owner, other) = (client_id(&app).await, client_id(&app).await);
    let code = approve(&app, &owner, &app.key).await["code"].clone();
    let redeem = |client: &str| {
        let (app, code, client) = (&app, code.clone(), client.to_string());
        async move {
            let form = [
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("code_verifier", VERIFIER),
                ("client_id", client.as_str()),
                ("redirect_uri", CALLBACK),
            ];
            token(app, &form).await
        }
    };
    let (status, _, body) = redeem(&other).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")), "{body}");
    let (status, _, tokens) = redeem(&owner).await;
    assert_eq!(status, 200, "the owner's code was not burned: {tokens}");
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let rotate = |client: &str| {
        let form = [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", client)];
        let form: Vec<(&str, String)> = form.iter().map(|(k, v)| (*k, v.to_string())).collect();
        let app = &app;
        async move {
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            token(app, &form).await
        }
    };
    let (status, _, body) = rotate(&other).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")), "{body}");
    // The owner's token still rotates, and the stranger's attempt revoked nothing.
    let (status, _, rotated) = rotate(&owner).await;
    assert_eq!(status, 200, "{rotated}");
    assert_eq!(rest_with(&app, rotated["access_token"].as_str().unwrap()).await, 200);
    assert_eq!(rest_with(&app, tokens["access_token"].as_str().unwrap()).await, 200);
}

/// `oauth-token` is counted per client_id (SUPPLEMENT 1.12), not per address.
#[tokio::test]
async fn the_token_endpoint_counts_each_client_on_its_own() {
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("oauth-token=3,oauth-register=100").unwrap();
    let app = TestApp::start_with(sitrep_tests::Options { rate_limits: limits, ..Default::default() }).await;
    let (busy, quiet) = (client_id(&app).await, client_id(&app).await);
    let attempt = |client: &str| {
        let form = [("grant_type", "refresh_token"), ("refresh_token", "nope"), ("client_id", client)];
        let form: Vec<(&str, String)> = form.iter().map(|(k, v)| (*k, v.to_string())).collect();
        let app = &app;
        async move {
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            token(app, &form).await.0
        }
    };
    for _ in 0..3 {
        assert_eq!(attempt(&busy).await, 400);
    }
    assert_eq!(attempt(&busy).await, 429);
    assert_eq!(attempt(&quiet).await, 400, "another client from the same address has its own window");
    let form = [("grant_type", "refresh_token"), ("refresh_token", "nope"), ("client_id", busy.as_str())];
    let (_, _, refused) = token(&app, &form).await;
    assert_eq!(
        refused,
        json!({"error": "rate_limit_exceeded", "error_description": "Too many token requests. Try again later."})
    );
}

/// Beside each client's window, one address has one window for token requests (issue 55): a
/// caller naming a made-up client id each time is refused once it is full, in the token
/// endpoint's words.
#[tokio::test]
async fn the_token_endpoint_counts_each_address_whatever_client_it_names() {
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("oauth-token-address=3").unwrap();
    let app = TestApp::start_with(sitrep_tests::Options { rate_limits: limits, ..Default::default() }).await;
    let attempt = |n: usize| {
        let client = format!("made-up-{n}");
        let app = &app;
        async move {
            let form = [("grant_type", "refresh_token"), ("refresh_token", "nope"), ("client_id", client.as_str())];
            token(app, &form).await
        }
    };
    for n in 0..3 {
        let (status, _, e) = attempt(n).await;
        assert!(matches!(status, 400 | 401), "{status} {e}");
    }
    let (status, _, refused) = attempt(3).await;
    assert_eq!(
        (status, refused),
        (
            429,
            json!({"error": "rate_limit_exceeded", "error_description": "Too many token requests. Try again later."})
        )
    );
}

/// GET /oauth/authorize writes a nonce and may fetch a document: limited per address (in a window
/// apart from the consent form's), refused with the consent form's plain-text page.
#[tokio::test]
async fn the_authorize_page_is_limited_per_address() {
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("oauth-authorize=3,oauth-register=100").unwrap();
    let app = TestApp::start_with(sitrep_tests::Options { rate_limits: limits, ..Default::default() }).await;
    let client = client_id(&app).await;
    let page = || {
        let url = format!(
            "{}/oauth/authorize?response_type=code&client_id={client}&redirect_uri={CALLBACK}&code_challenge={}&code_challenge_method=S256",
            app.base,
            "a".repeat(43)
        );
        let http = app.http.clone();
        async move { http.get(url).send().await.unwrap() }
    };
    for _ in 0..3 {
        assert_eq!(page().await.status(), 200);
    }
    let refused = page().await;
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    assert_eq!(refused.headers()["content-type"], "text/plain; charset=utf-8");
    assert_eq!(refused.text().await.unwrap(), "Too Many Requests");
}

/// A suspended account authorises nothing: its key signs no consent and its operator key gets no
/// client_credentials token (SUPPLEMENT 1.10: everything refused).
#[tokio::test]
async fn a_suspended_account_authorises_nothing() {
    let app = TestApp::start().await;
    let client = client_id(&app).await;
    let account = app.store.create_account("to-suspend", sitrep_platform::state::Plan::Pro).await.unwrap();
    let key = app.store.create_key(&account.id, "user", "di", &["mcp"], false).await.unwrap().secret;
    let operator = app.store.create_key(&account.id, "operator", "di", &["mcp"], true).await.unwrap().secret;
    let granted = token(&app, &[("grant_type", "client_credentials"), ("client_secret", &operator)]).await;
    assert_eq!(granted.0, 200, "active: granted");
    app.store.set_account_status(&account.id, "suspended").await.unwrap();
    let (status, _, e) = token(&app, &[("grant_type", "client_credentials"), ("client_secret", &operator)]).await;
    assert_eq!((status, e["error"].as_str()), (401, Some("invalid_client")));
    let r = consent(&app, authorize_url(&app, &client, ""), &key).await;
    assert_eq!(r.status(), 200, "the form again, no code");
    assert!(r.text().await.unwrap().contains("API access requires an active subscription"));
}
