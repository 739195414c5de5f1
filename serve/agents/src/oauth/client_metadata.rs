//! Client ID Metadata Documents (SUPPLEMENT 5.4a): a `client_id` that is an https URL names a JSON
//! document describing the client, fetched here — https only, no credentials, no redirects, at
//! most 5,120 bytes within 5 s, and never from a loopback, private, link-local or multicast
//! address (`sitrep_pipelines::public_fetch`: the host is resolved first and the connection
//! pinned to the checked address). Documents are cached per their
//! `Cache-Control: max-age`, between 60 s and 24 h; a document that could not be had is
//! remembered as such for a minute, and at most 8 fetches run at once (issue 45: a flood of
//! authorize requests naming slow or broken documents costs one fetch per URL a minute, and never
//! more than 8 sockets).

use std::{collections::HashMap, sync::Mutex, time::Duration};

use tokio::sync::Semaphore;

use serde_json::Value;
use sitrep_pipelines::{
    public_fetch::{pinned_client, PublicFetchError, PublicFetchOptions},
    transport::error_text,
};

use super::register::redirect_allowed;
use crate::settings::AgentSettings;
use sitrep_platform::state::ClientRecord;

const MAX_BYTES: usize = 5_120;
const TIMEOUT: Duration = Duration::from_secs(5);
const MIN_CACHE_SECONDS: i64 = 60;
const MAX_CACHE_SECONDS: i64 = 86_400;
/// How long a document that could not be had is refused without another fetch.
const REFUSED_SECONDS: i64 = 60;
/// Fetches running at once, and how long a request waits for one of their places.
const CONCURRENT_FETCHES: usize = 8;
const FETCH_QUEUE_WAIT: Duration = Duration::from_secs(1);
/// Documents (and refusals) remembered at most; past it that map starts over.
const REMEMBERED: usize = 1_000;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum MetadataError {
    #[error("the client_id is not an https URL with a path")]
    NotAMetadataUrl,
    #[error("the host could not be resolved")]
    Unresolvable,
    #[error("the host resolves to a loopback, private, link-local or multicast address")]
    ForbiddenAddress,
    #[error("the document could not be fetched: {0}")]
    Fetch(String),
    #[error("the document answered with a redirect")]
    Redirected,
    #[error("the document answered HTTP {0}")]
    Status(u16),
    #[error("the document is larger than 5120 bytes")]
    TooLarge,
    #[error("the document is not valid client metadata: {0}")]
    Invalid(String),
    #[error("too many metadata documents are being fetched; try again")]
    Busy,
}

/// The documents fetched lately, by URL, with when each stops being fresh (epoch seconds); the
/// ones that could not be had, until when that is believed; the places of running fetches.
pub struct MetadataCache {
    entries: Mutex<HashMap<String, (i64, ClientRecord)>>,
    refused: Mutex<HashMap<String, (i64, MetadataError)>>,
    fetches: Semaphore,
}

impl Default for MetadataCache {
    fn default() -> Self {
        MetadataCache {
            entries: Mutex::default(),
            refused: Mutex::default(),
            fetches: Semaphore::new(CONCURRENT_FETCHES),
        }
    }
}

/// Keeps `value` under `key` in a map of at most [`REMEMBERED`] entries.
fn remember<V>(map: &Mutex<HashMap<String, V>>, key: &str, value: V) {
    if let Ok(mut m) = map.lock() {
        if m.len() >= REMEMBERED {
            m.clear();
        }
        m.insert(key.to_string(), value);
    }
}

/// A `client_id` that names a metadata document: https, a host, and a path other than `/`.
pub fn metadata_url(client_id: &str) -> Option<url::Url> {
    let url = url::Url::parse(client_id).ok()?;
    (url.scheme() == "https" && url.host_str().is_some() && url.path() != "/" && url.fragment().is_none())
        .then_some(url)
}

fn max_age(headers: &reqwest::header::HeaderMap) -> i64 {
    let age = headers
        .get("cache-control")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').find_map(|d| d.trim().strip_prefix("max-age=")?.parse::<i64>().ok()))
        .unwrap_or(MIN_CACHE_SECONDS);
    age.clamp(MIN_CACHE_SECONDS, MAX_CACHE_SECONDS)
}

/// The client a metadata document describes, checked as 5.4a requires.
fn client_of(url: &url::Url, doc: &Value, callbacks: &[String]) -> Result<ClientRecord, MetadataError> {
    let invalid = |why: &str| MetadataError::Invalid(why.to_string());
    let obj = doc.as_object().ok_or_else(|| invalid("not a JSON object"))?;
    if obj.get("client_id").and_then(Value::as_str) != Some(url.as_str()) {
        return Err(invalid("client_id is not the document's URL"));
    }
    let uris: Vec<String> = obj
        .get("redirect_uris")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
        .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect())
        .ok_or_else(|| invalid("redirect_uris is required"))?;
    if let Some(bad) = uris.iter().find(|u| !redirect_allowed(u, callbacks)) {
        return Err(MetadataError::Invalid(format!("redirect URI not allowed: {bad}")));
    }
    match obj.get("token_endpoint_auth_method") {
        None => {}
        Some(m) if m == "none" => {}
        Some(_) => return Err(invalid("token_endpoint_auth_method must be none")),
    }
    let name = obj.get("client_name").and_then(Value::as_str).map(str::trim).filter(|n| !n.is_empty());
    Ok(ClientRecord {
        client_id: url.to_string(),
        client_name: name.unwrap_or("Unknown Client").chars().take(100).collect(),
        redirect_uris: uris,
        application_type: "web".into(),
        created_at: 0,
    })
}

