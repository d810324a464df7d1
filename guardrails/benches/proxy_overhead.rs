//! What `guardrails proxy` costs a valid call: the same `tools/call` sent to an MCP server
//! directly and through the proxy in front of it, in one run, interleaved, by rmcp's client
//! over each one's stdio.
//!
//! `cargo bench -p guardrails-mcp --features cli --bench proxy_overhead`
//! (`-- CALLS ROUNDS`: the calls timed one at a time for the latency, 2,000 by default, and the
//! rounds of the throughput, 10 by default).
//!
//! Two servers, as `.ci/run` installs them: `server-everything`'s `echo` (Node, in
//! `target/npm-servers`) and `tests/clients/pydantic_upstream.py`'s `order` (Python, the
//! official SDK, in `target/client-venv`); a server that is not installed is skipped with a
//! note. For each:
//! - latency: one call at a time, the direct call and the proxied one in turn (which goes
//!   first turns too), each timed; the ratio of the medians;
//! - throughput: 8 calls in flight on one connection until a round's calls are answered, a
//!   direct round and a proxied round in turn; the median of the rounds' ratios.
//!
//! Beside the server alone and the proxy, a **floor**: the server behind a relay that only
//! copies bytes both ways, a thread each way, blocking reads and writes, no parsing (this
//! bench's own executable, started with `relay` as its first argument). What any separate
//! process between the client and the server costs is the floor's ratio; what the guard costs
//! is the proxy's beyond it.
//!
//! `PROXY_OVERHEAD_ALSO=PATH[:PATH…]` adds other builds of `guardrails` to the same run, each
//! measured interleaved with the others: the figures of a change, before and after.
//!
//! The client, the proxy and the server share the machine's cores, as they do on a
//! developer's machine; figures of a busy machine are noisier, and the interleaving keeps the
//! noise out of the ratios as far as it can.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::json;

/// The calls in flight at once in the throughput rounds.
const IN_FLIGHT: usize = 8;

/// The calls of one throughput round, shared evenly by the calls in flight.
const ROUND_CALLS: usize = 800;
const _: () = assert!(ROUND_CALLS.is_multiple_of(IN_FLIGHT));

/// The calls of the warm-up, untimed, on each connection.
const WARM_UP: usize = 200;

type Client = RunningService<RoleClient, ()>;

/// A server the proxy is measured in front of, and the valid call sent to it.
struct Upstream {
    name: &'static str,
    command: Vec<PathBuf>,
    tool: &'static str,
    arguments: JsonObject,
}

fn upstreams(root: &Path, target: &Path) -> Vec<Upstream> {
    let object = |value: serde_json::Value| match value {
        serde_json::Value::Object(object) => object,
        _ => unreachable!("the arguments are an object"),
    };
    vec![
        Upstream {
            name: "Node: server-everything `echo`",
            command: vec![target.join("npm-servers/node_modules/.bin/mcp-server-everything")],
            tool: "echo",
            arguments: object(json!({"message": "hello"})),
        },
        Upstream {
            name: "Python: pydantic_upstream.py `order`",
            command: vec![
                target.join("client-venv/bin/python"),
                root.join("tests/clients/pydantic_upstream.py"),
            ],
            tool: "order",
            arguments: object(json!({"lines": [{"sku": "A-1", "quantity": 2}], "copies": 3})),
        },
    ]
}

async fn connect(program: &Path, args: &[PathBuf]) -> Client {
    let mut command = tokio::process::Command::new(program);
    command.args(args).stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(command).expect("the server starts");
    ().serve(transport).await.expect("the server initializes")
}

fn call(upstream: &Upstream) -> CallToolRequestParams {
    CallToolRequestParams::new(upstream.tool).with_arguments(upstream.arguments.clone())
}

async fn call_once(client: &Client, params: CallToolRequestParams) -> CallToolResult {
    let result = client
        .peer()
        .call_tool(params)
        .await
        .expect("the call is answered");
    assert_ne!(
        result.is_error,
        Some(true),
        "a valid call fails: {result:?}"
    );
    result
}

/// The time of one call.
async fn timed(client: &Client, params: CallToolRequestParams) -> Duration {
    let start = Instant::now();
    call_once(client, params).await;
    start.elapsed()
}

