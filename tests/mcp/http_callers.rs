//! Who calls, over Streamable HTTP: every client its own rate-limit budget and loop-breaker
//! memory, whether it keeps a session (revisions before 2026-07-28) or not (2026-07-28), and a
//! fair share of the sessions.

use std::future::IntoFuture as _;
use std::net::SocketAddr;

use bytes::Bytes;
use guardrails::GuardConfig;
use guardrails::mcp::HttpConfig;
use guardrails::operate::RateLimit;
use guardrails_tests::load::messages;
use guardrails_tests::pipeline_server;
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};

/// A client of revision 2026-07-28: no session, every request says its revision; on a
/// kept-alive connection of its own, with the headers it adds to each request.
struct Stateless {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    headers: Vec<(&'static str, String)>,
    next_id: u64,
}

impl Stateless {
    async fn connect(addr: SocketAddr, headers: &[(&'static str, &str)]) -> Self {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(connection);
        Self {
            sender,
            headers: headers.iter().map(|(n, v)| (*n, (*v).to_owned())).collect(),
            next_id: 0,
        }
    }

    /// Posts `body`; the status and the JSON-RPC messages of the answer.
    async fn post(&mut self, body: &Value) -> (u16, Vec<Value>) {
        let mut request = http::Request::post("/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        // An `initialize` opens a session of an older revision, whose version it names.
        if body["method"] != "initialize" {
            request = request
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", body["method"].as_str().unwrap_or_default());
            if let Some(name) = body["params"]["name"].as_str() {
                request = request.header("mcp-name", name);
            }
        }
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap();
        self.sender.ready().await.unwrap();
        let response = self.sender.send_request(request).await.unwrap();
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, messages(&bytes))
    }

    /// Calls `tool` with `arguments`: the call's result.
    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "callers-test", "version": "0"},
        }}});
        let (status, messages) = self.post(&body).await;
        assert_eq!(status, 200, "{messages:?}");
        let answer = messages
            .into_iter()
            .find(|m| m["id"] == id)
            .expect("an answer");
        answer["result"].clone()
    }
}

/// The class of a call's failure (`rate_limited`, `validation`), or `"ok"`.
fn class(result: &Value) -> String {
    match result["_meta"]["dev.guardrails/failure"]["class"].as_str() {
        Some(class) => class.to_owned(),
        None if result["isError"] == true => "error".to_owned(),
        None => "ok".to_owned(),
    }
}

fn first_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// The task tracker of the pipeline tests, two calls per hour per caller, over HTTP.
async fn serve(config: HttpConfig) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server =
        pipeline_server::server(3).config(GuardConfig::new().rate_limit(RateLimit::per_hour(2)));
    tokio::spawn(server.serve_http(listener).config(config).into_future());
    addr
}

#[tokio::test]
async fn a_native_server_under_a_router_guard_is_served_with_the_same_limits_and_coaching() {
    use guardrails_tests::notes_server::Notes;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = HttpConfig::default().with_max_body_bytes(4 * 1024);
    tokio::spawn(
        guardrails::mcp::serve_http(Notes::guarded(3), listener)
            .config(config)
            .into_future(),
    );

    let mut client = Stateless::connect(addr, &[]).await;
    let ok = client.call("echo", json!({"text": "hello"})).await;
    assert_eq!(class(&ok), "ok", "{ok}");
    assert_eq!(first_text(&ok), "hello");
    // The guard's coaching, through the hardened server.
    let slip = client.call("echo", json!({"text": "hi", "txet": 1})).await;
    assert_eq!(class(&slip), "validation", "{slip}");
    assert!(first_text(&slip).contains("txet"), "{slip}");
    // The configuration's body limit holds for a native server too.
    let big = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "x".repeat(8 * 1024)}}});
    let (status, _) = client.post(&big).await;
    assert_eq!(status, 413);
}

