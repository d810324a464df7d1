//! A task tracker MCP server with every guardrail on.
//!
//! ```sh
//! cargo run --example task_tracker                       # serve over stdio
//! cargo run --example task_tracker -- --http 127.0.0.1:8080   # Streamable HTTP at /mcp
//! cargo run --example task_tracker -- --http 127.0.0.1:8081 --node 1   # node 1 of several
//! cargo run --example task_tracker -- --http 127.0.0.1:8081 --redis redis://127.0.0.1:6379/ \
//!     --rate-limit 60   # each caller 60 calls a minute, one budget across the nodes
//! cargo run --example task_tracker -- --demo             # watch a short session in-process
//! ```

// `pub`: the tests reach these items through the test support library, which compiles the same
// file; public at this crate's root, the part this binary leaves unused is not dead code.
pub mod tracker;
// The demo's report of which fields the model got wrong, from the telemetry of its calls.
mod field_report;

use guardrails::CallOutput;
use serde_json::{Value, json};

/// How many tasks the tracker starts with: enough that an unfiltered list must be truncated.
const SEEDED_TASKS: u64 = 5_000;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `--node N`: one of several nodes behind a load balancer, whose task ids carry N. Over
    // HTTP without it, a node draws its number, so that nodes behind a round-robin balancer
    // never give the same ids; over stdio (one client, one process) ids start at 1.
    let node = match args.iter().position(|arg| arg == "--node") {
        Some(at) => match args.get(at + 1).and_then(|n| n.parse::<u64>().ok()) {
            Some(node) if (1..=tracker::MAX_NODE).contains(&node) => node,
            _ => {
                eprintln!("--node takes a number from 1 to {}", tracker::MAX_NODE);
                std::process::exit(2);
            }
        },
        None if args.first().map(String::as_str) == Some("--http") => tracker::drawn_node(),
        None => 0,
    };
    // `--schema-profile NAME`: the form of the tools' schemas, for a model client that reads
    // only one (`openai`, `gemini`; `portable` by default; see `guardrails lint`).
    let profile = match args.iter().position(|arg| arg == "--schema-profile") {
        Some(at) => match args.get(at + 1).map(|name| name.parse()) {
            Some(Ok(profile)) => profile,
            Some(Err(error)) => {
                eprintln!("{error}");
                std::process::exit(2);
            }
            None => {
                eprintln!(
                    "--schema-profile takes a name: portable, strict, openai, gemini, anthropic"
                );
                std::process::exit(2);
            }
        },
        None => guardrails::profile::SchemaProfile::Portable,
    };
    let mut guards = tracker::guards().schema_profile(profile);
    // `--rate-limit N`: at most N calls a minute for each caller (see the README's "Who
    // calls"), all tools together.
    if let Some(at) = args.iter().position(|arg| arg == "--rate-limit") {
        match args.get(at + 1).and_then(|n| n.parse::<u32>().ok()) {
            Some(calls) if calls > 0 => {
                guards = guards.rate_limit(guardrails::operate::RateLimit::per_minute(calls));
            }
            _ => {
                eprintln!("--rate-limit takes a number of calls a minute, at least 1");
                std::process::exit(2);
            }
        }
    }
    // `--redis URL`: the rate limits and the loop breaker's memory in a Redis that every node
    // shares, so that behind N nodes a caller has one budget, not N.
    if let Some(at) = args.iter().position(|arg| arg == "--redis") {
        let store = args
            .get(at + 1)
            .ok_or_else(|| "--redis takes a URL: redis://127.0.0.1:6379/".to_owned())
            .and_then(|url| {
                guardrails::operate::RedisStore::open(url).map_err(|error| error.to_string())
            });
        match store {
            Ok(store) => guards = guards.state_store(store),
            Err(error) => {
                eprintln!("--redis: {error}");
                std::process::exit(2);
            }
        }
    }
    let server = tracker::server_of_node(node, SEEDED_TASKS).config(guards);
    match args.first().map(String::as_str) {
        None | Some("--node" | "--schema-profile" | "--rate-limit" | "--redis") => {
            eprintln!(
                "task-tracker: an MCP server on stdio with {SEEDED_TASKS} tasks and every guardrail on.\n\
                 Point an MCP client at this command (it speaks JSON-RPC on stdin/stdout), e.g. the \n\
                 MCP inspector or a client config entry: {{\"command\": \"cargo\", \"args\": [\"run\", \"--example\", \"task_tracker\"]}}.\n\
                 Or try:  --demo          a short session played in-process, showing the guardrails\n\
                 \x20        --http ADDR     Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:8080)\n\
                 \x20        --node N        as node N (1 to 999) of several: task ids carry N\n\
                 \x20                        (over HTTP, a node without one draws its number)\n\
                 \x20        --schema-profile P  the tools' schemas as the model client P reads them\n\
                 \x20                        (portable by default; openai, gemini, anthropic, strict)\n\
                 \x20        --rate-limit N  at most N calls a minute for each caller\n\
                 \x20        --redis URL     rate limits and loop memory shared by the nodes\n\
                 \x20                        through Redis (redis://127.0.0.1:6379/)"
            );
            server.serve_stdio().await
        }
        Some("--http") => {
            let addr = args
                .get(1)
                .filter(|arg| !arg.starts_with("--"))
                .map_or("127.0.0.1:8080", String::as_str);
            eprintln!(
                "task-tracker: Streamable HTTP at http://{addr}/mcp as node {node} (Ctrl-C to stop)"
            );
            server.serve_http(addr).await
        }
        Some("--demo") => {
            // Every rejection is counted by tool, field and code through the `metrics`
            // facade; this recorder adds the counts up for the report at the end.
            let report = field_report::FieldReport::default();
            metrics::set_global_recorder(report.clone()).expect("the only recorder");
            demo(&server).await;
            println!("\n=== 22. The field report: telemetry of this session, no value in it\n");
            print!("{}", report.render());
            Ok(())
        }
        Some(other) => {
            eprintln!("unknown option {other}; use --demo, --http ADDR, or nothing for stdio");
            std::process::exit(2);
        }
    }
}

