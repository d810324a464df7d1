//! The Streamable HTTP server under hostile clients and faults, on loopback: every limit of
//! `HttpConfig` is reached and answered as documented, and the server survives running out of
//! descriptors.

use std::future::IntoFuture as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use guardrails::mcp::HttpConfig;
use guardrails::{Server, ToolArgs, tool};
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// The server's state: a gate that a test opens, and a count of the calls that reached it.
struct Gate {
    open: tokio::sync::Semaphore,
    arrived: tokio::sync::Semaphore,
}

#[derive(Deserialize, ToolArgs)]
struct NoArgs {}

/// Waits until the test opens the gate.
#[tool]
async fn wait_for_gate(state: &Gate, _args: NoArgs) -> String {
    state.arrived.add_permits(1);
    let _ = state.open.acquire().await;
    "passed".to_owned()
}

/// Answers at once.
#[tool(read_only)]
fn ping(_args: NoArgs) -> String {
    "pong".to_owned()
}

fn server() -> (Server<Gate>, Arc<Gate>) {
    let gate = Arc::new(Gate {
        open: tokio::sync::Semaphore::new(0),
        arrived: tokio::sync::Semaphore::new(0),
    });
    let server = Server::from_arc(Arc::clone(&gate))
        .name("limits-test")
        .tool(wait_for_gate)
        .tool(ping);
    (server, gate)
}

async fn serve(config: HttpConfig) -> (SocketAddr, Arc<Gate>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (server, gate) = server();
    tokio::spawn(server.serve_http(listener).config(config).into_future());
    (addr, gate)
}

/// A response: status, headers, and the JSON-RPC messages of its body (plain JSON or
/// server-sent events).
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: http::HeaderMap,
    text: String,
}

impl Reply {
    fn messages(&self) -> Vec<Value> {
        if let Ok(value) = serde_json::from_str::<Value>(&self.text) {
            return vec![value];
        }
        self.text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    }

    fn session(&self) -> String {
        self.headers["mcp-session-id"].to_str().unwrap().to_owned()
    }
}

/// Sends one request on a new connection and reads the whole response.
async fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: String) -> Reply {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut request = http::Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    // A header given replaces the default of its name.
    let defaults = request.headers_mut().unwrap();
    for (name, value) in headers {
        defaults.insert(
            http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            http::HeaderValue::from_str(value).unwrap(),
        );
    }
    let response = sender
        .send_request(request.body(Full::new(Bytes::from(body))).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    Reply {
        status: parts.status.as_u16(),
        headers: parts.headers,
        text: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

fn initialize_body() -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "limits-test", "version": "0"}}})
    .to_string()
}

async fn initialize(addr: SocketAddr, headers: &[(&str, &str)]) -> Reply {
    send(addr, "POST", headers, initialize_body()).await
}

/// A session ready for calls: initialized, and `notifications/initialized` sent.
async fn session(addr: SocketAddr) -> String {
    let reply = initialize(addr, &[]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let id = reply.session();
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let reply = send(addr, "POST", &session_headers(&id), done).await;
    assert_eq!(reply.status, 202, "{reply:?}");
    id
}

fn session_headers(id: &str) -> [(&str, &str); 2] {
    [
        ("mcp-session-id", id),
        ("mcp-protocol-version", "2025-11-25"),
    ]
}

fn call_body(id: u64, tool: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": {}}})
    .to_string()
}

const PATIENCE: Duration = Duration::from_secs(20);

#[tokio::test]
async fn foreign_origins_are_refused_loopback_ones_and_none_accepted() {
    let (addr, _gate) = serve(HttpConfig::default()).await;
    let evil = initialize(addr, &[("origin", "https://evil.example")]).await;
    assert_eq!(evil.status, 403, "{evil:?}");
    assert!(!evil.headers.contains_key("mcp-session-id"));
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1:8080",
        "http://[::1]:3000",
    ] {
        let reply = initialize(addr, &[("origin", origin)]).await;
        assert_eq!(reply.status, 200, "{origin}: {reply:?}");
    }
    // Clients other than browsers send no Origin.
    assert_eq!(initialize(addr, &[]).await.status, 200);

    let config = HttpConfig::default().with_allowed_origins(["https://app.example.com"]);
    let (addr, _gate) = serve(config).await;
    let allowed = initialize(addr, &[("origin", "https://app.example.com")]).await;
    assert_eq!(allowed.status, 200, "{allowed:?}");
    let local = initialize(addr, &[("origin", "http://localhost:5173")]).await;
    assert_eq!(
        local.status, 403,
        "the list replaces the default: {local:?}"
    );
}

