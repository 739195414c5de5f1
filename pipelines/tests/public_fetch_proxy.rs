//! A pinned client connects to the address it checked, whatever the proxy variables say: a proxy
//! would resolve the host itself and the check would not hold. A test binary of its own, since it
//! sets the process's proxy variables before any client reads them.

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use sitrep_pipelines::public_fetch::{pinned_client, PublicFetchOptions};

/// A listener that counts the connections it accepts (and closes them).
async fn counting_listener() -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    (port, count)
}

#[tokio::test]
async fn a_pinned_client_goes_straight_to_the_checked_address_past_any_proxy() {
    let (proxy, through_proxy) = counting_listener().await;
    let (target, direct) = counting_listener().await;
    for name in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "HTTP_PROXY", "http_proxy"] {
        // Safe here: this binary's only test, before any client reads the environment.
        std::env::set_var(name, format!("http://127.0.0.1:{proxy}"));
    }
    let url = url::Url::parse(&format!("https://127.0.0.1:{target}/client.json")).unwrap();
    // An ordinary client honours the variables: the request goes to the proxy.
    let _ = reqwest::Client::new().get(url.clone()).timeout(Duration::from_secs(2)).send().await;
    assert_eq!(through_proxy.load(Ordering::SeqCst), 1, "the variables are in effect");
    let options = PublicFetchOptions { allow_loopback: true, ..Default::default() };
    let client = pinned_client(&url, Duration::from_secs(2), &options).await.unwrap();
    // The handshake fails (the listener speaks no TLS); what matters is where it was attempted.
    let _ = client.get(url).send().await;
    assert_eq!(direct.load(Ordering::SeqCst), 1, "the pinned client connected to the checked address");
    assert_eq!(through_proxy.load(Ordering::SeqCst), 1, "and not through the proxy");
}
