//! Rate limits (SUPPLEMENT 1.12): named policies, fixed 60-second windows starting at the first
//! counted request, keyed by principal (or client IP when anonymous). The limiter is a trait so a
//! shared store can replace the in-process one when several replicas run; what happens when the
//! limiter fails is the policy's choice (fail open or closed).

use poem::http::HeaderValue;
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use crate::per_thread::Front;

pub const WINDOW: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    Default,
    Batch,
    HumanitarianBatch,
    CmWrite,
    CmImport,
    /// The Webhooks group's writes (a **decision**: company monitoring's write budget).
    WebhookWrite,
    OauthRegister,
    OauthToken,
    /// Token requests per address, whatever `client_id` they name (a **decision** beside 1.12's
    /// per-client window: each made-up client id is a window of its own).
    OauthTokenAddress,
    OauthAuthorize,
    McpDiscovery,
    McpFree,
    Mcp,
}

impl Policy {
    pub const ALL: [Policy; 13] = [
        Policy::Default,
        Policy::Batch,
        Policy::HumanitarianBatch,
        Policy::CmWrite,
        Policy::CmImport,
        Policy::WebhookWrite,
        Policy::OauthRegister,
        Policy::OauthToken,
        Policy::OauthTokenAddress,
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
            Policy::WebhookWrite => "webhook-write",
            Policy::OauthRegister => "oauth-register",
            Policy::OauthToken => "oauth-token",
            Policy::OauthTokenAddress => "oauth-token-address",
            Policy::OauthAuthorize => "oauth-authorize",
            Policy::McpDiscovery => "mcp-discovery",
            Policy::McpFree => "mcp-free",
            Policy::Mcp => "mcp",
        }
    }

    pub fn default_limit(self) -> u32 {
        match self {
            Policy::Default => 600,
            Policy::Batch | Policy::HumanitarianBatch | Policy::CmWrite | Policy::WebhookWrite => 30,
            Policy::CmImport | Policy::OauthToken | Policy::OauthAuthorize | Policy::McpFree => 10,
            Policy::OauthRegister => 5,
            Policy::McpDiscovery | Policy::Mcp | Policy::OauthTokenAddress => 60,
        }
    }

    /// Whether each operation under the policy has its own window (1.12: `cm-write`'s create,
    /// update and set-state are counted apart).
    pub fn per_operation(self) -> bool {
        matches!(self, Policy::CmWrite | Policy::WebhookWrite)
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
    /// Counts one request of `key` under `policy`, arrived `at`, and says whether it may proceed.
    async fn hit(&self, policy: Policy, limit: u32, key: &str, at: Instant) -> Result<Decision, LimiterUnavailable>;
    /// [`RateLimiter::hit`] answered without waiting, by a limiter that can (its windows in this
    /// process's memory); `None` sends the caller to `hit`. The edge asks this first: a cached
    /// answer then allocates no boxed future for its count.
    fn hit_now(&self, _: Policy, _: u32, _: &str, _: Instant) -> Option<Result<Decision, LimiterUnavailable>> {
        None
    }
    /// The window's state at `at` without counting (for answers refused before the limiter step).
    async fn peek(&self, policy: Policy, limit: u32, key: &str, at: Instant) -> Result<Decision, LimiterUnavailable>;
}

/// Counts one request with `limiter`: without waiting when it can answer so
/// ([`RateLimiter::hit_now`]), else through its future.
pub async fn hit(
    limiter: &dyn RateLimiter,
    policy: Policy,
    limit: u32,
    key: &str,
    at: Instant,
) -> Result<Decision, LimiterUnavailable> {
    match limiter.hit_now(policy, limit, key, at) {
        Some(counted) => counted,
        None => limiter.hit(policy, limit, key, at).await,
    }
}

/// Windows in this process's memory, per caller then per policy. Each caller's windows have a
/// lock of their own, and each thread keeps handles on the callers it served (a [`Front`]): a
/// request locks only its caller's windows, not a map every request locks. Callers without an
/// open window are dropped as the map grows, so memory is bounded by the callers active within one
/// window.
pub struct InProcessLimiter {
    callers: Mutex<Callers>,
    front: Front<String, Arc<CallerWindows>>,
}

struct Callers {
    windows: HashMap<String, Arc<CallerWindows>>,
    /// The size at which callers without an open window are swept: twice what the last sweep
    /// kept (at least [`SWEEP_ABOVE`]), so a crowd of active callers is not scanned per newcomer.
    sweep_at: usize,
}

impl Default for InProcessLimiter {
    fn default() -> Self {
        let callers = Callers { windows: HashMap::new(), sweep_at: SWEEP_ABOVE };
        InProcessLimiter { callers: Mutex::new(callers), front: Front::new(FRONT_CALLERS) }
    }
}

/// One caller's window of each policy: (start, requests counted), by policy.
#[derive(Default)]
struct CallerWindows(Mutex<[Option<(Instant, u32)>; Policy::ALL.len()]>);

/// Past this many callers (at least), those without an open window are swept on the next new caller.
const SWEEP_ABOVE: usize = 4096;
/// Callers a thread keeps handles on at most.
const FRONT_CALLERS: usize = 1_024;

