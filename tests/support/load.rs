//! Load on the Streamable HTTP server, over loopback: concurrent clients, each with its own
//! session on its own kept-alive connection, calling `list_tasks` and `create_task` in turn
//! for a fixed time. Used by the load test (a short run in CI) and by the `http_load` bench,
//! which also serves the same tools from a plain rmcp server for comparison.

use std::future::IntoFuture as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};

use crate::task_tracker::{self, Tracker};

/// What a run measured.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Calls completed, successful or not.
    pub calls: usize,
    /// Calls that failed (HTTP error, JSON-RPC error, `isError`, unreadable answer).
    pub errors: usize,
    /// The first few failures, for the test's message.
    pub first_errors: Vec<String>,
    /// The latency of every call, sorted.
    pub latencies: Vec<Duration>,
    /// The ids of the tasks created.
    pub created: Vec<u64>,
    /// How long the run took.
    pub elapsed: Duration,
}

impl LoadReport {
    /// Calls per second.
    #[must_use]
    #[expect(
        clippy::cast_precision_loss,
        reason = "a count of calls is far below 2^52"
    )]
    pub fn per_second(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }

    /// The latency below which `per_mille` thousandths of the calls completed (500 for the
    /// median, 990 for the 99th percentile): the nearest rank.
    #[must_use]
    pub fn percentile(&self, per_mille: usize) -> Duration {
        let Some(last) = self.latencies.len().checked_sub(1) else {
            return Duration::ZERO;
        };
        self.latencies[(last * per_mille.min(1000)).div_ceil(1000)]
    }

    fn merge(&mut self, other: ClientReport) {
        self.calls += other.calls;
        self.errors += other.errors.len();
        for error in other.errors {
            if self.first_errors.len() < 5 {
                self.first_errors.push(error);
            }
        }
        self.latencies.extend(other.latencies);
        self.created.extend(other.created);
    }
}

#[derive(Debug, Default)]
struct ClientReport {
    calls: usize,
    errors: Vec<String>,
    latencies: Vec<Duration>,
    created: Vec<u64>,
}

/// Runs `clients` clients against `addr` for `duration`.
pub async fn run(addr: SocketAddr, clients: usize, duration: Duration) -> LoadReport {
    let start = Instant::now();
    let deadline = start + duration;
    let handles: Vec<_> = (0..clients)
        .map(|n| tokio::spawn(client(addr, n, deadline)))
        .collect();
    let mut report = LoadReport::default();
    for handle in handles {
        match handle.await {
            Ok(client) => report.merge(client),
            Err(error) => {
                report.errors += 1;
                report
                    .first_errors
                    .push(format!("a client panicked: {error}"));
            }
        }
    }
    report.elapsed = start.elapsed();
    report.latencies.sort_unstable();
    report
}

async fn client(addr: SocketAddr, n: usize, deadline: Instant) -> ClientReport {
    let mut report = ClientReport::default();
    let mut connection = match Connection::open(addr).await {
        Ok(connection) => connection,
        Err(error) => {
            report.errors.push(error);
            return report;
        }
    };
    if let Err(error) = connection.handshake().await {
        report.errors.push(error);
        return report;
    }
    let mut i: u64 = 0;
    while Instant::now() < deadline {
        i += 1;
        let (tool, arguments) = if i % 2 == 1 {
            ("list_tasks", json!({"status": "todo"}))
        } else {
            (
                "create_task",
                json!({"title": format!("Load task {n}-{i}"), "assignee": "ada", "due": "2030-01-31"}),
            )
        };
        let started = Instant::now();
        let outcome = connection.call(i, tool, arguments).await;
        report.latencies.push(started.elapsed());
        report.calls += 1;
        match outcome {
            Ok(result) if tool == "create_task" => {
                match result["structuredContent"]["id"].as_u64() {
                    Some(id) => report.created.push(id),
                    None => report.errors.push(format!("no task id in {result}")),
                }
            }
            Ok(_) => {}
            Err(error) => report.errors.push(error),
        }
    }
    report
}

/// One client's kept-alive connection and session.
pub struct Connection {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    session: Option<String>,
}

