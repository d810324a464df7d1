//! Figures of the Streamable HTTP server over loopback, in one run, each against the same tools
//! served by rmcp alone:
//!
//! - bursts of 64 and of 505 clients each sending a 1 MiB body at once: the statuses, the
//!   server's peak resident memory and what stays 1 s and 5 s after, then the same burst again
//!   (with glibc's default arenas and with `MALLOC_ARENA_MAX=2`);
//! - 5,000 `initialize` calls that never come back: the memory of the session table;
//! - `list_tasks`/`create_task` at 16 and 64 clients: calls/s, p50 and p99, and the server's
//!   peak memory and what stays 1 s after the load.
//!
//! Every server runs in a fresh process of its own (this bench started again as `http_load
//! serve guarded|plain`), so that its memory is its own: the clients run in this process.
//!
//! `cargo bench --bench http_load` (10 s per load; `-- SECONDS` for another duration).
//! Clients and servers share the machine's cores.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use guardrails::mcp::HttpConfig;
use guardrails_tests::load::{self, LoadReport};

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or_else(
        || "?".into(),
        |b| format!("{}.{} MiB", b / 1_048_576, b % 1_048_576 * 10 / 1_048_576),
    )
}

/// Bytes in KiB, as a float for ratios.
fn kib(bytes: u64) -> f64 {
    f64::from(u32::try_from(bytes / 1024).unwrap_or(u32::MAX))
}

/// Bytes of each body of a burst.
const BURST_BYTES: usize = 1_048_000;

/// The server's configuration: the default one, with the fair shares lifted, since every
/// client of this bench comes from one address (a share would refuse what the bench measures).
fn config() -> HttpConfig {
    HttpConfig::default()
        .with_max_sessions_per_client(usize::MAX)
        .with_max_in_flight_per_client(usize::MAX)
        .with_max_body_bytes_in_flight(BODY_BUDGET)
        .with_session_init_timeout(SESSION_INIT)
}

/// The bytes of bodies the guarded server reads at once: its default, stated.
const BODY_BUDGET: usize = 16 * 1024 * 1024;

/// How long the server keeps a session unused after its `initialize`: its default, stated so
/// that the wait for those sessions to close is known.
const SESSION_INIT: Duration = Duration::from_secs(10);

/// `http_load serve guarded|plain`: serves one server on a loopback port, prints `addr ADDR`,
/// then answers each line `mem` of its standard input with `mem RSS PEAK` (bytes; 0 when
/// unknown), and stops at the end of its input.
fn serve(server: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (addr, _) = if server == "guarded" {
            load::serve_guarded(5_000, config()).await
        } else {
            load::plain::serve(5_000).await
        };
        println!("addr {addr}");
        let _ = std::io::stdout().flush();
        tokio::task::spawn_blocking(|| {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if line.trim() == "mem" {
                    println!(
                        "mem {} {}",
                        load::resident_bytes().unwrap_or(0),
                        load::peak_resident_bytes().unwrap_or(0)
                    );
                    let _ = std::io::stdout().flush();
                }
            }
        })
        .await
        .expect("the reader of standard input");
    });
}

/// A server in a process of its own.
struct Served {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    addr: SocketAddr,
}

impl Served {
    fn start(server: &str, arenas: Option<&str>) -> Self {
        let me = std::env::current_exe().expect("the bench's own path");
        let mut command = Command::new(me);
        command
            .args(["serve", server])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        match arenas {
            Some(max) => command.env("MALLOC_ARENA_MAX", max),
            None => command.env_remove("MALLOC_ARENA_MAX"),
        };
        let mut child = command.spawn().expect("the bench starts itself");
        let input = child.stdin.take().expect("piped");
        let mut output = BufReader::new(child.stdout.take().expect("piped"));
        let mut line = String::new();
        output.read_line(&mut line).expect("the server's address");
        let addr = line
            .trim()
            .strip_prefix("addr ")
            .and_then(|addr| addr.parse().ok())
            .unwrap_or_else(|| panic!("the server printed {line:?}, not its address"));
        Self {
            child,
            input,
            output,
            addr,
        }
    }