fn show(step: &str, call: &str, args: &Value, out: &CallOutput) {
    println!("\n=== {step}");
    println!("-> {call} {args}");
    println!("<- isError: {}", out.is_error);
    for text in &out.text {
        let shown: String = text.chars().take(1_500).collect();
        let more = if shown.len() < text.len() { " …" } else { "" };
        println!("{shown}{more}");
    }
}

async fn step(server: &guardrails::Server<tracker::Tracker>, title: &str, tool: &str, args: Value) {
    match server
        .call(tool, args.as_object().cloned().unwrap_or_default())
        .await
    {
        Ok(out) => show(title, tool, &args, &out),
        Err(e) => println!("\n=== {title}\n-> {tool} {args}\n<- protocol error: {e:?}"),
    }
}

/// A client session played in-process, without a transport: the three guardrails at work.
async fn demo(server: &guardrails::Server<tracker::Tracker>) {
    println!("A session with the task tracker ({SEEDED_TASKS} tasks), as a model would see it.");
    step(
        server,
        "1. The model hallucinates fields: strict validation names each one, with a did-you-mean",
        "create_task",
        json!({"title": "Ship the release", "assignee": "ada", "due": "2026-12-01",
               "priorty": 1, "assignee_email": "ada@example.com"}),
    )
    .await;
    step(
        server,
        "2. It corrects the call from the coaching message",
        "create_task",
        json!({"title": "Ship the release", "assignee": "ada", "due": "2026-12-01", "priority": 1}),
    )
    .await;
    step(
        server,
        "3. It asks for every task: the list is truncated, and a teaching block names the filters",
        "list_tasks",
        json!({}),
    )
    .await;
    step(
        server,
        "4. It filters as taught: a result that fits",
        "list_tasks",
        json!({"status": "blocked", "assignee": "ada", "due_before": "2026-03-01"}),
    )
    .await;
    step(
        server,
        "5. A model calibrated on the last release sends the old shape: the error says what changed",
        "create_task",
        json!({"title": "Write the notes", "owner": "grace"}),
    )
    .await;
    step(
        server,
        "6. Free text is held to the output policy: an invented figure is blocked with the approved wording",
        "create_task",
        json!({"title": "Cut costs", "assignee": "grace", "due": "2026-12-01",
               "description": "This will save $50,000 annually."}),
    )
    .await;
    step(
        server,
        "7. Text that only draws a warning is accepted (no acknowledgement field on this tool)",
        "create_task",
        json!({"title": "Migrate the database", "assignee": "grace", "due": "2026-12-01",
               "description": "Roughly two weeks of work."}),
    )
    .await;
    step(
        server,
        "8. A tool's output is held to its policy too: delivered, with the policy's advice",
        "task_report",
        json!({"assignee": "grace", "status": "todo"}),
    )
    .await;
    step(
        server,
        "9. A tool error carries a recovery and the tools to call instead",
        "delete_task",
        json!({"id": 999_999, "requested_by": "ada"}),
    )
    .await;
    step(
        server,
        "10. A filter sent beside `filter` is pointed to its place; the token, too short, is never echoed",
        "export_tasks",
        json!({"assignee": "ada", "destination": {"url": "https://example.com/hook", "token": "sk-live-4f9a"}}),
    )
    .await;
    step(
        server,
        "11. It moves the filter and sends the whole token",
        "export_tasks",
        json!({"filter": {"assignee": "ada"},
               "destination": {"url": "https://example.com/hook", "token": "sk-live-4f9a2c7d1e8b6a3f5c0d"}}),
    )
    .await;
    step(
        server,
        "12. A rule across fields joins the same report, beside the other mistakes: a blocked task must say what blocks it",
        "create_task",
        json!({"title": "Renew the certificate", "assignee": "ada", "due": "next week",
               "status": "blocked", "priorty": 2}),
    )
    .await;
    demo_data_model(server).await;
    demo_operate(server).await;
    demo_budget(server).await;
}

