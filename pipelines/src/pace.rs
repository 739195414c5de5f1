//! Turns for an upstream that asks for a pace (GDELT: one request every 5 s; the SEC: ten a
//! second): each request takes the next free slot and waits for it. The slots live in this
//! process, or — where a Redis is configured (`SITREP_RATE_LIMIT=redis://…`, the replicas' rate
//! limiter) — in Redis, so every worker of the deployment shares them, on Redis's clock. When
//! Redis cannot answer in time the process keeps its own turns: the pace holds per worker, and a
//! scan goes on.

use std::time::Duration;

use redis::{
    aio::{ConnectionManager, ConnectionManagerConfig},
    Script,
};

/// Reserves the next slot of KEYS[1]: ARGV[1] the pace in ms. Returns how long the caller waits
/// for its slot (ms). The key holds when the next slot is free, and expires once it has passed.
const RESERVE_SCRIPT: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local every = tonumber(ARGV[1])
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local start = math.max(now, free)
redis.call('SET', KEYS[1], start + every, 'PX', start + every - now + 1000)
return start - now
";

/// How long a reservation waits for Redis before the process keeps its own turns.
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(500);

/// Slots shared through Redis under one key.
#[derive(Clone)]
pub struct SharedTurns {
    connection: ConnectionManager,
    script: Script,
    key: String,
}

impl std::fmt::Debug for SharedTurns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedTurns").field("key", &self.key).finish()
    }
}

impl SharedTurns {
    /// Turns under `key` in the Redis at `url` (connected on first use).
    pub fn new(url: &str, key: &str) -> Result<Self, redis::RedisError> {
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1);
        let connection = ConnectionManager::new_lazy_with_config(client, config)?;
        Ok(SharedTurns { connection, script: Script::new(RESERVE_SCRIPT), key: format!("sitrep:pace:{key}") })
    }

    async fn reserve(&self, every: Duration) -> Result<Duration, redis::RedisError> {
        let mut connection = self.connection.clone();
        let wait: i64 = self.script.key(&self.key).arg(every.as_millis() as i64).invoke_async(&mut connection).await?;
        Ok(Duration::from_millis(wait.max(0) as u64))
    }
}

/// When a paced upstream's next request may start: requests queue for their turn here, each
/// taking the next slot, before their own timeout starts (the wait is the upstream's rule, not a
/// slow answer; a scan's lease still bounds it).
#[derive(Debug, Default)]
pub struct Pacer {
    next: tokio::sync::Mutex<Option<tokio::time::Instant>>,
    shared: Option<SharedTurns>,
}

impl Pacer {
    /// Turns shared by every worker through `shared`.
    pub fn shared(shared: SharedTurns) -> Self {
        Pacer { next: Default::default(), shared: Some(shared) }
    }

    /// Waits for this request's turn, `every` after the previous one's.
    pub async fn turn(&self, every: Duration) {
        if let Some(shared) = &self.shared {
            match tokio::time::timeout(RESPONSE_TIMEOUT * 2, shared.reserve(every)).await {
                Ok(Ok(wait)) => return tokio::time::sleep(wait).await,
                Ok(Err(e)) => {
                    tracing::warn!(key = shared.key, error = %e, "pace: Redis failed; this process keeps its own turns")
                }
                Err(_) => {
                    tracing::warn!(key = shared.key, "pace: Redis did not answer; this process keeps its own turns")
                }
            }
        }
        let start = {
            let mut next = self.next.lock().await;
            let now = tokio::time::Instant::now();
            let start = next.map_or(now, |n| n.max(now));
            *next = Some(start + every);
            start
        };
        tokio::time::sleep_until(start).await;
    }
}