impl Connection {
    /// Connects to `addr`.
    ///
    /// # Errors
    /// The connection or the HTTP handshake failed.
    pub async fn open(addr: SocketAddr) -> Result<Self, String> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let _ = stream.set_nodelay(true);
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| format!("HTTP handshake: {e}"))?;
        tokio::spawn(connection);
        Ok(Self {
            sender,
            session: None,
        })
    }

    /// Sends one JSON-RPC message; the status and the messages of the answer.
    async fn post(&mut self, body: &Value) -> Result<(u16, Vec<Value>), String> {
        self.post_bytes(Bytes::from(body.to_string())).await
    }

    /// Sends one JSON-RPC message written out; the status and the messages of the answer.
    async fn post_bytes(&mut self, body: Bytes) -> Result<(u16, Vec<Value>), String> {
        let mut request = http::Request::post("/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let request = request
            .body(Full::new(body))
            .map_err(|e| format!("request: {e}"))?;
        self.sender
            .ready()
            .await
            .map_err(|e| format!("connection: {e}"))?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(|e| format!("send: {e}"))?;
        let status = response.status().as_u16();
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = session.to_str().ok().map(str::to_owned);
        }
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("body: {e}"))?
            .to_bytes();
        Ok((status, messages(&bytes)))
    }

    /// Opens a session: `initialize`, then `notifications/initialized`. The HTTP status of
    /// the `initialize`.
    ///
    /// # Errors
    /// The server did not answer.
    pub async fn initialize(&mut self, initialized: bool) -> Result<u16, String> {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "http-load", "version": "0"}}});
        let (status, _) = self.post(&initialize).await?;
        if status == 200 && initialized {
            let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let (status, _) = self.post(&done).await?;
            if status != 202 {
                return Err(format!("notifications/initialized answered {status}"));
            }
        }
        Ok(status)
    }

    async fn handshake(&mut self) -> Result<(), String> {
        match self.initialize(true).await? {
            200 => Ok(()),
            status => Err(format!("initialize answered {status}")),
        }
    }

    /// Calls a tool with a body of about `bytes` bytes: its `_meta` (which no tool reads)
    /// padded with short strings, the shape that costs a JSON parser the most memory per
    /// byte. The HTTP status of the answer.
    ///
    /// # Errors
    /// The server did not answer.
    pub async fn call_padded(
        &mut self,
        id: u64,
        tool: &str,
        arguments: Value,
        bytes: usize,
    ) -> Result<u16, String> {
        // Written out as text, so that the client holds the body's bytes only, not a parsed
        // copy (`"ab",` is five bytes of compact JSON).
        let padding = "\"ab\",".repeat(bytes.saturating_sub(200) / 5);
        let padding = padding.trim_end_matches(',');
        let tool = serde_json::to_string(tool).map_err(|e| e.to_string())?;
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{tool},"arguments":{arguments},"_meta":{{"padding":[{padding}]}}}}}}"#
        );
        let (status, _) = self.post_bytes(Bytes::from(call)).await?;
        Ok(status)
    }

    /// Calls a tool; its result, or what went wrong.
    ///
    /// # Errors
    /// An HTTP or JSON-RPC error, a result with `isError`, or no answer.
    pub async fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Result<Value, String> {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": tool, "arguments": arguments}});
        let (status, messages) = self.post(&call).await?;
        if status != 200 {
            return Err(format!("{tool}: HTTP {status}"));
        }
        let Some(answer) = messages.into_iter().find(|m| m["id"] == id) else {
            return Err(format!("{tool}: no answer"));
        };
        if answer.get("error").is_some() {
            return Err(format!("{tool}: {}", answer["error"]));
        }
        let result = answer["result"].clone();
        if result["isError"] == true {
            return Err(format!("{tool}: {}", result["content"][0]["text"]));
        }
        Ok(result)
    }
}

/// The JSON-RPC messages of a body: plain JSON or server-sent events.
#[must_use]
pub fn messages(body: &[u8]) -> Vec<Value> {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        return vec![value];
    }
    String::from_utf8_lossy(body)
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}

/// Opens `sessions` sessions, `initialize` only (as a client that never comes back would),
/// `concurrency` at a time; how many were accepted and how many refused.
pub async fn open_sessions(
    addr: SocketAddr,
    sessions: usize,
    concurrency: usize,
) -> (usize, usize) {
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let handles: Vec<_> = (0..concurrency)
        .map(|_| {
            let next = Arc::clone(&next);
            tokio::spawn(async move {
                let (mut accepted, mut refused) = (0, 0);
                while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < sessions {
                    let status = match Connection::open(addr).await {
                        Ok(mut connection) => connection.initialize(false).await,
                        Err(error) => Err(error),
                    };
                    if status == Ok(200) {
                        accepted += 1;
                    } else {
                        refused += 1;
                    }
                }
                (accepted, refused)
            })
        })
        .collect();
    let mut totals = (0, 0);
    for handle in handles {
        let (accepted, refused) = handle.await.unwrap_or((0, 0));
        totals.0 += accepted;
        totals.1 += refused;
    }
    totals
}

/// The task tracker, guarded, served with `config` on a loopback port; its address and state.
///
/// # Panics
/// When no loopback port can be bound.
pub async fn serve_guarded(
    tasks: u64,
    config: guardrails::mcp::HttpConfig,
) -> (SocketAddr, Arc<Tracker>) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let tracker = Arc::new(Tracker::seeded(tasks));
    let server = task_tracker::server_on(Arc::clone(&tracker));
    tokio::spawn(server.serve_http(listener).config(config).into_future());
    (addr, tracker)
}

/// The process's resident memory, in bytes (Linux; `None` elsewhere).
#[must_use]
pub fn resident_bytes() -> Option<u64> {
    status_bytes("VmRSS:")
}

/// The process's peak resident memory so far, in bytes (Linux; `None` elsewhere).
#[must_use]
pub fn peak_resident_bytes() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// A field of `/proc/self/status` given in kB, in bytes.
fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

pub mod plain;
