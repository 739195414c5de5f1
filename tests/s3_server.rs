//! An S3-compatible server in process for the tests and `make cluster` (issue 29): `s3s-fs` speaks
//! the real protocol (SigV4, XML errors, 412 on `If-None-Match: *`) to the real `object_store`
//! client, over a folder. Two things sit in front of it:
//! - a lock per object key around every conditional PUT: s3s-fs checks "absent" and then renames,
//!   so two racing create-only commits could both pass the check; a real S3 decides atomically,
//!   and the lock makes the race tests test the lake, not the server's gap;
//! - a fault layer the tests turn on: answer 500s, or answer slowly, as a troubled S3 does.

use std::{
    collections::HashMap,
    convert::Infallible,
    path::Path,
    sync::{
        atomic::{AtomicU32, AtomicU64, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use hyper_util::rt::{TokioExecutor, TokioIo};
use s3s::{auth::SimpleAuth, service::S3ServiceBuilder, Body, HttpResponse};

pub const ACCESS_KEY: &str = "sitrep-test";
pub const SECRET_KEY: &str = "sitrep-test-secret";
pub const REGION: &str = "us-east-1";

/// What the fault layer does to the next requests.
#[derive(Default)]
pub struct Faults {
    /// This many next requests get a 500 (an S3 `InternalError`).
    failing: AtomicU32,
    /// Every request waits this long first.
    delay_ms: AtomicU64,
    /// Requests answered so far (faults included).
    pub requests: AtomicU64,
}

impl Faults {
    /// The next `n` requests answer 500.
    pub fn fail_next(&self, n: u32) {
        self.failing.store(n, Ordering::SeqCst);
    }

    /// Every request waits `delay` first (zero: no delay).
    pub fn delay(&self, delay: Duration) {
        self.delay_ms.store(delay.as_millis() as u64, Ordering::SeqCst);
    }

    /// Takes one planned failure, if any is left.
    fn take_failure(&self) -> bool {
        self.failing.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok()
    }
}

pub struct S3Server {
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
    pub faults: Arc<Faults>,
    task: tokio::task::JoinHandle<()>,
}

impl S3Server {
    /// Serves the folder `root` (each sub-folder a bucket; `bucket` is created) on a free
    /// loopback port, in the current runtime, until dropped.
    pub async fn start(root: &Path, bucket: &str) -> std::io::Result<S3Server> {
        std::fs::create_dir_all(root.join(bucket))?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let endpoint = format!("http://{}", listener.local_addr()?);
        Ok(Self::serve(root, listener, endpoint))
    }

    /// As [`S3Server::start`] on a given address (`make cluster`).
    pub async fn start_on(root: &Path, bucket: &str, address: &str) -> std::io::Result<S3Server> {
        std::fs::create_dir_all(root.join(bucket))?;
        let listener = tokio::net::TcpListener::bind(address).await?;
        let endpoint = format!("http://{}", listener.local_addr()?);
        Ok(Self::serve(root, listener, endpoint))
    }

    fn serve(root: &Path, listener: tokio::net::TcpListener, endpoint: String) -> S3Server {
        let fs = s3s_fs::FileSystem::new(root).expect("an S3 folder");
        let mut builder = S3ServiceBuilder::new(fs);
        builder.set_auth(SimpleAuth::from_single(ACCESS_KEY, SECRET_KEY));
        let s3 = builder.build();
        let faults = Arc::new(Faults::default());
        let locks: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>> = Arc::default();
        let task = {
            let faults = faults.clone();
            tokio::spawn(async move {
                loop {
                    let Ok((socket, _)) = listener.accept().await else { continue };
                    // Small responses go out at once: without it, a response written in two parts
                    // waits for the client's delayed ACK (tens of ms a request on loopback).
                    let _ = socket.set_nodelay(true);
                    let (s3, faults, locks) = (s3.clone(), faults.clone(), locks.clone());
                    let service = hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
                        let (s3, faults, locks) = (s3.clone(), faults.clone(), locks.clone());
                        async move { Ok::<_, Infallible>(answer(&s3, &faults, &locks, req).await) }
                    });
                    tokio::spawn(async move {
                        let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                            .serve_connection(TokioIo::new(socket), service)
                            .await;
                    });
                }
            })
        };
        S3Server { endpoint, faults, task }
    }

    /// The environment `object_store` (and so `SITREP_LAKE=s3://…`) reads to reach this server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT", self.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY.into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.into()),
            ("AWS_REGION", REGION.into()),
        ]
    }

    /// An `object_store` client of `bucket` on this server, as `Lake::open("s3://…")` builds
    /// from the environment, with create-only commits.
    pub fn lake(&self, bucket: &str, prefix: &str) -> sitrep_lake::Lake {
        use object_store::aws::{AmazonS3Builder, S3ConditionalPut};
        let s3 = AmazonS3Builder::new()
            .with_endpoint(&self.endpoint)
            .with_allow_http(true)
            .with_access_key_id(ACCESS_KEY)
            .with_secret_access_key(SECRET_KEY)
            .with_region(REGION)
            .with_bucket_name(bucket)
            .with_conditional_put(S3ConditionalPut::ETagMatch)
            // The client's own retries of 5xx answers, kept short for tests (the default waits
            // up to minutes).
            .with_retry(object_store::RetryConfig {
                backoff: object_store::BackoffConfig {
                    init_backoff: Duration::from_millis(10),
                    max_backoff: Duration::from_millis(100),
                    base: 2.0,
                },
                max_retries: 3,
                retry_timeout: Duration::from_secs(10),
            })
            .build()
            .expect("an S3 client");
        let store: Arc<dyn object_store::ObjectStore> =
            Arc::new(object_store::prefix::PrefixStore::new(s3, prefix.trim_matches('/')));
        sitrep_lake::Lake::from_store(store, &format!("s3://{bucket}/{prefix}/"))
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One request through the fault layer and the key locks to s3s-fs.
async fn answer(
    s3: &s3s::service::S3Service,
    faults: &Faults,
    locks: &Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    req: http::Request<hyper::body::Incoming>,
) -> HttpResponse {
    faults.requests.fetch_add(1, Ordering::Relaxed);
    let delay = faults.delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    if faults.take_failure() {
        return internal_error();
    }
    let conditional = req.method() == http::Method::PUT
        && (req.headers().contains_key("if-none-match") || req.headers().contains_key("if-match"));
    let _held = if conditional {
        let lock = {
            let mut locks = locks.lock().unwrap_or_else(|e| e.into_inner());
            locks.entry(req.uri().path().to_string()).or_default().clone()
        };
        Some(lock.lock_owned().await)
    } else {
        None
    };
    match hyper::service::Service::call(s3, req).await {
        Ok(response) => response,
        Err(_) => internal_error(),
    }
}

fn internal_error() -> HttpResponse {
    let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InternalError</Code>\
                <Message>We encountered an internal error. Please try again.</Message></Error>";
    http::Response::builder()
        .status(500)
        .header("content-type", "application/xml")
        .body(Body::from(body.to_string()))
        .expect("a static response")
}
