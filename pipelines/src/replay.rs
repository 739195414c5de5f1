//! Replay transport: a small HTTP/1.1 server on 127.0.0.1 that answers with recorded upstream
//! responses from `data/fixtures/<upstream>/<scenario>/` (a `<name>.meta.json` describing the
//! request and response status/headers, and the body `<name>.body.<ext>` byte for byte).
//!
//! A request matches a recording by method, upstream host, path and the multiset of decoded query
//! parameters, and, when the recording names `request.json`, by those fields of the request's
//! JSON body (a search provider answers every query at one URL). Misses answer 404 with a JSON
//! note, so a connector that builds a different request than the recorded one fails loudly in
//! tests instead of silently reading another file. `response.delayMs` holds the answer back (a
//! provider that times out). `request.anyValueOf` names query parameters a recording matches
//! whatever their value (a search window that moves with the scan's clock); a recording that
//! names the request's every parameter is preferred to one that leaves some open, and of those,
//! the one that leaves the fewest.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use chrono::{DateTime, Utc};
use serde::Deserialize;
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::TcpListener,
    task::JoinHandle,
};
use url::Url;

use crate::SourceError;

#[derive(Debug, Deserialize)]
struct Meta {
    request: MetaRequest,
    response: MetaResponse,
    #[serde(rename = "recordedAt")]
    recorded_at: DateTime<Utc>,
}

#[derive(Debug, Deserialize)]
struct MetaRequest {
    method: String,
    url: String,
    /// Fields the request's JSON body must hold, as here (absent: any body).
    #[serde(default)]
    json: Option<serde_json::Map<String, serde_json::Value>>,
    /// Query parameters matched whatever their value.
    #[serde(default, rename = "anyValueOf")]
    any_value_of: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct MetaResponse {
    status: u16,
    #[serde(default)]
    headers: HashMap<String, String>,
    #[serde(default, rename = "delayMs")]
    delay_ms: u64,
}

#[derive(Debug, Clone)]
struct Recording {
    json: Option<serde_json::Map<String, serde_json::Value>>,
    status: u16,
    headers: Vec<(String, String)>,
    body: Arc<Vec<u8>>,
    delay_ms: u64,
}

impl Recording {
    /// Whether a request with `body` is the one this recording answers.
    fn answers(&self, body: &[u8]) -> bool {
        let Some(fields) = &self.json else { return true };
        let Ok(serde_json::Value::Object(sent)) = serde_json::from_slice::<serde_json::Value>(body) else {
            return false;
        };
        fields.iter().all(|(k, v)| sent.get(k) == Some(v))
    }
}

type Key = (String, String, String, Vec<(String, String)>);

/// The request key, leaving out the parameters named in `open` (matched whatever their value).
fn key_of(method: &str, host: &str, path: &str, query: Option<&str>, open: &[String]) -> Key {
    let mut pairs: Vec<(String, String)> = query
        .map(|q| url::form_urlencoded::parse(q.as_bytes()).into_owned().filter(|(k, _)| !open.contains(k)).collect())
        .unwrap_or_default();
    pairs.sort();
    (method.to_ascii_uppercase(), host.to_ascii_lowercase(), path.to_string(), pairs)
}

/// The recordings of one or more scenario directories.
#[derive(Debug, Default, Clone)]
pub struct FixtureSet {
    /// Per request key, its recordings: those that name body fields first.
    recordings: HashMap<Key, Vec<Recording>>,
    /// The distinct `anyValueOf` lists of the recordings, shortest first (the empty one too).
    open_lists: Vec<Vec<String>>,
    recorded_at: Option<DateTime<Utc>>,
}

impl FixtureSet {
    pub fn load(dirs: &[PathBuf]) -> Result<Self, SourceError> {
        let mut set = FixtureSet::default();
        for dir in dirs {
            set.load_dir(dir)?;
        }
        Ok(set)
    }

    fn load_dir(&mut self, dir: &Path) -> Result<(), SourceError> {
        let io = |e: std::io::Error| SourceError::Io(format!("{}: {e}", dir.display()));
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            let Some(stem) = name.strip_suffix(".meta.json") else { continue };
            let meta: Meta = serde_json::from_slice(&std::fs::read(&path).map_err(io)?)
                .map_err(|e| SourceError::parse(path.display().to_string(), e))?;
            let body_path = std::fs::read_dir(dir)
                .map_err(io)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| {
                    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&format!("{stem}.body")))
                })
                .ok_or_else(|| SourceError::Io(format!("{}: no body file for {stem}", dir.display())))?;
            let url = Url::parse(&meta.request.url).map_err(|e| SourceError::parse(&meta.request.url, e))?;
            let mut open = meta.request.any_value_of;
            open.sort();
            let key = key_of(&meta.request.method, url.host_str().unwrap_or(""), url.path(), url.query(), &open);
            if !self.open_lists.contains(&open) {
                self.open_lists.push(open);
                self.open_lists.sort_by_key(Vec::len);
            }
            let recording = Recording {
                json: meta.request.json,
                status: meta.response.status,
                headers: meta.response.headers.into_iter().collect(),
                body: Arc::new(std::fs::read(&body_path).map_err(io)?),
                delay_ms: meta.response.delay_ms,
            };
            self.recorded_at = self.recorded_at.max(Some(meta.recorded_at));
            let same_request = self.recordings.entry(key).or_default();
            // A later directory's recording of the same request replaces the earlier one.
            same_request.retain(|r| r.json != recording.json);
            same_request.push(recording);
            same_request.sort_by_key(|r| r.json.is_none());
        }
        Ok(())
    }

    /// Capture time of the newest recording: the as-of of data ingested from this set.
    pub fn recorded_at(&self) -> Option<DateTime<Utc>> {
        self.recorded_at
    }

    /// The recordings a request could be answered by: of the most specific key that has any.
    fn candidates(&self, method: &str, host: &str, path: &str, query: Option<&str>) -> Option<&Vec<Recording>> {
        std::iter::once(&Vec::new())
            .chain(&self.open_lists)
            .find_map(|open| self.recordings.get(&key_of(method, host, path, query, open)))
    }

    pub fn len(&self) -> usize {
        self.recordings.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.recordings.is_empty()
    }
}