#[tokio::test]
async fn sessions_past_the_cap_get_503_until_one_closes() {
    let (addr, _gate) = serve(HttpConfig::default().with_max_sessions(2)).await;
    let first = session(addr).await;
    let _second = session(addr).await;
    let refused = initialize(addr, &[]).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.headers["retry-after"], "5");
    let error = &refused.messages()[0];
    assert_eq!(error["error"]["code"], -32000, "{error}");
    assert_eq!(
        error["id"], 0,
        "the error answers the initialize by its id: {error}"
    );
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("maximum of 2 sessions")
    );

    let closed = send(addr, "DELETE", &session_headers(&first), String::new()).await;
    assert!(closed.status < 300, "{closed:?}");
    assert_eq!(initialize(addr, &[]).await.status, 200);
}

#[tokio::test]
async fn a_session_unused_after_its_initialize_is_closed_and_its_slot_freed() {
    let config = HttpConfig::default()
        .with_max_sessions(1)
        .with_session_init_timeout(Duration::from_millis(300));
    let (addr, _gate) = serve(config).await;
    let abandoned = initialize(addr, &[]).await;
    assert_eq!(abandoned.status, 200);
    assert_eq!(initialize(addr, &[]).await.status, 503);
    // The abandoned session expires: a new one fits again.
    let retried = tokio::time::timeout(PATIENCE, async {
        loop {
            let reply = initialize(addr, &[]).await;
            if reply.status == 200 {
                return reply;
            }
            assert_eq!(reply.status, 503, "{reply:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the unused session expires");
    assert_ne!(retried.session(), abandoned.session());
    let gone = send(
        addr,
        "POST",
        &session_headers(&abandoned.session()),
        call_body(1, "ping"),
    )
    .await;
    assert_eq!(gone.status, 404, "{gone:?}");
}

#[tokio::test]
async fn a_used_session_outlives_the_initialization_deadline() {
    let config = HttpConfig::default().with_session_init_timeout(Duration::from_millis(100));
    let (addr, _gate) = serve(config).await;
    let id = session(addr).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let reply = send(addr, "POST", &session_headers(&id), call_body(1, "ping")).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.messages()[0]["result"]["content"][0]["text"], "pong");
}

#[tokio::test]
async fn every_request_sharing_an_id_in_flight_gets_an_answer() {
    let (addr, gate) = serve(HttpConfig::default()).await;
    let id = session(addr).await;
    let (tx, mut answers) = tokio::sync::mpsc::unbounded_channel();
    for _ in 0..16 {
        let tx = tx.clone();
        let id = id.clone();
        tokio::spawn(async move {
            let reply = send(
                addr,
                "POST",
                &session_headers(&id),
                call_body(7, "wait_for_gate"),
            )
            .await;
            let _ = tx.send(reply);
        });
    }
    // While the one call that went through waits at the gate, the 15 others are answered.
    let mut duplicates = 0;
    while duplicates < 15 {
        let reply = tokio::time::timeout(PATIENCE, answers.recv())
            .await
            .expect("every duplicate is answered while the first call runs")
            .unwrap();
        let message = &reply.messages()[0];
        assert_eq!(message["id"], 7, "{message}");
        assert_eq!(message["error"]["code"], -32600, "{message}");
        assert!(
            message["error"]["message"]
                .as_str()
                .unwrap()
                .contains("already in flight")
        );
        duplicates += 1;
    }
    gate.open.add_permits(1);
    let reply = tokio::time::timeout(PATIENCE, answers.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        reply.messages()[0]["result"]["content"][0]["text"],
        "passed"
    );
    // Once answered, the id may be used again.
    let again = send(addr, "POST", &session_headers(&id), call_body(7, "ping")).await;
    assert_eq!(again.messages()[0]["result"]["content"][0]["text"], "pong");
}

#[tokio::test]
async fn requests_past_the_in_flight_cap_wait_for_a_slot() {
    let config = HttpConfig::default().with_max_in_flight_requests(1);
    let (addr, gate) = serve(config).await;
    let id = session(addr).await;
    let gated = {
        let id = id.clone();
        tokio::spawn(async move {
            send(
                addr,
                "POST",
                &session_headers(&id),
                call_body(1, "wait_for_gate"),
            )
            .await
        })
    };
    // Give the gated call time to take the only slot, then send a call that needs none of
    // the gate: it must wait for the slot.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let quick = {
        let id = id.clone();
        tokio::spawn(async move {
            send(addr, "POST", &session_headers(&id), call_body(2, "ping")).await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!quick.is_finished(), "the second call waits for the slot");
    gate.open.add_permits(1);
    let gated = tokio::time::timeout(PATIENCE, gated)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        gated.messages()[0]["result"]["content"][0]["text"],
        "passed"
    );
    let quick = tokio::time::timeout(PATIENCE, quick)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(quick.messages()[0]["result"]["content"][0]["text"], "pong");
}

#[tokio::test]
async fn a_request_that_waits_too_long_for_a_slot_gets_503() {
    let config = HttpConfig::default()
        .with_max_in_flight_requests(1)
        .with_in_flight_wait_timeout(Duration::from_millis(200));
    let (addr, gate) = serve(config).await;
    let id = session(addr).await;
    let gated = {
        let id = id.clone();
        tokio::spawn(async move {
            send(
                addr,
                "POST",
                &session_headers(&id),
                call_body(1, "wait_for_gate"),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let refused = send(addr, "POST", &session_headers(&id), call_body(2, "ping")).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.headers.contains_key("retry-after"));
    let error = &refused.messages()[0];
    assert_eq!(
        error["id"], 2,
        "the error answers the call by its id: {error}"
    );
    assert_eq!(error["error"]["code"], -32000, "{error}");
    gate.open.add_permits(1);
    let _ = gated.await;
}

/// A call of `tool` whose body is padded (in `_meta`, which no tool reads) to about `bytes`.
fn padded_call_body(id: u64, tool: &str, bytes: usize) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": {}, "_meta": {"padding": "x".repeat(bytes)}}})
    .to_string()
}

#[tokio::test]
async fn bodies_past_the_bytes_in_flight_wait_then_get_503_with_their_id() {
    let config = HttpConfig::default()
        .with_max_body_bytes_in_flight(64 * 1024)
        .with_in_flight_wait_timeout(Duration::from_millis(300));
    let (addr, gate) = serve(config).await;
    let id = session(addr).await;
    let gated = {
        let id = id.clone();
        tokio::spawn(async move {
            let body = padded_call_body(1, "wait_for_gate", 48 * 1024);
            send(addr, "POST", &session_headers(&id), body).await
        })
    };
    // The 48 KiB call holds its room while it waits at the gate.
    let arrived = tokio::time::timeout(PATIENCE, gate.arrived.acquire()).await;
    arrived.expect("the gated call runs").unwrap().forget();

    // 32 KiB more do not fit in the 16 KiB left: refused once the wait times out, by id.
    let refused = send(
        addr,
        "POST",
        &session_headers(&id),
        padded_call_body(2, "ping", 32 * 1024),
    )
    .await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.headers["retry-after"], "5");
    let error = &refused.messages()[0];
    assert_eq!(error["id"], 2, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("65536 bytes of requests in flight"),
        "{error}"
    );
    // A small call fits beside the large one.
    let small = send(addr, "POST", &session_headers(&id), call_body(3, "ping")).await;
    assert_eq!(small.messages()[0]["result"]["content"][0]["text"], "pong");

    gate.open.add_permits(1);
    let gated = tokio::time::timeout(PATIENCE, gated)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        gated.messages()[0]["result"]["content"][0]["text"],
        "passed"
    );
    // Its room given back, the 32 KiB call fits.
    let again = send(
        addr,
        "POST",
        &session_headers(&id),
        padded_call_body(4, "ping", 32 * 1024),
    )
    .await;
    assert_eq!(again.messages()[0]["result"]["content"][0]["text"], "pong");
}

#[tokio::test]
async fn a_body_that_is_not_json_gets_a_json_rpc_parse_error() {
    let (addr, _gate) = serve(HttpConfig::default()).await;
    for body in [
        "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\"",
        "not json",
        "",
    ] {
        let reply = send(addr, "POST", &[], body.to_owned()).await;
        assert_eq!(reply.status, 400, "{body:?}: {reply:?}");
        assert_eq!(reply.headers["content-type"], "application/json");
        let error = &reply.messages()[0];
        assert_eq!(error["jsonrpc"], "2.0", "{error}");
        assert_eq!(error["error"]["code"], -32700, "{error}");
        assert!(
            error["id"].is_null() && error.get("id").is_some(),
            "{error}"
        );
    }
}

#[tokio::test]
async fn json_that_is_not_a_message_gets_invalid_request_with_its_id() {
    let (addr, _gate) = serve(HttpConfig::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": "q-7", "params": {}}).to_string();
    let reply = send(addr, "POST", &[], body).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    let error = &reply.messages()[0];
    assert_eq!(error["error"]["code"], -32600, "{error}");
    assert_eq!(error["id"], "q-7", "{error}");
    // Another content type is still the client's mistake to hear about in HTTP terms.
    let reply = send(
        addr,
        "POST",
        &[("content-type", "text/plain")],
        "{}".to_owned(),
    )
    .await;
    assert_eq!(reply.status, 415, "{reply:?}");
}

#[tokio::test]
async fn bodies_larger_than_a_mebibyte_are_refused_by_default() {
    let (addr, _gate) = serve(HttpConfig::default()).await;
    let padding = "x".repeat(2 * 1024 * 1024);
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "padding": padding,
        "clientInfo": {"name": "t", "version": "0"}}})
    .to_string();
    let reply = send(addr, "POST", &[], body).await;
    assert_eq!(reply.status, 413, "{}", reply.status);
}

