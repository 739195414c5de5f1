//! YouTube oEmbed (SUPPLEMENT 2.1.9): a video's title and channel name, no credentials.
//! `GET https://www.youtube.com/oembed?url=https://www.youtube.com/watch?v=<ID>&format=json`;
//! 401 and 404 mean a private or missing video.

use reqwest::{header::HeaderMap, Method, StatusCode};
use serde::Deserialize;
use url::Url;

use crate::{http::Http, SourceError};

pub const OEMBED: &str = "https://www.youtube.com/oembed";

#[derive(Debug, Clone, PartialEq)]
pub enum VideoLookup {
    Found {
        title: String,
        channel_name: String,
    },
    /// 401 or 404: private or missing.
    NotFound,
}

#[derive(Deserialize)]
struct Oembed {
    #[serde(default)]
    title: String,
    #[serde(default)]
    author_name: String,
}

/// A video id of the form YouTube uses: 11 characters of `[A-Za-z0-9_-]`.
pub fn is_video_id(id: &str) -> bool {
    id.len() == 11 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

pub async fn lookup(http: &Http, video_id: &str) -> Result<VideoLookup, SourceError> {
    let mut url = Url::parse(OEMBED).map_err(|e| SourceError::parse("oembed url", e))?;
    url.query_pairs_mut()
        .append_pair("url", &format!("https://www.youtube.com/watch?v={video_id}"))
        .append_pair("format", "json");
    let reply = http.send(Method::GET, &url, HeaderMap::new(), None, None).await?;
    if matches!(reply.status, StatusCode::NOT_FOUND | StatusCode::UNAUTHORIZED) {
        return Ok(VideoLookup::NotFound);
    }
    let reply = crate::http::ensure_ok(&url, reply)?;
    let o: Oembed = serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse("oembed", e))?;
    Ok(VideoLookup::Found { title: o.title, channel_name: o.author_name })
}

#[cfg(test)]
mod tests {
    #[test]
    fn video_ids() {
        assert!(super::is_video_id("dQw4w9WgXcQ"));
        assert!(super::is_video_id("a-b_c-d_e-f"));
        assert!(
            !super::is_video_id("short") && !super::is_video_id("dQw4w9WgXcQ!") && !super::is_video_id("dQw4w9WgXc")
        );
    }
}