/// A running fixture server. Dropping it stops the accept loop.
pub struct FixtureServer {
    origin: String,
    requests: Arc<Mutex<Vec<String>>>,
    recorded_at: Option<DateTime<Utc>>,
    task: JoinHandle<()>,
}

impl FixtureServer {
    pub async fn start(set: FixtureSet) -> Result<Self, SourceError> {
        let listener =
            TcpListener::bind("127.0.0.1:0").await.map_err(|e| SourceError::Io(format!("fixture server bind: {e}")))?;
        let addr = listener.local_addr().map_err(|e| SourceError::Io(e.to_string()))?;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded_at = set.recorded_at();
        let set = Arc::new(set);
        let log = requests.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let set = set.clone();
                let log = log.clone();
                tokio::spawn(async move {
                    let _ = serve_connection(stream, &set, &log).await;
                });
            }
        });
        Ok(FixtureServer { origin: format!("http://{addr}"), requests, recorded_at, task })
    }

    pub async fn start_dirs(dirs: &[PathBuf]) -> Result<Self, SourceError> {
        Self::start(FixtureSet::load(dirs)?).await
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    pub fn transport(&self) -> crate::transport::Transport {
        crate::transport::Transport::Replay { origin: self.origin.clone() }
    }

    pub fn recorded_at(&self) -> Option<DateTime<Utc>> {
        self.recorded_at
    }

    /// `METHOD /host/path?query` of every request served so far, in arrival order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for FixtureServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    set: &FixtureSet,
    log: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).await?;
    let mut content_length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                content_length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; content_length];
    reader.read_exact(&mut body).await?;

    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("GET").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    if let Ok(mut l) = log.lock() {
        l.push(format!("{method} {target}"));
    }
    // Target is `/<upstream host>/<path>?<query>`.
    let (path_part, query) = match target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (target.as_str(), None),
    };
    let trimmed = path_part.trim_start_matches('/');
    let (host, path) = match trimmed.split_once('/') {
        Some((h, p)) => (h, format!("/{p}")),
        None => (trimmed, "/".to_string()),
    };
    let found =
        set.candidates(&method, host, &path, query).and_then(|same| same.iter().find(|r| r.answers(&body))).cloned();
    let (status, headers, body) = match found {
        Some(r) => {
            tokio::time::sleep(std::time::Duration::from_millis(r.delay_ms)).await;
            (r.status, r.headers, r.body)
        }
        None => (
            404,
            vec![("content-type".to_string(), "application/json".to_string())],
            Arc::new(format!(r#"{{"fixture":"no recording for {method} {host}{path}"}}"#).into_bytes()),
        ),
    };
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (k, v) in &headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("content-length: {}\r\nconnection: close\r\n\r\n", body.len()));
    write.write_all(head.as_bytes()).await?;
    write.write_all(&body).await?;
    write.shutdown().await
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(dir: &Path, name: &str, url: &str, open: &[&str], body: &str) {
        let meta = serde_json::json!({
            "request": {"method": "GET", "url": url, "anyValueOf": open},
            "response": {"status": 200, "headers": {"content-type": "text/plain"}},
            "recordedAt": "2026-11-20T06:00:00Z",
        });
        std::fs::write(dir.join(format!("{name}.meta.json")), meta.to_string()).unwrap();
        std::fs::write(dir.join(format!("{name}.body.txt")), body).unwrap();
    }

    /// A window's parameters move with the clock: a recording leaving them open answers every
    /// window of its query; the one leaving the query open too answers any other query; an exact
    /// recording wins over both.
    #[tokio::test]
    async fn open_parameters_match_any_value_and_the_most_specific_recording_answers() {
        let dir = tempfile::tempdir().unwrap();
        let api = "https://api.example/doc";
        record(dir.path(), "exact", &format!("{api}?q=a&from=1"), &[], "exact");
        record(dir.path(), "a", &format!("{api}?q=a&from=0"), &["from"], "a, any window");
        record(dir.path(), "any", &format!("{api}?q=x&from=0"), &["from", "q"], "any query");
        let server = FixtureServer::start_dirs(&[dir.path().to_path_buf()]).await.unwrap();
        let http = reqwest::Client::new();
        let get = |query: &str| {
            let url = format!("{}/api.example/doc?{query}", server.origin());
            let http = http.clone();
            async move { http.get(url).send().await.unwrap().text().await.unwrap() }
        };
        assert_eq!(get("q=a&from=1").await, "exact");
        assert_eq!(get("from=20261113060000&q=a").await, "a, any window");
        assert_eq!(get("q=b&from=7").await, "any query");
        assert!(get("q=b&from=7&extra=1").await.contains("no recording"), "a parameter not recorded");
    }
}
