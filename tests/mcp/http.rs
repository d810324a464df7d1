//! Streamable HTTP on a loopback address: the MCP endpoint answers at `/mcp` only.

use std::future::IntoFuture as _;
use std::time::Duration;

use guardrails_tests::pipeline_server;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

async fn exchange(addr: std::net::SocketAddr, request: String) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut buf = vec![0; 64 * 1024];
    let mut out = Vec::new();
    // The answer may be an event stream that stays open: read what arrives within a moment.
    while let Ok(Ok(n)) =
        tokio::time::timeout(Duration::from_millis(500), stream.read(&mut buf)).await
    {
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        if String::from_utf8_lossy(&out).contains("serverInfo") {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn initialize_over_http_and_404_elsewhere() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        pipeline_server::server(3)
            .serve_http(listener)
            .into_future(),
    );

    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let response = exchange(addr, request).await;
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.to_ascii_lowercase().contains("mcp-session-id"),
        "{response}"
    );
    assert!(response.contains("task-tracker-test"), "{response}");

    let response = exchange(
        addr,
        "GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".into(),
    )
    .await;
    assert!(response.starts_with("HTTP/1.1 404"), "{response}");
}
