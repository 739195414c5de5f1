//! Rate limits (SUPPLEMENT 1.12): named policies, fixed 60-second windows starting at the first
//! counted request, keyed by principal (or client IP when anonymous). The limiter is a trait so a
//! shared store can replace the in-process one when several replicas run; what happens when the
//! limiter fails is the policy's choice (fail open or closed).

use poem::http::HeaderValue;
use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

pub const WINDOW: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    Default,
    Batch,
    HumanitarianBatch,
    CmWrite,
    CmImport,
    OauthRegister,
    OauthToken,
    OauthAuthorize,
    McpDiscovery,
    McpFree,
    Mcp,
}

impl Policy {
    pub const ALL: [Policy; 11] = [
        Policy::Default,
        Policy::Batch,
        Policy::HumanitarianBatch,
        Policy::CmWrite,
        Policy::CmImport,
        Policy::OauthRegister,
        Policy::OauthToken,
        Policy::OauthAuthorize,
        Policy::McpDiscovery,
        Policy::McpFree,
        Policy::Mcp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Policy::Default => "default",
            Policy::Batch => "batch",
            Policy::HumanitarianBatch => "humanitarian-batch",
            Policy::CmWrite => "cm-write",
            Policy::CmImport => "cm-import",
            Policy::OauthRegister => "oauth-register",
            Policy::OauthToken => "oauth-token",
            Policy::OauthAuthorize => "oauth-authorize",
            Policy::McpDiscovery => "mcp-discovery",
            Policy::McpFree => "mcp-free",
            Policy::Mcp => "mcp",
        }
    }

    pub fn default_limit(self) -> u32 {
        match self {
            Policy::Default => 600,
            Policy::Batch | Policy::HumanitarianBatch | Policy::CmWrite => 30,
            Policy::CmImport | Policy::OauthToken | Policy::OauthAuthorize | Policy::McpFree => 10,
            Policy::OauthRegister => 5,
            Policy::McpDiscovery | Policy::Mcp => 60,
        }
    }

    /// Whether requests proceed when the limiter cannot be asked.
    pub fn fails_open(self) -> bool {
        matches!(self, Policy::Default | Policy::McpDiscovery | Policy::Mcp)
    }
}

/// The configured limit of every policy (defaults of SUPPLEMENT 1.12, overridable), with its
/// `RateLimit-Policy` and `RateLimit-Limit` header values rendered once (they go out on every
/// `/api/*` answer).
#[derive(Debug, Clone)]
pub struct Limits([Limit; Policy::ALL.len()]);

#[derive(Debug, Clone)]
struct Limit {
    max: u32,
    policy_header: HeaderValue,
    limit_header: HeaderValue,
}

impl Limit {
    fn new(policy: Policy, max: u32) -> Limit {
        let policy_header = format!("\"{}\";q={max};w={}", policy.name(), WINDOW.as_secs());
        Limit { max, policy_header: static_value(policy_header), limit_header: static_value(max.to_string()) }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits(Policy::ALL.map(|p| Limit::new(p, p.default_limit())))
    }
}

/// A header value with a `'static` buffer: cloning it touches no reference count. (Each clone
/// of a shared value writes its count, a cache line the worker threads trade on every request;
/// copying one allocates.) Each distinct text is leaked once, so memory is bounded by the
/// distinct limits configured and the seconds of a window.
fn static_value(text: String) -> HeaderValue {
    static INTERNED: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    let text = match interned.iter().find(|t| **t == text) {
        Some(t) => *t,
        None => {
            let t: &'static str = Box::leak(text.into_boxed_str());
            interned.push(t);
            t
        }
    };
    HeaderValue::from_static(text)
}

/// `RateLimit-Reset` for `secs` (at most the window's length), without allocating.
pub fn reset_header(secs: u64) -> HeaderValue {
    static SECONDS: std::sync::LazyLock<Vec<HeaderValue>> =
        std::sync::LazyLock::new(|| (0..=WINDOW.as_secs()).map(|s| static_value(s.to_string())).collect());
    SECONDS.get(secs as usize).cloned().unwrap_or_else(|| HeaderValue::from(secs))
}

