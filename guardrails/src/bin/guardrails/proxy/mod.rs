//! `guardrails proxy [OPTIONS] -- COMMAND [ARGS…]`: the guard of `guard_router` in front of an
//! MCP server written in any language.
//!
//! The upstream runs as a child process and is reached as an rmcp client over its stdio; the proxy
//! serves the same tools over its own stdio with rmcp's server. Each upstream tool becomes a route
//! of an rmcp `ToolRouter` whose call forwards to the upstream, and the router is guarded by
//! [`RouterGuard`](guardrails::mcp::RouterGuard) from the tools' `inputSchema`s alone, exactly as a
//! native rmcp tool is: strict schema advertised, every problem in one coaching message with a
//! valid example, the `_meta` report, agent limits and byte caps, audit mode, the loop breaker and
//! telemetry. What the guard does not concern passes through both ways: prompts, resources,
//! completions, notifications, `_meta`, progress (under the client's token), logging, and the
//! upstream's sampling, elicitation and roots requests, which go to the client; tasks (the
//! `io.modelcontextprotocol/tasks` extension: a call answered with a task, `tasks/get`,
//! `tasks/update`, `tasks/cancel` and task status notifications, a task's result checked as a
//! call's, each task its own client's, and a task followed to its end by the proxy for a client
//! that has no tasks); the upstream is told the client's capabilities (see
//! [`Proxy::adopt_client`]).
//!
//! The wire is rmcp's on both sides; this module holds no protocol code.

mod call;
mod capabilities;
mod handler;
mod lock;
mod options;
mod passthrough;
mod policy;
#[cfg(unix)]
mod stdio;
mod tasks;
mod tools;
mod upstream;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::sync::{Arc, PoisonError, RwLock, Weak};
use std::time::Duration;

use guardrails::contract::{Contract, KnownGood, ServerContract};
use guardrails::mcp::ResultLimits;
use guardrails::policy::Policy;
use guardrails::{GuardConfig, RenderFormat, RenderOptions, RepairPolicy};
use rmcp::RoleServer;
use rmcp::ServiceExt as _;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ClientCapabilities, Tool};
use rmcp::service::Peer;
use tracing_subscriber::prelude::*;

use crate::{Failure, Outcome};
use capabilities::{every_relayed_capability, tasks_only};
pub(crate) use options::ProxyArgs;
use options::{Integers, OnChange, ignored_keys};
use upstream::Upstream;

/// The most characters of a name sent by the client (a tool's, a method's) that the proxy
/// repeats.
const MAX_NAME_CHARS: usize = 100;

/// The most tool names an unknown tool's error lists.
const MAX_NAMES_SHOWN: usize = 30;

/// The most characters of a schema violation of an upstream's result that the client is told.
const MAX_PROBLEM_CHARS: usize = 200;

/// `text`, at most `max` characters, with `…` where it was cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

pub(crate) fn run(args: ProxyArgs) -> Result<Outcome, Failure> {
    // Log lines go to stderr: stdout is the protocol's. Warnings (the audit log among them),
    // what the proxy does, and what rmcp says of the lines of the upstream it cannot read (at
    // debug level: a line that is not JSON is dropped).
    let filter = tracing_subscriber::filter::filter_fn(|meta| {
        *meta.level() <= tracing::Level::WARN
            || (meta.target() == module_path!() && *meta.level() <= tracing::Level::INFO)
            || (meta.target().starts_with("rmcp::transport")
                && *meta.level() <= tracing::Level::DEBUG)
    });
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .with_filter(filter),
        )
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(args))
}

