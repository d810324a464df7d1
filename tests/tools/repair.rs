//! Declared leniency: slips whose meaning is not in doubt repaired with receipts (`repair`),
//! and keys a client adds on its own dropped (`ignore_keys`); everything else as strict as
//! ever.

use std::cell::RefCell;
use std::collections::BTreeMap;

use guardrails::validation::{Cx, RepairKind};
use guardrails::{
    CallOutput, GuardConfig, IgnoreKeys, IssueCode, RenderFormat, RepairPolicy, Server, ToolArgs,
    tool,
};
use guardrails_tests::telemetry::Captured;
use guardrails_tests::telemetry::names::{ARGUMENT_REPAIRS, IGNORED_KEYS};
use serde::Deserialize;
use serde_json::{Value, json};

/// A filter of tasks.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
struct Filter {
    /// Only tasks of this status.
    #[guard(one_of("open", "done"))]
    status: String,
    /// At least this priority.
    #[guard(range(min = 1, max = 5))]
    min_priority: Option<u8>,
}

/// Arguments of the tools below.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
struct Search {
    /// Words to look for.
    #[guard(length(max = 40))]
    query: String,
    /// How many results.
    #[guard(range(min = 1, max = 100))]
    limit: u32,
    /// Whether done tasks are included.
    #[serde(default)]
    include_done: bool,
    /// Tags every result has.
    #[serde(default)]
    tags: Vec<String>,
    /// Weights by tag.
    #[serde(default)]
    weights: BTreeMap<String, f64>,
    /// A filter.
    filter: Option<Filter>,
    /// The ids to look in.
    #[serde(default)]
    ids: Vec<u64>,
}

thread_local! {
    /// The last call the handler saw on this thread (each test runs on its own), for the
    /// tests to compare.
    static SEEN: RefCell<Option<Search>> = const { RefCell::new(None) };
}

fn seen_last() -> Search {
    SEEN.with(|seen| seen.borrow_mut().take())
        .expect("the handler ran")
}

/// Searches, repairing slips.
#[tool(repair, read_only)]
fn search(args: Search) -> String {
    let out = format!("{} results", args.limit);
    SEEN.with(|seen| *seen.borrow_mut() = Some(args));
    out
}

/// Searches, strictly.
#[tool(read_only)]
fn strict_search(args: Search) -> String {
    format!("{} results", args.limit)
}

/// Searches, never repaired whatever the server says.
#[tool(repair = false)]
fn exact_search(args: Search) -> String {
    format!("{} results", args.limit)
}

/// Arguments of a payment.
#[derive(Debug, Deserialize, ToolArgs)]
struct Pay {
    /// Cents.
    #[guard(no_repair)]
    cents: u64,
    /// The card's PIN.
    #[guard(sensitive)]
    pin: u32,
    /// Whether to send a receipt.
    receipt: bool,
}

/// Pays.
#[tool(repair)]
fn pay(args: Pay) -> String {
    format!(
        "paid {} (receipt: {}, pin given: {})",
        args.cents,
        args.receipt,
        args.pin > 0
    )
}

/// Arguments of a deletion.
#[derive(Debug, Deserialize, ToolArgs)]
struct Delete {
    /// The id.
    id: u32,
}

/// Deletes, repaired only where the author opted in.
#[tool(destructive, repair(destructive))]
fn delete_opted_in(args: Delete) -> String {
    format!("deleted {}", args.id)
}

/// Deletes.
#[tool(destructive)]
fn delete(args: Delete) -> String {
    format!("deleted {}", args.id)
}

/// Arguments with room for a client's own keys.
#[derive(Debug, Deserialize, ToolArgs)]
struct Note {
    /// The text.
    text: String,
    /// A field whose name has the ignored prefix: declared, so never dropped.
    #[serde(default, rename = "_pinned")]
    pinned: bool,
}

/// Notes, ignoring a client's metadata.
#[tool(ignore_keys(prefix = "_", names("trace_id", "session")))]
fn note(args: Note) -> String {
    format!("{} (pinned: {})", args.text, args.pinned)
}

/// Notes, strictly.
#[tool]
fn strict_note(args: Note) -> String {
    args.text
}

fn server() -> Server<()> {
    Server::new(())
        .tool(search)
        .tool(strict_search)
        .tool(exact_search)
        .tool(pay)
        .tool(delete_opted_in)
        .tool(delete)
        .tool(note)
        .tool(strict_note)
}

async fn call(server: &Server<()>, tool: &str, arguments: Value) -> CallOutput {
    server.call(tool, arguments).await.unwrap()
}

