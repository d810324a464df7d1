//! The corrected call of a repeated invalid call: the caller's own call with what the server is
//! sure of fixed, and holes where only the caller knows the value, never an invented one; the
//! same on a derived tool, a native tool under `#[guarded]`, in every format and in `_meta`.

#![expect(
    clippy::unused_self,
    reason = "tools are methods on `&self`, as rmcp's examples write them"
)]

use std::collections::BTreeSet;

use guardrails::{CallOutput, GuardConfig, RenderFormat, RenderOptions, Server, ToolArgs, tool};
use guardrails_tests::client::{call, connect, text};
use guardrails_tests::testing::meta::REPORT_META_KEY;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, schemars, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// A line of an invoice.
#[derive(Debug, Deserialize, ToolArgs)]
#[expect(dead_code, reason = "read by the validator, not by the tool")]
struct InvoiceLine {
    /// Stock-keeping unit.
    #[guard(pattern = "^[A-Z]{3}-[0-9]{4}$")]
    sku: String,
    /// How many units.
    #[guard(range(min = 1, max = 1000))]
    quantity: u32,
}

/// Arguments of `create_invoice`.
#[derive(Debug, Deserialize, ToolArgs)]
#[expect(dead_code, reason = "read by the validator, not by the tool")]
struct CreateInvoice {
    /// The customer billed.
    #[guard(pattern = "^cus_[a-z0-9]{8}$")]
    customer: String,
    /// What is billed.
    #[guard(length(min = 1, max = 20))]
    lines: Vec<InvoiceLine>,
    /// When it is due.
    #[guard(format = "date")]
    due_date: String,
    /// A note printed on the invoice.
    #[guard(length(max = 200))]
    notes: Option<String>,
}

/// Creates an invoice.
#[tool]
fn create_invoice(args: CreateInvoice) -> String {
    format!("invoice for {} ({} lines)", args.customer, args.lines.len())
}

/// Arguments of `create_account`: a secret among them.
#[derive(Debug, Deserialize, ToolArgs)]
struct CreateAccount {
    /// The login.
    #[guard(length(min = 3, max = 20))]
    user: String,
    /// The password.
    #[guard(sensitive, length(min = 12))]
    password: String,
    /// The team.
    #[guard(length(min = 2))]
    team: String,
}

/// Creates an account.
#[tool]
fn create_account(args: CreateAccount) -> String {
    let _ = args.password;
    format!("{} in {}", args.user, args.team)
}

/// Arguments of `search`.
#[derive(Debug, Deserialize, ToolArgs)]
struct Search {
    /// What to look for.
    #[guard(length(min = 1))]
    query: String,
    /// How many results.
    #[guard(range(min = 1, max = 100))]
    limit: u32,
}

/// Searches; repairs slips whose meaning is not in doubt.
#[tool(read_only, repair)]
fn search(args: Search) -> String {
    format!("{} results for {}", args.limit, args.query)
}

fn server(format: RenderFormat) -> Server<()> {
    Server::new(())
        .tool(create_invoice)
        .tool(create_account)
        .tool(search)
        .config(GuardConfig::new().format(format))
}

/// The call of the issue: one real line, the right customer, a hallucinated key, no due date.
fn invoice_call() -> Value {
    json!({
        "customer": "cus_abcd1234",
        "lines": [{"sku": "ABC-1234", "quantity": 2}],
        "discount_code": "SPRING25"
    })
}

/// The same call twice: the second answer.
async fn twice(server: &Server<()>, tool: &str, arguments: &Value) -> CallOutput {
    let first = server.call(tool, arguments.clone()).await.unwrap();
    assert!(first.is_error);
    let second = server.call(tool, arguments.clone()).await.unwrap();
    assert!(second.is_error);
    second
}

/// The corrected call the `_meta` report carries.
fn corrected(output: &CallOutput) -> &Value {
    &output.report.as_ref().expect("a report")["error"]["correctedCall"]
}

/// Every scalar of `value`, as JSON text.
fn scalars(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(object) => object.values().for_each(|v| scalars(v, out)),
        Value::Array(items) => items.iter().for_each(|v| scalars(v, out)),
        scalar => {
            out.insert(scalar.to_string());
        }
    }
}

