//! `guard_router` on a native rmcp server whose arguments take every shape serde gives real
//! tools (`tests/clients/serde_shapes_server.rs`), driven by rmcp's own client in process: valid calls
//! reach the tools and come back byte for byte as rmcp alone serves them; unknown keys,
//! overflows and wrong variants are refused with coaching at their paths.

use crate::serde_shapes_server::Shapes;
use guardrails::mcp::{RouterGuard, guard_router};
use guardrails_tests::client::{call, connect, text};
use guardrails_tests::testing::object;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

async fn guarded() -> Client {
    connect(Shapes::new(guard_router(Shapes::tool_router()))).await
}

async fn plain() -> Client {
    connect(Shapes::new(Shapes::tool_router())).await
}

async fn send(client: &Client, tool: &'static str, args: Value) -> CallToolResult {
    client.call_tool(call(tool, args)).await.expect("a result")
}

/// The text between `<tag>` and `</tag>`, when there is one.
fn between<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&format!("</{tag}>"))?;
    Some(&text[start..start + end])
}

/// The valid calls of every tool: rmcp alone runs each of them.
fn valid_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("draw", json!({"shape": {"type": "circle", "radius": 2.0}})),
        (
            "draw",
            json!({"shape": {"type": "square", "side": 1.5}, "size": 12}),
        ),
        (
            "draw",
            json!({"shape": {"type": "dot"}, "size": {"name": "large"}}),
        ),
        (
            "draw",
            json!({"shape": {"type": "dot"}, "steps": [{"t": "wait", "c": 3}, {"t": "move", "c": {"dx": -1, "dy": 2}}]}),
        ),
        ("eval", json!({"expr": "zero"})),
        (
            "eval",
            json!({"expr": {"add": [{"num": 1}, {"neg": {"num": -4}}, {"add": []}]}}),
        ),
        ("search", json!({"by": "name", "name": "ada"})),
        ("search", json!({"by": "id", "id": 7, "limit": 10})),
        ("label", json!({"target": 3})),
        ("label", json!({"target": 3, "color": 2, "size": 40})),
        (
            "schedule",
            json!({"when": "2024-01-02T03:04:05Z", "id": "67e55044-10b1-426f-9247-bb680e5fe0c8", "slot": [9, "morning"], "count": -2_147_483_648_i64, "total": 18_446_744_073_709_551_615_u64}),
        ),
        // What chrono and uuid read beside their advertised formats.
        (
            "schedule",
            json!({"when": "2024-01-02 03:04:05Z", "id": "67e5504410b1426f9247bb680e5fe0c8", "slot": [0, ""], "count": 0, "total": 0}),
        ),
        (
            "schedule",
            json!({"when": "2024-01-02T03:04:05+02:00", "id": "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8", "slot": [255, "x"], "count": 2_147_483_647, "total": 1}),
        ),
    ]
}

#[tokio::test]
async fn every_valid_call_of_every_shape_passes_unchanged() {
    let guarded = guarded().await;
    let plain = plain().await;
    for (tool, args) in valid_calls() {
        let a = send(&guarded, tool, args.clone()).await;
        let b = send(&plain, tool, args.clone()).await;
        assert_ne!(b.is_error, Some(true), "rmcp refuses {tool} {args}");
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap(),
            "{tool} {args}: {}",
            text(&a, 0)
        );
    }
    guarded.cancel().await.unwrap();
    plain.cancel().await.unwrap();
}

