//! Client ID Metadata Documents (SUPPLEMENT 5.4a) against a local HTTPS server: a client whose
//! `client_id` is its document's URL goes through consent and the token endpoint; the SSRF rules
//! (loopback, private addresses, redirects, oversize documents, a wrong `client_id`) refuse the
//! rest before any redirect target is trusted.

use std::{collections::HashMap, sync::Arc};

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use serde_json::json;
use sha2::{Digest, Sha256};
use sitrep_tests::{Options, TestApp};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CALLBACK: &str = "http://localhost:6274/oauth/callback";
const VERIFIER: &str = "metadata-document-client-verifier-0123456789abcdef";

/// What the document server answers on a path: status, extra headers, body.
type Reply = (u16, Vec<(&'static str, String)>, Vec<u8>);

/// An HTTPS server on 127.0.0.1 with a certificate for `localhost`; returns its base URL and the
/// certificate (PEM) to trust.
async fn document_server(replies: impl Fn(&str) -> HashMap<String, Reply>) -> (String, Vec<u8>) {
    let (base, ca, _) = counting_document_server(replies).await;
    (base, ca)
}

/// [`document_server`], and the count of requests it has read.
async fn counting_document_server(
    replies: impl Fn(&str) -> HashMap<String, Reply>,
) -> (String, Vec<u8>, Arc<std::sync::atomic::AtomicUsize>) {
    let served = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = served.clone();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let cert_der = certified.cert.der().clone();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert_der], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("https://localhost:{}", listener.local_addr().unwrap().port());
    let replies = Arc::new(replies(&base));
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else { return };
            let (acceptor, replies, counted) = (acceptor.clone(), replies.clone(), counted.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else { return };
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let path = String::from_utf8_lossy(&head).split_whitespace().nth(1).unwrap_or("/").to_string();
                let (status, headers, body) =
                    replies.get(&path).cloned().unwrap_or((404, vec![], b"not found".to_vec()));
                let mut out = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
                for (k, v) in headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                let _ = tls.write_all(out.as_bytes()).await;
                let _ = tls.write_all(&body).await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (base, certified.cert.pem().into_bytes(), served)
}

fn document(id: &str, extra: serde_json::Value) -> Reply {
    let mut doc = json!({"client_id": id, "client_name": "Doc Client", "redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"});
    for (k, v) in extra.as_object().unwrap() {
        doc[k] = v.clone();
    }
    (
        200,
        vec![("content-type", "application/json".into()), ("cache-control", "max-age=300".into())],
        doc.to_string().into_bytes(),
    )
}

fn authorize_url(app: &TestApp, client_id: &str) -> String {
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(VERIFIER.as_bytes()));
    let mut url = url::Url::parse(&format!("{}/oauth/authorize", app.base)).unwrap();
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", client_id)
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", "s");
    url.to_string()
}

async fn documents() -> (String, Vec<u8>) {
    document_server(|base| {
        let mut m = HashMap::new();
        m.insert("/good.json".to_string(), document(&format!("{base}/good.json"), json!({})));
        m.insert("/wrong-id.json".to_string(), document("https://elsewhere.example/client.json", json!({})));
        m.insert(
            "/secret.json".to_string(),
            document(&format!("{base}/secret.json"), json!({"token_endpoint_auth_method": "client_secret_basic"})),
        );
        m.insert(
            "/big.json".to_string(),
            document(
                &format!("{base}/big.json"),
                json!({"client_uri": format!("https://x.example/{}", "a".repeat(6000))}),
            ),
        );
        m.insert("/moved.json".to_string(), (302, vec![("location", format!("{base}/good.json"))], Vec::new()));
        m
    })
    .await
}

#[tokio::test]
async fn a_metadata_document_client_gets_consent_and_tokens() {
    let (base, ca) = documents().await;
    let app = TestApp::start_with(Options { cimd_ca: Some(ca), ..Default::default() }).await;
    let client_id = format!("{base}/good.json");
    let b = TestApp::no_redirects();
    let page = b.get(authorize_url(&app, &client_id)).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("Doc Client") && html.contains("(localhost)"), "the consent page shows who asks");
    let at = html.find("name=\"nonce\" value=\"").unwrap() + 20;
    let nonce = html[at..].split('"').next().unwrap().to_string();
    let r = b
        .post(format!("{}/oauth/authorize", app.base))
        .form(&[("nonce", nonce.as_str()), ("api_key", app.key.as_str()), ("decision", "approve")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 302);
    let location = url::Url::parse(r.headers()["location"].to_str().unwrap()).unwrap();
    let code: String = location.query_pairs().find(|(k, _)| k == "code").unwrap().1.into_owned();
    let t: serde_json::Value = app
        .http
        .post(format!("{}/oauth/token", app.base))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("code_verifier", VERIFIER),
            ("client_id", &client_id),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let access = t["access_token"].as_str().expect("tokens for a metadata-document client");
    let r = app
        .http
        .get(format!("{}/api/conflict/v1/list-iran-events", app.base))
        .bearer_auth(access)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let account = app.state.store.find_account_by_name("test").await.unwrap().unwrap();
    let clients = app.state.store.connected_clients(&account.id).await.unwrap();
    assert_eq!(clients[0].client_name, "Doc Client", "the dashboard names the connected client");
    assert_eq!(clients[0].client_id.as_deref(), Some(client_id.as_str()));
}

#[tokio::test]
async fn documents_that_break_the_rules_are_refused_before_any_redirect() {
    let (base, ca) = documents().await;
    let app = TestApp::start_with(Options { cimd_ca: Some(ca.clone()), ..Default::default() }).await;
    let b = TestApp::no_redirects();
    for (client_id, why) in [
        (format!("{base}/wrong-id.json"), "client_id is not the document"),
        (format!("{base}/secret.json"), "token_endpoint_auth_method must be none"),
        (format!("{base}/big.json"), "larger than 5120 bytes"),
        (format!("{base}/moved.json"), "redirect"),
        (format!("{base}/missing.json"), "HTTP 404"),
        ("https://10.0.0.1/client.json".to_string(), "private"),
        ("https://169.254.169.254/latest/meta-data.json".to_string(), "link-local"),
    ] {
        let r = b.get(authorize_url(&app, &client_id)).send().await.unwrap();
        assert_eq!(r.status(), 400, "{client_id}");
        assert!(r.headers().get("location").is_none());
        let html = r.text().await.unwrap();
        assert!(html.contains("Invalid Client Metadata"), "{client_id}");
        // The page says only that the document was refused: never why (a probe of the network).
        assert!(html.contains("metadata document could not be fetched, or is not valid"), "{client_id}: {html}");
        assert!(!html.contains(why), "{client_id}: {html}");
        // Why is the operator's to know.
        let now = app.state.clock.now();
        match sitrep_agents::oauth::find_client(&app.state, &client_id, now).await.unwrap() {
            sitrep_agents::oauth::ClientLookup::BadDocument(e) => assert!(e.to_string().contains(why), "{e}"),
            _ => panic!("{client_id} was accepted"),
        }
    }
    // Without the test-only loopback allowance, a document on loopback is refused too.
    let strict = TestApp::start().await;
    let r = b.get(authorize_url(&strict, &format!("{base}/good.json"))).send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert!(!r.text().await.unwrap().contains("loopback"));
    // And the token endpoint refuses it: with a grant the store never issued to it, before the
    // document is asked for.
    let r = strict
        .http
        .post(format!("{}/oauth/token", strict.base))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", "x"),
            ("code_verifier", VERIFIER),
            ("client_id", &format!("{base}/good.json")),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["error"], "invalid_grant");
}