fn receipts(out: &CallOutput) -> Vec<String> {
    out.repairs
        .as_ref()
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|r| r["message"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_number_in_a_string_is_read_as_the_number_and_the_model_is_told() {
    let s = server();
    let out = call(&s, "search", json!({"query": "docs", "limit": "25"})).await;
    assert!(!out.is_error, "{:?}", out.text);
    assert_eq!(seen_last().limit, 25);
    let line = "`limit` was the string \"25\": read as 25; send numbers unquoted.";
    assert_eq!(receipts(&out), [line]);
    let notice = out.text.last().unwrap();
    assert!(
        notice.starts_with("<repaired tool=\"search\" count=\"1\">"),
        "{notice}"
    );
    assert!(
        notice.contains(&format!(
            "<repair field=\"limit\" kind=\"number_in_string\">{line}</repair>"
        )),
        "{notice}"
    );
    assert_eq!(out.repairs.as_ref().unwrap()[0]["kind"], "number_in_string");

    // The same call to a tool that does not repair is rejected, as it always was.
    let strict = call(&s, "strict_search", json!({"query": "docs", "limit": "25"})).await;
    assert!(strict.is_error);
    assert!(strict.repairs.is_none());
}

#[tokio::test]
async fn arrays_objects_and_booleans_in_strings_are_read_at_every_depth() {
    let s = server();
    let out = call(
        &s,
        "search",
        json!({
            "query": "docs",
            "limit": 10,
            "include_done": "true",
            "tags": "[\"a\",\"b\"]",
            "weights": "{\"a\": 0.5}",
            "filter": "{\"status\": \"open\", \"min_priority\": \"2\"}",
            "ids": ["7", 8],
        }),
    )
    .await;
    assert!(!out.is_error, "{:?}", out.text);
    let read = seen_last();
    assert!(read.include_done);
    assert_eq!(read.tags, ["a", "b"]);
    assert_eq!(read.weights, BTreeMap::from([("a".to_owned(), 0.5)]));
    assert_eq!(
        read.filter,
        Some(Filter {
            status: "open".into(),
            min_priority: Some(2)
        })
    );
    assert_eq!(read.ids, [7, 8]);
    let fields: Vec<&str> = out
        .repairs
        .as_ref()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "include_done",
            "tags",
            "weights",
            "filter",
            "filter.min_priority",
            "ids[0]"
        ]
    );
}

#[tokio::test]
async fn a_repaired_value_meets_its_guards_like_any_other() {
    let s = server();
    let out = call(&s, "search", json!({"query": "docs", "limit": "250"})).await;
    assert!(out.is_error);
    assert!(
        out.text[0].contains("code=\"too_large\""),
        "{}",
        out.text[0]
    );
    // What ran nothing still says how it was read.
    assert_eq!(
        receipts(&out),
        ["`limit` was the string \"250\": read as 250; send numbers unquoted."]
    );
    // A filter read from a string is checked field by field.
    let out = call(
        &s,
        "search",
        json!({"query": "docs", "limit": 5, "filter": "{\"status\": \"late\"}"}),
    )
    .await;
    assert!(out.is_error);
    assert!(out.text[0].contains("filter.status"), "{}", out.text[0]);
}

#[tokio::test]
async fn what_is_in_doubt_is_never_repaired() {
    let s = server();
    for (arguments, field) in [
        // A string field stays what was sent, and a number there stays an error.
        (json!({"query": 25, "limit": 5}), "query"),
        // Not exactly a number, a boolean, an array.
        (json!({"query": "a", "limit": " 25"}), "limit"),
        (json!({"query": "a", "limit": "25.5"}), "limit"),
        (json!({"query": "a", "limit": "0x19"}), "limit"),
        (
            json!({"query": "a", "limit": 5, "include_done": "True"}),
            "include_done",
        ),
        (
            json!({"query": "a", "limit": 5, "include_done": "1"}),
            "include_done",
        ),
        (json!({"query": "a", "limit": 5, "tags": "a,b"}), "tags"),
        (
            json!({"query": "a", "limit": 5, "tags": "{\"a\":1}"}),
            "tags",
        ),
        // Out of the type's range: not the number meant.
        (json!({"query": "a", "limit": 5, "ids": ["-1"]}), "ids[0]"),
    ] {
        let out = call(&s, "search", arguments.clone()).await;
        assert!(out.is_error, "{arguments} must be rejected");
        assert!(out.repairs.is_none(), "{arguments}: {:?}", out.repairs);
        assert!(
            out.text[0].contains(&format!("name=\"{field}\" code=\"type\"")),
            "{arguments}: {}",
            out.text[0]
        );
    }
    // A string that looks like a number is a string where a string is declared.
    let out = call(&s, "search", json!({"query": "25", "limit": 5})).await;
    assert!(!out.is_error);
    assert_eq!(seen_last().query, "25");
    assert!(out.repairs.is_none());
}

