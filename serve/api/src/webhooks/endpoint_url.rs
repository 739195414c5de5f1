//! An endpoint's URL as written: https (plain http only to a loopback host, and only where the
//! deployment allows it: `make run` and the tests), no credentials or fragment, and no host that
//! is visibly not public. Where the host really resolves is judged at each delivery by the same
//! filter as the metadata fetches (`sitrep_pipelines::public_fetch`).

use std::net::IpAddr;

use sitrep_pipelines::public_fetch::is_public;

pub const MAX_BYTES: usize = 2048;

/// The URL normalised, or why it is refused.
pub fn check(raw: &str, allow_loopback: bool) -> Result<String, String> {
    let url = url::Url::parse(raw).map_err(|_| "value must be an absolute URL".to_string())?;
    let host = url.host_str().ok_or_else(|| "the URL must name a host".to_string())?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err("the URL must not carry credentials".into());
    }
    if url.fragment().is_some() {
        return Err("the URL must not carry a fragment".into());
    }
    let ip = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().ok();
    let loopback = host.eq_ignore_ascii_case("localhost") || ip.is_some_and(|ip| ip.is_loopback());
    match url.scheme() {
        "https" => {}
        "http" if allow_loopback && loopback => {}
        _ => return Err("the URL must be https".into()),
    }
    if loopback && !allow_loopback {
        return Err("the URL's host must be a public address".into());
    }
    if ip.is_some_and(|ip| !(is_public(ip) || allow_loopback && ip.is_loopback())) {
        return Err("the URL's host must be a public address".into());
    }
    Ok(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn only_https_to_public_hosts() {
        assert_eq!(check("https://hooks.example.com/in", false).as_deref(), Ok("https://hooks.example.com/in"));
        for (url, why) in [
            ("http://hooks.example.com/in", "https"),
            ("https://user:pw@hooks.example.com/", "credentials"),
            ("https://hooks.example.com/#x", "fragment"),
            ("https://127.0.0.1/", "public"),
            ("https://10.0.0.7/", "public"),
            ("https://[::1]/", "public"),
            ("https://localhost/", "public"),
            ("https://169.254.169.254/latest", "public"),
            ("http://127.0.0.1:9000/", "https"),
            ("ftp://hooks.example.com/", "https"),
            ("hooks.example.com", "absolute"),
        ] {
            let e = check(url, false).expect_err(url);
            assert!(e.contains(why), "{url}: {e}");
        }
        // Under make run and the tests: plain http to loopback, nothing else.
        assert!(check("http://127.0.0.1:9000/hook", true).is_ok());
        assert!(check("http://localhost:9000/hook", true).is_ok());
        assert!(check("http://10.0.0.7/", true).is_err());
        assert!(check("http://hooks.example.com/", true).is_err());
    }
}
