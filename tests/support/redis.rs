//! A `redis-server` of the test's own, on a free loopback port, stopped when dropped: for the
//! tests of state shared by the nodes of a deployment. CI installs Debian's `redis-server`
//! (`.ci/run`); on a machine without it, [`RedisServer::start`] says so and the test skips.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `redis-server`, killed when dropped.
#[derive(Debug)]
pub struct RedisServer {
    child: Child,
    addr: SocketAddr,
}

impl RedisServer {
    /// Starts `redis-server` without persistence on a free port; `None` (with a message on
    /// stderr) when the binary is not installed, unless `GUARDRAILS_REQUIRE_REDIS` is set (CI
    /// sets it).
    ///
    /// # Panics
    /// When the server cannot start, or starts but never accepts connections.
    #[must_use]
    pub fn start(test: &str) -> Option<Self> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|probe| probe.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(error)
                if error.kind() == std::io::ErrorKind::NotFound
                    && std::env::var_os("GUARDRAILS_REQUIRE_REDIS").is_none() =>
            {
                eprintln!(
                    "SKIPPED {test}: redis-server is not installed (apt-get install redis-server; CI installs it)"
                );
                return None;
            }
            Err(error) => panic!("redis-server did not start: {error}"),
        };
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let server = Self { child, addr };
        // Readiness, not timing: wait until it accepts, for at most 10 s.
        for _ in 0..500 {
            if TcpStream::connect(addr).is_ok() {
                return Some(server);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server on port {port} never accepted a connection");
    }

    /// Its URL.
    #[must_use]
    pub fn url(&self) -> String {
        format!("redis://{}/", self.addr)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