/// Whether every value of `corrected` is one the caller sent.
fn invents_nothing(corrected: &Value, sent: &Value) -> Result<(), String> {
    let (mut theirs, mut ours) = (BTreeSet::new(), BTreeSet::new());
    scalars(sent, &mut theirs);
    scalars(corrected, &mut ours);
    let invented: Vec<&String> = ours.difference(&theirs).collect();
    if invented.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{invented:?} were not sent: {corrected} from {sent}"
        ))
    }
}

#[tokio::test]
async fn the_corrected_call_is_the_callers_own_with_a_hole_where_a_value_is_missing() {
    let sent = invoice_call();
    let output = twice(&server(RenderFormat::Xml), "create_invoice", &sent).await;
    let call = corrected(&output);
    assert_eq!(call["name"], "create_invoice");
    // Every value the caller got right, as it sent it; nothing it did not send.
    assert_eq!(
        call["arguments"],
        json!({"customer": "cus_abcd1234", "lines": [{"sku": "ABC-1234", "quantity": 2}]}),
        "{call}"
    );
    invents_nothing(&call["arguments"], &sent).unwrap();
    // The due date is the caller's to fill in, with what it needs.
    let fill = call["fill"].as_array().unwrap();
    assert_eq!(fill.len(), 1, "{call}");
    assert_eq!(fill[0]["field"], "due_date");
    assert!(
        fill[0]["expected"].as_str().unwrap().contains("date"),
        "{call}"
    );
    assert_eq!(call["changes"], json!(["removed discount_code"]));

    // The model reads the same call, its hole written where JSON cannot be, and the example
    // labelled as one.
    let text = &output.text[0];
    assert!(
        text.starts_with("<repeated_call tool=\"create_invoice\" times=\"2\">\n<corrected_call>"),
        "{text}"
    );
    assert!(
        text.contains(
            r#"<corrected_call>{"name":"create_invoice","arguments":{"customer":"cus_abcd1234","lines":[{"quantity":2,"sku":"ABC-1234"}],"due_date":&lt;fill in: due_date&gt;}}</corrected_call>"#
        ),
        "{text}"
    );
    assert!(text.contains("<fill_in field=\"due_date\">"), "{text}");
    assert!(
        text.contains("<valid_example note=\"an example of a valid call, not your values\">"),
        "{text}"
    );
    assert!(
        text.contains("<changes>removed discount_code</changes>"),
        "{text}"
    );
    let corrected_line = text
        .lines()
        .find(|line| line.starts_with("<corrected_call>"))
        .unwrap();
    let example = CreateInvoice::example();
    assert!(
        !corrected_line.contains(example["customer"].as_str().unwrap()),
        "{corrected_line}"
    );
    assert!(!corrected_line.contains("example"), "{corrected_line}");
    // The README shows this very message.
    let readme = include_str!("../../README.md");
    let start = readme
        .find("<repeated_call tool=\"create_invoice\"")
        .unwrap();
    let end = readme[start..].find("</repeated_call>").unwrap() + start;
    assert_eq!(&readme[start..end + "</repeated_call>".len()], text);
    // A literal agent that sends the corrected call unfilled sends no data: it is not JSON.
    let json_part =
        &corrected_line["<corrected_call>".len()..corrected_line.len() - "</corrected_call>".len()];
    assert!(serde_json::from_str::<Value>(json_part).is_err());
}

#[tokio::test]
async fn every_format_says_the_same_corrected_call() {
    let sent = invoice_call();
    let markdown = twice(&server(RenderFormat::Markdown), "create_invoice", &sent).await;
    let text = &markdown.text[0];
    assert!(
        text.contains(
            r#"{"name":"create_invoice","arguments":{"customer":"cus_abcd1234","lines":[{"quantity":2,"sku":"ABC-1234"}],"due_date":<fill in: due_date>}}"#
        ),
        "{text}"
    );
    assert!(text.contains("- `due_date`: "), "{text}");
    assert!(
        text.contains("An example of a valid call, not your values:"),
        "{text}"
    );

    let json_format = twice(&server(RenderFormat::Json), "create_invoice", &sent).await;
    let message: Value = serde_json::from_str(&json_format.text[0]).unwrap();
    let error = &message["error"];
    assert_eq!(error["type"], "repeated_call");
    assert_eq!(&error["correctedCall"], corrected(&json_format));
    assert_eq!(
        error["validExample"]["note"],
        "an example of a valid call, not your values"
    );
    assert_eq!(corrected(&json_format), corrected(&markdown));
}

