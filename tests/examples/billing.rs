//! A billing server as a newcomer writes it from the docs: nested invoice lines, an enum, a
//! custom notes policy with an acknowledgement, 64-bit numbers, and calls made in process.
//! Each test holds one promise the first user of the library found broken.

#![allow(
    dead_code,
    reason = "the argument types are what is tested: validation reads every field, handlers few"
)]

use std::sync::LazyLock;

use guardrails::policy::{Policy, Rule};
use guardrails::render::render_report;
use guardrails::{IssueCode, Report, Server, ToolArgs, ToolEnum, tool};
use guardrails::{RenderFormat, RenderOptions};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The largest integer every JSON client holds exactly, the bound of integer fields the
/// derive's documentation states: 2^53 - 1.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The currency of an invoice.
#[derive(Debug, Clone, Copy, Deserialize, ToolEnum)]
#[serde(rename_all = "lowercase")]
enum Currency {
    Eur,
    Usd,
}

/// A line of an invoice.
#[derive(Debug, Deserialize, ToolArgs)]
struct InvoiceLine {
    /// Stock-keeping unit.
    #[guard(pattern = "^[A-Z0-9]{4,12}$")]
    sku: String,
    /// How many units.
    #[guard(range(min = 1, max = 10_000))]
    quantity: u32,
    /// Price of one unit, in cents.
    unit_price: u64,
}

/// What an invoice's notes may say: amounts are facts there; card numbers never go in.
static INVOICE_TEXT: LazyLock<Policy> = LazyLock::new(|| {
    Policy::builder()
        .critical(
            Rule::forbidden("card_number", r"\b(?:\d[ -]?){13,16}\b")
                .message("Card numbers never go into invoice text.")
                .alternative("The last four digits of the card, as in \"card ending 4242\""),
        )
        .warning(Rule::forbidden_words("promise", ["guaranteed"]))
        .build()
        .expect("the rules compile")
});

fn invoice_text() -> &'static Policy {
    &INVOICE_TEXT
}

/// Create an invoice.
#[derive(Debug, Deserialize, ToolArgs)]
struct CreateInvoice {
    /// The customer billed.
    #[guard(pattern = "^cus_[a-z0-9]{8,24}$")]
    customer_id: String,
    /// The lines of the invoice.
    #[guard(length(min = 1, max = 50))]
    lines: Vec<InvoiceLine>,
    /// Currency of the prices.
    currency: Currency,
    /// The customer's own reference for the invoice.
    #[guard(length(min = 1, max = 40))]
    reference: String,
    /// Notes printed on the invoice.
    #[guard(length(max = 2000), policy = invoice_text)]
    notes: Option<String>,
    /// Set to true to keep wording the notes policy warned about.
    #[serde(default)]
    #[guard(acknowledges_policy)]
    acknowledge_warnings: bool,
}

/// Signed and pointer-sized 64-bit fields.
#[derive(Debug, Deserialize, ToolArgs)]
struct Offsets {
    delta: i64,
    index: usize,
}

/// Creates an invoice and returns its number.
#[tool]
fn create_invoice(args: CreateInvoice) -> String {
    format!(
        "Invoice for {} with {} lines.",
        args.customer_id,
        args.lines.len()
    )
}

fn line(quantity: &Value) -> Value {
    json!({"sku": "AB12", "quantity": quantity, "unit_price": 1250})
}

fn invoice() -> Value {
    json!({
        "customer_id": "cus_0a1b2c3d",
        "lines": [line(&json!(2))],
        "currency": "eur",
        "reference": "PO-7",
    })
}

fn reject(args: Value) -> Report {
    match CreateInvoice::validate_value(args) {
        Ok(_) => panic!("the arguments should have been rejected"),
        Err(report) => report,
    }
}

fn issues(report: &Report) -> Vec<(&str, IssueCode)> {
    report
        .issues()
        .iter()
        .map(|issue| (&*issue.path, issue.code))
        .collect()
}

