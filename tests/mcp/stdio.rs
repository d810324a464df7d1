//! Serving over a line stream (stdio): every line gets an answer, whatever it holds.
//!
//! An error whose request id could not be read carries no id: MCP (since 2025-11-25) omits
//! it where bare JSON-RPC 2.0 writes `"id": null`, and rmcp writes what MCP says. Either way
//! the client reads an error that answers no request of its own.

use std::time::Duration;

use guardrails::{Server, ToolArgs, tool};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

#[derive(Deserialize, ToolArgs)]
struct Echo {
    /// What to send back.
    #[guard(length(max = 100))]
    text: String,
}

/// Sends the text back.
#[tool]
fn echo(args: Echo) -> String {
    args.text
}

fn server() -> Server<()> {
    Server::new(()).name("stdio-test").tool(echo)
}

/// A client end of a server served over an in-memory line stream.
struct Client {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

fn connect() -> Client {
    let (server_end, client_end) = tokio::io::duplex(4 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let served = tokio::spawn(server().serve_lines(server_read, server_write));
    let (read, write) = tokio::io::split(client_end);
    Client {
        write,
        read: BufReader::new(read),
        served,
    }
}

const PATIENCE: Duration = Duration::from_secs(20);

impl Client {
    async fn send(&mut self, line: &[u8]) {
        self.write.write_all(line).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    async fn answer(&mut self) -> (String, Value) {
        let mut line = String::new();
        let read = tokio::time::timeout(PATIENCE, self.read.read_line(&mut line))
            .await
            .expect("an answer within the patience");
        assert!(read.unwrap() > 0, "the stream is open");
        let value = serde_json::from_str(&line).unwrap();
        (line, value)
    }

    async fn handshake(&mut self) {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}});
        self.send(initialize.to_string().as_bytes()).await;
        let (_, answer) = self.answer().await;
        assert_eq!(answer["result"]["serverInfo"]["name"], "stdio-test");
        let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.send(done.to_string().as_bytes()).await;
    }
}

#[tokio::test]
async fn lines_that_are_not_json_get_a_parse_error_without_id() {
    let mut client = connect();
    let unparsable: [&[u8]; 5] = [
        // A lone surrogate, which Python's `json.dumps` writes.
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"\ud800"}}"#,
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"s\":\"\xff\xfe\"}}",
        br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"n":1e400}}"#,
        br#"{"jsonrpc":"2.0","id":4,"#,
        b"hello",
    ];
    // Before the handshake and after it alike.
    for line in unparsable {
        client.send(line).await;
        let (text, answer) = client.answer().await;
        assert_eq!(answer["error"]["code"], -32700, "{text}");
        assert!(answer.get("id").is_none_or(Value::is_null), "{text}");
    }
    client.handshake().await;
    for line in unparsable {
        client.send(line).await;
        let (text, answer) = client.answer().await;
        assert_eq!(answer["error"]["code"], -32700, "{text}");
    }
    // And the stream goes on.
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"text": "still here"}}});
    client.send(call.to_string().as_bytes()).await;
    let (_, answer) = client.answer().await;
    assert_eq!(answer["result"]["content"][0]["text"], "still here");
}

#[tokio::test]
async fn calls_whose_params_do_not_fit_get_invalid_params() {
    let mut client = connect();
    client.handshake().await;
    let calls = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "echo", "arguments": ["text"]}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "echo", "arguments": "text"}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call"}),
    ];
    for call in calls {
        client.send(call.to_string().as_bytes()).await;
        let (text, answer) = client.answer().await;
        assert_eq!(answer["id"], call["id"], "{text}");
        assert_eq!(answer["error"]["code"], -32602, "{text}");
    }
}

#[tokio::test]
async fn an_unknown_method_is_echoed_cut_and_escaped() {
    let mut client = connect();
    client.handshake().await;
    let method = format!("evil\u{202e}{}", "m".repeat(1_000_000));
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": method});
    client.send(call.to_string().as_bytes()).await;
    let (text, answer) = client.answer().await;
    assert_eq!(answer["error"]["code"], -32601);
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Method not found: evil\u{fffd}mmm"),
        "{message}"
    );
    assert!(text.len() < 500, "{} bytes", text.len());
}

#[tokio::test]
async fn closing_the_stream_before_the_handshake_is_a_normal_end() {
    let mut client = connect();
    client.write.shutdown().await.unwrap();
    let served = tokio::time::timeout(PATIENCE, client.served)
        .await
        .expect("the server stops")
        .unwrap();
    assert!(served.is_ok(), "{served:?}");
}

/// The environment variable that makes this test binary a stdio server.
const CHILD: &str = "GUARDRAILS_STDIO_CHILD";

/// The name libtest gives the test function `function` of this file, whichever binary the file
/// is a module of.
fn test_name(function: &str) -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{function}"),
        None => function.to_owned(),
    }
}

/// Serves over stdio and exits with the status a `main` returning the result would (run by
/// `a_client_leaving_before_the_handshake_gets_one_line_and_status_0`).
#[test]
#[ignore = "the server process of the stdio test, which starts it"]
fn stdio_server() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let served = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(server().serve_stdio());
    if let Err(error) = served {
        eprintln!("Error: {error:?}");
        std::process::exit(1);
    }
    std::process::exit(0);
}

#[test]
fn a_client_leaving_before_the_handshake_gets_one_line_and_status_0() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .arg(test_name("stdio_server"))
        .args(["--exact", "--ignored", "--nocapture"])
        .env(CHILD, "1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("stdio-test"))
        .collect();
    assert_eq!(
        ours,
        ["stdio-test: the client closed stdin before the MCP handshake; nothing was served"],
        "{stderr}"
    );
    assert!(!stderr.contains("Custom {"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // Nothing on the protocol channel but the test harness's own lines.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("jsonrpc"), "{stdout}");
}
