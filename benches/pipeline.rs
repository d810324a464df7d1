//! A valid call through the guardrails pipeline vs the same tool written as a plain rmcp
//! `#[tool]` with `Parameters<T>`: both are routes of one `ToolRouter`, called in-process
//! without a transport (`ToolRouter::call` with a captured request context).

use std::sync::{Arc, Mutex};

use criterion::{Criterion, criterion_group, criterion_main};
use guardrails::mcp::GuardedRoutes as _;
use guardrails::{ToolArgs, tool};
use guardrails_tests::create_user::{CreateUser, Role, User, create_user};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt as _, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;

// The guarded tool is the create-user example's, over the `CreateUser` fixture. The two twins
// below are this benchmark's own baselines, declared here because nothing else needs them: the
// same fields for a plain rmcp tool, and the same fields without guards.

/// The same arguments for the plain rmcp tool: serde only checks types.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct CreateUserPlain {
    username: String,
    email: String,
    age: u8,
    role: Role,
    tags: Option<Vec<String>>,
}

/// The same fields without guards: what the pipeline costs on its own.
#[derive(Debug, Deserialize, ToolArgs)]
struct CreateUserUnguarded {
    /// Login name.
    username: String,
    /// Contact address.
    email: String,
    /// Age in years.
    age: u8,
    /// What the user may do.
    role: Role,
    /// Labels.
    tags: Option<Vec<String>>,
}

/// Creates a user, with type checks only.
#[tool]
fn create_user_unguarded(args: CreateUserUnguarded) -> User {
    User {
        username: args.username,
        email: args.email,
        age: args.age,
        role: args.role,
        tags: args.tags.unwrap_or_default(),
    }
}

#[derive(Clone)]
struct Bench {
    captured: Arc<Mutex<Option<RequestContext<RoleServer>>>>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
#[allow(clippy::unused_self, reason = "rmcp tools are methods")]
impl Bench {
    #[rmcp::tool(description = "Creates a user.")]
    fn create_user_plain(&self, Parameters(args): Parameters<CreateUserPlain>) -> Json<User> {
        Json(User {
            username: args.username,
            email: args.email,
            age: args.age,
            role: args.role,
            tags: args.tags.unwrap_or_default(),
        })
    }

    #[rmcp::tool(description = "Captures the request context for the benchmark.")]
    fn capture(&self, context: RequestContext<RoleServer>) -> String {
        *self.captured.lock().unwrap() = Some(context);
        String::new()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bench {}

fn arguments() -> JsonObject {
    rmcp::model::object(json!({
        "username": "john_doe", "email": "john@example.com", "age": 42, "role": "admin", "tags": ["a", "b"]
    }))
}

/// On a shared machine, runs measured one after the other see different loads. Interleave
/// batches of the three tools and compare medians, so that all see the same load.
fn interleaved(call: &dyn Fn(&'static str)) {
    let batch = |name: &'static str| {
        let start = std::time::Instant::now();
        for _ in 0..200 {
            call(name);
        }
        start.elapsed().as_secs_f64() / 200.0
    };
    let names = ["create_user_plain", "create_user_unguarded", "create-user"];
    let mut samples: [Vec<f64>; 3] = Default::default();
    for _ in 0..300 {
        for (i, name) in names.iter().enumerate() {
            samples[i].push(batch(name));
        }
    }
    let medians: Vec<f64> = samples
        .iter_mut()
        .map(|s| {
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        })
        .collect();
    println!(
        "interleaved medians: plain {:.3} µs, guardrails (types only) {:.3} µs = {:.2}x, guardrails (7 guards) {:.3} µs = {:.2}x",
        medians[0] * 1e6,
        medians[1] * 1e6,
        medians[1] / medians[0],
        medians[2] * 1e6,
        medians[2] / medians[0],
    );
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = Bench {
        captured: Arc::default(),
        tool_router: Bench::tool_router()
            .with_guarded(create_user)
            .with_guarded(create_user_unguarded),
    };
    // A real request context, captured from one call over an in-process transport.
    let context = rt.block_on(async {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let background = server.clone();
        tokio::spawn(async move {
            if let Ok(running) = background.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = ().serve(client_io).await.unwrap();
        client
            .call_tool(CallToolRequestParams::new("capture"))
            .await
            .unwrap();
        std::mem::forget(client);
        server.captured.lock().unwrap().take().unwrap()
    });
    let call = |name: &'static str| {
        let params = CallToolRequestParams::new(name).with_arguments(arguments());
        let result = rt.block_on(server.tool_router.call(ToolCallContext::new(
            &server,
            params,
            context.clone(),
        )));
        match result {
            Ok(rmcp::model::CallToolResponse::Complete(r)) => {
                assert_eq!(r.is_error, Some(false), "{r:?}");
            }
            other => panic!("{name}: {other:?}"),
        }
    };
    call("create-user");
    call("create_user_plain");
    call("create_user_unguarded");

    interleaved(&|name| {
        let params = CallToolRequestParams::new(name).with_arguments(arguments());
        let _ = rt.block_on(server.tool_router.call(ToolCallContext::new(
            &server,
            params,
            context.clone(),
        )));
    });

    let mut group = c.benchmark_group("valid_call");
    group.bench_function("rmcp_plain_tool", |b| {
        b.iter(|| {
            let params =
                CallToolRequestParams::new("create_user_plain").with_arguments(arguments());
            rt.block_on(server.tool_router.call(ToolCallContext::new(
                &server,
                params,
                context.clone(),
            )))
        });
    });
    group.bench_function("guardrails_tool_types_only", |b| {
        b.iter(|| {
            let params =
                CallToolRequestParams::new("create_user_unguarded").with_arguments(arguments());
            rt.block_on(server.tool_router.call(ToolCallContext::new(
                &server,
                params,
                context.clone(),
            )))
        });
    });
    group.bench_function("guardrails_tool", |b| {
        b.iter(|| {
            let params = CallToolRequestParams::new("create-user").with_arguments(arguments());
            rt.block_on(server.tool_router.call(ToolCallContext::new(
                &server,
                params,
                context.clone(),
            )))
        });
    });
    group.finish();

    // Where the time goes: the arguments step of each tool.
    let mut parts = c.benchmark_group("arguments_only");
    parts.bench_function("serde_from_value", |b| {
        b.iter(|| {
            serde_json::from_value::<CreateUserPlain>(serde_json::Value::Object(arguments()))
                .unwrap()
        });
    });
    parts.bench_function("guardrails_validate", |b| {
        b.iter(|| CreateUser::validate(arguments()).unwrap());
    });
    parts.bench_function("build_arguments", |b| {
        b.iter(arguments);
    });
    parts.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