/// Writes raw bytes on a new connection and reads until the server closes it or `patience`
/// runs out; `None` when the connection was still open then.
async fn raw(addr: SocketAddr, bytes: &[u8], patience: Duration) -> Option<String> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let mut out = Vec::new();
    let read = tokio::time::timeout(patience, stream.read_to_end(&mut out)).await;
    read.ok()
        .map(|_| String::from_utf8_lossy(&out).into_owned())
}

#[tokio::test]
async fn headers_that_never_end_time_out() {
    let config = HttpConfig::default().with_header_read_timeout(Duration::from_millis(300));
    let (addr, _gate) = serve(config).await;
    let closed = raw(
        addr,
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow:",
        PATIENCE,
    )
    .await;
    assert!(closed.is_some(), "the server closed the half-sent request");
}

#[tokio::test]
async fn bodies_that_never_end_get_408() {
    let config = HttpConfig::default().with_body_read_timeout(Duration::from_millis(300));
    let (addr, _gate) = serve(config).await;
    let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"";
    let answer = raw(addr, head.as_bytes(), PATIENCE)
        .await
        .expect("answered and closed");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test]
async fn connections_past_the_cap_wait_in_the_accept_queue() {
    let config = HttpConfig::default().with_max_connections(1);
    let (addr, _gate) = serve(config).await;
    let idle = TcpStream::connect(addr).await.unwrap();
    // Give the server time to accept the idle connection, which takes the only slot.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let waiting = tokio::spawn(initialize(addr, &[]));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!waiting.is_finished(), "the second connection waits");
    drop(idle);
    let reply = tokio::time::timeout(PATIENCE, waiting)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(reply.status, 200);
}