#[tokio::test]
async fn sensitive_and_no_repair_fields_are_never_repaired() {
    let s = server();
    let out = call(
        &s,
        "pay",
        json!({"cents": "100", "pin": "1234", "receipt": "true"}),
    )
    .await;
    assert!(out.is_error);
    let report = out.report.as_ref().unwrap()["error"]["issues"].clone();
    let fields: Vec<&str> = report
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["cents", "pin"]);
    // Only the boolean was read, and nothing of the PIN is echoed anywhere.
    assert_eq!(
        receipts(&out),
        ["`receipt` was the string \"true\": read as true; send true and false unquoted."]
    );
    assert!(!out.text.concat().contains("1234"));
}

#[tokio::test]
async fn destructive_tools_are_repaired_only_where_their_author_opted_in() {
    let s = server().config(GuardConfig::new().repair(RepairPolicy::On));
    let out = call(&s, "delete", json!({"id": "7"})).await;
    assert!(out.is_error, "a destructive tool runs only as sent");
    let out = call(&s, "delete_opted_in", json!({"id": "7"})).await;
    assert_eq!(out.text[0], "deleted 7");
    let s = server().config(GuardConfig::new().repair(RepairPolicy::IncludingDestructive));
    let out = call(&s, "delete", json!({"id": "7"})).await;
    assert_eq!(out.text[0], "deleted 7");
}

#[tokio::test]
async fn a_server_repairs_the_tools_that_say_nothing() {
    let strict = server();
    assert!(
        call(
            &strict,
            "strict_search",
            json!({"query": "a", "limit": "5"})
        )
        .await
        .is_error
    );
    let s = server().config(GuardConfig::new().repair(RepairPolicy::On));
    let out = call(&s, "strict_search", json!({"query": "a", "limit": "5"})).await;
    assert_eq!(out.text[0], "5 results");
    // A tool that says `repair = false` is not.
    let out = call(&s, "exact_search", json!({"query": "a", "limit": "5"})).await;
    assert!(out.is_error);
}

#[tokio::test]
async fn receipts_are_written_in_the_chosen_format_and_withheld_when_values_are() {
    let s = server().config(GuardConfig::new().format(RenderFormat::Markdown));
    let out = call(&s, "search", json!({"query": "a", "limit": "5"})).await;
    assert_eq!(
        out.text.last().unwrap(),
        "🔧 Arguments of `search` repaired:\n\n- `limit` was the string `\"5\"`: read as `5`; send numbers unquoted.\n\nThe call ran with the values as read above. Send them with their own types next time."
    );
    let s = server().config(GuardConfig::new().format(RenderFormat::Json));
    let out = call(&s, "search", json!({"query": "a", "limit": "5"})).await;
    let notice: Value = serde_json::from_str(out.text.last().unwrap()).unwrap();
    assert_eq!(notice["repaired"]["tool"], "search");
    assert_eq!(notice["repaired"]["repairs"][0]["readAs"], "5");
    let s = server().config(
        GuardConfig::new()
            .render_options(guardrails::RenderOptions::default().with_echo_values(false)),
    );
    let out = call(&s, "search", json!({"query": "a", "limit": "5"})).await;
    assert_eq!(
        receipts(&out),
        [
            "`limit` was the string (withheld: a string of 1 character): read as (withheld: a number); send numbers unquoted."
        ]
    );
}

#[tokio::test]
async fn telemetry_counts_repairs_and_ignored_keys_by_declared_names_only() {
    let captured = Captured::default();
    let _installed = captured.install();
    let s = server();
    let out = call(
        &s,
        "search",
        json!({"query": "secret words", "limit": "42", "weights": "{\"secret_tag\": 1}"}),
    )
    .await;
    assert!(!out.is_error);
    let labels = |field, kind| {
        [
            ("gen_ai.tool.name", "search"),
            ("field", field),
            ("kind", kind),
        ]
    };
    assert_eq!(
        captured.counter(ARGUMENT_REPAIRS, &labels("limit", "number_in_string")),
        1
    );
    assert_eq!(
        captured.counter(ARGUMENT_REPAIRS, &labels("weights", "object_in_string")),
        1
    );
    let out = call(
        &s,
        "note",
        json!({"text": "hi", "_client": {"v": 1}, "trace_id": "t-secret"}),
    )
    .await;
    assert!(!out.is_error);
    assert_eq!(
        captured.counter(IGNORED_KEYS, &[("gen_ai.tool.name", "note")]),
        2
    );
    let all = captured.all_text();
    for secret in ["42", "secret", "_client", "t-secret"] {
        assert!(!all.contains(secret), "telemetry holds {secret}: {all}");
    }
}

