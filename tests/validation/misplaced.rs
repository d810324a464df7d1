//! Misplaced fields: an unknown key that is a field at another level of the arguments is
//! pointed to its place, and a missing field at that place says where it was sent.

use guardrails::render::render_report;
use guardrails::{IssueCode, Report, ToolArgs};
use guardrails::{RenderFormat, RenderOptions};
use serde::Deserialize;
use serde_json::{Value, json};

/// A line of an order.
#[derive(Debug, Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read through validation only")]
struct Line {
    #[guard(length(min = 1))]
    sku: String,
    #[guard(range(min = 1))]
    quantity: u32,
}

/// How to narrow a search.
#[derive(Debug, Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read through validation only")]
struct Filter {
    search: Option<String>,
    status: Option<String>,
}

/// Where to ship.
#[derive(Debug, Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read through validation only")]
struct Address {
    street: String,
    city: String,
}

/// Places an order.
#[derive(Debug, Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read through validation only")]
struct PlaceOrder {
    customer_id: u32,
    lines: Vec<Line>,
    filter: Option<Filter>,
    ship_to: Option<Address>,
}

fn report(call: Value) -> Report {
    PlaceOrder::validate_value(call).unwrap_err()
}

fn message(report: &Report, path: &str) -> String {
    report
        .at(path)
        .unwrap_or_else(|| panic!("no issue at {path}: {report}"))
        .message
        .to_string()
}

fn xml(report: &Report) -> String {
    render_report(
        "place_order",
        report,
        PlaceOrder::info(),
        PlaceOrder::example(),
        &RenderOptions::default(),
    )
}

#[test]
fn a_field_of_each_item_sent_at_the_top_level() {
    let report = report(json!({"customer_id": 7, "lines": [{"sku": "A-1"}], "quantity": 2}));
    let misplaced = report.at("quantity").unwrap();
    assert_eq!(misplaced.code, IssueCode::UnknownField);
    assert_eq!(
        misplaced.message,
        "Not a field of this tool. `quantity` is a field of each item of `lines`: move it there."
    );
    assert_eq!(
        misplaced.fix.as_deref(),
        Some("Remove it here and send it as `lines[i].quantity`.")
    );
    // The missing field where it belongs refers to it.
    assert_eq!(
        message(&report, "lines[0].quantity"),
        "Required field is missing. It was sent as `quantity` instead: move it here."
    );
    insta::assert_snapshot!("quantity_at_the_top_level", xml(&report));
}

#[test]
fn a_field_of_a_nested_object_sent_beside_it() {
    let report = report(json!({"customer_id": 7, "lines": [], "search": "late"}));
    assert_eq!(
        message(&report, "search"),
        "Not a field of this tool. `search` is a field of `filter`: move it there."
    );
    assert_eq!(
        report.at("search").unwrap().fix.as_deref(),
        Some("Remove it here and send it as `filter.search`.")
    );
    insta::assert_snapshot!("search_beside_filter", xml(&report));
}

#[test]
fn a_top_level_field_sent_inside_a_nested_object() {
    let report = report(json!({"lines": [], "filter": {"customer_id": 7}}));
    assert_eq!(
        message(&report, "filter.customer_id"),
        "Not a field of `filter`. `customer_id` is a top-level field of this tool: move it there."
    );
    // The top-level missing field refers to where it was sent.
    assert_eq!(
        message(&report, "customer_id"),
        "Required field is missing. It was sent as `filter.customer_id` instead: move it here."
    );
    insta::assert_snapshot!("customer_id_inside_filter", xml(&report));
}

#[test]
fn a_field_of_an_optional_object_sent_inside_an_item() {
    let report =
        report(json!({"customer_id": 7, "lines": [{"sku": "A", "quantity": 1, "city": "Oslo"}]}));
    assert_eq!(
        message(&report, "lines[0].city"),
        "Not a field of `lines[0]`. `city` is a field of `ship_to`: move it there."
    );
}

#[test]
fn a_near_miss_elsewhere_after_none_here() {
    let report = report(json!({"customer_id": 7, "lines": [], "serach": "late"}));
    assert_eq!(
        message(&report, "serach"),
        "Not a field of this tool. Did you mean `search`, a field of `filter`? Move it there."
    );
    // A near miss at the key's own level wins over an exact name elsewhere only by being
    // there: `lnes` is `lines`, not a field of an item.
    let report = self::report(json!({"customer_id": 7, "lnes": []}));
    assert_eq!(
        message(&report, "lnes"),
        "Not a field of this tool. Did you mean \"lines\"?"
    );
}

#[test]
fn keys_that_are_nowhere_are_reported_as_before() {
    let report = report(json!({"customer_id": 7, "lines": [], "zzz": 1}));
    assert_eq!(message(&report, "zzz"), "Not a field of this tool.");
    assert!(
        report
            .at("zzz")
            .unwrap()
            .fix
            .as_deref()
            .unwrap()
            .starts_with("Remove it. The fields are:")
    );
}

#[test]
fn every_format_carries_the_pointer() {
    let report = report(json!({"customer_id": 7, "lines": [{"sku": "A-1"}], "quantity": 2}));
    for format in [
        RenderFormat::Xml,
        RenderFormat::Markdown,
        RenderFormat::Json,
    ] {
        let text = render_report(
            "place_order",
            &report,
            PlaceOrder::info(),
            PlaceOrder::example(),
            &RenderOptions::new(format),
        );
        assert!(
            text.contains("is a field of each item of"),
            "{format:?}: {text}"
        );
        assert!(text.contains("lines[i].quantity"), "{format:?}: {text}");
        assert!(text.contains("It was sent as"), "{format:?}: {text}");
    }
}

/// A recursive type is searched to a bounded depth, without looping.
#[derive(Debug, Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read through validation only")]
struct Node {
    name: String,
    children: Vec<Node>,
    left: Option<Box<Node>>,
}

#[test]
fn recursive_types_are_searched_without_looping() {
    let report =
        Node::validate_value(json!({"name": "root", "children": [], "label": 1})).unwrap_err();
    assert_eq!(report.at("label").unwrap().code, IssueCode::UnknownField);
    // `name` sent inside a child that has it is not misplaced: the child lacks `children`.
    let report = Node::validate_value(
        json!({"name": "r", "children": [{"name": "c", "children": [], "nme": 1}]}),
    )
    .unwrap_err();
    assert_eq!(
        message_of(&report, "children[0].nme"),
        "Not a field of `children[0]`. Did you mean \"name\"?"
    );
}

fn message_of(report: &Report, path: &str) -> String {
    report.at(path).unwrap().message.to_string()
}