/// How the proxy guards and reaches its upstream, as the command line set it.
struct Settings {
    command: Vec<OsString>,
    url: Option<String>,
    /// How long a call may take.
    timeout: Duration,
    /// How long the upstream may take to start and list its tools.
    start_timeout: Duration,
    /// How the proxy's own messages are rendered (the guard's are rendered by `guards`).
    render: RenderOptions,
    /// The guardrails of every call, as a `Server` or a `RouterGuard` takes them: format,
    /// audit, repair, ignored keys, schema profile.
    guards: GuardConfig,
    /// Whether a whole number written as a float is an integer.
    schema_integers: bool,
    limits: BTreeMap<String, ResultLimits>,
    /// The approved contracts, and what a tool that changed since becomes (`--check`).
    approved: Option<(KnownGood, OnChange)>,
    /// The output policies on tools' text arguments: tool, field, policy.
    policies: Vec<(String, String, Policy)>,
    /// The output policies on tools' results, by tool.
    result_policies: BTreeMap<String, Policy>,
    /// The client capabilities the upstream is started with at launch, before a client has
    /// said what it has: none, or with a lockfile every capability the proxy relays, so that
    /// the lockfile holds every tool the upstream can list.
    probe: ClientCapabilities,
    /// Whether several clients share the upstream (`--http`): it is told of tasks whatever
    /// the first client declares, since the proxy follows a task itself for a client that
    /// has none.
    shared: bool,
}

async fn serve(mut args: ProxyArgs) -> Result<Outcome, Failure> {
    args.merge_config()?;
    let mut limits: BTreeMap<String, ResultLimits> = BTreeMap::new();
    for (tool, max) in &args.agent_limits {
        let entry = limits.entry(tool.clone()).or_default();
        *entry = entry.agent_limit(*max);
    }
    for (tool, max) in &args.max_bytes {
        let entry = limits.entry(tool.clone()).or_default();
        *entry = entry.max_bytes(*max);
    }
    for (tool, max) in &args.max_tokens {
        let entry = limits.entry(tool.clone()).or_default();
        *entry = entry.max_tokens(*max);
    }
    let mut settings = Settings {
        command: args.command.clone(),
        url: args.upstream_url.clone(),
        timeout: Duration::from_secs_f64(args.call_timeout),
        start_timeout: Duration::from_secs_f64(args.start_timeout),
        render: RenderOptions::from(RenderFormat::from(args.format)),
        guards: GuardConfig::new()
            .format(RenderFormat::from(args.format))
            .audit(args.audit)
            .repair(args.repair.map_or(RepairPolicy::Off, RepairPolicy::from))
            .ignore_keys(ignored_keys(&args.ignore_keys))
            .schema_profile(args.schema_profile),
        schema_integers: args.integers == Integers::Schema,
        limits,
        approved: None,
        policies: Vec::new(),
        result_policies: BTreeMap::new(),
        probe: if args.lock.is_some() {
            every_relayed_capability()
        } else if args.http.is_some() {
            tasks_only()
        } else {
            ClientCapabilities::default()
        },
        shared: args.http.is_some(),
    };
    for (tool, path) in &args.result_policies {
        let policy = Policy::from_toml_file(path)
            .map_err(|error| Failure(format!("{}: {error}", path.display())))?;
        settings.result_policies.insert(tool.clone(), policy);
    }
    for (tool, field, path) in &args.policies {
        let policy = Policy::from_toml_file(path)
            .map_err(|error| Failure(format!("{}: {error}", path.display())))?;
        settings
            .policies
            .push((tool.clone(), field.clone(), policy));
    }
    // A lockfile that exists is checked, unless it is to be rewritten; one that does not is
    // recorded (and --check asks for one that exists).
    let record = match &args.lock {
        Some(path) if args.update_lock || (!args.check && !path.exists()) => Some(path),
        Some(path) => {
            let contracts = ServerContract::read_lockfile(path)?;
            settings.approved = Some((KnownGood::from(contracts), args.on_change));
            None
        }
        None => None,
    };
    let proxy = Proxy::new(settings);
    // The upstream is started before the proxy serves, so that a command that does not start
    // is an error at once rather than a failure of the first call.
    proxy.refresh().await.map_err(Failure)?;
    if let Some(path) = record {
        let contracts: ServerContract = proxy
            .listed()
            .iter()
            .map(Contract::from_definition)
            .collect();
        contracts.write_lockfile(path)?;
        tracing::info!(path = %path.display(), tools = contracts.tools().len(), "the upstream's contracts are written");
    }
    for tool in proxy.0.settings.limits.keys() {
        if proxy.router().get(tool).is_none() {
            tracing::warn!(tool, "limits set for a tool the upstream does not list");
        }
    }
    if let Some(addr) = &args.http {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|error| Failure(format!("cannot listen on {addr}: {error}")))?;
        let local = listener.local_addr()?;
        tracing::info!("serving Streamable HTTP at http://{local}/mcp");
        guardrails::mcp::serve_http(proxy.clone(), listener).await?;
    } else {
        #[cfg(unix)]
        let transport = (stdio::input(), stdio::output());
        #[cfg(not(unix))]
        let transport = rmcp::transport::stdio();
        let running = proxy
            .clone()
            .serve(transport)
            .await
            .map_err(|error| Failure(format!("serving over stdio: {error}")))?;
        let _ = running.waiting().await;
    }
    proxy.0.upstream.stop().await;
    Ok(Outcome::Passed)
}

