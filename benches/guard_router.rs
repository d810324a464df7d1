//! A valid call of a native rmcp tool through the router `guard_router` returns vs the same call
//! on the router as rmcp built it: both called in-process without a transport
//! (`ToolRouter::call`), interleaved (A B A B …) so that both see the same load, medians of
//! many rounds compared.
//!
//! ```sh
//! cargo bench --bench guard_router
//! ```
//!
//! Prints `RATIO guard_router_vs_rmcp <guarded / plain> <target>`.

use std::hint::black_box;
use std::time::Instant;

use guardrails::mcp::guard_router;
use guardrails_tests::notes_server::Notes;
use rmcp::RoleServer;
use rmcp::ServiceExt as _;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, JsonObject, NumberOrString};
use rmcp::service::RequestContext;
use serde_json::json;

/// The most a guarded valid call may cost, as a multiple of the plain one.
const TARGET: f64 = 1.15;
const ROUNDS: usize = 300;
const CALLS_PER_BATCH: u32 = 100;

fn arguments() -> JsonObject {
    rmcp::model::object(json!({
        "title": "Buy milk", "tag": "home", "priority": "normal", "due_in_days": 3
    }))
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let server = Notes::new(100);
    let guarded: ToolRouter<Notes> = guard_router(Notes::tool_router());
    let plain: ToolRouter<Notes> = Notes::tool_router();
    // A real request context: the peer of a server served over an in-process transport.
    let context: RequestContext<RoleServer> = rt.block_on(async {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move {
            let client = ().serve(client_io).await;
            std::mem::forget(client);
        });
        let running = Notes::new(1).serve(server_io).await.expect("handshake");
        let peer = running.peer().clone();
        std::mem::forget(running);
        RequestContext::new(NumberOrString::Number(1), peer)
    });
    let call = |router: &ToolRouter<Notes>| {
        let params = CallToolRequestParams::new("create_note").with_arguments(arguments());
        rt.block_on(router.call(ToolCallContext::new(&server, params, context.clone())))
    };
    // Both answer the same bytes, and the call is valid.
    let (a, b) = (call(&guarded), call(&plain));
    let (Ok(CallToolResponse::Complete(a)), Ok(CallToolResponse::Complete(b))) = (a, b) else {
        panic!("both calls complete");
    };
    assert_eq!(a.is_error, Some(false), "{a:?}");
    assert_eq!(
        serde_json::to_string(&a).expect("json"),
        serde_json::to_string(&b).expect("json")
    );

    let batch = |router: &ToolRouter<Notes>| {
        let start = Instant::now();
        for _ in 0..CALLS_PER_BATCH {
            black_box(call(router)).ok();
        }
        start.elapsed().as_secs_f64() / f64::from(CALLS_PER_BATCH)
    };
    // Warm up both.
    for _ in 0..10 {
        batch(&guarded);
        batch(&plain);
    }
    let (mut with_guard, mut without) = (Vec::with_capacity(ROUNDS), Vec::with_capacity(ROUNDS));
    for _ in 0..ROUNDS {
        with_guard.push(batch(&guarded));
        without.push(batch(&plain));
    }
    let median = |samples: &mut Vec<f64>| {
        samples.sort_by(f64::total_cmp);
        samples[samples.len() / 2]
    };
    let (g, p) = (median(&mut with_guard), median(&mut without));
    println!(
        "valid create_note call, medians of {ROUNDS} interleaved batches of {CALLS_PER_BATCH}: \
         rmcp {:.3} µs, guard_router {:.3} µs",
        p * 1e6,
        g * 1e6
    );
    // What the check alone costs, for reading the ratio.
    let schema = plain.map["create_note"].attr.input_schema.clone();
    let args = guardrails::validation::SchemaArgs::new(&schema).expect("a schema");
    let value = serde_json::Value::Object(arguments());
    let start = Instant::now();
    for _ in 0..100_000 {
        black_box(args.is_valid(black_box(&value)));
    }
    println!(
        "the check alone: {:.3} µs",
        start.elapsed().as_secs_f64() / 100_000.0 * 1e6
    );
    println!("RATIO guard_router_vs_rmcp {:.3} {TARGET}", g / p);
}
