//! A PostgreSQL server of one test's own (Debian's binaries, installed by tools/services.sh), for
//! the tests that stop and restart the database under a running sitrep: the test run's shared
//! server cannot be stopped under the other tests.

use std::{path::PathBuf, process::Command, time::Duration};

pub struct PostgresServer {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    _dir: tempfile::TempDir,
}

/// The newest installed PostgreSQL's programs (`/usr/lib/postgresql/<major>/bin`).
fn binaries() -> PathBuf {
    let mut majors: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (tools/services.sh install)")
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    majors.sort_by_key(|p| p.parent().and_then(|m| m.file_name()?.to_str()?.parse::<u32>().ok()).unwrap_or(0));
    majors.pop().expect("an installed PostgreSQL server")
}

/// Runs a PostgreSQL program: as the `postgres` user when this process is root (PostgreSQL
/// refuses to run as root).
fn pg(program: &std::path::Path) -> Command {
    // Whether this process runs as root (`id -u`; the workspace forbids unsafe code, so no geteuid).
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0"));
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

impl PostgresServer {
    /// Initialises a cluster in a temporary folder and starts it on a free loopback port.
    pub fn start() -> PostgresServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let data = dir.path().join("data");
        Command::new("chmod").args(["777", dir.path().to_str().unwrap()]).status().expect("chmod");
        let bin = binaries();
        let init = pg(&bin.join("initdb"))
            .args(["-D", data.to_str().unwrap(), "-U", "postgres", "-A", "trust", "--no-sync", "--locale=C"])
            .output()
            .expect("initdb");
        assert!(init.status.success(), "initdb: {}", String::from_utf8_lossy(&init.stderr));
        let server = PostgresServer { bin, data, port, _dir: dir };
        server.resume();
        server
    }

    /// The URL of its `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Starts the (stopped) server again on the same port and data.
    pub fn resume(&self) {
        let options = format!(
            "-c listen_addresses=127.0.0.1 -p {} -k {} -c fsync=off",
            self.port,
            self.data.parent().unwrap().display()
        );
        let started = pg(&self.bin.join("pg_ctl"))
            .args(["-D", self.data.to_str().unwrap(), "-l", "/dev/null", "-w", "-o", &options, "start"])
            .output()
            .expect("pg_ctl start");
        assert!(started.status.success(), "pg_ctl start: {}", String::from_utf8_lossy(&started.stderr));
    }

    /// Stops the server at once (`immediate`: connections are cut, as when the database fails).
    pub fn stop(&self) {
        let _ = pg(&self.bin.join("pg_ctl"))
            .args(["-D", self.data.to_str().unwrap(), "-m", "immediate", "-w", "stop"])
            .output();
    }

    /// Waits until the server accepts connections.
    pub async fn ready(&self) {
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("PostgreSQL did not start");
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        self.stop();
    }
}