#[tokio::test]
async fn mechanical_mistakes_are_fixed_and_the_corrected_call_validates() {
    let server = server(RenderFormat::Xml);
    // A misspelt key, a field sent at the wrong level, a key made up.
    let sent = json!({
        "custmer": "cus_abcd1234",
        "lines": [{"sku": "ABC-1234"}],
        "quantity": 2,
        "due_date": "2026-05-01",
        "coupon": "X"
    });
    let output = twice(&server, "create_invoice", &sent).await;
    let call = corrected(&output);
    assert_eq!(call["fill"], json!([]), "{call}");
    let arguments = &call["arguments"];
    assert_eq!(
        *arguments,
        json!({
            "customer": "cus_abcd1234",
            "lines": [{"sku": "ABC-1234", "quantity": 2}],
            "due_date": "2026-05-01"
        }),
        "{call}"
    );
    CreateInvoice::validate_value(arguments.clone()).unwrap();
    let changes: Vec<&str> = call["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        changes.contains(&"renamed \"custmer\" to \"customer\""),
        "{changes:?}"
    );
    assert!(
        changes.contains(&"moved quantity to lines[0].quantity"),
        "{changes:?}"
    );
    assert!(changes.contains(&"removed coupon"), "{changes:?}");
    // Nothing to fill in: no example to confuse with it, and the model is told to send it.
    let text = &output.text[0];
    assert!(!text.contains("valid_example"), "{text}");
    assert!(
        text.contains("Send the corrected call above as it is"),
        "{text}"
    );
}

#[tokio::test]
async fn a_declared_repair_is_applied_in_the_corrected_call() {
    let server = server(RenderFormat::Xml);
    let output = twice(&server, "search", &json!({"limit": "25"})).await;
    let call = corrected(&output);
    assert_eq!(call["arguments"], json!({"limit": 25}), "{call}");
    assert_eq!(call["fill"][0]["field"], "query", "{call}");
    assert_eq!(call["changes"], json!(["unquoted limit"]), "{call}");
}

#[tokio::test]
async fn a_field_sent_at_the_wrong_level_of_several_items_is_not_guessed() {
    let server = server(RenderFormat::Xml);
    let sent = json!({
        "customer": "cus_abcd1234",
        "lines": [{"sku": "ABC-1234"}, {"sku": "XYZ-0001"}],
        "quantity": 2,
        "due_date": "2026-05-01"
    });
    let output = twice(&server, "create_invoice", &sent).await;
    let call = corrected(&output);
    invents_nothing(&call["arguments"], &sent).unwrap();
    // Which line the quantity was for is the caller's to say: each is a hole.
    let fields: Vec<&str> = call["fill"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["field"].as_str())
        .collect();
    assert_eq!(fields, ["lines[0].quantity", "lines[1].quantity"], "{call}");
    assert!(call["arguments"].get("quantity").is_none(), "{call}");
}

