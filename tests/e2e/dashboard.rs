//! The dashboard and the status page over real HTTP: sign-in by API key into a cookie session,
//! CSRF and Origin checks, keys (shown once, at most 5 active, revocation), connected clients.

use serde_json::Value;
use sitrep_platform::state::Plan;
use sitrep_tests::TestApp;

fn csrf_of(html: &str) -> String {
    let at = html.find("name=\"csrf\" value=\"").expect("a CSRF token") + 19;
    html[at..].split('"').next().unwrap().to_string()
}

/// The sign-in form posted with `key` from `origin` (a browser always sends one).
async fn sign_in_from(app: &TestApp, key: &str, origin: Option<&str>) -> reqwest::Response {
    let mut request = TestApp::no_redirects().post(format!("{}/dashboard/sign-in", app.base));
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    request.form(&[("api_key", key)]).send().await.unwrap()
}

/// Signs in with `key`: the session cookie.
async fn sign_in(app: &TestApp, key: &str) -> String {
    let r = sign_in_from(app, key, Some(&app.base)).await;
    assert_eq!(r.status(), 303);
    let set = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.contains("Max-Age=43200"), "{set}");
    set.split(';').next().unwrap().to_string()
}

async fn page(app: &TestApp, cookie: &str) -> String {
    let r =
        TestApp::no_redirects().get(format!("{}/dashboard", app.base)).header("cookie", cookie).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-frame-options"], "DENY");
    assert_eq!(r.headers()["cache-control"], "no-store");
    r.text().await.unwrap()
}