/// The environment variable that makes this test binary the server of
/// [`the_server_survives_running_out_of_descriptors`].
const CHILD: &str = "GUARDRAILS_DESCRIPTOR_CHILD";

/// The name libtest gives the test function `function` of this file, whichever binary the file
/// is a module of.
fn test_name(function: &str) -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{function}"),
        None => function.to_owned(),
    }
}

/// Runs the server with the default configuration until stdin closes (run by
/// `the_server_survives_running_out_of_descriptors` under a low descriptor limit).
#[test]
#[ignore = "the server process of the descriptor test, which starts it"]
fn descriptor_exhaustion_server() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    std::thread::spawn(|| {
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
        std::process::exit(0);
    });
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            println!("listening on {}", listener.local_addr().unwrap());
            let (server, _gate) = server();
            server.serve_http(listener).await.unwrap();
        });
}

/// A descriptor limit of `limit` and `connections` idle connections (default 256 and 300;
/// `GUARDRAILS_FD_LIMIT=1024 GUARDRAILS_FD_CONNECTIONS=1100` for the figure in the docs).
#[tokio::test]
async fn the_server_survives_running_out_of_descriptors() {
    let number = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or(default)
    };
    let limit = number("GUARDRAILS_FD_LIMIT", 256);
    let connections = number("GUARDRAILS_FD_CONNECTIONS", 300);
    assert!(connections > limit, "the point is to go past the limit");
    let exe = std::env::current_exe().unwrap();
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
        .arg(exe)
        .arg(test_name("descriptor_exhaustion_server"))
        .args(["--exact", "--ignored", "--nocapture"])
        .env(CHILD, "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let addr: SocketAddr = loop {
        let mut line = String::new();
        let read = tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut line);
        assert!(tokio::time::timeout(PATIENCE, read).await.unwrap().unwrap() > 0);
        if let Some(addr) = line.trim().strip_prefix("listening on ") {
            break addr.parse().unwrap();
        }
    };

    let mut idle = Vec::with_capacity(connections);
    for _ in 0..connections {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    // The server holds as many as it can and waits for descriptors to come back.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(child.try_wait().unwrap().is_none(), "the server is alive");
    drop(idle);
    let reply = tokio::time::timeout(PATIENCE, initialize(addr, &[]))
        .await
        .expect("the server answers once descriptors are back");
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(child.try_wait().unwrap().is_none(), "the server is alive");
    drop(child.stdin.take());
    let _ = tokio::time::timeout(PATIENCE, child.wait()).await;
}
