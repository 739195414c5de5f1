//! Who is calling, by address: the TCP peer, or — where the peer is a proxy the deployment trusts
//! (`SITREP_TRUSTED_PROXIES`) — the address the proxies forwarded (`Forwarded`, else
//! `X-Forwarded-For`): the rightmost address in the chain that is not itself a trusted proxy,
//! since only the hops the deployment runs append truthfully; whatever a caller wrote to the left
//! of them is the caller's own word. Every per-address limit keys on [`address_key`] of it: an
//! IPv6 caller by its /64, the block one subscriber is usually given, so walking through the
//! addresses of one's own prefix gains nothing.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use ipnet::IpNet;
use poem::http::{header::HeaderName, HeaderMap};

const FORWARDED: HeaderName = HeaderName::from_static("forwarded");
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The proxies whose forwarding headers are believed (none by default: the peer is the caller).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// A comma-separated list of CIDRs or single addresses (`10.0.0.0/8, 2001:db8::1`).
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut nets = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let net = match item.parse::<IpNet>() {
                Ok(net) => net.trunc(),
                Err(_) => match item.parse::<IpAddr>() {
                    Ok(ip) => IpNet::from(ip),
                    Err(_) => return Err(format!("`{item}` is not a CIDR or an IP address")),
                },
            };
            nets.push(net);
        }
        Ok(TrustedProxies(nets))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The caller's address, from the TCP `peer` and the request's forwarding headers.
    pub fn caller(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.trusts(peer) {
            return peer;
        }
        let hops = if headers.contains_key(FORWARDED) { forwarded_for(headers) } else { x_forwarded_for(headers) };
        // Right to left: the nearest hop first. A hop that is no address (`unknown`, an
        // obfuscated name, garbage) ends the walk at the trusted proxy that reported it.
        let mut nearest = peer;
        for hop in hops.iter().rev() {
            match hop {
                Some(ip) if self.trusts(*ip) => nearest = *ip,
                Some(ip) => return *ip,
                None => return nearest,
            }
        }
        nearest
    }
}

/// The rate-limit key of an address: IPv4 as it is, IPv6 its /64.
pub fn address_key(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            format!("{}/64", Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
    }
}

/// Every `X-Forwarded-For` entry, in order, across header lines.
fn x_forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    headers
        .get_all(X_FORWARDED_FOR)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("\u{0}").split(','))
        .map(|hop| node(hop.trim()))
        .collect()
}

/// Every `for=` of RFC 7239 `Forwarded`, in order, across header lines (an element without one is
/// a hop of unknown address).
fn forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    headers
        .get_all(FORWARDED)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("\u{0}").split(','))
        .map(|element| {
            element.split(';').find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                name.trim().eq_ignore_ascii_case("for").then(|| node(value.trim().trim_matches('"')))?
            })
        })
        .collect()
}

/// One hop's address: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]:4711`.
fn node(s: &str) -> Option<IpAddr> {
    let ip = s
        .parse::<IpAddr>()
        .ok()
        .or_else(|| s.parse::<SocketAddr>().ok().map(|a| a.ip()))
        .or_else(|| s.strip_prefix('[')?.strip_suffix(']')?.parse::<Ipv6Addr>().ok().map(IpAddr::V6))?;
    Some(ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use poem::http::HeaderValue;

    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn headers(pairs: &[(&HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.append(*name, HeaderValue::from_str(value).unwrap());
        }
        h
    }

    #[test]
    fn without_trusted_proxies_the_peer_is_the_caller() {
        let none = TrustedProxies::default();
        let h = headers(&[(&X_FORWARDED_FOR, "203.0.113.9")]);
        assert_eq!(none.caller(ip("198.51.100.7"), &h), ip("198.51.100.7"));
    }

    #[test]
    fn behind_trusted_proxies_the_rightmost_untrusted_hop_is_the_caller() {
        let trusted = TrustedProxies::parse("10.0.0.0/8, 192.168.1.1").unwrap();
        let lb = ip("10.1.2.3");
        // What the caller wrote (the spoofed 1.1.1.1) stays to the left of what the proxies saw.
        let h = headers(&[(&X_FORWARDED_FOR, "1.1.1.1, 203.0.113.9"), (&X_FORWARDED_FOR, "192.168.1.1")]);
        assert_eq!(trusted.caller(lb, &h), ip("203.0.113.9"));
        // A peer that is not trusted is believed about nothing.
        assert_eq!(trusted.caller(ip("198.51.100.7"), &h), ip("198.51.100.7"));
        // Every hop trusted: the leftmost; no header: the proxy.
        assert_eq!(trusted.caller(lb, &headers(&[(&X_FORWARDED_FOR, "10.9.9.9")])), ip("10.9.9.9"));
        assert_eq!(trusted.caller(lb, &HeaderMap::new()), lb);
        // Garbage ends the walk at the proxy that reported it.
        assert_eq!(trusted.caller(lb, &headers(&[(&X_FORWARDED_FOR, "203.0.113.9, bogus")])), lb);
        // Ports, brackets and mapped addresses.
        let h = headers(&[(&X_FORWARDED_FOR, "198.51.100.1, [2001:db8::5]:4711")]);
        assert_eq!(trusted.caller(lb, &h), ip("2001:db8::5"));
        let h = headers(&[(&X_FORWARDED_FOR, "::ffff:203.0.113.9")]);
        assert_eq!(trusted.caller(lb, &h), ip("203.0.113.9"));
    }

    #[test]
    fn forwarded_is_read_before_x_forwarded_for() {
        let trusted = TrustedProxies::parse("10.0.0.0/8").unwrap();
        let h = headers(&[
            (&FORWARDED, r#"for=1.1.1.1, for="[2001:db8:cafe::17]:4711";proto=https"#),
            (&FORWARDED, "For=10.0.0.5;by=10.0.0.1"),
            (&X_FORWARDED_FOR, "198.51.100.1"),
        ]);
        assert_eq!(trusted.caller(ip("10.0.0.1"), &h), ip("2001:db8:cafe::17"));
        let unknown = headers(&[(&FORWARDED, "for=unknown, for=10.0.0.7")]);
        assert_eq!(trusted.caller(ip("10.0.0.1"), &unknown), ip("10.0.0.7"));
    }

    #[test]
    fn ipv6_callers_are_keyed_by_their_64() {
        assert_eq!(address_key(ip("2001:db8:1:2:aaaa::1")), "2001:db8:1:2::/64");
        assert_eq!(address_key(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")), address_key(ip("2001:db8:1:2::9")));
        assert_ne!(address_key(ip("2001:db8:1:3::1")), address_key(ip("2001:db8:1:2::1")));
        assert_eq!(address_key(ip("203.0.113.9")), "203.0.113.9");
        assert_eq!(address_key(ip("::ffff:203.0.113.9")), "203.0.113.9");
    }

    #[test]
    fn the_list_is_checked() {
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("proxy.internal").is_err());
        assert!(TrustedProxies::parse(" ").unwrap().is_empty());
        assert!(TrustedProxies::parse("10.0.0.1/8").unwrap().trusts(ip("10.200.0.1")));
    }
}
