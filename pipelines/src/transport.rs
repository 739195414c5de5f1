//! Where requests go. Connectors always build the real upstream URL; in replay mode the transport
//! re-targets it at the local fixture server as `http://<fixture origin>/<upstream host><path>?<query>`,
//! so the request the connector makes is the one recorded, byte for byte in path and query.

use url::Url;

#[derive(Debug, Clone)]
pub enum Transport {
    /// Talk to the upstream itself.
    Live,
    /// Talk to a [`crate::replay::FixtureServer`] at this origin (e.g. `http://127.0.0.1:40123`).
    Replay { origin: String },
}

impl Transport {
    pub fn resolve(&self, upstream: &Url) -> Url {
        match self {
            Transport::Live => upstream.clone(),
            Transport::Replay { origin } => {
                let host = upstream.host_str().unwrap_or("unknown-host");
                let mut target = format!("{origin}/{host}{}", upstream.path());
                if let Some(q) = upstream.query() {
                    target.push('?');
                    target.push_str(q);
                }
                Url::parse(&target).unwrap_or_else(|_| upstream.clone())
            }
        }
    }

    pub fn is_replay(&self) -> bool {
        matches!(self, Transport::Replay { .. })
    }
}

/// The URL without its query, for error messages: queries can carry tokens on some upstreams.
pub fn redact(url: &Url) -> String {
    let mut u = url.clone();
    u.set_query(None);
    u.to_string()
}

/// A client error's text without the URL it names (reqwest writes the whole URL, query and all),
/// with its causes, which name no URL.
pub fn error_text(e: reqwest::Error) -> String {
    let timed_out = e.is_timeout();
    let e = e.without_url();
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(&e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    if timed_out && !text.contains("timed out") {
        text.insert_str(0, "timed out: ");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_keeps_host_path_and_query() {
        let t = Transport::Replay { origin: "http://127.0.0.1:9".into() };
        let u = Url::parse("https://acleddata.com/api/acled/read?limit=5&page=1").unwrap();
        assert_eq!(t.resolve(&u).as_str(), "http://127.0.0.1:9/acleddata.com/api/acled/read?limit=5&page=1");
        assert_eq!(Transport::Live.resolve(&u), u);
        assert_eq!(redact(&u), "https://acleddata.com/api/acled/read");
    }
}