fn xml(report: &Report) -> String {
    render_report(
        "create_invoice",
        report,
        CreateInvoice::info(),
        CreateInvoice::example(),
        &RenderOptions::default(),
    )
}

#[test]
fn the_example_never_acknowledges_policy_warnings() {
    let example = CreateInvoice::example();
    assert_eq!(example["acknowledge_warnings"], false, "{example}");
    let schema = serde_json::to_value(CreateInvoice::schema()).unwrap();
    assert_eq!(schema["examples"][0]["acknowledge_warnings"], false);
    assert_eq!(
        schema["properties"]["acknowledge_warnings"]["examples"],
        json!([false])
    );
    assert!(CreateInvoice::validate_value(example.clone()).is_ok());
    // What an example shows is what a call that sends nothing gets.
    let mut without = example.clone();
    without
        .as_object_mut()
        .unwrap()
        .remove("acknowledge_warnings");
    assert!(CreateInvoice::validate_value(without).is_ok());
}

#[test]
fn an_over_long_list_reports_the_issues_of_its_items_in_the_same_pass() {
    let mut args = invoice();
    let mut lines: Vec<Value> = (0..51).map(|_| line(&json!(1))).collect();
    lines[3] = line(&json!("ten"));
    args["lines"] = Value::Array(lines);
    let report = reject(args);
    assert_eq!(
        issues(&report),
        [
            ("lines", IssueCode::TooLong),
            ("lines[3].quantity", IssueCode::Type)
        ]
    );
    assert_eq!(
        report.at("lines").unwrap().message,
        "Too long: 51 items, at most 50 allowed."
    );

    // Item issues of a list past its length still stop at the report's cap, counted beyond.
    let mut args = invoice();
    args["lines"] = Value::Array((0..200).map(|_| line(&json!("x"))).collect());
    let report = reject(args);
    // A report keeps 64 issues, as `Report` documents.
    assert_eq!(report.issues().len(), 64);
    assert_eq!(report.len(), 201);
}

#[test]
fn a_nested_unknown_key_names_its_object_and_abbreviations_are_understood() {
    let mut args = invoice();
    args["lines"][0]["discount"] = json!(5);
    args["lines"][0]["qty"] = json!(3);
    args["lines"][0].as_object_mut().unwrap().remove("quantity");
    args["custmer_id"] = json!("cus_0a1b2c3d");
    args["zz"] = json!(1);
    let report = reject(args);
    assert_eq!(
        report.at("lines[0].discount").unwrap().message,
        "Not a field of `lines[0]`."
    );
    assert_eq!(
        report.at("lines[0].qty").unwrap().message,
        "Not a field of `lines[0]`. Did you mean \"quantity\"?"
    );
    assert_eq!(
        report.at("custmer_id").unwrap().message,
        "Not a field of this tool. Did you mean \"customer_id\"?"
    );
    // Two letters abbreviate nothing: no guess, the list of fields instead.
    let zz = report.at("zz").unwrap();
    assert_eq!(zz.message, "Not a field of this tool.");
    assert!(
        zz.fix
            .as_deref()
            .unwrap()
            .starts_with("Remove it. The fields are: ")
    );
    // An unrelated word is not matched either.
    let mut args = invoice();
    args["lines"][0]["colour"] = json!("red");
    let colour = reject(args);
    assert_eq!(
        colour.at("lines[0].colour").unwrap().message,
        "Not a field of `lines[0]`."
    );
}

