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

/// IPv4 blocks of the IANA IPv4 Special-Purpose Address Registry that are not globally
/// reachable, plus multicast; (network, prefix length). Blocks the registry marks globally
/// reachable (AS112, AMT, the two 192.0.0.0/24 anycast addresses) are refused as well where a
/// wider block holds them: nothing a client may name lives there.
const IPV4_NOT_PUBLIC: &[(u32, u32)] = &[
    (0x0000_0000, 8),  // 0.0.0.0/8 "this network"
    (0x0a00_0000, 8),  // 10.0.0.0/8 private
    (0x6440_0000, 10), // 100.64.0.0/10 shared address space
    (0x7f00_0000, 8),  // 127.0.0.0/8 loopback
    (0xa9fe_0000, 16), // 169.254.0.0/16 link local
    (0xac10_0000, 12), // 172.16.0.0/12 private
    (0xc000_0000, 24), // 192.0.0.0/24 IETF protocol assignments
    (0xc000_0200, 24), // 192.0.2.0/24 documentation
    (0xc058_6300, 24), // 192.88.99.0/24 6to4 relay anycast (deprecated)
    (0xc0a8_0000, 16), // 192.168.0.0/16 private
    (0xc612_0000, 15), // 198.18.0.0/15 benchmarking
    (0xc633_6400, 24), // 198.51.100.0/24 documentation
    (0xcb00_7100, 24), // 203.0.113.0/24 documentation
    (0xe000_0000, 4),  // 224.0.0.0/4 multicast
    (0xf000_0000, 4),  // 240.0.0.0/4 reserved, and the broadcast address
];

/// IPv6 blocks of the IANA IPv6 Special-Purpose Address Registry (and the address architecture)
/// that are not globally reachable, or that carry an IPv4 address this filter cannot vouch for;
/// (network, prefix length). IPv4-mapped and NAT64 addresses are judged by their IPv4 address.
const IPV6_NOT_PUBLIC: &[(u128, u32)] = &[
    (0, 96),                           // ::/96 unspecified, loopback, IPv4-compatible (deprecated)
    (0x0064_ff9b_0001 << 80, 48),      // 64:ff9b:1::/48 local-use IPv4/IPv6 translation
    (0x0100 << 112, 64),               // 100::/64 discard-only
    (0x0100_0000_0000_0001 << 64, 64), // 100:0:0:1::/64 dummy prefix
    (0x2001 << 112, 23),               // 2001::/23 IETF protocol assignments (Teredo, ORCHID, …)
    (0x2001_0db8 << 96, 32),           // 2001:db8::/32 documentation
    (0x2002 << 112, 16),               // 2002::/16 6to4 (an IPv4 address inside)
    (0x3fff << 112, 20),               // 3fff::/20 documentation
    (0x5f00 << 112, 16),               // 5f00::/16 segment routing SIDs
    (0xfc00 << 112, 7),                // fc00::/7 unique local
    (0xfe80 << 112, 10),               // fe80::/10 link-local
    (0xfec0 << 112, 10),               // fec0::/10 site-local (deprecated)
    (0xff00 << 112, 8),                // ff00::/8 multicast
];

fn in_block<T: Into<u128> + Copy>(address: u128, bits: u32, (network, prefix): (T, u32)) -> bool {
    let shift = bits - prefix;
    (address >> shift) == (network.into() >> shift)
}

/// Whether an address may be fetched from: globally reachable unicast only, by the IANA
/// special-purpose registries, with an embedded IPv4 address (IPv4-mapped, NAT64's
/// 64:ff9b::/96) judged as that address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let a = u32::from(v4) as u128;
            !IPV4_NOT_PUBLIC.iter().any(|&block| in_block(a, 32, block))
        }
        IpAddr::V6(v6) => {
            let a = u128::from(v6);
            let nat64 = (0x0064_ff9b_u128 << 96, 96);
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            if in_block(a, 128, nat64) {
                return is_public(IpAddr::V4(std::net::Ipv4Addr::from(a as u32)));
            }
            !IPV6_NOT_PUBLIC.iter().any(|&block| in_block(a, 128, block))
        }
    }
}

