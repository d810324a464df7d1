//! Self-healing context: validation errors of a changed tool carry `<contract_awareness>`;
//! other tools' errors are untouched.

use guardrails::contract::{Awareness, AwarenessConfig, Contract, KnownGood};
use guardrails::{GuardConfig, RenderFormat};
use guardrails_tests::testing::{edited, object};
use guardrails_tests::user_service::{self, v1_contracts, v2_server};
use serde_json::{Map, Value, json};

fn known_good() -> KnownGood {
    // As a server does with `include_str!("../guardrails.lock")`.
    KnownGood::from_lockfile_str(&v1_contracts().to_lockfile()).unwrap()
}

/// The guardrails of a server whose clients were calibrated on v1.
fn aware() -> GuardConfig {
    GuardConfig::new().known_good(known_good())
}

/// The `<contract_awareness>` block of `current`, calibrated on `known`.
fn awareness_block(
    known: &KnownGood,
    current: &Contract,
    config: &AwarenessConfig,
) -> Option<Awareness> {
    Awareness::new(current, known.deltas(current), config)
}

/// A call a client calibrated on v1 would make: no currency, a name too long for v2.
fn v1_call() -> Map<String, Value> {
    object(json!({"name": "Ada Lovelace-Byron the First", "email": "ada@example.com"}))
}

async fn error_text(
    server: &guardrails::Server<()>,
    tool: &str,
    args: Map<String, Value>,
) -> String {
    let out = server.call(tool, args).await.unwrap();
    assert!(out.is_error);
    out.text[0].clone()
}

#[tokio::test]
async fn a_changed_tool_explains_what_changed_xml() {
    let server = v2_server().config(aware());
    let text = error_text(&server, "create_user", v1_call()).await;
    insta::assert_snapshot!("awareness_xml", text);
    assert!(text.ends_with("</contract_awareness>\n</validation_error>"));
}

#[tokio::test]
async fn markdown_and_json_carry_it_too() {
    let server = v2_server().config(aware().format(RenderFormat::Markdown));
    let text = error_text(&server, "create_user", v1_call()).await;
    insta::assert_snapshot!("awareness_markdown", text);

    let server = v2_server().config(aware().format(RenderFormat::Json));
    let text = error_text(&server, "create_user", v1_call()).await;
    let value: Value = serde_json::from_str(&text).expect("still valid JSON");
    let aware = &value["error"]["contractAwareness"];
    assert_eq!(aware["maxSeverity"], "BREAKING");
    // The two changes the call ran into; the tool's third (a hint) cannot explain it.
    assert_eq!(aware["changeCount"], 2);
    insta::assert_json_snapshot!("awareness_json", aware);
}

#[tokio::test]
async fn an_unchanged_tool_renders_exactly_as_without_awareness() {
    let plain = v2_server();
    let aware = v2_server()
        .config(aware().contract_awareness(AwarenessConfig::default().with_all_severities(true)));
    for args in [json!({}), json!({"id": "x", "extra": 1})] {
        assert_eq!(
            error_text(&plain, "get_user", object(args.clone())).await,
            error_text(&aware, "get_user", object(args)).await
        );
    }
}

#[tokio::test]
async fn other_tools_deltas_never_appear() {
    let server = v2_server()
        .config(aware().contract_awareness(AwarenessConfig::default().with_all_severities(true)));
    let text = error_text(&server, "create_user", v1_call()).await;
    assert!(
        !text.contains("list_users") && !text.contains("delete_user"),
        "{text}"
    );
    // `list_users` changed only its agent limit, which cannot explain a rejected argument:
    // its rejections carry no block.
    let text = error_text(&server, "list_users", object(json!({"role": "root"}))).await;
    assert!(!text.contains("contract_awareness"), "{text}");
    assert!(!text.contains("create_user"), "{text}");
}

#[tokio::test]
async fn severity_filter_keeps_breaking_and_risky_by_default() {
    let server = v2_server().config(aware());
    let text = error_text(&server, "create_user", v1_call()).await;
    assert!(!text.contains("severity=\"SAFE\"") && !text.contains("severity=\"COSMETIC\""));
    assert!(text.contains("severity=\"BREAKING\""));
    // `notes` is a new optional argument: a SAFE change, shown only when asked for.
    let wrong_notes = || {
        object(json!({"name": "Ada", "email": "ada@example.com", "currency": "EUR", "notes": 3}))
    };
    let text = error_text(&server, "create_user", wrong_notes()).await;
    assert!(!text.contains("contract_awareness"), "{text}");

    let all = v2_server()
        .config(aware().contract_awareness(AwarenessConfig::default().with_all_severities(true)));
    let text = error_text(&all, "create_user", wrong_notes()).await;
    assert!(text.contains("<change_count>1</change_count>"), "{text}");
    assert!(
        text.contains("<delta severity=\"SAFE\" field=\"create_user.args.notes\">"),
        "{text}"
    );
    // The tool's own changes (a hint, the description) explain no rejected argument.
    assert!(!text.contains("severity=\"COSMETIC\""), "{text}");
    assert!(!text.contains("annotations"), "{text}");
    // A tool added since the lockfile: its rejections are about its own arguments.
    let text = error_text(&all, "delete_user", object(json!({}))).await;
    assert!(!text.contains("contract_awareness"), "{text}");
    let text = error_text(
        &v2_server().config(aware()),
        "delete_user",
        object(json!({})),
    )
    .await;
    assert!(!text.contains("contract_awareness"), "{text}");
}

