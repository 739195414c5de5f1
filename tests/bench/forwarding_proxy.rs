//! A reverse proxy on loopback for `make abuse`'s attack behind a load balancer: every request
//! goes on to the server from 127.0.0.1 (one address for every caller, as behind a load
//! balancer), its client's address appended to `X-Forwarded-For` as nginx's
//! `proxy_add_x_forwarded_for` does. Bodies are read whole each way (the attack's are small).

use std::net::SocketAddr;

use poem::{
    http::{HeaderMap, HeaderName, HeaderValue},
    listener::TcpListener,
    Body, Endpoint, Request, Response, Server,
};

/// Headers of one hop only: never forwarded.
const HOP_BY_HOP: [&str; 6] = ["connection", "keep-alive", "transfer-encoding", "te", "upgrade", "host"];

struct Forward {
    upstream: String,
    http: reqwest::Client,
}

impl Endpoint for Forward {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        let client = req.remote_addr().as_socket_addr().map(|a| a.ip().to_string()).unwrap_or_default();
        let url = format!("{}{}", self.upstream, req.uri().path_and_query().map_or("/", |p| p.as_str()));
        let mut headers = forwardable(req.headers());
        let forwarded = match req.headers().get("x-forwarded-for").and_then(|v| v.to_str().ok()) {
            Some(earlier) => format!("{earlier}, {client}"),
            None => client,
        };
        headers
            .insert(HeaderName::from_static("x-forwarded-for"), HeaderValue::try_from(forwarded).expect("an address"));
        let body = req.take_body().into_bytes().await.unwrap_or_default();
        let answer = self.http.request(req.method().clone(), url).headers(headers).body(body).send().await;
        let Ok(answer) = answer else {
            return Ok(Response::builder().status(poem::http::StatusCode::BAD_GATEWAY).finish());
        };
        let (status, headers) = (answer.status(), forwardable(answer.headers()));
        let body = answer.bytes().await.unwrap_or_default();
        let mut response = Response::builder().status(status).body(Body::from(body));
        response.headers_mut().extend(headers);
        Ok(response)
    }
}

fn forwardable(headers: &HeaderMap) -> HeaderMap {
    headers
        .iter()
        .filter(|(name, _)| !HOP_BY_HOP.contains(&name.as_str()))
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect()
}

/// Starts the proxy on a free loopback port in front of `upstream` (`http://127.0.0.1:port`); its
/// base URL and the task serving it (aborting it stops the proxy).
pub async fn start(upstream: &str) -> (String, tokio::task::JoinHandle<()>) {
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
    let addr: SocketAddr = free.local_addr().expect("addr");
    drop(free);
    let http = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 1]))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let forward = Forward { upstream: upstream.to_string(), http };
    let task = tokio::spawn(async move {
        let _ = Server::new(TcpListener::bind(addr)).run(forward).await;
    });
    let base = format!("http://{addr}");
    // Until it answers (any answer: the upstream decides what).
    for _ in 0..100 {
        if reqwest::get(format!("{base}/healthz")).await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    (base, task)
}