/// How a public fetch may deviate for tests: a loopback address allowed, an extra root CA.
#[derive(Debug, Clone, Default)]
pub struct PublicFetchOptions {
    pub allow_loopback: bool,
    /// Plain http accepted when the host resolves to loopback (webhook receivers under `make run`).
    pub plain_http_to_loopback: bool,
    pub extra_root_pem: Option<Vec<u8>>,
}

/// Where a fetch of a URL may connect: its host and the first of its addresses the filter allows
/// (resolved now), and whether the fetch is plain http to loopback.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pinned {
    pub host: String,
    pub addr: SocketAddr,
    pub plain: bool,
}

/// Resolves `url`'s host and picks the address a fetch may connect to: https only (plain http
/// only to loopback, when allowed), a public address (or loopback, when allowed).
pub async fn pin(url: &url::Url, options: &PublicFetchOptions) -> Result<Pinned, PublicFetchError> {
    let plain = url.scheme() == "http" && options.plain_http_to_loopback;
    if url.scheme() != "https" && !plain {
        return Err(PublicFetchError::NotHttps);
    }
    let host = url.host_str().ok_or(PublicFetchError::NotHttps)?;
    let port = url.port_or_known_default().unwrap_or(443);
    let addrs: Vec<SocketAddr> =
        tokio::net::lookup_host((host, port)).await.map_err(|_| PublicFetchError::Unresolvable)?.collect();
    let addr = addrs
        .into_iter()
        .find(|a| match plain {
            true => a.ip().is_loopback(),
            false => is_public(a.ip()) || (options.allow_loopback && a.ip().is_loopback()),
        })
        .ok_or(PublicFetchError::ForbiddenAddress)?;
    Ok(Pinned { host: host.to_string(), addr, plain })
}

impl Pinned {
    /// A client that connects to this address alone for its host: no proxy (a proxy would
    /// resolve the name itself), no redirects, `timeout`. Its idle connections are kept a little
    /// while (a caller that keeps the client reuses them), at most two.
    pub fn client(&self, timeout: Duration, options: &PublicFetchOptions) -> Result<reqwest::Client, PublicFetchError> {
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .https_only(!self.plain)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .pool_max_idle_per_host(2)
            .pool_idle_timeout(Duration::from_secs(30))
            .resolve(&self.host, self.addr)
            .user_agent(crate::http::USER_AGENT);
        if let Some(pem) = &options.extra_root_pem {
            let cert = reqwest::Certificate::from_pem(pem).map_err(|e| PublicFetchError::Client(e.to_string()))?;
            builder = builder.add_root_certificate(cert);
        }
        builder.build().map_err(|e| PublicFetchError::Client(e.to_string()))
    }
}

/// A client for `url` alone: https only, no redirects, `timeout`, connected only to a checked
/// public address of its host.
pub async fn pinned_client(
    url: &url::Url,
    timeout: Duration,
    options: &PublicFetchOptions,
) -> Result<reqwest::Client, PublicFetchError> {
    pin(url, options).await?.client(timeout, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_globally_reachable_unicast_addresses() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "224.0.0.1",
            "0.0.0.0",
            "0.1.2.3",
            "100.64.0.1",
            "192.0.0.1",
            "192.0.2.7",
            "192.88.99.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.1",
            "203.0.113.9",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::127.0.0.1",
            "::8.8.8.8",
            "fe80::1",
            "fec0::1",
            "fc00::1",
            "fd12:3456::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::1",
            "100::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:db8::1",
            "2002:c0a8:101::1",
            "2002:808:808::1",
            "3fff::1",
            "5f00::1",
            "ff02::1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "100.128.0.1",
            "172.32.0.1",
            "198.20.0.1",
            "2606:2800:220:1:248:1893:25c8:1946",
            "2a00:1450:4001:80b::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
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