#[tokio::test]
async fn two_stateless_clients_each_get_their_own_budget() {
    let addr = serve(HttpConfig::default()).await;
    let mut first = Stateless::connect(addr, &[]).await;
    let mut second = Stateless::connect(addr, &[]).await;
    for _ in 0..2 {
        assert_eq!(class(&first.call("get_task", json!({"id": 1})).await), "ok");
    }
    let over = first.call("get_task", json!({"id": 1})).await;
    assert_eq!(class(&over), "rate_limited", "{over}");
    // The first client's limit is not the second's.
    let theirs = second.call("get_task", json!({"id": 1})).await;
    assert_eq!(class(&theirs), "ok", "{theirs}");

    // A bearer token is one caller on every connection, and another token another caller.
    let mut token_a = Stateless::connect(addr, &[("authorization", "Bearer token-a")]).await;
    let mut token_a_again = Stateless::connect(addr, &[("authorization", "Bearer token-a")]).await;
    let mut token_b = Stateless::connect(addr, &[("authorization", "Bearer token-b")]).await;
    assert_eq!(
        class(&token_a.call("get_task", json!({"id": 1})).await),
        "ok"
    );
    assert_eq!(
        class(&token_a_again.call("get_task", json!({"id": 1})).await),
        "ok"
    );
    assert_eq!(
        class(&token_a.call("get_task", json!({"id": 1})).await),
        "rate_limited",
        "two connections of one token share its budget"
    );
    assert_eq!(
        class(&token_b.call("get_task", json!({"id": 1})).await),
        "ok"
    );
}

#[tokio::test]
async fn two_stateless_clients_each_get_their_own_loop_memory() {
    let addr = serve(HttpConfig::default()).await;
    let mut first = Stateless::connect(addr, &[]).await;
    let mut second = Stateless::connect(addr, &[]).await;
    let bad = json!({"idd": 1});
    let once = first.call("get_task", bad.clone()).await;
    assert!(first_text(&once).starts_with("<validation_error"), "{once}");
    let twice = first.call("get_task", bad.clone()).await;
    assert!(first_text(&twice).starts_with("<repeated_call"), "{twice}");
    // The second client's first bad call is its first: coached in full, not a repeat.
    let theirs = second.call("get_task", bad).await;
    assert!(
        first_text(&theirs).starts_with("<validation_error"),
        "{theirs}"
    );
}

#[tokio::test]
async fn the_application_names_callers_and_may_name_them_all_the_same() {
    let tenant = |request: &http::request::Parts| {
        let tenant = request.headers.get("x-tenant")?.to_str().ok()?;
        Some(format!("tenant:{tenant}"))
    };
    let addr = serve(HttpConfig::default().with_caller(tenant)).await;
    // Two connections of one tenant share its budget; another tenant has its own.
    let mut acme = Stateless::connect(addr, &[("x-tenant", "acme")]).await;
    let mut acme_again = Stateless::connect(addr, &[("x-tenant", "acme")]).await;
    let mut globex = Stateless::connect(addr, &[("x-tenant", "globex")]).await;
    assert_eq!(class(&acme.call("get_task", json!({"id": 1})).await), "ok");
    assert_eq!(
        class(&acme_again.call("get_task", json!({"id": 1})).await),
        "ok"
    );
    assert_eq!(
        class(&acme_again.call("get_task", json!({"id": 1})).await),
        "rate_limited"
    );
    assert_eq!(
        class(&globex.call("get_task", json!({"id": 1})).await),
        "ok"
    );

    // One name for every request: the operator's choice of one budget for all.
    let addr = serve(HttpConfig::default().with_caller(|_| Some("everyone".into()))).await;
    let mut first = Stateless::connect(addr, &[]).await;
    let mut second = Stateless::connect(addr, &[]).await;
    assert_eq!(class(&first.call("get_task", json!({"id": 1})).await), "ok");
    assert_eq!(
        class(&second.call("get_task", json!({"id": 1})).await),
        "ok"
    );
    assert_eq!(
        class(&first.call("get_task", json!({"id": 1})).await),
        "rate_limited"
    );
}

#[tokio::test]
async fn a_client_at_its_share_of_sessions_gets_429_and_others_still_get_in() {
    let config = HttpConfig::default().with_max_sessions_per_client(1);
    let addr = serve(config).await;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "callers-test", "version": "0"}}});
    let mut hog = Stateless::connect(addr, &[("authorization", "Bearer hog")]).await;
    assert_eq!(hog.post(&initialize).await.0, 200);
    // A new connection does not make a new client.
    let mut again = Stateless::connect(addr, &[("authorization", "Bearer hog")]).await;
    let (status, messages) = again.post(&initialize).await;
    assert_eq!(status, 429, "{messages:?}");
    assert_eq!(messages[0]["id"], 0, "{messages:?}");
    assert_eq!(messages[0]["error"]["code"], -32000, "{messages:?}");
    let mut other = Stateless::connect(addr, &[("authorization", "Bearer other")]).await;
    assert_eq!(other.post(&initialize).await.0, 200);
}