#[test]
fn counts_agree_in_number() {
    let mut args = invoice();
    args["reference"] = json!("");
    args["lines"] = json!([]);
    let report = reject(args);
    let reference = report.at("reference").unwrap();
    assert_eq!(
        reference.message,
        "Too short: 0 characters, at least 1 required."
    );
    assert_eq!(reference.expected.as_deref(), Some("at least 1 character"));
    assert_eq!(
        reference.fix.as_deref(),
        Some("a string of 1 to 40 characters")
    );
    let lines = report.at("lines").unwrap();
    assert_eq!(lines.message, "Too short: 0 items, at least 1 required.");
    assert_eq!(lines.expected.as_deref(), Some("at least 1 item"));
    assert_eq!(
        report.to_string().split(';').next(),
        Some("2 invalid arguments")
    );

    let one = reject(json!({}));
    assert!(one.to_string().starts_with("4 invalid arguments"), "{one}");
    let mut args = invoice();
    args["reference"] = json!("");
    let report = reject(args);
    assert!(
        report.to_string().starts_with("1 invalid argument;"),
        "{report}"
    );
    let rendered = render_report(
        "create_invoice",
        &report,
        CreateInvoice::info(),
        CreateInvoice::example(),
        &RenderOptions::new(RenderFormat::Markdown),
    );
    assert!(
        rendered.contains("invalid arguments: 1 issue found."),
        "{rendered}"
    );
}

#[test]
fn a_violation_deep_in_long_notes_is_quoted_where_it_is() {
    let filler = "The delivery was split over two shipments as agreed with the warehouse team. ";
    let notes = format!(
        "{}Paid with card 4242 4242 4242 4242 on the day of delivery. {}",
        filler.repeat(4),
        filler.repeat(2)
    );
    assert!(notes.find("4242").unwrap() > 300);
    let mut args = invoice();
    args["notes"] = json!(notes);
    let report = reject(args);
    let issue = report.at("notes").unwrap();
    assert_eq!(issue.code, IssueCode::Policy);
    let received: String = serde_json::from_str(issue.received.as_deref().unwrap()).unwrap();
    assert!(
        received.contains("card 4242 4242 4242 4242 on the day"),
        "{received}"
    );
    assert!(
        received.starts_with('…') && received.ends_with('…'),
        "{received}"
    );
    let body = received.trim_matches('…');
    assert!(
        notes.contains(&format!(" {body} ")),
        "cut mid-word: {body:?}"
    );
    assert!(issue.message.contains("column 324"), "{}", issue.message);
}

#[test]
fn a_fix_is_never_cut_mid_word() {
    /// A decision-document summary.
    #[derive(Debug, Deserialize, ToolArgs)]
    struct Summary {
        #[guard(policy = "base")]
        text: String,
    }
    let text = format!(
        "{}The rollout saves $50,000 annually.",
        "Context about the rollout. ".repeat(20)
    );
    let Err(report) = Summary::validate_value(json!({"text": text})) else {
        panic!("an untagged figure is rejected");
    };
    let savings = report
        .issues()
        .iter()
        .find(|issue| issue.message.contains("annual_savings_figure"))
        .expect("the savings figure is reported");
    let fix = savings.fix.as_deref().unwrap();
    assert!(
        fix.contains(
            "with \"delivers significant annual value [AI estimation based on operational improvement]\""
        ),
        "{fix}"
    );
}