#[tokio::test]
async fn a_wrong_value_is_a_hole_and_a_secret_is_never_repeated() {
    let server = server(RenderFormat::Xml);
    let sent = json!({"user": "ada", "password": "correct horse battery", "team": "x"});
    let output = twice(&server, "create_account", &sent).await;
    let call = corrected(&output);
    assert_eq!(call["arguments"], json!({"user": "ada"}), "{call}");
    let fill: Vec<(&str, &str)> = call["fill"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["field"].as_str().unwrap(),
                f["expected"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(fill.len(), 2, "{call}");
    assert_eq!(fill[0].0, "team");
    assert!(fill[0].1.contains("at least 2"), "{fill:?}");
    assert_eq!(fill[1].0, "password");
    assert!(fill[1].1.contains("your own value"), "{fill:?}");
    for text in [
        &output.text[0],
        &output.report.as_ref().unwrap().to_string(),
    ] {
        assert!(!text.contains("battery"), "{text}");
    }
}

#[tokio::test]
async fn a_server_that_echoes_no_value_lists_the_changes_and_holes_only() {
    let server = Server::new(()).tool(create_invoice).config(
        GuardConfig::new()
            .render_options(RenderOptions::new(RenderFormat::Xml).with_echo_values(false)),
    );
    let sent = invoice_call();
    let output = twice(&server, "create_invoice", &sent).await;
    let text = &output.text[0];
    assert!(!text.contains("cus_abcd1234"), "{text}");
    assert!(!text.contains("ABC-1234"), "{text}");
    assert!(
        text.contains("Not repeated: this server does not echo values."),
        "{text}"
    );
    assert!(text.contains("<fill_in field=\"due_date\">"), "{text}");
    let call = corrected(&output);
    assert!(call.get("arguments").is_none(), "{call}");
}

// The same tool, native: rmcp's `Parameters`, adopted with `#[guarded]`.

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[expect(dead_code, reason = "read by the guard, not by the tool")]
struct NativeLine {
    #[schemars(regex(pattern = r"^[A-Z]{3}-[0-9]{4}$"))]
    sku: String,
    #[schemars(range(min = 1, max = 1000))]
    quantity: u32,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[expect(dead_code, reason = "read by the guard, not by the tool")]
struct NativeInvoice {
    #[schemars(regex(pattern = r"^cus_[a-z0-9]{8}$"))]
    customer: String,
    #[schemars(length(min = 1, max = 20))]
    lines: Vec<NativeLine>,
    due_date: String,
    notes: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Sum {
    a: i32,
    b: i32,
}

#[derive(Clone)]
struct Billing;

#[guardrails::guarded]
#[tool_router]
impl Billing {
    #[rmcp::tool(description = "Creates an invoice")]
    fn create_invoice(&self, Parameters(args): Parameters<NativeInvoice>) -> String {
        format!("invoice for {} ({} lines)", args.customer, args.lines.len())
    }

    #[rmcp::tool(description = "Adds two numbers")]
    fn add(&self, Parameters(Sum { a, b }): Parameters<Sum>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler]
impl ServerHandler for Billing {}

#[tokio::test]
async fn a_native_tool_under_guarded_answers_the_same_corrected_call() {
    let client = connect(Billing).await;
    let invoice = invoice_call();
    let mut answers = Vec::new();
    for _ in 0..2 {
        let arguments = invoice.as_object().cloned().unwrap();
        answers.push(
            client
                .call_tool(call("create_invoice", Value::Object(arguments)))
                .await
                .unwrap(),
        );
    }
    let second = &answers[1];
    assert_eq!(second.is_error, Some(true));
    let message = text(second, 0);
    assert!(
        message.contains(
            r#"<corrected_call>{"name":"create_invoice","arguments":{"customer":"cus_abcd1234","lines":[{"quantity":2,"sku":"ABC-1234"}],"due_date":&lt;fill in: due_date&gt;}}</corrected_call>"#
        ),
        "{message}"
    );
    let meta = second.meta.as_ref().expect("_meta");
    let call_value = &meta[REPORT_META_KEY]["error"]["correctedCall"];
    invents_nothing(&call_value["arguments"], &invoice).unwrap();
    assert_eq!(call_value["fill"][0]["field"], "due_date", "{call_value}");

    // `add(5, 2)` with a key made up is answered with 5 and 2, not the example's numbers.
    for _ in 0..2 {
        let result = client
            .call_tool(call("add", json!({"a": 5, "b": 2, "carry": true})))
            .await
            .unwrap();
        answers.push(result);
    }
    let meta = answers[3].meta.as_ref().expect("_meta");
    let call_value = &meta[REPORT_META_KEY]["error"]["correctedCall"];
    assert_eq!(
        call_value["arguments"],
        json!({"a": 5, "b": 2}),
        "{call_value}"
    );
    assert_eq!(call_value["fill"], json!([]), "{call_value}");

    // A misspelt key is renamed where the server is sure; a name too short to be sure of is
    // dropped, and its field is the caller's to fill in, not given the value of another key.
    let misspelt = json!({
        "custmer": "cus_abcd1234",
        "lines": [{"sku": "ABC-1234", "quantity": 2}],
        "due_date": "2026-05-01"
    });
    for _ in 0..2 {
        let result = client
            .call_tool(call("create_invoice", misspelt.clone()))
            .await
            .unwrap();
        answers.push(result);
    }
    let meta = answers[5].meta.as_ref().expect("_meta");
    let call_value = &meta[REPORT_META_KEY]["error"]["correctedCall"];
    assert_eq!(
        call_value["arguments"]["customer"], "cus_abcd1234",
        "{call_value}"
    );
    assert_eq!(call_value["fill"], json!([]), "{call_value}");
    for _ in 0..2 {
        let result = client
            .call_tool(call("add", json!({"a": 5, "bb": 2})))
            .await
            .unwrap();
        answers.push(result);
    }
    let meta = answers[7].meta.as_ref().expect("_meta");
    let call_value = &meta[REPORT_META_KEY]["error"]["correctedCall"];
    assert_eq!(call_value["arguments"], json!({"a": 5}), "{call_value}");
    assert_eq!(call_value["fill"][0]["field"], "b", "{call_value}");
    client.cancel().await.unwrap();
}

// The property: for random mistakes in valid calls, the corrected call invents no value, and
// fixes mechanical mistakes alone into a call that validates.

/// A mistake made in a valid call.
#[derive(Debug, Clone)]
enum Mistake {
    /// A key no field is near.
    UnknownKey(u8),
    /// A top-level key with two letters swapped.
    Misspelt(usize),
    /// A field of the one line sent at the top level.
    Misplaced(usize),
    /// A required field left out.
    Removed(usize),
    /// A value of the wrong type.
    Broken(usize),
}

impl Mistake {
    fn is_mechanical(&self) -> bool {
        matches!(
            self,
            Self::UnknownKey(_) | Self::Misspelt(_) | Self::Misplaced(_)
        )
    }
}

fn valid_invoice() -> impl Strategy<Value = Value> {
    (
        "cus_[a-z0-9]{8}",
        proptest::collection::vec(("[A-Z]{3}-[0-9]{4}", 1u32..1000), 1..4),
        (1u32..13, 1u32..29),
        proptest::option::of("[a-zA-Z ,.]{0,40}"),
    )
        .prop_map(|(customer, lines, (month, day), notes)| {
            let lines: Vec<Value> = lines
                .into_iter()
                .map(|(sku, quantity)| json!({"sku": sku, "quantity": quantity}))
                .collect();
            let mut call = json!({
                "customer": customer,
                "lines": lines,
                "due_date": format!("2026-{month:02}-{day:02}"),
            });
            if let Some(notes) = notes {
                call["notes"] = Value::from(notes);
            }
            call
        })
}

fn valid_account() -> impl Strategy<Value = Value> {
    ("[a-z]{3,12}", "[a-z]{2,10}").prop_map(
        |(user, team)| json!({"user": user, "password": "correct horse battery", "team": team}),
    )
}

fn mistakes() -> impl Strategy<Value = Vec<Mistake>> {
    let mistake = prop_oneof![
        any::<u8>().prop_map(Mistake::UnknownKey),
        any::<usize>().prop_map(Mistake::Misspelt),
        any::<usize>().prop_map(Mistake::Misplaced),
        any::<usize>().prop_map(Mistake::Removed),
        any::<usize>().prop_map(Mistake::Broken),
    ];
    proptest::collection::vec(mistake, 1..4)
}

/// `call` with `mistake` made, when it applies (a key long enough to misspell, one line to
/// take a field from).
fn make(call: &mut Map<String, Value>, mistake: &Mistake, required: &[&str]) {
    let keys: Vec<String> = call.keys().cloned().collect();
    let pick = |n: usize, from: &[String]| from.get(n % from.len().max(1)).cloned();
    match mistake {
        Mistake::UnknownKey(n) => {
            call.insert(format!("zq{n}_xyzzy"), json!(n));
        }
        Mistake::Misspelt(n) => {
            let long: Vec<String> = keys
                .iter()
                .filter(|k| k.len() >= 5 && required.contains(&k.as_str()))
                .cloned()
                .collect();
            if let Some(key) = pick(*n, &long) {
                let mut chars: Vec<char> = key.chars().collect();
                chars.swap(1, 2);
                let misspelt: String = chars.into_iter().collect();
                if misspelt != key && !call.contains_key(&misspelt) {
                    let value = call.remove(&key).unwrap();
                    call.insert(misspelt, value);
                }
            }
        }
        Mistake::Misplaced(n) => {
            let Some(Value::Array(lines)) = call.get_mut("lines") else {
                return;
            };
            let [Value::Object(line)] = lines.as_mut_slice() else {
                return;
            };
            let fields: Vec<String> = line.keys().cloned().collect();
            if let Some(field) = pick(*n, &fields) {
                let value = line.remove(&field).unwrap();
                if !call.contains_key(&field) {
                    call.insert(field, value);
                }
            }
        }
        Mistake::Removed(n) => {
            let present: Vec<String> = keys
                .iter()
                .filter(|k| required.contains(&k.as_str()))
                .cloned()
                .collect();
            if let Some(key) = pick(*n, &present) {
                call.remove(&key);
            }
        }
        Mistake::Broken(n) => {
            let present: Vec<String> = keys
                .iter()
                .filter(|k| required.contains(&k.as_str()))
                .cloned()
                .collect();
            if let Some(key) = pick(*n, &present) {
                let broken = match &call[&key] {
                    Value::String(_) => json!(12),
                    _ => json!("twelve"),
                };
                call.insert(key, broken);
            }
        }
    }
}

/// Runs the property on `tool` over calls from `valid`, with a fixed seed (`PROPTEST_RNG_SEED`
/// when set); `secret` are the fields whose values are never repeated.
fn property(
    tool: &'static str,
    required: &'static [&'static str],
    secret: &'static [&'static str],
    valid: impl Strategy<Value = Value>,
    validates: fn(Value) -> bool,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(20_260_728);
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    });
    runner
        .run(&(valid, mistakes()), |(valid, mistakes)| {
            let mut sent = valid.as_object().cloned().unwrap();
            for mistake in &mistakes {
                make(&mut sent, mistake, required);
            }
            let sent = Value::Object(sent);
            let server = server(RenderFormat::Json);
            let output = runtime.block_on(async {
                let _ = server.call(tool, sent.clone()).await.unwrap();
                server.call(tool, sent.clone()).await.unwrap()
            });
            if !output.is_error {
                // The mistakes undid each other: a valid call.
                return Ok(());
            }
            let call = corrected(&output);
            prop_assert!(call.is_object(), "no corrected call: {}", output.text[0]);
            let arguments = call.get("arguments").cloned().unwrap_or(json!({}));
            let invented = invents_nothing(&arguments, &sent);
            prop_assert!(invented.is_ok(), "{:?}", invented);
            let holes: Vec<&str> = call["fill"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|hole| hole["field"].as_str())
                .collect();
            for hole in &holes {
                prop_assert!(
                    arguments.get(hole).is_none(),
                    "{} holds a value: {}",
                    hole,
                    call
                );
            }
            if mistakes.iter().all(Mistake::is_mechanical) {
                prop_assert_eq!(&holes, &secret.to_vec(), "{} from {}", call, sent);
                let mut filled = arguments.clone();
                for field in secret {
                    filled[*field] = sent[*field].clone();
                }
                prop_assert!(validates(filled), "{} from {}", arguments, sent);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn random_mistakes_are_corrected_without_inventing_a_value() {
    property(
        "create_invoice",
        &["customer", "lines", "due_date"],
        &[],
        valid_invoice(),
        |arguments| CreateInvoice::validate_value(arguments).is_ok(),
    );
}

#[test]
fn random_mistakes_in_a_call_with_a_secret_invent_nothing_and_repeat_no_secret() {
    property(
        "create_account",
        &["user", "team"],
        &["password"],
        valid_account(),
        |arguments| CreateAccount::validate_value(arguments).is_ok(),
    );
}
