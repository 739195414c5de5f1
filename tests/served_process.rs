//! A `sitrep-serve` process of this build, for the tests that need a real process: killed with
//! SIGKILL, measured through `/proc`, or run as several replicas.

use std::{path::Path, process::Stdio, time::Duration};

use crate::built_binary;

pub struct ServedProcess {
    /// Where its public listener answers (`http://127.0.0.1:<port>`).
    pub base: String,
    pub process: tokio::process::Child,
}

impl ServedProcess {
    /// `sitrep-serve --state <state> serve --listen <a free loopback port> --lake <lake>
    /// --cache-dir <cache>`, warnings only, with what `configure` adds (more arguments of `serve`,
    /// environment); ready once `/readyz` answers 200. Killed when dropped.
    pub async fn start(
        state: &str,
        lake: &str,
        cache: &Path,
        configure: impl FnOnce(&mut tokio::process::Command),
    ) -> ServedProcess {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut command = tokio::process::Command::new(built_binary("sitrep-serve"));
        command
            .args(["--state", state, "serve", "--listen", &format!("127.0.0.1:{port}"), "--lake", lake])
            .arg("--cache-dir")
            .arg(cache)
            .env("SITREP_LOG", "warn")
            .env("SITREP_METRICS_LISTEN", "off")
            .stdout(Stdio::null())
            .kill_on_drop(true);
        configure(&mut command);
        let process = command.spawn().expect("spawn sitrep-serve");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        for _ in 0..600 {
            if http.get(format!("{base}/readyz")).send().await.is_ok_and(|r| r.status() == 200) {
                return ServedProcess { base, process };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("sitrep-serve never became ready");
    }

    pub fn pid(&self) -> u32 {
        self.process.id().expect("a running process")
    }

    /// SIGKILL, and waits until it is gone.
    pub async fn kill(&mut self) {
        self.process.kill().await.expect("kill sitrep-serve");
    }
}