async fn post(app: &TestApp, cookie: &str, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
    TestApp::no_redirects()
        .post(format!("{}{path}", app.base))
        .header("cookie", cookie)
        .form(form)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn sign_in_keys_shown_once_limits_and_revocation() {
    let app = TestApp::start().await;
    let anonymous =
        TestApp::no_redirects().get(format!("{}/dashboard", app.base)).send().await.unwrap().text().await.unwrap();
    assert!(anonymous.contains("Sign in"));
    let r = sign_in_from(&app, "di_nope", Some(&app.base)).await;
    assert_eq!(r.status(), 401);
    assert!(r.text().await.unwrap().contains("Invalid API key"));

    let cookie = sign_in(&app, &app.key).await;
    let html = page(&app, &cookie).await;
    assert!(html.contains("API Keys") && html.contains("Connected MCP Clients"));
    let csrf = csrf_of(&html);
    // Without the CSRF token, or from another origin: refused.
    assert_eq!(post(&app, &cookie, "/dashboard/keys", &[("name", "x")]).await.status(), 403);
    let r = TestApp::no_redirects()
        .post(format!("{}/dashboard/keys", app.base))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .form(&[("csrf", csrf.as_str()), ("name", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);

    // A new key: its secret shown once, then it works, then only its prefix is listed.
    let created = post(&app, &cookie, "/dashboard/keys", &[("csrf", &csrf), ("name", "laptop")]).await;
    let created = created.text().await.unwrap();
    let at = created.find("<code id=\"new-key\">").unwrap() + 19;
    let secret = created[at..].split('<').next().unwrap().to_string();
    assert!(sitrep_platform::state::looks_like_api_key(&secret));
    let r = app
        .http
        .get(format!("{}/api/conflict/v1/list-iran-events", app.base))
        .header("x-service-key", &secret)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let listed = page(&app, &cookie).await;
    assert!(!listed.contains(&secret), "the secret is shown once");
    assert!(listed.contains("laptop"));
    // At most 5 active keys.
    for i in 0..3 {
        post(&app, &cookie, "/dashboard/keys", &[("csrf", &csrf), ("name", &format!("k{i}"))]).await;
    }
    let refused =
        post(&app, &cookie, "/dashboard/keys", &[("csrf", &csrf), ("name", "sixth")]).await.text().await.unwrap();
    assert!(refused.contains("at most 5 active keys"));
    // Revoking a key: refused at once on the API.
    let keys = app
        .state
        .store
        .keys_of(&app.state.store.find_account_by_name("test").await.unwrap().unwrap().id)
        .await
        .unwrap();
    let laptop = keys.iter().find(|k| k.name == "laptop").unwrap();
    assert_eq!(
        post(&app, &cookie, "/dashboard/keys/revoke", &[("csrf", &csrf), ("key_id", &laptop.id)]).await.status(),
        303
    );
    let r = app
        .http
        .get(format!("{}/api/conflict/v1/list-iran-events", app.base))
        .header("x-service-key", &secret)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // Sign out ends the session.
    let r = post(&app, &cookie, "/dashboard/sign-out", &[("csrf", &csrf)]).await;
    assert!(r.headers()["set-cookie"].to_str().unwrap().contains("Max-Age=0"));
    let after = TestApp::no_redirects()
        .get(format!("{}/dashboard", app.base))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(after.contains("Sign in"));
}

#[tokio::test]
async fn the_status_page_in_html_and_json() {
    let app = TestApp::start().await;
    let r = app.http.get(format!("{}/status", app.base)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    for d in sitrep_schemas::DatasetId::ALL {
        assert!(html.contains(d.as_str()), "{d}");
    }
    assert!(html.contains("<svg") && html.contains("replay"));
    let (status, json): (u16, Value) = app.json("/status?format=json").await;
    assert_eq!(status, 200);
    let armed = json["datasets"].as_array().unwrap().iter().find(|d| d["dataset"] == "armed-events").unwrap();
    assert_eq!(armed["mode"], "replay");
    let (_, ready) = app.json("/readyz").await;
    assert_eq!(armed["state"], ready["datasets"]["armed-events"]["state"]);
    assert_eq!(json["generation"], ready["generation"]);
}

#[tokio::test]
async fn a_session_lasts_twelve_hours() {
    let app = TestApp::start().await;
    let cookie = sign_in(&app, &app.key).await;
    app.state.clock.advance(12 * 3_600 - 5);
    assert!(page(&app, &cookie).await.contains("API Keys"));
    app.state.clock.advance(10);
    let after =
        TestApp::no_redirects().get(format!("{}/dashboard", app.base)).header("cookie", &cookie).send().await.unwrap();
    assert!(after.text().await.unwrap().contains("Sign in"));
}

/// The company-monitoring page: shown with the `ui` flag to an entitled account's key that may
/// read company monitoring, read through the operations; otherwise a page that says why not.
#[tokio::test]
async fn the_company_monitoring_page_follows_the_flag_the_plan_and_the_scopes() {
    use sitrep_cm::settings::{CmSettings, Flags};
    let settings = |ui: bool| CmSettings {
        cursor_secret: Some(b"company-monitoring-cursor-secret".to_vec()),
        search_provider_url: Some("http://127.0.0.1:9/search".into()),
        flags: Flags { ui, ..Flags::default() },
        ..CmSettings::default()
    };
    let app =
        TestApp::start_with(sitrep_tests::Options { company_monitoring: settings(true), ..Default::default() }).await;
    let account = app.state.store.create_account("cm-ui", sitrep_platform::state::Plan::Business).await.unwrap();
    let reader = app
        .state
        .store
        .create_key(&account.id, "reader", "di", &["mcp", "company_monitoring:read"], false)
        .await
        .unwrap()
        .secret;
    let plain = app.state.store.create_key(&account.id, "plain", "di", &["mcp"], false).await.unwrap().secret;
    let mut v = sitrep_cm::violations::Violations::default();
    let value =
        serde_json::json!({"name": "Ashgrove <Pharma>", "domicileCountry": "GB", "domains": ["ashgrovepharma.co.uk"]});
    let input = sitrep_cm::company_input::CompanyInput::parse("company", Some(&value), &mut v).unwrap();
    sitrep_api::context(&app.state)
        .company_monitoring
        .store
        .create(&account.id, "r1", &input, 10, 1_000)
        .await
        .unwrap();
    let companies = |cookie: String| {
        let url = format!("{}/dashboard/companies", app.base);
        async move {
            let r = TestApp::no_redirects().get(url).header("cookie", cookie).send().await.unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    };
    let cookie = sign_in(&app, &reader).await;
    assert!(page(&app, &cookie).await.contains("href=\"/dashboard/companies\""));
    let (status, html) = companies(cookie).await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("data-label=\"Company\">Ashgrove &lt;Pharma&gt;</td>"), "escaped: {html}");
    assert!(html.contains("awaiting first scan") && html.contains("No impacts yet."));
    let (status, html) = companies(sign_in(&app, &plain).await).await;
    assert_eq!(status, 404);
    assert!(html.contains("company_monitoring:read"), "{html}");
    let anonymous = TestApp::no_redirects().get(format!("{}/dashboard/companies", app.base)).send().await.unwrap();
    assert_eq!(anonymous.status(), 303);
    let off =
        TestApp::start_with(sitrep_tests::Options { company_monitoring: settings(false), ..Default::default() }).await;
    let account = off.state.store.create_account("cm-ui-off", sitrep_platform::state::Plan::Business).await.unwrap();
    let key = off
        .state
        .store
        .create_key(&account.id, "k", "di", &["mcp", "company_monitoring:read"], false)
        .await
        .unwrap()
        .secret;
    let cookie = sign_in(&off, &key).await;
    let r = TestApp::no_redirects()
        .get(format!("{}/dashboard/companies", off.base))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404, "the ui flag is off");
}

/// The page reads through the operations, and each read counts in the account's window as over
/// REST: the page is no way around the account's rate limit (issue 55: it was unlimited).
#[tokio::test]
async fn the_company_monitoring_page_counts_in_the_accounts_window() {
    use sitrep_cm::settings::{CmSettings, Flags};
    let company_monitoring = CmSettings {
        cursor_secret: Some(b"company-monitoring-cursor-secret".to_vec()),
        search_provider_url: Some("http://127.0.0.1:9/search".into()),
        flags: Flags { ui: true, ..Flags::default() },
        ..CmSettings::default()
    };
    let rate_limits = sitrep_platform::edge::rate_limit::Limits::parse("default=4").unwrap();
    let app =
        TestApp::start_with(sitrep_tests::Options { company_monitoring, rate_limits, ..Default::default() }).await;
    let (_, reader) = key_with(&app, "cm-ui-limited", Plan::Business, &["mcp", "company_monitoring:read"]).await;
    let cookie = sign_in(&app, &reader).await;
    let view = || {
        let r = TestApp::no_redirects().get(format!("{}/dashboard/companies", app.base)).header("cookie", &cookie);
        async move { r.send().await.unwrap().status().as_u16() }
    };
    assert_eq!(view().await, 200, "three reads of four");
    assert_eq!(view().await, 429, "the fifth read is past the window");
    let rest = app.http.get(format!("{}/api/company-monitoring/v1/list-monitored-companies", app.base));
    assert_eq!(rest.header("x-service-key", &reader).send().await.unwrap().status(), 429, "one window");
}

async fn key_with(app: &TestApp, account: &str, plan: Plan, scopes: &[&str]) -> (String, String) {
    let account = app.state.store.create_account(account, plan).await.unwrap();
    (account.id.clone(), app.state.store.create_key(&account.id, "signing", "di", scopes, false).await.unwrap().secret)
}

/// The keys of `account_id` that are live, as (name, scopes).
async fn live_keys(app: &TestApp, account_id: &str) -> Vec<(String, Vec<String>)> {
    let keys = app.state.store.keys_of(account_id).await.unwrap();
    keys.into_iter().filter(|k| k.revoked_at.is_none()).map(|k| (k.name, k.scopes)).collect()
}

#[tokio::test]
async fn a_new_key_has_at_most_the_signing_keys_scopes_that_its_plan_allows() {
    let app = TestApp::start().await;
    // A Pro account's key with every scope (minted before company monitoring was a Business
    // scope, say): its plan still keeps company-monitoring scopes out of new keys.
    let cm = ["mcp", "company_monitoring:read", "company_monitoring:write"];
    let (pro_id, pro_key) = key_with(&app, "pro-signer", Plan::Pro, &cm).await;
    // A Business account's key with `mcp` only: it cannot mint more than it has.
    let (biz_id, mcp_only) = key_with(&app, "biz-signer", Plan::Business, &["mcp"]).await;
    let reader = app.state.store.create_key(&biz_id, "reader", "di", &["mcp", "company_monitoring:read"], false);
    let reader = reader.await.unwrap().secret;
    for (account_id, key, scope) in [
        (&pro_id, &pro_key, "company_monitoring:read"),
        (&biz_id, &mcp_only, "company_monitoring:read"),
        (&biz_id, &reader, "company_monitoring:write"),
    ] {
        let cookie = sign_in(&app, key).await;
        let html = page(&app, &cookie).await;
        assert!(!html.contains(&format!("value=\"{scope}\"")), "{scope} is not offered");
        let before = live_keys(&app, account_id).await;
        let csrf = csrf_of(&html);
        let r = post(&app, &cookie, "/dashboard/keys", &[("csrf", &csrf), ("name", "more"), ("scope", scope)]).await;
        let refused = r.text().await.unwrap();
        assert!(refused.contains("cannot grant the scope"), "{refused}");
        assert_eq!(live_keys(&app, account_id).await, before, "nothing minted");
    }
    // What the signing key has, on a Business plan, it may pass on.
    let cookie = sign_in(&app, &reader).await;
    let html = page(&app, &cookie).await;
    let form = [("csrf", csrf_of(&html)), ("name", "passed-on".into()), ("scope", "company_monitoring:read".into())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    post(&app, &cookie, "/dashboard/keys", &form).await;
    let keys = live_keys(&app, &biz_id).await;
    let passed_on = keys.iter().find(|(name, _)| name == "passed-on").expect("minted");
    assert_eq!(passed_on.1, ["mcp", "company_monitoring:read"]);
}

#[tokio::test]
async fn concurrent_mints_never_pass_five_active_keys() {
    let app = TestApp::start().await;
    let (account_id, key) = key_with(&app, "racer", Plan::Pro, &["mcp"]).await;
    let cookie = sign_in(&app, &key).await;
    let csrf = csrf_of(&page(&app, &cookie).await);
    let mints =
        (0..20).map(|i| {
            let (app, cookie, csrf) = (&app, cookie.clone(), csrf.clone());
            async move {
                post(app, &cookie, "/dashboard/keys", &[("csrf", &csrf), ("name", &format!("k{i}"))]).await.status()
            }
        });
    let statuses = futures::future::join_all(mints).await;
    assert!(statuses.iter().all(|s| s.is_success()), "{statuses:?}");
    assert_eq!(live_keys(&app, &account_id).await.len(), 5);
}

#[tokio::test]
async fn a_suspended_account_cannot_sign_in_and_its_sessions_end() {
    let app = TestApp::start().await;
    let (account_id, key) = key_with(&app, "to-suspend", Plan::Pro, &["mcp"]).await;
    let cookie = sign_in(&app, &key).await;
    app.state.store.set_account_status(&account_id, "suspended").await.unwrap();
    let r = TestApp::no_redirects().get(format!("{}/dashboard", app.base)).header("cookie", &cookie).send().await;
    let r = r.unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("API access requires an active subscription"));
    let r = sign_in_from(&app, &key, Some(&app.base)).await;
    assert_eq!(r.status(), 403);
    assert!(r.headers().get("set-cookie").is_none(), "no session for a suspended account");
}

#[tokio::test]
async fn a_sign_in_needs_our_origin() {
    let app = TestApp::start().await;
    for origin in [None, Some("https://evil.example"), Some("null")] {
        let r = sign_in_from(&app, &app.key, origin).await;
        assert_eq!(r.status(), 403, "{origin:?}");
        assert!(r.headers().get("set-cookie").is_none(), "{origin:?}");
    }
    assert_eq!(sign_in_from(&app, &app.key, Some(&app.base)).await.status(), 303);
}

#[tokio::test]
async fn revoking_by_a_prefix_two_keys_share_revokes_neither() {
    let app = TestApp::start().await;
    let (a, key_a) = key_with(&app, "prefix-a", Plan::Pro, &["mcp"]).await;
    let (_, key_b) = key_with(&app, "prefix-b", Plan::Free, &["mcp"]).await;
    // Two accounts' keys with one display prefix (20 random bits: it happens).
    let shared = "di_00000";
    let store = &app.state.store;
    let ids: Vec<String> =
        futures::future::join_all([&key_a, &key_b].map(|k| async move {
            store.live_key(&sitrep_platform::state::hash_secret(k)).await.unwrap().unwrap().0.id
        }))
        .await;
    for id in &ids {
        sqlx::query("UPDATE api_keys SET display_prefix = $1 WHERE id = $2")
            .bind(shared)
            .bind(id)
            .execute(store.db().pool())
            .await
            .unwrap();
    }
    let refused = store.revoke_key(shared).await.unwrap_err().to_string();
    assert!(refused.contains("names 2 live keys"), "{refused}");
    for k in [&key_a, &key_b] {
        assert!(store.live_key(&sitrep_platform::state::hash_secret(k)).await.unwrap().is_some(), "still live");
    }
    // By id: exactly that key.
    assert!(store.revoke_key(&ids[0]).await.unwrap());
    assert_eq!(live_keys(&app, &a).await.len(), 0);
    assert!(store.live_key(&sitrep_platform::state::hash_secret(&key_b)).await.unwrap().is_some());
}

/// What the webhooks page shows after a form: its status line (or refusal), and a new secret.
fn flash_of(html: &str) -> (String, Option<String>) {
    let note = html.split("class=\"note").nth(1).map(|n| n.split("</p>").next().unwrap().to_string());
    let secret = html.split("id=\"new-secret\">").nth(1).map(|s| s.split('<').next().unwrap().to_string());
    (note.unwrap_or_default(), secret)
}

async fn endpoints(app: &TestApp, key: &str) -> Vec<Value> {
    let r = reqwest::Client::new()
        .get(format!("{}/api/webhooks/v1/list-webhook-endpoints", app.base))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    r.json::<Value>().await.unwrap()["endpoints"].as_array().unwrap().clone()
}

#[tokio::test]
async fn the_webhooks_page_manages_endpoints_through_the_operations() {
    let app = TestApp::start().await;
    let receiver = crate::webhooks::Receiver::start(&[]).await;
    let cookie = sign_in(&app, &app.key).await;
    let page = |cookie: String| {
        let url = format!("{}/dashboard/webhooks", app.base);
        async move { TestApp::no_redirects().get(url).header("cookie", cookie).send().await.unwrap().text().await.unwrap() }
    };
    let csrf = csrf_of(&page(cookie.clone()).await);
    let form = |path: &'static str, fields: Vec<(&'static str, String)>| {
        let (app, cookie, csrf) = (&app, cookie.clone(), csrf.clone());
        async move {
            let mut all = vec![("csrf", csrf)];
            all.extend(fields);
            let all: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let r = post(app, &cookie, path, &all).await;
            assert_eq!(r.status(), 200);
            r.text().await.unwrap()
        }
    };
    // The operation's refusal, in its words: a private address is no endpoint.
    let refused = form(
        "/dashboard/webhooks/create",
        vec![("url", "https://10.0.0.7/hook".into()), ("event_type", "dataset.version.published".into())],
    )
    .await;
    let (note, secret) = flash_of(&refused);
    assert!(note.contains("Not saved") && note.contains("url"), "{note}");
    assert_eq!((secret, endpoints(&app, &app.key).await.len()), (None, 0));
    // Added: its secret shown once, on this page only.
    let created = form(
        "/dashboard/webhooks/create",
        vec![
            ("url", receiver.url.clone()),
            ("description", "nightly pipeline".into()),
            ("event_type", "dataset.version.published".into()),
        ],
    )
    .await;
    let (note, secret) = flash_of(&created);
    let secret = secret.unwrap_or_else(|| panic!("no secret shown: {note}"));
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert!(!page(cookie.clone()).await.contains(&secret), "the secret is shown again");
    let listed = endpoints(&app, &app.key).await;
    assert_eq!((listed.len(), &listed[0]["description"]), (1, &Value::from("nightly pipeline")));
    let id = listed[0]["endpointId"].as_str().unwrap().to_string();
    // A test event arrives signed with that secret; a redelivery of it keeps its webhook-id.
    let html = form("/dashboard/webhooks/test", vec![("endpoint_id", id.clone())]).await;
    assert!(flash_of(&html).0.contains("Test event queued"), "{}", flash_of(&html).0);
    let got = receiver.wait_for(1, 10).await;
    assert!(got[0].signed_by(&secret));
    // Received is not yet recorded: the delivery stays under its worker's lease until it is.
    crate::webhooks::recorded(&app, &app.key, &id, 1).await;
    let html =
        form("/dashboard/webhooks/redeliver", vec![("endpoint_id", id.clone()), ("delivery_id", got[0].id.clone())])
            .await;
    assert!(flash_of(&html).0.contains("1 delivery queued again"), "{}", flash_of(&html).0);
    assert_eq!(receiver.wait_for(2, 10).await[1].id, got[0].id);
    let html = form(
        "/dashboard/webhooks/redeliver",
        vec![("endpoint_id", id.clone()), ("failed_since", "2026-01-01T00:00".into())],
    )
    .await;
    assert!(flash_of(&html).0.contains("0 deliveries queued again"), "{}", flash_of(&html).0);
    // Rotated: a new secret, shown once.
    let (_, rotated) = flash_of(&form("/dashboard/webhooks/rotate", vec![("endpoint_id", id.clone())]).await);
    assert!(rotated.as_ref().is_some_and(|r| r.starts_with("whsec_") && *r != secret), "{rotated:?}");
    // Disabled, enabled, edited.
    form("/dashboard/webhooks/enable", vec![("endpoint_id", id.clone()), ("enabled", "false".into())]).await;
    assert_eq!(endpoints(&app, &app.key).await[0]["enabled"], false);
    form("/dashboard/webhooks/enable", vec![("endpoint_id", id.clone()), ("enabled", "true".into())]).await;
    assert_eq!(endpoints(&app, &app.key).await[0]["enabled"], true);
    let edited = form(
        "/dashboard/webhooks/update",
        vec![
            ("endpoint_id", id.clone()),
            ("url", receiver.url.clone()),
            ("description", "renamed".into()),
            ("event_type", "dataset.version.published".into()),
        ],
    )
    .await;
    assert!(flash_of(&edited).0.contains("Endpoint saved"), "{}", flash_of(&edited).0);
    assert_eq!(endpoints(&app, &app.key).await[0]["description"], "renamed");
    // Another account's page cannot reach it: the operation answers as it would over REST.
    let other = crate::webhooks::account(&app, Plan::Pro, &[]).await;
    let other_cookie = sign_in(&app, &other.key).await;
    let other_csrf = csrf_of(&page(other_cookie.clone()).await);
    let r =
        post(&app, &other_cookie, "/dashboard/webhooks/delete", &[("csrf", &other_csrf), ("endpoint_id", &id)]).await;
    assert!(flash_of(&r.text().await.unwrap()).0.contains("Not done"));
    // A form without the session's token does nothing.
    let r = post(&app, &cookie, "/dashboard/webhooks/delete", &[("csrf", "forged"), ("endpoint_id", &id)]).await;
    assert_eq!(r.status(), 403);
    assert_eq!(endpoints(&app, &app.key).await.len(), 1);
    let deleted = form("/dashboard/webhooks/delete", vec![("endpoint_id", id.clone())]).await;
    assert!(flash_of(&deleted).0.contains("Endpoint deleted"), "{}", flash_of(&deleted).0);
    assert!(endpoints(&app, &app.key).await.is_empty());
}