/// Calls per second with `IN_FLIGHT` calls in flight until `ROUND_CALLS` are answered.
async fn throughput(client: &Arc<Client>, params: &CallToolRequestParams) -> f64 {
    let start = Instant::now();
    let workers: Vec<_> = (0..IN_FLIGHT)
        .map(|_| {
            let client = Arc::clone(client);
            let params = params.clone();
            let calls = ROUND_CALLS / IN_FLIGHT;
            tokio::spawn(async move {
                for _ in 0..calls {
                    call_once(&client, params.clone()).await;
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a worker completes");
    }
    #[expect(clippy::cast_precision_loss, reason = "a few hundred calls")]
    let calls = ROUND_CALLS as f64;
    calls / start.elapsed().as_secs_f64()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn ms(duration: f64) -> String {
    format!("{:.3} ms", duration * 1e3)
}

/// The relay of the floor: starts `command`, copies this process's stdin to its stdin and its
/// stdout to this process's stdout, as the bytes come, until either side closes.
fn relay(command: &[std::ffi::OsString]) -> std::io::Result<()> {
    use std::io::{Read as _, Write as _};
    use std::process::{Command, Stdio};
    let (program, args) = command.split_first().expect("a command to relay");
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut to_server = child.stdin.take().expect("piped");
    let mut from_server = child.stdout.take().expect("piped");
    let up = std::thread::spawn(move || -> std::io::Result<()> {
        let mut input = std::io::stdin().lock();
        let mut buffer = vec![0; 64 * 1024];
        loop {
            let n = input.read(&mut buffer)?;
            if n == 0 {
                return Ok(());
            }
            to_server.write_all(&buffer[..n])?;
        }
    });
    let mut output = std::io::stdout().lock();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let n = from_server.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        output.write_all(&buffer[..n])?;
        output.flush()?;
    }
    let _ = up.join();
    let _ = child.kill();
    child.wait().map(drop)
}

async fn measure(proxies: &[PathBuf], upstream: &Upstream, calls: usize, rounds: usize) {
    let (program, args) = upstream.command.split_first().expect("a command");
    // The server alone first, then behind the relay of the floor, then behind each proxy.
    let mut clients = vec![Arc::new(connect(program, args).await)];
    let mut relay_args = vec![PathBuf::from("relay")];
    relay_args.extend(upstream.command.iter().cloned());
    let this = std::env::current_exe().expect("this executable");
    clients.push(Arc::new(connect(&this, &relay_args).await));
    for proxy in proxies {
        let mut proxy_args = vec![PathBuf::from("proxy"), PathBuf::from("--")];
        proxy_args.extend(upstream.command.iter().cloned());
        clients.push(Arc::new(connect(proxy, &proxy_args).await));
    }
    let params = call(upstream);

    // The same call gives the same result every way.
    let alone = call_once(&clients[0], params.clone()).await;
    for client in &clients[1..] {
        let through = call_once(client, params.clone()).await;
        assert_eq!(
            alone.content, through.content,
            "the proxy changes a valid call's result"
        );
    }
    for _ in 0..WARM_UP {
        for client in &clients {
            call_once(client, params.clone()).await;
        }
    }

    // Each turn starts with another client, so that none always follows the same one.
    let n = clients.len();
    let turn = |i: usize| (0..n).map(move |k| (i + k) % n);
    let mut latencies = vec![Vec::with_capacity(calls); clients.len()];
    for i in 0..calls {
        for k in turn(i) {
            latencies[k].push(timed(&clients[k], params.clone()).await.as_secs_f64());
        }
    }
    let mut per_second = vec![Vec::with_capacity(rounds); clients.len()];
    for round in 0..rounds {
        for k in turn(round) {
            per_second[k].push(throughput(&clients[k], &params).await);
        }
    }

    println!("## {}\n", upstream.name);
    println!(
        "{calls} calls one at a time for the latency; {rounds} rounds of {ROUND_CALLS} calls, \
         {IN_FLIGHT} in flight, for the throughput (the ratio is the median of the rounds').\n"
    );
    println!("| server reached | p50 | p90 | p50 ratio | calls/s | throughput ratio |");
    println!("|---|---|---|---|---|---|");
    // Each round's ratio to the direct round of the same turn, before the rounds are sorted.
    let mut ratios: Vec<Vec<f64>> = per_second
        .iter()
        .map(|rounds| {
            rounds
                .iter()
                .zip(&per_second[0])
                .map(|(through, alone)| through / alone)
                .collect()
        })
        .collect();
    let p50_alone = median(&mut latencies[0]);
    for k in 0..clients.len() {
        let p50 = median(&mut latencies[k]);
        let p90 = latencies[k][latencies[k].len() * 9 / 10];
        let name = match k {
            0 => "directly".to_owned(),
            1 => "through the relay (the floor)".to_owned(),
            k => format!("through `{}`", proxies[k - 2].display()),
        };
        println!(
            "| {name} | {} | {} | {:.3}× | {:.0} | {:.3}× |",
            ms(p50),
            ms(p90),
            p50 / p50_alone,
            median(&mut per_second[k]),
            median(&mut ratios[k])
        );
    }
    println!();
}

fn main() {
    let arguments: Vec<_> = std::env::args_os().skip(1).collect();
    if arguments.first().is_some_and(|first| first == "relay") {
        if let Err(error) = relay(&arguments[1..]) {
            eprintln!("relay: {error}");
            std::process::exit(1);
        }
        return;
    }
    let mut numbers = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.parse::<usize>().ok());
    let calls = numbers.next().unwrap_or(2_000).max(10);
    let rounds = numbers.next().unwrap_or(10).max(1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf();
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    // The proxy built with this bench, and any other builds to compare with it, measured in
    // the same run (`PROXY_OVERHEAD_ALSO=PATH[:PATH…]`).
    let mut proxies = vec![PathBuf::from(env!("CARGO_BIN_EXE_guardrails"))];
    if let Some(also) = std::env::var_os("PROXY_OVERHEAD_ALSO") {
        proxies.extend(std::env::split_paths(&also));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        for upstream in upstreams(&root, &target) {
            if !upstream.command[0].exists() {
                println!(
                    "## {}\n\nskipped: {} is missing (.ci/run installs it)\n",
                    upstream.name,
                    upstream.command[0].display()
                );
                continue;
            }
            measure(&proxies, &upstream, calls, rounds).await;
        }
    });
}