fn unavailable<E: std::fmt::Display>(e: E) -> LimiterUnavailable {
    LimiterUnavailable(e.to_string())
}

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

    /// `f` of `key`'s windows if it has any: through this thread's handle, else the shared map's
    /// (then kept as this thread's handle). The handle is not cloned on the way: its count is in
    /// the cache line of the caller's lock, which every thread writes anyway.
    fn known<R>(&self, key: &str, f: impl Fn(&CallerWindows) -> R) -> Result<Option<R>, LimiterUnavailable> {
        if let Some(r) = self.front.with(key, |mine| f(mine)) {
            return Ok(Some(r));
        }
        let found = self.callers.lock().map_err(unavailable)?.windows.get(key).cloned();
        Ok(found.map(|found| {
            let r = f(&found);
            self.front.put(key.to_string(), found);
            r
        }))
    }

    /// `f` of `key`'s windows, made if it has none (the map swept first when it has grown).
    fn caller<R>(&self, key: &str, now: Instant, f: impl Fn(&CallerWindows) -> R) -> Result<R, LimiterUnavailable> {
        if let Some(r) = self.known(key, &f)? {
            return Ok(r);
        }
        let mut callers = self.callers.lock().map_err(unavailable)?;
        if callers.windows.len() > callers.sweep_at {
            callers.windows.retain(|_, c| {
                c.0.lock().is_ok_and(|w| w.iter().flatten().any(|(start, _)| now.duration_since(*start) < WINDOW))
            });
            callers.sweep_at = (callers.windows.len() * 2).max(SWEEP_ABOVE);
            // A thread's handle on a swept caller would count apart from the new one.
            self.front.invalidate();
        }
        // Another thread may have made them since `known` looked.
        let made = callers.windows.entry(key.to_string()).or_default().clone();
        drop(callers);
        let r = f(&made);
        self.front.put(key.to_string(), made);
        Ok(r)
    }

    pub fn hit_at(&self, policy: Policy, limit: u32, key: &str, now: Instant) -> Result<Decision, LimiterUnavailable> {
        self.caller(key, now, |caller| {
            let mut windows = caller.0.lock().map_err(unavailable)?;
            let slot = windows[policy as usize].get_or_insert((now, 0));
            if now.duration_since(slot.0) >= WINDOW {
                *slot = (now, 0);
            }
            let allowed = slot.1 < limit;
            if allowed {
                slot.1 += 1;
            }
            Ok(Self::decide(limit, slot.0, slot.1, now, allowed))
        })?
    }

    pub fn peek_at(&self, policy: Policy, limit: u32, key: &str, now: Instant) -> Result<Decision, LimiterUnavailable> {
        let open = self.known(key, |caller| caller.0.lock().map(|w| w[policy as usize]).map_err(unavailable))?;
        Ok(match open.transpose()?.flatten() {
            Some((start, count)) if now.duration_since(start) < WINDOW => {
                Self::decide(limit, start, count, now, count < limit)
            }
            _ => Decision { allowed: true, limit, remaining: limit, reset_secs: WINDOW.as_secs() },
        })
    }
}

#[async_trait::async_trait]
impl RateLimiter for InProcessLimiter {
    async fn hit(&self, policy: Policy, limit: u32, key: &str, at: Instant) -> Result<Decision, LimiterUnavailable> {
        self.hit_at(policy, limit, key, at)
    }
    fn hit_now(
        &self,
        policy: Policy,
        limit: u32,
        key: &str,
        at: Instant,
    ) -> Option<Result<Decision, LimiterUnavailable>> {
        Some(self.hit_at(policy, limit, key, at))
    }
    async fn peek(&self, policy: Policy, limit: u32, key: &str, at: Instant) -> Result<Decision, LimiterUnavailable> {
        self.peek_at(policy, limit, key, at)
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

    /// Threads keep handles of their own on a caller, and still count into one window.
    #[test]
    fn threads_count_into_the_callers_one_window() {
        let l = Arc::new(InProcessLimiter::default());
        let t0 = Instant::now();
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let l = l.clone();
                std::thread::spawn(move || {
                    (0..500).filter(|_| l.hit_at(Policy::Default, 1000, "acct", t0).unwrap().allowed).count()
                })
            })
            .collect();
        let allowed: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(allowed, 1000);
        assert_eq!(l.peek_at(Policy::Default, 1000, "acct", t0).unwrap().remaining, 0);
    }

    #[test]
    fn memory_stays_bounded_by_active_keys() {
        let l = InProcessLimiter::default();
        let t0 = Instant::now();
        for i in 0..=SWEEP_ABOVE {
            l.hit_at(Policy::Default, 10, &i.to_string(), t0).unwrap();
        }
        l.hit_at(Policy::Default, 10, "late", t0 + WINDOW).unwrap();
        assert_eq!(l.callers.lock().unwrap().windows.len(), 1);
        // A crowd of active callers is kept, and is not scanned again for every newcomer.
        let l = InProcessLimiter::default();
        for i in 0..SWEEP_ABOVE + 2 {
            l.hit_at(Policy::Default, 10, &i.to_string(), t0).unwrap();
        }
        let callers = l.callers.lock().unwrap();
        assert_eq!(callers.windows.len(), SWEEP_ABOVE + 2);
        assert_eq!(callers.sweep_at, 2 * (SWEEP_ABOVE + 1), "the next sweep waits for twice the crowd");
    }
}