/// Operating the server: the same invalid call again, and a rate limit.
async fn demo_operate(server: &guardrails::Server<tracker::Tracker>) {
    let hallucinated = json!({"title": "Ship the release", "assignee": "ada", "due": "2026-12-01",
                              "priorty": 1, "assignee_email": "ada@example.com"});
    step(
        server,
        "16. The model sends call 1 again unchanged: a shorter answer that leads with its own call, corrected",
        "create_task",
        hallucinated.clone(),
    )
    .await;
    step(
        server,
        "17. And a third time: it is told to stop and ask the user (`retryable: false` in `_meta`)",
        "create_task",
        hallucinated,
    )
    .await;
    // The same tools behind a limit of 2 calls a minute per caller, all tools together.
    let limited = server
        .clone()
        .config(tracker::guards().rate_limit(guardrails::operate::RateLimit::per_minute(2)));
    for _ in 0..2 {
        let _ = limited.call("list_tasks", json!({})).await;
    }
    step(
        &limited,
        "18. A rate limit of 2 calls a minute: the third call is told when to call again",
        "list_tasks",
        json!({}),
    )
    .await;
    // The same tools with declared leniency: slips whose meaning is not in doubt repaired,
    // and a client's own `_`-prefixed keys dropped (a destructive tool is never repaired).
    let lenient = server.clone().config(
        tracker::guards()
            .repair(guardrails::RepairPolicy::On)
            .ignore_keys(guardrails::IgnoreKeys::new().prefix("_")),
    );
    step(
        &lenient,
        "19. With repair declared: a number and a list sent as strings are read as meant, and the model is told each repair",
        "create_task",
        json!({"title": "Write the release notes", "assignee": "ada", "due": "2026-12-01",
               "priority": "2", "labels": "[\"docs\",\"release\"]", "_client_request_id": "7f3a"}),
    )
    .await;
}

/// A result budgeted in tokens: each page is cut at a task, and its cursor resumes after it.
async fn demo_budget(server: &guardrails::Server<tracker::Tracker>) {
    let args = json!({"assignee": "ada"});
    let title = "20. It reads tasks in full: the page ends at the last task that fits its budget of 1,500 tokens, with a cursor";
    let Ok(first) = server
        .call("read_tasks", args.as_object().cloned().unwrap_or_default())
        .await
    else {
        return;
    };
    show(title, "read_tasks", &args, &first);
    let cursor = first
        .structured
        .as_ref()
        .and_then(|page| page.get("next_cursor"))
        .cloned();
    if let Some(cursor) = cursor {
        step(
            server,
            "21. It follows the cursor: the next page starts right after the last task shown",
            "read_tasks",
            json!({"assignee": "ada", "cursor": cursor}),
        )
        .await;
    }
}

/// The argument shapes of the serde data model: an enum with data and a flattened struct.
async fn demo_data_model(server: &guardrails::Server<tracker::Tracker>) {
    step(
        server,
        "13. An enum with data: the recurrence's `kind` picks its fields, and a field of another kind is named as such",
        "schedule_task",
        json!({"id": 1, "requested_by": "ada",
               "recurrence": {"kind": "weekly", "days": ["mon", "thu"], "until": "2026-12-01"}}),
    )
    .await;
    step(
        server,
        "14. A flattened struct: `requested_by` sits beside the tool's own fields, and a misspelt kind gets a did-you-mean",
        "schedule_task",
        json!({"id": 1, "requested_bi": "ada", "recurrence": {"kind": "montly", "day": 3}}),
    )
    .await;
    step(
        server,
        "15. It corrects both",
        "schedule_task",
        json!({"id": 1, "requested_by": "ada", "recurrence": {"kind": "monthly", "day": 3}}),
    )
    .await;
}
