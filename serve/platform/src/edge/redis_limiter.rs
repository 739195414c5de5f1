//! The rate limiter shared by several replicas (`SITREP_RATE_LIMIT=redis://…`): the windows of
//! SUPPLEMENT 1.12 kept in Redis, one atomic script per request. The window's clock is Redis's
//! (a key's time to live), so replicas whose clocks drift still share one window. When Redis
//! cannot answer in time the limiter is unavailable and each policy does what it documents
//! (fail open or closed, [`Policy::fails_open`]).

use std::time::{Duration, Instant};

use redis::{aio::ConnectionManager, aio::ConnectionManagerConfig, Script};

use super::rate_limit::{Decision, LimiterUnavailable, Policy, RateLimiter, WINDOW};

/// Counts (or only reads) one window: every request of a window is counted, refused ones too,
/// which shows nothing different from counting only the allowed ones (a window is fixed from its
/// first request, and once it is full every later request in it is refused either way) and
/// saves Redis a read per request. Two commands on the common path: INCR, then PTTL.
/// KEYS[1] the window; ARGV[1] the window in ms; ARGV[2] 1 to count, 0 to peek.
/// Returns {requests counted, ms left in the window}.
const WINDOW_SCRIPT: &str = r"
local window = tonumber(ARGV[1])
if ARGV[2] == '0' then
  local left = redis.call('PTTL', KEYS[1])
  if left <= 0 then
    return {0, window}
  end
  return {tonumber(redis.call('GET', KEYS[1]) or '0'), left}
end
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, window}
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  -- A window without an expiry (never written so): it starts now.
  redis.call('SET', KEYS[1], 1, 'PX', window)
  return {1, window}
end
return {count, left}
";

/// How long a request waits for Redis before the limiter counts as unavailable.
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(500);

pub struct RedisLimiter {
    connection: ConnectionManager,
    script: Script,
}

impl RedisLimiter {
    /// A limiter on the Redis at `url`. It connects lazily and reconnects by itself: a replica
    /// starts while Redis is away, and recovers when it is back, with no restart.
    pub fn connect(url: &str) -> Result<Self, LimiterUnavailable> {
        let client = redis::Client::open(url).map_err(|e| LimiterUnavailable(format!("SITREP_RATE_LIMIT: {e}")))?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1);
        let connection = ConnectionManager::new_lazy_with_config(client, config)
            .map_err(|e| LimiterUnavailable(format!("SITREP_RATE_LIMIT: {e}")))?;
        Ok(RedisLimiter { connection, script: Script::new(WINDOW_SCRIPT) })
    }

    async fn window(&self, policy: Policy, limit: u32, key: &str, count: bool) -> Result<Decision, LimiterUnavailable> {
        let mut connection = self.connection.clone();
        let (counted, left_ms): (i64, i64) = self
            .script
            .key(format!("sitrep:rate:{}:{key}", policy.name()))
            .arg(WINDOW.as_millis() as u64)
            .arg(u8::from(count))
            .invoke_async(&mut connection)
            .await
            .map_err(|e| LimiterUnavailable(e.to_string()))?;
        let counted = u32::try_from(counted.max(0)).unwrap_or(u32::MAX);
        let left_ms = left_ms.clamp(0, WINDOW.as_millis() as i64) as u64;
        Ok(Decision {
            // Counted, this request is number `counted`; peeked, the next would be one more.
            allowed: if count { counted <= limit } else { counted < limit },
            limit,
            remaining: limit.saturating_sub(counted),
            reset_secs: left_ms.div_ceil(1000),
        })
    }
}

#[async_trait::async_trait]
impl RateLimiter for RedisLimiter {
    async fn hit(&self, policy: Policy, limit: u32, key: &str, _: Instant) -> Result<Decision, LimiterUnavailable> {
        self.window(policy, limit, key, true).await
    }

