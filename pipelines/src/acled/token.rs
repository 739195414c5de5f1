//! ACLED OAuth password grant: `ACLED_ACCESS_TOKEN` wins; otherwise `POST /oauth/token` with the
//! account's email and password, refreshed with `grant_type=refresh_token`, reused until one hour
//! before expiry.

use chrono::{DateTime, Duration, Utc};
use reqwest::{header::HeaderMap, Method};
use serde::Deserialize;
use tokio::sync::Mutex;
use url::Url;

use crate::{http::ensure_ok, FetchContext, SourceError};

#[derive(Debug, Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    expires_in: Option<i64>,
}

#[derive(Clone)]
struct Held {
    access: String,
    refresh: Option<String>,
    expires_at: DateTime<Utc>,
}

#[derive(Default)]
pub struct TokenCache {
    held: Mutex<Option<Held>>,
}

impl TokenCache {
    pub async fn token(&self, ctx: &FetchContext, base: &str) -> Result<String, SourceError> {
        if let Some(t) = &ctx.config.acled_access_token {
            return Ok(t.clone());
        }
        let (Some(email), Some(password)) = (&ctx.config.acled_email, &ctx.config.acled_password) else {
            return Err(SourceError::NotConfigured("set ACLED_ACCESS_TOKEN, or ACLED_EMAIL and ACLED_PASSWORD".into()));
        };
        let mut held = self.held.lock().await;
        let now = Utc::now();
        if let Some(h) = held.as_ref() {
            if h.expires_at - Duration::hours(1) > now {
                return Ok(h.access.clone());
            }
        }
        let url = Url::parse(&format!("{base}/oauth/token")).map_err(|e| SourceError::parse("acled token url", e))?;
        let refreshed = match held.as_ref().and_then(|h| h.refresh.clone()) {
            Some(refresh) => {
                let form =
                    [("refresh_token", refresh.as_str()), ("grant_type", "refresh_token"), ("client_id", "acled")];
                request(ctx, &url, &form).await.ok()
            }
            None => None,
        };
        let fresh = match refreshed {
            Some(t) => t,
            None => {
                let form = [
                    ("username", email.as_str()),
                    ("password", password.as_str()),
                    ("grant_type", "password"),
                    ("client_id", "acled"),
                ];
                request(ctx, &url, &form).await?
            }
        };
        let h = Held {
            access: fresh.access_token,
            refresh: fresh.refresh_token,
            expires_at: now + Duration::seconds(fresh.expires_in.unwrap_or(86_400)),
        };
        let access = h.access.clone();
        *held = Some(h);
        Ok(access)
    }
}

async fn request(ctx: &FetchContext, url: &Url, form: &[(&str, &str)]) -> Result<TokenResponse, SourceError> {
    let reply = ensure_ok(url, ctx.http.send(Method::POST, url, HeaderMap::new(), Some(form), None).await?)?;
    serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse("acled token response", e))
}
