//! Evidence URLs (SUPPLEMENT 4.8): only `https:` without userinfo is evidence; the canonical form
//! lower-cases the host, drops a leading `www.` and the fragment.

use url::Url;

/// A URL in its canonical form with its host, or `None` when it cannot be evidence.
pub fn canonical(raw: &str) -> Option<(String, String)> {
    let mut url = Url::parse(raw.trim()).ok()?;
    if url.scheme() != "https" || !url.username().is_empty() || url.password().is_some() {
        return None;
    }
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    if host.is_empty() {
        return None;
    }
    url.set_host(Some(&host)).ok()?;
    url.set_fragment(None);
    Some((url.to_string(), host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_without_userinfo_in_canonical_form() {
        assert_eq!(
            canonical("https://WWW.Example.COM/News/Story?id=7#comments"),
            Some(("https://example.com/News/Story?id=7".into(), "example.com".into()))
        );
        assert_eq!(canonical("http://example.com/story"), None);
        assert_eq!(canonical("https://user:pass@example.com/story"), None);
        assert_eq!(canonical("https://user@example.com/story"), None);
        assert_eq!(canonical("not a url"), None);
    }
}