async fn fetch(settings: &AgentSettings, url: &url::Url) -> Result<(ClientRecord, i64), MetadataError> {
    let options = PublicFetchOptions {
        allow_loopback: settings.oauth_cimd_allow_loopback,
        extra_root_pem: settings.oauth_cimd_ca.clone(),
        plain_http_to_loopback: false,
    };
    let client = pinned_client(url, TIMEOUT, &options).await.map_err(|e| match e {
        PublicFetchError::NotHttps => MetadataError::NotAMetadataUrl,
        PublicFetchError::Unresolvable => MetadataError::Unresolvable,
        PublicFetchError::ForbiddenAddress => MetadataError::ForbiddenAddress,
        PublicFetchError::Client(detail) => MetadataError::Fetch(detail),
    })?;
    let mut resp = client.get(url.as_str()).send().await.map_err(|e| MetadataError::Fetch(error_text(e)))?;
    if resp.status().is_redirection() {
        return Err(MetadataError::Redirected);
    }
    if !resp.status().is_success() {
        return Err(MetadataError::Status(resp.status().as_u16()));
    }
    if resp.content_length().is_some_and(|n| n as usize > MAX_BYTES) {
        return Err(MetadataError::TooLarge);
    }
    let ttl = max_age(resp.headers());
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| MetadataError::Fetch(error_text(e)))? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_BYTES {
            return Err(MetadataError::TooLarge);
        }
    }
    let doc: Value = serde_json::from_slice(&body).map_err(|_| MetadataError::Invalid("not JSON".into()))?;
    Ok((client_of(url, &doc, &settings.oauth_assistant_callbacks)?, ttl))
}

impl MetadataCache {
    /// The client a metadata-document `client_id` describes: from the cache while fresh, else fetched.
    pub async fn resolve(
        &self,
        settings: &AgentSettings,
        url: &url::Url,
        now: i64,
    ) -> Result<ClientRecord, MetadataError> {
        let cached = self.entries.lock().ok().and_then(|m| m.get(url.as_str()).cloned());
        if let Some((fresh_until, client)) = cached {
            if now < fresh_until {
                return Ok(client);
            }
        }
        let refused = self.refused.lock().ok().and_then(|m| m.get(url.as_str()).cloned());
        if let Some((_, e)) = refused.filter(|(until, _)| now < *until) {
            return Err(e);
        }
        // Our own overload is not the document's fault: not remembered.
        let Ok(Ok(_place)) = tokio::time::timeout(FETCH_QUEUE_WAIT, self.fetches.acquire()).await else {
            return Err(MetadataError::Busy);
        };
        // The whole of it within the time, the host's resolution included (a resolver that never
        // answers held a fetch's place past it).
        let fetched = tokio::time::timeout(TIMEOUT, fetch(settings, url))
            .await
            .unwrap_or_else(|_| Err(MetadataError::Fetch("timed out".into())));
        match fetched {
            Ok((client, ttl)) => {
                remember(&self.entries, url.as_str(), (now + ttl, client.clone()));
                Ok(client)
            }
            Err(e) => {
                remember(&self.refused, url.as_str(), (now + REFUSED_SECONDS, e.clone()));
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_and_documents() {
        assert!(metadata_url("https://app.example/oauth/client.json").is_some());
        for not in [
            "https://app.example/",
            "https://app.example",
            "http://app.example/c.json",
            "0f6e-uuid",
            "https://app.example/c#x",
        ] {
            assert!(metadata_url(not).is_none(), "{not}");
        }
        let url = metadata_url("https://app.example/client.json").unwrap();
        let callbacks = vec!["https://claude.ai/api/mcp/auth_callback".to_string()];
        let good = serde_json::json!({"client_id": "https://app.example/client.json", "client_name": "App",
            "redirect_uris": ["http://localhost:3000/cb"], "token_endpoint_auth_method": "none"});
        assert_eq!(client_of(&url, &good, &callbacks).unwrap().client_name, "App");
        let mut wrong_id = good.clone();
        wrong_id["client_id"] = "https://other.example/client.json".into();
        assert!(client_of(&url, &wrong_id, &callbacks).is_err());
        let mut secret = good.clone();
        secret["token_endpoint_auth_method"] = "client_secret_basic".into();
        assert!(client_of(&url, &secret, &callbacks).is_err());
        let mut foreign = good;
        foreign["redirect_uris"] = serde_json::json!(["https://evil.example/cb"]);
        assert!(client_of(&url, &foreign, &callbacks).is_err());
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("cache-control", "public, max-age=5".parse().unwrap());
        assert_eq!(max_age(&h), 60);
        h.insert("cache-control", "max-age=999999".parse().unwrap());
        assert_eq!(max_age(&h), 86_400);
    }
}