/// Two nodes of one deployment: the task tracker served twice, `calls` calls per hour per
/// caller, its limits and loop memory in the Redis at `url`.
async fn two_nodes(url: &str, calls: u32) -> [SocketAddr; 2] {
    let mut nodes = [SocketAddr::from(([0, 0, 0, 0], 0)); 2];
    for node in &mut nodes {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        *node = listener.local_addr().unwrap();
        let store = guardrails::operate::RedisStore::open(url).unwrap();
        let server = pipeline_server::server(3).config(
            GuardConfig::new()
                .rate_limit(RateLimit::per_hour(calls))
                .state_store(store),
        );
        tokio::spawn(server.serve_http(listener).into_future());
    }
    nodes
}

#[tokio::test]
async fn behind_two_nodes_a_caller_has_one_budget_and_another_caller_its_own() {
    let Some(redis) = guardrails_tests::redis::RedisServer::start("one budget across nodes") else {
        return;
    };
    let [a, b] = two_nodes(&redis.url(), 2).await;
    let token = [("authorization", "Bearer shared-budget")];
    let mut on_a = Stateless::connect(a, &token).await;
    let mut on_b = Stateless::connect(b, &token).await;
    assert_eq!(class(&on_a.call("get_task", json!({"id": 1})).await), "ok");
    assert_eq!(class(&on_b.call("get_task", json!({"id": 1})).await), "ok");
    // Two calls of the hour spent, one on each node: the third is refused on either.
    let over = on_a.call("get_task", json!({"id": 1})).await;
    assert_eq!(class(&over), "rate_limited", "{over}");
    let retry = over["_meta"]["dev.guardrails/failure"]["retryNotBefore"].clone();
    assert!(retry.is_string(), "{over}");
    assert_eq!(
        class(&on_b.call("get_task", json!({"id": 1})).await),
        "rate_limited"
    );
    // Another caller, on either node, has its own budget.
    let mut other = Stateless::connect(b, &[("authorization", "Bearer other")]).await;
    assert_eq!(class(&other.call("get_task", json!({"id": 1})).await), "ok");
    // Two stateless clients without credentials are two callers, node by node.
    let mut first = Stateless::connect(a, &[]).await;
    let mut second = Stateless::connect(a, &[]).await;
    for _ in 0..2 {
        assert_eq!(class(&first.call("get_task", json!({"id": 1})).await), "ok");
    }
    assert_eq!(
        class(&second.call("get_task", json!({"id": 1})).await),
        "ok"
    );
}

#[tokio::test]
async fn behind_two_nodes_of_a_guarded_native_server_a_caller_has_one_budget() {
    use guardrails::mcp::RouterGuard;
    use guardrails_tests::notes_server::Notes;
    let Some(redis) = guardrails_tests::redis::RedisServer::start("one native budget") else {
        return;
    };
    let mut nodes = [SocketAddr::from(([0, 0, 0, 0], 0)); 2];
    for node in &mut nodes {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        *node = listener.local_addr().unwrap();
        // One configuration, the same a `Server` takes.
        let config = GuardConfig::new()
            .rate_limit(RateLimit::per_hour(2))
            .state_store(guardrails::operate::RedisStore::open(&redis.url()).unwrap());
        let router = RouterGuard::new()
            .config(config)
            .guard(Notes::tool_router());
        let server = Notes::with_router(3, router);
        tokio::spawn(guardrails::mcp::serve_http(server, listener).into_future());
    }
    let [a, b] = nodes;
    let token = [("authorization", "Bearer native-budget")];
    let mut on_a = Stateless::connect(a, &token).await;
    let mut on_b = Stateless::connect(b, &token).await;
    assert_eq!(class(&on_a.call("echo", json!({"text": "1"})).await), "ok");
    assert_eq!(class(&on_b.call("echo", json!({"text": "2"})).await), "ok");
    let over = on_a.call("echo", json!({"text": "3"})).await;
    assert_eq!(class(&over), "rate_limited", "{over}");
    assert_eq!(
        class(&on_b.call("echo", json!({"text": "4"})).await),
        "rate_limited"
    );
    // Another caller has a budget of its own.
    let mut other = Stateless::connect(b, &[("authorization", "Bearer someone-else")]).await;
    assert_eq!(class(&other.call("echo", json!({"text": "5"})).await), "ok");
}