    async fn peek(&self, policy: Policy, limit: u32, key: &str, _: Instant) -> Result<Decision, LimiterUnavailable> {
        self.window(policy, limit, key, false).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{process::Child, sync::Arc};

    /// A real `redis-server` (Debian's, installed by tools/services.sh) on a free loopback port,
    /// stopped when dropped.
    struct RedisServer {
        port: u16,
        child: Child,
    }

    impl RedisServer {
        fn start_on(port: u16) -> RedisServer {
            let child = std::process::Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("redis-server (tools/services.sh install)");
            let server = RedisServer { port, child };
            let ready = (0..100).any(|_| {
                std::thread::sleep(Duration::from_millis(20));
                std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
            });
            assert!(ready, "redis-server did not start");
            server
        }

        fn url(&self) -> String {
            format!("redis://127.0.0.1:{}", self.port)
        }
    }

    impl Drop for RedisServer {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    }

    #[tokio::test]
    async fn a_window_starts_at_its_first_request_and_a_full_one_refuses_until_it_ends() {
        let redis = RedisServer::start_on(free_port());
        let l = RedisLimiter::connect(&redis.url()).unwrap();
        let now = Instant::now();
        let d = l.peek(Policy::Batch, 2, "acct", now).await.unwrap();
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (true, 2, 60), "no window yet");
        let d = l.hit(Policy::Batch, 2, "acct", now).await.unwrap();
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (true, 1, 60));
        let d = l.hit(Policy::Batch, 2, "acct", now).await.unwrap();
        assert_eq!((d.allowed, d.remaining), (true, 0));
        let d = l.hit(Policy::Batch, 2, "acct", now).await.unwrap();
        assert_eq!((d.allowed, d.remaining), (false, 0));
        assert!((59..=60).contains(&d.reset_secs), "{}", d.reset_secs);
        // Other keys and policies count apart; peeking counts nothing.
        assert!(l.hit(Policy::Batch, 2, "other", now).await.unwrap().allowed);
        assert!(l.hit(Policy::Default, 2, "acct", now).await.unwrap().allowed);
        assert_eq!(l.peek(Policy::Default, 2, "acct", now).await.unwrap().remaining, 1);
        assert_eq!(l.peek(Policy::Default, 2, "acct", now).await.unwrap().remaining, 1);
    }

    /// Two replicas' limiters, many concurrent requests: exactly the limit is let through.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn replicas_count_into_one_window() {
        let redis = RedisServer::start_on(free_port());
        let replicas = [
            Arc::new(RedisLimiter::connect(&redis.url()).unwrap()),
            Arc::new(RedisLimiter::connect(&redis.url()).unwrap()),
        ];
        let tasks: Vec<_> = (0..8)
            .map(|i| {
                let l = replicas[i % 2].clone();
                tokio::spawn(async move {
                    let mut allowed = 0;
                    for _ in 0..100 {
                        allowed +=
                            usize::from(l.hit(Policy::Default, 500, "acct", Instant::now()).await.unwrap().allowed);
                    }
                    allowed
                })
            })
            .collect();
        let mut allowed = 0;
        for t in tasks {
            allowed += t.await.unwrap();
        }
        assert_eq!(allowed, 500);
        assert_eq!(replicas[1].peek(Policy::Default, 500, "acct", Instant::now()).await.unwrap().remaining, 0);
    }

    /// Redis away: the limiter says so within its timeout (the policy decides what follows), and
    /// answers again once Redis is back, with no new limiter.
    #[tokio::test]
    async fn an_absent_redis_is_unavailable_and_a_returning_one_is_used_again() {
        let port = free_port();
        let l = RedisLimiter::connect(&format!("redis://127.0.0.1:{port}")).unwrap();
        let asked = Instant::now();
        assert!(l.hit(Policy::Default, 10, "acct", asked).await.is_err());
        assert!(asked.elapsed() < Duration::from_secs(5), "{:?}", asked.elapsed());
        let _redis = RedisServer::start_on(port);
        let mut answered = None;
        for _ in 0..50 {
            if let Ok(d) = l.hit(Policy::Default, 10, "acct", Instant::now()).await {
                answered = Some(d);
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(answered.map(|d| (d.allowed, d.remaining)), Some((true, 9)));
    }
}