#[tokio::test]
async fn unknown_keys_are_refused_in_every_shape() {
    let guarded = guarded().await;
    for (tool, args, field) in [
        (
            "draw",
            json!({"shape": {"type": "circle", "radius": 2.0, "radus": 1}}),
            "shape.radus",
        ),
        (
            "draw",
            json!({"shape": {"type": "dot", "side": 1}}),
            "shape.side",
        ),
        (
            "search",
            json!({"by": "name", "name": "ada", "limt": 3}),
            "limt",
        ),
        (
            "search",
            json!({"by": "id", "id": 1, "name": "ada"}),
            "name",
        ),
        (
            "draw",
            json!({"shape": {"type": "dot"}, "size": {"name": "x", "nme": 1}}),
            "size.nme",
        ),
    ] {
        let result = send(&guarded, tool, args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{tool} {args}");
        let message = text(&result, 0);
        let expected = format!(r#"<field name="{field}" code="unknown_field">"#);
        assert!(message.contains(&expected), "{expected} not in {message}");
    }
    // A key beside a variant's key, deep in a recursive externally tagged enum: one issue at
    // the value, which must hold one key, as the derive says it.
    let result = send(
        &guarded,
        "eval",
        json!({"expr": {"add": [{"num": 1}, {"neg": {"num": 2, "den": 3}}]}}),
    )
    .await;
    let message = text(&result, 0);
    assert!(
        message.contains(r#"<validation_error tool="eval" issues="1">
<field name="expr.add[1].neg" code="type">Expected an object with exactly one key, the variant; got 2 keys."#),
        "{message}"
    );
    // A field of another variant is named as such (another id: the same call again would be
    // answered by the loop breaker).
    let result = send(
        &guarded,
        "search",
        json!({"by": "id", "id": 2, "name": "ada"}),
    )
    .await;
    let message = text(&result, 0);
    assert!(
        message.contains(r#"<field name="name" code="unknown_field">`name` belongs to by `name`; you chose `id`. Remove it: by "id" takes "id"; or choose by "name" with its fields.</field>"#),
        "{message}"
    );
    guarded.cancel().await.unwrap();
}

#[tokio::test]
async fn formats_are_annotations_unless_asserted() {
    let args = json!({"when": "2024-01-02 03:04:05Z", "id": "67e5504410b1426f9247bb680e5fe0c8", "slot": [1, "a"], "count": 1, "total": 1});
    let lenient = guarded().await;
    let result = send(&lenient, "schedule", args.clone()).await;
    assert_ne!(result.is_error, Some(true), "{}", text(&result, 0));
    lenient.cancel().await.unwrap();

    let strict = RouterGuard::new()
        .assert_formats()
        .guard(Shapes::tool_router());
    let strict = connect(Shapes::new(strict)).await;
    let result = send(&strict, "schedule", args).await;
    let message = text(&result, 0);
    for expected in [
        r#"<field name="when" code="format">"#,
        r#"<field name="id" code="format">"#,
    ] {
        assert!(message.contains(expected), "{expected} not in {message}");
    }
    strict.cancel().await.unwrap();
}

#[tokio::test]
async fn an_integer_overflow_is_coached_at_its_field() {
    let guarded = guarded().await;
    let result = send(
        &guarded,
        "schedule",
        json!({"when": "2024-01-02T03:04:05Z", "id": "67e55044-10b1-426f-9247-bb680e5fe0c8", "slot": [256, "x"], "count": 2_147_483_648_i64, "total": -1}),
    )
    .await;
    let message = text(&result, 0);
    for expected in [
        r#"<field name="count" code="too_large">"#,
        "Fix: an integer from -2147483648 to 2147483647.",
        r#"<field name="total" code="too_small">"#,
        r#"<field name="slot[0]" code="too_large">"#,
    ] {
        assert!(message.contains(expected), "{expected} not in {message}");
    }
    let result = send(
        &guarded,
        "eval",
        json!({"expr": {"neg": {"num": 3_000_000_000_i64}}}),
    )
    .await;
    assert!(
        text(&result, 0).contains(r#"<field name="expr.neg.num" code="too_large">"#),
        "{}",
        text(&result, 0)
    );
    guarded.cancel().await.unwrap();
}

#[tokio::test]
async fn a_wrong_variant_is_coached_with_the_variants_and_a_did_you_mean() {
    let guarded = guarded().await;
    for (tool, args, expected) in [
        (
            "draw",
            json!({"shape": {"type": "circel", "radius": 1}}),
            vec![
                r#"<field name="shape.type" code="enum">This "type" names no variant. Did you mean "circle"? The "type" is one of "circle", "square", "dot"."#,
                r#"Fix: one of "circle", "square", "dot", with the fields of that type."#,
            ],
        ),
        (
            "draw",
            json!({"shape": {"radius": 1}}),
            vec![r#"<field name="shape.type" code="missing">"#],
        ),
        (
            "eval",
            json!({"expr": {"Add": []}}),
            vec![
                r#"<field name="expr" code="enum">Not a variant of this field. Did you mean "add"?"#,
                r#""zero", "num", "add", "neg""#,
            ],
        ),
        (
            "eval",
            json!({"expr": "zro"}),
            vec![
                r#"<field name="expr" code="enum">Not a variant of this field. Did you mean "zero"?"#,
            ],
        ),
        (
            "search",
            json!({"by": "nmae", "name": "ada"}),
            vec![
                r#"<field name="by" code="enum">This "by" names no variant. Did you mean "name"?"#,
            ],
        ),
        // The variant the tag names is checked, its issues at their paths.
        (
            "eval",
            json!({"expr": {"add": [{"num": 1}, {"neg": {"num": "x"}}]}}),
            vec![
                r#"<field name="expr.add[1].neg.num" code="type">Expected an integer, got a string."#,
            ],
        ),
        (
            "draw",
            json!({"shape": {"type": "square", "side": "wide"}}),
            vec![r#"<field name="shape.side" code="type">"#],
        ),
        (
            "draw",
            json!({"shape": {"type": "dot"}, "steps": [{"t": "move", "c": {"dx": 300, "dy": 0}}]}),
            vec![r#"<field name="steps[0].c.dx" code="too_large">"#],
        ),
        (
            "draw",
            json!({"shape": {"type": "dot"}, "size": true}),
            vec![r#"<field name="size" code="type">Expected an integer"#],
        ),
    ] {
        let result = send(&guarded, tool, args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{tool} {args}");
        let message = text(&result, 0);
        for expected in expected {
            assert!(message.contains(expected), "{expected} not in {message}");
        }
        assert!(!message.contains("an object or an object"), "{message}");
        assert!(
            !message.contains("unknown_field"),
            "a field of the variant is not unknown: {message}"
        );
    }
    guarded.cancel().await.unwrap();
}

#[tokio::test]
async fn the_example_validates_and_none_is_shown_when_none_exists() {
    let guarded = guarded().await;
    for tool in ["draw", "eval", "search", "label", "schedule"] {
        let result = send(&guarded, tool, json!({"nope": 1})).await;
        let message = text(&result, 0);
        let example = between(message, "valid_example").expect(message);
        let example: Value = serde_json::from_str(&example.replace("&quot;", "\"")).unwrap();
        let retry = guarded
            .call_tool(CallToolRequestParams::new(tool).with_arguments(object(example.clone())))
            .await
            .unwrap();
        assert_ne!(retry.is_error, Some(true), "{tool}: {example}");
    }
    // A missing union is described as the derive describes the enum.
    let result = send(&guarded, "draw", json!({})).await;
    let message = text(&result, 0);
    assert!(
        message.contains(r#"Fix: an object whose "type" is one of "circle", "square", "dot", with the fields of that type."#),
        "{message}"
    );
    let result = send(&guarded, "eval", json!({})).await;
    let message = text(&result, 0);
    assert!(
        message.contains(r#"Fix: one of "zero", or an object with one key, the variant ("num", "add", "neg"), whose value holds its fields."#),
        "{message}"
    );
    let result = send(&guarded, "follow", json!({})).await;
    let message = text(&result, 0);
    assert!(!message.contains("valid_example"), "{message}");
    assert!(!message.contains("null"), "{message}");
    assert!(message.contains("<recovery>"), "{message}");
    guarded.cancel().await.unwrap();
}

#[tokio::test]
async fn a_whole_number_written_as_a_float_is_coached_where_serde_would_refuse_it() {
    let (guarded, plain) = (guarded().await, plain().await);
    for (tool, args, field, fix) in [
        (
            "eval",
            json!({"expr": {"add": [{"num": 1}, {"neg": {"num": 3.0}}]}}),
            "expr.add[1].neg.num",
            "Fix: Send 3, without the decimal point.",
        ),
        (
            "schedule",
            json!({"when": "2024-01-02T03:04:05Z", "id": "67e55044-10b1-426f-9247-bb680e5fe0c8", "slot": [9, "x"], "count": -5.0, "total": 1}),
            "count",
            "Fix: Send -5, without the decimal point.",
        ),
        (
            "draw",
            json!({"shape": {"type": "dot"}, "steps": [{"t": "wait", "c": 2e1}]}),
            "steps[0].c",
            "Fix: Send 20, without the decimal point.",
        ),
    ] {
        // rmcp alone hands the call to serde, which refuses it uncoached.
        let refused = match plain.call_tool(call(tool, args.clone())).await {
            Err(_) => true,
            Ok(result) => result.is_error == Some(true),
        };
        assert!(refused, "serde reads {args} for {tool}");
        let result = send(&guarded, tool, args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{tool} {args}");
        let message = text(&result, 0);
        let expected = format!(r#"<field name="{field}" code="type">"#);
        assert!(message.contains(&expected), "{expected} not in {message}");
        assert!(message.contains(fix), "{fix} not in {message}");
    }
    // A float where serde reads a float stays valid.
    let result = send(
        &guarded,
        "draw",
        json!({"shape": {"type": "circle", "radius": 2.0}}),
    )
    .await;
    assert_ne!(result.is_error, Some(true), "{}", text(&result, 0));
    guarded.cancel().await.unwrap();
    plain.cancel().await.unwrap();
}

#[tokio::test]
async fn a_mistyped_tag_names_the_fields_of_other_variants_in_the_same_report() {
    let guarded = guarded().await;
    let result = send(
        &guarded,
        "draw",
        json!({"shape": {"type": "circel", "radius": 1, "side": 2}}),
    )
    .await;
    let message = text(&result, 0);
    for expected in [
        r#"<field name="shape.type" code="enum">This "type" names no variant. Did you mean "circle"?"#,
        r#"<field name="shape.side" code="unknown_field">Not a field of the variant with "type": "circle": it belongs to the variant with "type": "square". Remove it, or send "type": "square" with it.</field>"#,
    ] {
        assert!(message.contains(expected), "{expected} not in {message}");
    }
    assert!(!message.contains(r#"name="shape.radius""#), "{message}");
    guarded.cancel().await.unwrap();
}