#[tokio::test]
async fn behind_two_nodes_a_caller_has_one_loop_memory() {
    let Some(redis) = guardrails_tests::redis::RedisServer::start("one loop memory across nodes")
    else {
        return;
    };
    let [a, b] = two_nodes(&redis.url(), 100).await;
    let token = [("authorization", "Bearer looping")];
    let mut on_a = Stateless::connect(a, &token).await;
    let mut on_b = Stateless::connect(b, &token).await;
    let bad = json!({"idd": 1});
    let once = on_a.call("get_task", bad.clone()).await;
    assert!(first_text(&once).starts_with("<validation_error"), "{once}");
    // The same call on the other node is its second: answered with the corrected call.
    let twice = on_b.call("get_task", bad.clone()).await;
    assert!(
        first_text(&twice).starts_with("<repeated_call tool=\"get_task\" times=\"2\""),
        "{twice}"
    );
    assert!(first_text(&twice).contains("<corrected_call>"), "{twice}");
    let thrice = on_a.call("get_task", bad.clone()).await;
    assert!(first_text(&thrice).contains("Stop."), "{thrice}");
    // Another caller's first bad call is its first, on either node.
    let mut other = Stateless::connect(b, &[("authorization", "Bearer other")]).await;
    let theirs = other.call("get_task", bad).await;
    assert!(
        first_text(&theirs).starts_with("<validation_error"),
        "{theirs}"
    );
}

#[tokio::test]
async fn a_store_that_is_down_never_fails_a_call_and_is_counted() {
    use guardrails_tests::telemetry::Captured;
    use guardrails_tests::telemetry::names::{STATE_FALLBACKS, STATE_TARGET};
    // A port nothing listens on: every connection is refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let store =
        guardrails::operate::RedisStore::open(&format!("redis://127.0.0.1:{port}/")).unwrap();
    let server = pipeline_server::server(3).config(
        GuardConfig::new()
            .rate_limit(RateLimit::per_hour(4))
            .state_store(store),
    );
    let captured = Captured::default();
    let installed = captured.install();
    // The loop breaker holds all the same, kept by the process.
    let _ = server.call("get_task", json!({"idd": 1})).await.unwrap();
    let twice = server.call("get_task", json!({"idd": 1})).await.unwrap();
    assert!(
        twice.text[0].starts_with("<repeated_call"),
        "{:?}",
        twice.text
    );
    // The limit too: two invalid calls and two valid ones spend the four of the hour.
    for _ in 0..2 {
        let ok = server.call("get_task", json!({"id": 1})).await.unwrap();
        assert!(!ok.is_error, "{ok:?}");
    }
    let over = server.call("get_task", json!({"id": 1})).await.unwrap();
    assert!(over.is_error, "{over:?}");
    assert!(over.text[0].contains("RATE_LIMITED"), "{:?}", over.text);
    drop(installed);
    let warnings = captured.events(STATE_TARGET);
    assert_eq!(
        warnings.len(),
        1,
        "one warning, then the store rests: {warnings:?}"
    );
    assert!(warnings[0].contains("WARN"), "{warnings:?}");
    let fallbacks: u64 = ["admit", "count", "peek"]
        .iter()
        .map(|op| captured.counter(STATE_FALLBACKS, &[("operation", op)]))
        .sum();
    // Five limit checks, and for each call a look for a repeat.
    assert!(fallbacks >= 10, "{:?}", captured.counters());
}

#[tokio::test]
async fn a_store_that_never_answers_never_holds_a_call_up_for_long() {
    use guardrails_tests::telemetry::Captured;
    use guardrails_tests::telemetry::names::STATE_FALLBACKS;
    // Accepts connections and never answers on them.
    let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            held.push(stream);
        }
    });
    let store = guardrails::operate::RedisStore::open(&format!("redis://{addr}/")).unwrap();
    let server = pipeline_server::server(3).config(
        GuardConfig::new()
            .rate_limit(RateLimit::per_hour(1))
            .state_store(store),
    );
    let captured = Captured::default();
    let installed = captured.install();
    let ok = server.call("get_task", json!({"id": 1})).await.unwrap();
    assert!(!ok.is_error, "{ok:?}");
    let over = server.call("get_task", json!({"id": 1})).await.unwrap();
    assert!(over.text[0].contains("RATE_LIMITED"), "{:?}", over.text);
    drop(installed);
    assert!(
        captured.counter(STATE_FALLBACKS, &[("operation", "peek")]) >= 1,
        "{:?}",
        captured.counters()
    );
}