fn delta_paths(text: &str) -> Vec<&str> {
    text.split("field=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect()
}

#[tokio::test]
async fn only_the_changes_of_arguments_with_issues_are_shown() {
    let server = v2_server()
        .config(aware().contract_awareness(AwarenessConfig::default().with_all_severities(true)));
    // Sends `notes` right (a SAFE delta, but no issue), misses `currency` and `name`, sends
    // `email` (unchanged) wrong.
    let text = error_text(
        &server,
        "create_user",
        object(json!({"notes": "hi", "email": 3})),
    )
    .await;
    let paths = delta_paths(&text);
    let deltas: Vec<&str> = paths
        .into_iter()
        .filter(|p| p.starts_with("create_user."))
        .collect();
    assert_eq!(
        deltas,
        [
            // The changed arguments with an issue, highest severity first: currency and name,
            // both missed. Nothing about notes (sent right), nor the tool's own changes.
            "create_user.args.currency",
            "create_user.args.name.max_length",
        ]
    );
}

#[tokio::test]
async fn the_cap_lists_the_most_relevant_and_counts_the_rest() {
    let server = v2_server()
        .config(aware().contract_awareness(AwarenessConfig::default().with_max_deltas(1)));
    // Misses `name` and `currency`, both changed: two changes explain it, one is listed.
    let text = error_text(
        &server,
        "create_user",
        object(json!({"email": "ada@example.com"})),
    )
    .await;
    assert_eq!(text.matches("<delta ").count(), 1, "{text}");
    assert!(text.contains("<change_count>2</change_count>"), "{text}");
    assert!(text.contains("<more_changes count=\"1\">"), "{text}");
}

#[tokio::test]
async fn handler_errors_carry_it_only_when_asked() {
    // `get_user` is unchanged; make it "changed" by calibrating on a lockfile without it.
    let mut old = v1_contracts();
    let changed = edited(&old.tools()["get_user"], |c| {
        c["description"] = json!("Old wording.");
        c["annotations"]["read_only"] = json!(false);
    });
    old.insert(changed);
    let known = KnownGood::from(old);
    let call = || object(json!({"id": 7}));

    let default = v2_server().config(GuardConfig::new().known_good(known.clone()));
    let text = error_text(&default, "get_user", call()).await;
    assert!(
        text.starts_with("<tool_error") && !text.contains("contract_awareness"),
        "{text}"
    );

    let all = v2_server().config(
        GuardConfig::new()
            .known_good(known)
            .contract_awareness(AwarenessConfig::default().with_all_errors(true)),
    );
    let text = error_text(&all, "get_user", call()).await;
    assert!(
        text.ends_with("</contract_awareness>\n</tool_error>"),
        "{text}"
    );
    assert!(text.contains("get_user.annotations.read_only"), "{text}");
}

#[tokio::test]
async fn output_is_deterministic() {
    let a = v2_server().config(aware());
    let b = v2_server().config(aware());
    assert_eq!(
        error_text(&a, "create_user", v1_call()).await,
        error_text(&b, "create_user", v1_call()).await
    );
}

#[tokio::test]
async fn a_healed_call_succeeds() {
    let server = v2_server().config(aware());
    let out = server
        .call(
            "create_user",
            object(json!({"name": "Ada", "email": "ada@example.com", "currency": "EUR"})),
        )
        .await
        .unwrap();
    assert!(!out.is_error, "{:?}", out.text);
}

#[test]
fn an_unchanged_tool_gets_no_awareness_at_all() {
    let all = AwarenessConfig::default().with_all_severities(true);
    let known = known_good();
    assert!(
        awareness_block(
            &known,
            &Contract::from_spec(user_service::get_user.spec()),
            &all
        )
        .is_none()
    );
    let create_user = Contract::from_spec(user_service::v2::create_user.spec());
    assert!(
        awareness_block(&known, &create_user, &all).is_some(),
        "create_user changed"
    );
    assert_eq!(known.deltas(&create_user).len(), 5);
    // The default filter drops SAFE and COSMETIC deltas; a tool with only those has none.
    let default = AwarenessConfig::default();
    assert!(
        awareness_block(
            &known,
            &Contract::from_spec(user_service::v2::delete_user.spec()),
            &default
        )
        .is_none()
    );
}
