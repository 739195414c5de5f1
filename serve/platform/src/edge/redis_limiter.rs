//! The rate limiter shared by several replicas (`SITREP_RATE_LIMIT=redis://…`): the windows of
//! SUPPLEMENT 1.12 kept in Redis, counted by one atomic script call — per request, or, while a
//! call of the same window is in flight, per batch of the requests that queued behind it (each
//! gets its own number in the window, as if counted one by one). The window's clock is Redis's
//! (a key's time to live), so replicas whose clocks drift still share one window. When Redis
//! cannot answer in time the limiter is unavailable and each policy does what it documents
//! (fail open or closed, [`Policy::fails_open`]).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use redis::{aio::ConnectionManager, aio::ConnectionManagerConfig, Script};
use tokio::sync::oneshot;

use super::rate_limit::{Decision, LimiterUnavailable, Policy, RateLimiter, WINDOW};

/// Counts (or only reads) one window: every request of a window is counted, refused ones too,
/// which shows nothing different from counting only the allowed ones (a window is fixed from its
/// first request, and once it is full every later request in it is refused either way) and
/// saves Redis a read per request. Two commands on the common path: INCRBY, then PTTL.
/// KEYS[1] the window; ARGV[1] the window in ms; ARGV[2] how many requests to count (0: peek).
/// Returns {requests counted in the window so far, ms left in it}.
const WINDOW_SCRIPT: &str = r"
local window = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
if n == 0 then
  local left = redis.call('PTTL', KEYS[1])
  if left <= 0 then
    return {0, window}
  end
  return {tonumber(redis.call('GET', KEYS[1]) or '0'), left}
end
local count = redis.call('INCRBY', KEYS[1], n)
if count == n then
  redis.call('PEXPIRE', KEYS[1], window)
  return {count, window}
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  -- A window without an expiry (never written so): it starts now.
  redis.call('SET', KEYS[1], n, 'PX', window)
  return {n, window}
end
return {count, left}
";

/// How long a request waits for Redis before the limiter counts as unavailable.
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(500);

pub struct RedisLimiter(Arc<Shared>);

struct Shared {
    connection: ConnectionManager,
    script: Script,
    /// Requests waiting to be counted, by window: while one script call of a window is in
    /// flight, the requests that arrive queue, and the next call counts them all at once.
    queues: Mutex<HashMap<String, Queue>>,
}

#[derive(Default)]
struct Queue {
    waiting: Vec<oneshot::Sender<Result<Counted, LimiterUnavailable>>>,
    /// A task is counting this window's queue.
    draining: bool,
}

/// A request's place in its window: it was request number `number`, with `left_ms` to go.
#[derive(Debug, Clone, Copy)]
struct Counted {
    number: i64,
    left_ms: i64,
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
        Ok(RedisLimiter(Arc::new(Shared { connection, script: Script::new(WINDOW_SCRIPT), queues: Mutex::default() })))
    }

    /// Queues the request on its window and waits for its number. The counting runs on a task of
    /// its own, so a cancelled request never strands the ones queued behind it.
    async fn count(&self, window: String) -> Result<Counted, LimiterUnavailable> {
        let (tx, rx) = oneshot::channel();
        let start = {
            let mut queues = self.0.queues.lock().map_err(|_| LimiterUnavailable("limiter queue poisoned".into()))?;
            match queues.get_mut(&window) {
                Some(queue) => {
                    queue.waiting.push(tx);
                    !std::mem::replace(&mut queue.draining, true)
                }
                None => {
                    queues.insert(window.clone(), Queue { waiting: vec![tx], draining: true });
                    true
                }
            }
        };
        if start {
            tokio::spawn(self.0.clone().drain(window));
        }
        rx.await.map_err(|_| LimiterUnavailable("the count was abandoned".into()))?
    }
}