/// A client_id naming a document that cannot be had costs one fetch a minute, not one per
/// authorize request (a flood of such requests would otherwise be a flood of outbound fetches).
#[tokio::test]
async fn a_document_that_could_not_be_had_is_not_fetched_again_for_a_minute() {
    let (base, ca, served) = counting_document_server(|_| HashMap::new()).await;
    let app = TestApp::start_with(Options { cimd_ca: Some(ca), ..Default::default() }).await;
    let missing = format!("{base}/gone.json");
    let now = app.state.clock.now();
    let fetches = || served.load(std::sync::atomic::Ordering::SeqCst);
    for _ in 0..5 {
        let found = sitrep_agents::oauth::find_client(&app.state, &missing, now).await.unwrap();
        assert!(matches!(found, sitrep_agents::oauth::ClientLookup::BadDocument(_)));
    }
    assert_eq!(fetches(), 1, "five lookups within a minute, {} fetches", fetches());
    // A minute on, it is asked again.
    let later = sitrep_agents::oauth::find_client(&app.state, &missing, now + 61).await.unwrap();
    assert!(matches!(later, sitrep_agents::oauth::ClientLookup::BadDocument(_)));
    assert_eq!(fetches(), 2);
}

/// A token request naming a fresh document URL with a grant the store never issued to it is
/// refused on one read: no fetch, no stored client, no place among the fetches (issue 55: each
/// such POST was an outbound fetch and a write, and slow hosts held every fetch's place).
#[tokio::test]
async fn token_requests_with_made_up_grants_fetch_nothing() {
    let (base, ca, served) = counting_document_server(|base| {
        let mut m = HashMap::new();
        for n in 0..20 {
            m.insert(format!("/fresh-{n}.json"), document(&format!("{base}/fresh-{n}.json"), json!({})));
        }
        m
    })
    .await;
    let app = TestApp::start_with(Options { cimd_ca: Some(ca), ..Default::default() }).await;
    for n in 0..20 {
        let client_id = format!("{base}/fresh-{n}.json");
        let (grant, value) =
            if n % 2 == 0 { ("authorization_code", "code") } else { ("refresh_token", "refresh_token") };
        let form =
            [("grant_type", grant), (value, "made-up"), ("code_verifier", VERIFIER), ("client_id", client_id.as_str())];
        let r = app.http.post(format!("{}/oauth/token", app.base)).form(&form).send().await.unwrap();
        let status = r.status().as_u16();
        let body: serde_json::Value = r.json().await.unwrap();
        assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")), "{body}");
    }
    assert_eq!(served.load(std::sync::atomic::Ordering::SeqCst), 0, "no document was fetched");
    let account = app.state.store.find_account_by_name("test").await.unwrap().unwrap();
    assert!(app.state.store.connected_clients(&account.id).await.unwrap().is_empty());
    let remembered = app.state.store.client(&format!("{base}/fresh-0.json"), app.state.clock.now()).await.unwrap();
    assert!(remembered.is_none(), "no client was written");
}
