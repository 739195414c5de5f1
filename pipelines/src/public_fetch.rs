//! Fetching a URL someone else chose (a client's metadata document, a news item's evidence URL)
//! without letting it reach our own network: https only, no redirects, and only a public unicast
//! address — the host is resolved first and the connection pinned to the checked address, so a
//! DNS answer cannot change between the check and the fetch.

use std::{
    net::{IpAddr, SocketAddr},
    time::Duration,
};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PublicFetchError {
    #[error("not an https URL with a host")]
    NotHttps,
    #[error("the host could not be resolved")]
    Unresolvable,
    #[error("the host resolves to a loopback, private, link-local or multicast address")]
    ForbiddenAddress,
    #[error("the client could not be built: {0}")]
    Client(String),
}

/// Whether an address may be fetched from: public unicast only.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_unspecified()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64)) // shared address space 100.64.0.0/10
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_multicast()
                || v6.is_unspecified()
                || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (first & 0xffc0) == 0xfe80) // link-local fe80::/10
        }
    }
}

/// How a public fetch may deviate for tests: a loopback address allowed, an extra root CA.
#[derive(Debug, Clone, Default)]
pub struct PublicFetchOptions {
    pub allow_loopback: bool,
    pub extra_root_pem: Option<Vec<u8>>,
}

/// A client for `url` alone: https only, no redirects, `timeout`, connected only to a checked
/// public address of its host.
pub async fn pinned_client(
    url: &url::Url,
    timeout: Duration,
    options: &PublicFetchOptions,
) -> Result<reqwest::Client, PublicFetchError> {
    if url.scheme() != "https" {
        return Err(PublicFetchError::NotHttps);
    }
    let host = url.host_str().ok_or(PublicFetchError::NotHttps)?;
    let port = url.port_or_known_default().unwrap_or(443);
    let addrs: Vec<SocketAddr> =
        tokio::net::lookup_host((host, port)).await.map_err(|_| PublicFetchError::Unresolvable)?.collect();
    let addr = addrs
        .into_iter()
        .find(|a| is_public(a.ip()) || (options.allow_loopback && a.ip().is_loopback()))
        .ok_or(PublicFetchError::ForbiddenAddress)?;
    let mut builder = reqwest::Client::builder()
        .https_only(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .resolve(host, addr)
        .user_agent(crate::http::USER_AGENT);
    if let Some(pem) = &options.extra_root_pem {
        let cert = reqwest::Certificate::from_pem(pem).map_err(|e| PublicFetchError::Client(e.to_string()))?;
        builder = builder.add_root_certificate(cert);
    }
    builder.build().map_err(|e| PublicFetchError::Client(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_unicast_addresses() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "224.0.0.1",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fe80::1",
            "fc00::1",
            "::ffff:127.0.0.1",
            "ff02::1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "100.128.0.1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[tokio::test]
    async fn private_addresses_and_plain_http_are_refused() {
        let options = PublicFetchOptions::default();
        let t = Duration::from_secs(1);
        let at = |u: &str| url::Url::parse(u).unwrap();
        assert_eq!(
            pinned_client(&at("https://127.0.0.1/x"), t, &options).await.err(),
            Some(PublicFetchError::ForbiddenAddress)
        );
        assert_eq!(
            pinned_client(&at("https://169.254.169.254/latest"), t, &options).await.err(),
            Some(PublicFetchError::ForbiddenAddress)
        );
        assert_eq!(
            pinned_client(&at("http://93.184.216.34/x"), t, &options).await.err(),
            Some(PublicFetchError::NotHttps)
        );
        let loopback = PublicFetchOptions { allow_loopback: true, ..Default::default() };
        assert!(pinned_client(&at("https://127.0.0.1/x"), t, &loopback).await.is_ok());
    }
}