/// The proxy: rmcp's `ServerHandler` towards the client, rmcp's client towards the upstream.
#[derive(Clone)]
pub(crate) struct Proxy(Arc<Inner>);

struct Inner {
    settings: Settings,
    upstream: Upstream,
    /// The guarded routes of the upstream's tools, rebuilt when its tool list changes.
    router: RwLock<Arc<ToolRouter<Proxy>>>,
    /// The upstream's tools as it last listed them.
    listed: RwLock<Vec<Tool>>,
    /// The `outputSchema`s of the upstream's tools, compiled: a structured result is checked
    /// against its tool's before it reaches the client.
    outputs: RwLock<HashMap<String, Arc<jsonschema::Validator>>>,
    /// The client, once it has sent a request: where the upstream's notifications go.
    client: RwLock<Option<Peer<RoleServer>>>,
    /// The capabilities the upstream is told its client has: at launch, those of the probe
    /// (`Settings::probe`); from the first client's first request on, that client's.
    capabilities: RwLock<ClientCapabilities>,
    /// Whether the first client's capabilities were adopted; held while the upstream restarts
    /// with them, so that the client's requests wait for the upstream that serves it.
    adopted: tokio::sync::Mutex<bool>,
    /// Whether they were, and the upstream restarted with them: read on every request without
    /// waiting on `adopted`.
    settled: std::sync::atomic::AtomicBool,
    /// The client's progress token of each call in flight, and the client that made it, by
    /// the upstream's token.
    progress: RwLock<HashMap<rmcp::model::ProgressToken, passthrough::ProgressTarget>>,
    /// The tool, the client and the progress of each task the upstream runs for a call: its
    /// result is checked as the tool's, and it is its client's alone.
    tasks: RwLock<tasks::TaskTools>,
    /// Woken when a task is remembered: its first status notification may come before the
    /// call's answer that names it.
    task_remembered: tokio::sync::Notify,
    /// The keys of the hashes of clients' credentials, which name the owners of tasks.
    owner_keys: std::hash::RandomState,
}

impl Proxy {
    fn new(settings: Settings) -> Self {
        let probe = settings.probe.clone();
        Self(Arc::new_cyclic(|weak: &Weak<Inner>| Inner {
            upstream: Upstream {
                proxy: weak.clone(),
                command: settings.command.clone(),
                url: settings.url.clone(),
                timeout: settings.start_timeout,
                state: tokio::sync::Mutex::new(None),
                running: RwLock::new(None),
                info: RwLock::new(None),
            },
            settings,
            router: RwLock::new(Arc::new(ToolRouter::new())),
            listed: RwLock::new(Vec::new()),
            outputs: RwLock::new(HashMap::new()),
            client: RwLock::new(None),
            capabilities: RwLock::new(probe),
            adopted: tokio::sync::Mutex::new(false),
            settled: std::sync::atomic::AtomicBool::new(false),
            progress: RwLock::new(HashMap::new()),
            tasks: RwLock::new(tasks::TaskTools::default()),
            task_remembered: tokio::sync::Notify::new(),
            owner_keys: std::hash::RandomState::new(),
        }))
    }

    fn router(&self) -> Arc<ToolRouter<Self>> {
        Arc::clone(&self.0.router.read().unwrap_or_else(PoisonError::into_inner))
    }
}