    /// The server's resident memory and its peak so far.
    fn memory(&mut self) -> (Option<u64>, Option<u64>) {
        writeln!(self.input, "mem").expect("the server reads");
        let mut line = String::new();
        self.output
            .read_line(&mut line)
            .expect("the server answers");
        let mut figures = line
            .trim()
            .strip_prefix("mem ")
            .unwrap_or_default()
            .split(' ')
            .map(|figure| figure.parse::<u64>().ok().filter(|&bytes| bytes > 0));
        (figures.next().flatten(), figures.next().flatten())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `clients` clients each sending one body of [`BURST_BYTES`] at once; the statuses counted.
async fn burst(addr: SocketAddr, clients: usize) -> String {
    let start = Arc::new(tokio::sync::Barrier::new(clients));
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let start = Arc::clone(&start);
            tokio::spawn(async move {
                let mut connection = load::Connection::open(addr).await?;
                connection.initialize(true).await?;
                start.wait().await;
                let arguments = serde_json::json!({"assignee": "nobody"});
                connection
                    .call_padded(1, "list_tasks", arguments, BURST_BYTES)
                    .await
            })
        })
        .collect();
    let mut statuses = std::collections::BTreeMap::<String, usize>::new();
    for handle in handles {
        let status = match handle.await {
            Ok(Ok(status)) => status.to_string(),
            Ok(Err(error)) => error,
            Err(error) => error.to_string(),
        };
        *statuses.entry(status).or_default() += 1;
    }
    statuses
        .iter()
        .map(|(status, n)| format!("{n}× {status}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn call_row(
    server: &str,
    clients: usize,
    report: &LoadReport,
    peak: Option<u64>,
    after: Option<u64>,
) {
    println!(
        "| {server:<10} | {clients:>7} | {:>7} | {:>8.0} | {:>8.2} | {:>8.2} | {:>6} | {} | {} |",
        report.calls,
        report.per_second(),
        report.percentile(500).as_secs_f64() * 1e3,
        report.percentile(990).as_secs_f64() * 1e3,
        report.errors,
        mib(peak),
        mib(after),
    );
}

/// The name a table gives the server `serve` runs.
fn name(server: &str) -> &'static str {
    if server == "guarded" {
        "guardrails"
    } else {
        "plain rmcp"
    }
}

/// The bursts' table: each server in a fresh process, for each number of clients and arenas.
fn bursts(runtime: &tokio::runtime::Runtime) {
    println!(
        "## Bursts: clients each sending a {BURST_BYTES}-byte body at once \
         (the guarded server reads at most {} MiB of bodies at once)\n",
        BODY_BUDGET / 1_048_576
    );
    println!(
        "| server     | clients | arenas  | HTTP statuses | RSS before | peak RSS | RSS 1 s after | RSS 5 s after \
         | again: statuses | peak RSS | RSS 1 s after |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for clients in [64, 505] {
        for arenas in [None, Some("2")] {
            for server in ["guarded", "plain"] {
                let mut served = Served::start(server, arenas);
                let (before, _) = served.memory();
                let statuses = runtime.block_on(burst(served.addr, clients));
                std::thread::sleep(Duration::from_secs(1));
                let (one, peak) = served.memory();
                std::thread::sleep(Duration::from_secs(4));
                let (five, _) = served.memory();
                // The same burst again: what stayed is the allocator's to reuse, not lost.
                let again = runtime.block_on(burst(served.addr, clients));
                std::thread::sleep(Duration::from_secs(1));
                let (second, second_peak) = served.memory();
                println!(
                    "| {:<10} | {clients:>7} | {:>7} | {statuses} | {} | {} | {} | {} | {again} | {} | {} |",
                    name(server),
                    arenas.unwrap_or("default"),
                    mib(before),
                    mib(peak),
                    mib(one),
                    mib(five),
                    mib(second_peak),
                    mib(second),
                );
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|arg| arg == "serve") {
        serve(args.get(at + 1).map_or("guarded", String::as_str));
        return;
    }
    let seconds = args
        .iter()
        .find_map(|arg| arg.parse::<u64>().ok())
        .unwrap_or(10);
    let duration = Duration::from_secs(seconds);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");

    bursts(&runtime);

    println!("\n## Sessions: 5,000 `initialize` calls that never come back\n");
    println!("| server | accepted | refused | RSS before | RSS after | RSS 12 s later |");
    println!("|---|---|---|---|---|---|");
    for server in ["guarded", "plain"] {
        let mut served = Served::start(server, None);
        let (before, _) = served.memory();
        let (accepted, refused) = runtime.block_on(load::open_sessions(served.addr, 5_000, 32));
        let (after, _) = served.memory();
        std::thread::sleep(SESSION_INIT + Duration::from_secs(2));
        let (later, _) = served.memory();
        println!(
            "| {} | {accepted} | {refused} | {} | {} | {} |",
            name(server),
            mib(before),
            mib(after),
            mib(later)
        );
    }

    println!("\n## Calls: `list_tasks` and `create_task` in turn, {seconds} s each\n");
    println!(
        "| server     | clients |   calls |  calls/s | p50 (ms) | p99 (ms) | errors | peak RSS | RSS 1 s after |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    for clients in [16, 64] {
        let mut reports = Vec::new();
        for server in ["guarded", "plain"] {
            let mut served = Served::start(server, None);
            let report = runtime.block_on(load::run(served.addr, clients, duration));
            std::thread::sleep(Duration::from_secs(1));
            let (after, peak) = served.memory();
            call_row(name(server), clients, &report, peak, after);
            reports.push((report, after));
        }
        ratios.push((
            clients,
            reports[0].0.per_second() / reports[1].0.per_second(),
            reports[0].0.percentile(990).as_secs_f64() / reports[1].0.percentile(990).as_secs_f64(),
            reports[0].1.zip(reports[1].1).map(|(g, p)| kib(g) / kib(p)),
        ));
    }
    println!();
    for (clients, calls, p99, memory) in ratios {
        let memory = memory.map_or_else(|| "?".into(), |m| format!("{m:.2}"));
        println!(
            "{clients} clients: guardrails serves {calls:.2}× the calls/s of plain rmcp, at \
             {p99:.2}× its p99, and keeps {memory}× its memory after the load"
        );
    }
}