#[tokio::test]
async fn declared_keys_are_dropped_and_undeclared_ones_still_refused_and_named() {
    let s = server();
    let out = call(
        &s,
        "note",
        json!({"text": "hi", "_meta_client": "x", "_pinned": true, "session": 3}),
    )
    .await;
    // The declared field `_pinned` has the ignored prefix, and is read all the same.
    assert_eq!(out.text[0], "hi (pinned: true)");
    let out = call(&s, "note", json!({"text": "hi", "_x": 1, "trace": "t"})).await;
    assert!(out.is_error);
    assert!(
        out.text[0].contains("name=\"trace\" code=\"unknown_field\""),
        "{}",
        out.text[0]
    );
    assert!(!out.text[0].contains("_x"), "{}", out.text[0]);
    // A tool that declares nothing refuses them, unless its server ignores them.
    let out = call(&s, "strict_note", json!({"text": "hi", "_x": 1})).await;
    assert!(out.is_error);
    let s = server()
        .config(GuardConfig::new().ignore_keys(IgnoreKeys::new().prefix("_").name("trace")));
    let out = call(
        &s,
        "strict_note",
        json!({"text": "hi", "_x": 1, "trace": 2}),
    )
    .await;
    assert_eq!(out.text[0], "hi");
}

#[test]
fn validate_repairing_reports_each_repair_and_checks_the_result() {
    let call = json!({"query": "a", "limit": "5", "tags": "[\"x\"]"});
    let object = call.as_object().unwrap().clone();
    let (read, repairs) = Search::validate_repairing(object.clone(), Cx::new().repairing(true));
    assert_eq!(read.unwrap().limit, 5);
    let kinds: Vec<RepairKind> = repairs.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [RepairKind::NumberInString, RepairKind::ArrayInString]
    );
    // Off, nothing is repaired.
    let (read, repairs) = Search::validate_repairing(object, Cx::new());
    assert!(repairs.is_empty());
    let report = read.unwrap_err();
    assert!(report.issues().iter().all(|i| i.code == IssueCode::Type));
}

/// Which task: by number or by name, as serde tries them in turn.
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(untagged)]
enum Target {
    /// By number.
    ByNumber {
        /// The number.
        id: u32,
    },
    /// By name.
    ByName {
        /// The name.
        id: String,
    },
}

/// Arguments of `pick`.
#[derive(Debug, Deserialize, ToolArgs)]
struct Pick {
    /// The task.
    target: Target,
}

/// Picks a task.
#[tool(repair)]
fn pick(args: Pick) -> String {
    match args.target {
        Target::ByNumber { id } => format!("number {id}"),
        Target::ByName { id } => format!("name {id}"),
    }
}

#[tokio::test]
async fn a_repair_never_chooses_the_variant_of_an_untagged_enum() {
    let s = Server::new(()).tool(pick);
    // serde reads `"25"` as the variant whose `id` is a string: so does the repairing guard.
    let out = call(&s, "pick", json!({"target": {"id": "25"}})).await;
    assert_eq!(out.text, ["name 25"]);
    assert!(out.repairs.is_none());
}

#[tokio::test]
async fn the_receipts_reach_the_client_in_meta() {
    use guardrails_tests::client;
    let client = client::connect(server()).await;
    let result = client
        .call_tool(client::call("search", json!({"query": "a", "limit": "5"})))
        .await
        .unwrap();
    let meta = result.meta.expect("a repaired call carries its receipts");
    let receipts = &meta.0["dev.guardrails/repairs"];
    assert_eq!(receipts[0]["field"], "limit");
    assert_eq!(receipts[0]["sent"], "\"5\"");
    assert_eq!(receipts[0]["readAs"], "5");
    // A call that needed none carries none.
    let result = client
        .call_tool(client::call("search", json!({"query": "a", "limit": 5})))
        .await
        .unwrap();
    assert!(result.meta.is_none());
    client.cancel().await.unwrap();
}