impl Shared {
    /// Counts `window`'s queued requests, a batch per script call, until none is waiting.
    async fn drain(self: Arc<Self>, window: String) {
        // Once the queue is empty the task yields once before it ends: the requests the last
        // answers woke often queue their next count meanwhile, and one call then takes them all.
        let mut yielded = false;
        loop {
            let batch = {
                let Ok(mut queues) = self.queues.lock() else { return };
                let Some(queue) = queues.get_mut(&window) else { return };
                if queue.waiting.is_empty() && yielded {
                    queues.remove(&window);
                    return;
                }
                std::mem::take(&mut queue.waiting)
            };
            if batch.is_empty() {
                yielded = true;
                tokio::task::yield_now().await;
                continue;
            }
            yielded = false;
            let n = batch.len() as i64;
            match self.call(&window, n).await {
                Ok((total, left_ms)) => {
                    // The batch holds numbers total - n + 1 ..= total, in arrival order.
                    for (i, waiter) in batch.into_iter().enumerate() {
                        let _ = waiter.send(Ok(Counted { number: total - n + 1 + i as i64, left_ms }));
                    }
                }
                Err(e) => {
                    for waiter in batch {
                        let _ = waiter.send(Err(LimiterUnavailable(e.0.clone())));
                    }
                }
            }
        }
    }

    async fn call(&self, window: &str, n: i64) -> Result<(i64, i64), LimiterUnavailable> {
        let mut connection = self.connection.clone();
        self.script
            .key(window)
            .arg(WINDOW.as_millis() as u64)
            .arg(n)
            .invoke_async(&mut connection)
            .await
            .map_err(|e| LimiterUnavailable(e.to_string()))
    }
}

fn window_key(policy: Policy, key: &str) -> String {
    format!("sitrep:rate:{}:{key}", policy.name())
}

fn decision(limit: u32, number: i64, left_ms: i64, allowed: bool) -> Decision {
    let left_ms = left_ms.clamp(0, WINDOW.as_millis() as i64) as u64;
    Decision {
        allowed,
        limit,
        remaining: limit.saturating_sub(u32::try_from(number.max(0)).unwrap_or(u32::MAX)),
        reset_secs: left_ms.div_ceil(1000),
    }
}

#[async_trait::async_trait]
impl RateLimiter for RedisLimiter {
    async fn hit(&self, policy: Policy, limit: u32, key: &str, _: Instant) -> Result<Decision, LimiterUnavailable> {
        let counted = self.count(window_key(policy, key)).await?;
        Ok(decision(limit, counted.number, counted.left_ms, counted.number <= i64::from(limit)))
    }

    async fn peek(&self, policy: Policy, limit: u32, key: &str, _: Instant) -> Result<Decision, LimiterUnavailable> {
        let (counted, left_ms) = self.0.call(&window_key(policy, key), 0).await?;
        // Peeked, the next request would be number counted + 1.
        Ok(decision(limit, counted, left_ms, counted < i64::from(limit)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Child;

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

    /// Many requests of one window at once are counted in batches, and each still gets a number
    /// of its own: the remaining counts are exactly limit − 1, limit − 2, …
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn requests_counted_together_each_get_their_own_number() {
        let redis = RedisServer::start_on(free_port());
        let l = Arc::new(RedisLimiter::connect(&redis.url()).unwrap());
        let hits = (0..300).map(|_| {
            let l = l.clone();
            tokio::spawn(async move { l.hit(Policy::Default, 1000, "acct", Instant::now()).await.unwrap().remaining })
        });
        let mut remaining: Vec<u32> = futures::future::join_all(hits).await.into_iter().map(|r| r.unwrap()).collect();
        remaining.sort_unstable();
        assert_eq!(remaining, (700..1000).collect::<Vec<u32>>());
        // The draining task removes the window's queue once it finds it empty (after the last answer).
        let mut left_behind = true;
        for _ in 0..100 {
            left_behind = !l.0.queues.lock().unwrap().is_empty();
            if !left_behind {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!left_behind, "no queue is left behind");
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