impl Limits {
    /// Defaults overridden by `name=limit` pairs, comma-separated (`SITREP_RATE_LIMITS`).
    pub fn parse(overrides: &str) -> Result<Self, String> {
        let mut limits = Limits::default();
        for pair in overrides.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, n) = pair.split_once('=').ok_or_else(|| format!("`{pair}` is not name=limit"))?;
            let policy = Policy::ALL
                .into_iter()
                .find(|p| p.name() == name.trim())
                .ok_or_else(|| format!("unknown rate-limit policy `{name}`"))?;
            let n: u32 = n.trim().parse().map_err(|_| format!("`{pair}`: the limit must be a positive integer"))?;
            if n == 0 {
                return Err(format!("`{pair}`: the limit must be a positive integer"));
            }
            limits.0[policy as usize] = Limit::new(policy, n);
        }
        Ok(limits)
    }

    pub fn of(&self, policy: Policy) -> u32 {
        self.0[policy as usize].max
    }

    /// `RateLimit-Policy` of `policy`: `"name";q=limit;w=60`.
    pub fn header(&self, policy: Policy) -> &HeaderValue {
        &self.0[policy as usize].policy_header
    }

    /// `RateLimit-Limit` of `policy`.
    pub fn limit_header(&self, policy: Policy) -> &HeaderValue {
        &self.0[policy as usize].limit_header
    }
}

/// The state of one window after (or without) counting a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Whole seconds until the window ends (at least 1 while a window is open).
    pub reset_secs: u64,
}

#[derive(Debug, thiserror::Error)]
#[error("rate-limit store unavailable: {0}")]
pub struct LimiterUnavailable(pub String);

#[async_trait::async_trait]
pub trait RateLimiter: Send + Sync {
    /// Counts one request of `key` under `policy` and says whether it may proceed.
    async fn hit(&self, policy: Policy, limit: u32, key: &str) -> Result<Decision, LimiterUnavailable>;
    /// The window's state without counting (for answers refused before the limiter step).
    async fn peek(&self, policy: Policy, limit: u32, key: &str) -> Result<Decision, LimiterUnavailable>;
}

/// Windows in this process's memory, per caller then per policy (a lookup by `&str` allocates
/// nothing). Expired windows are dropped as the map grows, so memory is bounded by the callers
/// active within one window.
#[derive(Default)]
pub struct InProcessLimiter {
    windows: Mutex<HashMap<String, Vec<Window>>>,
}

/// One policy's window of one caller: (policy, start, requests counted).
type Window = (Policy, Instant, u32);

/// Past this many windows, expired ones are swept on the next hit.
const SWEEP_ABOVE: usize = 4096;

impl InProcessLimiter {
    fn decide(limit: u32, start: Instant, count: u32, now: Instant, allowed: bool) -> Decision {
        let left = WINDOW.saturating_sub(now.duration_since(start));
        Decision {
            allowed,
            limit,
            remaining: limit.saturating_sub(count),
            reset_secs: left.as_secs() + u64::from(left.subsec_nanos() > 0),
        }
    }

    pub fn hit_at(&self, policy: Policy, limit: u32, key: &str, now: Instant) -> Result<Decision, LimiterUnavailable> {
        let mut w = self.windows.lock().map_err(|e| LimiterUnavailable(e.to_string()))?;
        if w.len() > SWEEP_ABOVE {
            w.retain(|_, slots| {
                slots.retain(|(_, start, _)| now.duration_since(*start) < WINDOW);
                !slots.is_empty()
            });
        }
        let slots = match w.get_mut(key) {
            Some(slots) => slots,
            None => w.entry(key.to_string()).or_default(),
        };
        let i = match slots.iter().position(|(p, _, _)| *p == policy) {
            Some(i) => i,
            None => {
                slots.push((policy, now, 0));
                slots.len() - 1
            }
        };
        let slot = &mut slots[i];
        if now.duration_since(slot.1) >= WINDOW {
            *slot = (policy, now, 0);
        }
        let allowed = slot.2 < limit;
        if allowed {
            slot.2 += 1;
        }
        Ok(Self::decide(limit, slot.1, slot.2, now, allowed))
    }

