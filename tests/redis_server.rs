//! A `redis-server` of one test's own (Debian's, installed by tools/services.sh) on a free
//! loopback port, for the tests that stop Redis under running replicas: the test run's shared one
//! cannot be stopped under the other tests. Stopped when dropped.

use std::process::{Child, Command, Stdio};

pub struct RedisServer {
    pub port: u16,
    child: Option<Child>,
}

impl RedisServer {
    pub fn start() -> RedisServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (tools/services.sh install)");
        let ready = (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(ready, "redis-server did not start");
        RedisServer { port, child: Some(child) }
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills the server (as when Redis fails).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