#[test]
fn examples_look_like_what_they_stand_for_and_validate() {
    let example = CreateInvoice::example();
    assert_eq!(example["customer_id"], "cus_a1b2c3d4");
    assert_eq!(example["lines"][0]["sku"], "A1B2C3D4");
    assert!(CreateInvoice::validate_value(example.clone()).is_ok());
    let rendered = xml(&reject(json!({})));
    assert!(
        rendered.contains(r#""customer_id":"cus_a1b2c3d4""#),
        "{rendered}"
    );
}

#[test]
fn sixty_four_bit_integers_stay_within_what_clients_hold_exactly() {
    let schema = serde_json::to_value(InvoiceLine::schema()).unwrap();
    let price = &schema["properties"]["unit_price"];
    assert_eq!(price["maximum"], json!(MAX_SAFE_INTEGER));
    assert_eq!(price["minimum"], json!(0));
    assert!(schema.get("title").is_none(), "no Rust type name: {schema}");

    let with_price = |price: Value| {
        let mut args = invoice();
        args["lines"][0]["unit_price"] = price;
        CreateInvoice::validate_value(args)
    };
    assert!(with_price(json!(MAX_SAFE_INTEGER)).is_ok());
    let Err(report) = with_price(json!(MAX_SAFE_INTEGER + 1)) else {
        panic!("past 2^53 - 1 is rejected, as the schema says");
    };
    let issue = report.at("lines[0].unit_price").unwrap();
    assert_eq!(issue.code, IssueCode::TooLarge);
    assert!(
        issue.message.contains("9007199254740991 (2^53 - 1"),
        "{}",
        issue.message
    );
    assert!(with_price(json!(u64::MAX)).is_err());

    // The schema and the validator agree on each side of the limit.
    let validator = jsonschema::validator_for(&schema).unwrap();
    for price in [
        json!(MAX_SAFE_INTEGER - 1),
        json!(MAX_SAFE_INTEGER),
        json!(MAX_SAFE_INTEGER + 1),
        json!(u64::MAX),
        json!(-1),
    ] {
        let line = json!({"sku": "AB12", "quantity": 1, "unit_price": price});
        assert_eq!(
            validator.is_valid(&line),
            InvoiceLine::validate_value(line.clone()).is_ok(),
            "{line}"
        );
    }

    let schema = serde_json::to_value(Offsets::schema()).unwrap();
    assert_eq!(
        schema["properties"]["delta"]["minimum"],
        json!(-MAX_SAFE_INTEGER)
    );
    assert_eq!(
        schema["properties"]["index"]["maximum"],
        json!(MAX_SAFE_INTEGER)
    );
    assert!(Offsets::validate_value(json!({"delta": i64::MIN, "index": 0})).is_err());
}

#[test]
fn render_options_are_built_from_a_format() {
    let options = RenderOptions::new(RenderFormat::Json).with_max_issues(3);
    assert_ne!(options, RenderOptions::new(RenderFormat::Json));
    assert_ne!(
        RenderOptions::new(RenderFormat::Json),
        RenderOptions::default()
    );
    let from_format: RenderOptions = RenderFormat::Markdown.into();
    assert_eq!(from_format, RenderOptions::new(RenderFormat::Markdown));
}

#[tokio::test]
async fn a_server_is_called_with_any_json_value() {
    let server = Server::new(()).tool(create_invoice);
    // A `json!` value as it is, and a map as a transport has it.
    let ok = server.call("create_invoice", invoice()).await.unwrap();
    assert!(!ok.is_error, "{:?}", ok.text);
    let map: Map<String, Value> = serde_json::from_value(invoice()).unwrap();
    assert!(!server.call("create_invoice", map).await.unwrap().is_error);

    // Anything but an object is a validation issue of its own, never a panic.
    for not_an_object in [
        json!(["cus_0a1b2c3d"]),
        json!("cus_0a1b2c3d"),
        json!(7),
        json!(true),
    ] {
        let out = server
            .call("create_invoice", not_an_object.clone())
            .await
            .unwrap();
        assert!(out.is_error, "{not_an_object}");
        let text = &out.text[0];
        assert!(
            text.contains(r#"<field name="(root)" code="type">"#),
            "{text}"
        );
        assert!(text.contains("Expected an object"), "{text}");
        assert!(text.contains("<valid_example>"), "{text}");
    }
    // `null` is no arguments at all, as an absent `arguments` is in MCP.
    let none = server.call("create_invoice", Value::Null).await.unwrap();
    assert!(none.is_error);
    assert!(
        none.text[0].contains(r#"code="missing""#),
        "{}",
        none.text[0]
    );
}

#[test]
fn the_rejection_a_model_reads() {
    let mut args = invoice();
    let mut lines: Vec<Value> = (0..51).map(|_| line(&json!(1))).collect();
    lines[3] = line(&json!("ten"));
    lines[0]["discount"] = json!(5);
    args["lines"] = Value::Array(lines);
    args["reference"] = json!("");
    args["notes"] = json!("Delivery is guaranteed by Friday.");
    insta::assert_snapshot!("invoice_rejection_xml", xml(&reject(args)));
}