    pub fn peek_at(&self, policy: Policy, limit: u32, key: &str, now: Instant) -> Result<Decision, LimiterUnavailable> {
        let w = self.windows.lock().map_err(|e| LimiterUnavailable(e.to_string()))?;
        let slot = w.get(key).and_then(|slots| slots.iter().find(|(p, _, _)| *p == policy));
        Ok(match slot {
            Some((_, start, count)) if now.duration_since(*start) < WINDOW => {
                Self::decide(limit, *start, *count, now, *count < limit)
            }
            _ => Decision { allowed: true, limit, remaining: limit, reset_secs: WINDOW.as_secs() },
        })
    }
}

#[async_trait::async_trait]
impl RateLimiter for InProcessLimiter {
    async fn hit(&self, policy: Policy, limit: u32, key: &str) -> Result<Decision, LimiterUnavailable> {
        self.hit_at(policy, limit, key, Instant::now())
    }
    async fn peek(&self, policy: Policy, limit: u32, key: &str) -> Result<Decision, LimiterUnavailable> {
        self.peek_at(policy, limit, key, Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_render_each_policy_header_once_and_overrides_replace_it() {
        // `Limits` indexes by discriminant: ALL must list the policies in declaration order.
        assert!(Policy::ALL.iter().enumerate().all(|(i, p)| *p as usize == i));
        let limits = Limits::parse("mcp-free=7").unwrap();
        assert_eq!(limits.of(Policy::McpFree), 7);
        assert_eq!(limits.header(Policy::McpFree), "\"mcp-free\";q=7;w=60");
        assert_eq!(limits.header(Policy::Default), "\"default\";q=600;w=60");
        assert_eq!(limits.limit_header(Policy::McpFree), "7");
        assert_eq!(limits.limit_header(Policy::Default), "600");
        // Every second of a window from the table, and anything longer formatted.
        assert!((0..=60).all(|s| reset_header(s) == s.to_string().as_str()));
        assert_eq!(reset_header(61), "61");
        assert!(Limits::parse("nope=1").is_err() && Limits::parse("default=0").is_err());
    }

    #[test]
    fn fixed_windows_start_at_the_first_counted_request() {
        let l = InProcessLimiter::default();
        let t0 = Instant::now();
        let d = l.hit_at(Policy::Batch, 2, "acct", t0).unwrap();
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (true, 1, 60));
        let d = l.hit_at(Policy::Batch, 2, "acct", t0 + Duration::from_millis(10_500)).unwrap();
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (true, 0, 50));
        let d = l.hit_at(Policy::Batch, 2, "acct", t0 + Duration::from_secs(20)).unwrap();
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (false, 0, 40));
        // Other keys and policies count separately; peeking counts nothing.
        assert!(l.hit_at(Policy::Batch, 2, "other", t0).unwrap().allowed);
        assert!(l.hit_at(Policy::Default, 2, "acct", t0).unwrap().allowed);
        assert_eq!(l.peek_at(Policy::Default, 2, "acct", t0).unwrap().remaining, 1);
        assert_eq!(l.peek_at(Policy::Default, 2, "acct", t0).unwrap().remaining, 1);
        // The window ends 60 s after its first request.
        let d = l.hit_at(Policy::Batch, 2, "acct", t0 + WINDOW).unwrap();
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (true, 1, 60));
    }

    #[test]
    fn limits_parse_overrides() {
        let l = Limits::parse("batch=5, mcp-free=3").unwrap();
        assert_eq!((l.of(Policy::Batch), l.of(Policy::McpFree), l.of(Policy::Default)), (5, 3, 600));
        assert!(Limits::parse("nope=1").is_err());
        assert!(Limits::parse("batch=0").is_err());
        assert!(Limits::parse("batch").is_err());
    }

    #[test]
    fn memory_stays_bounded_by_active_keys() {
        let l = InProcessLimiter::default();
        let t0 = Instant::now();
        for i in 0..=SWEEP_ABOVE {
            l.hit_at(Policy::Default, 10, &i.to_string(), t0).unwrap();
        }
        l.hit_at(Policy::Default, 10, "late", t0 + WINDOW).unwrap();
        assert_eq!(l.windows.lock().unwrap().len(), 1);
    }
}
