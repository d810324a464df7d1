//! Sensitive fields: no byte of a sensitive value reaches what the model reads, in any format,
//! at any depth, under a misspelt or misplaced key, or in a contract-awareness block; the
//! example is a placeholder and the schema says `writeOnly`. And the server-wide switch that
//! echoes no value at all.

use std::collections::BTreeMap;

use guardrails::contract::{ContractSource as _, KnownGood};
use guardrails::validation::{Cx, withheld};
use guardrails::{GuardConfig, RenderFormat, RenderOptions};
use guardrails::{Server, ToolArgs, tool};
use serde::Deserialize;
use serde_json::{Value, json};

/// A payment card.
#[derive(Debug, Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read through validation only")]
struct Card {
    /// The card number.
    #[guard(sensitive, length(min = 12, max = 19), pattern = "^[0-9]+$")]
    number: String,
    /// The name on the card.
    holder: String,
}

/// Signs a user up.
#[derive(Debug, Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read through validation only")]
struct SignUp {
    /// The user name, echoed as usual.
    #[guard(length(min = 3))]
    username: String,
    /// The password.
    #[guard(sensitive, length(min = 12))]
    password: String,
    /// One-time recovery codes.
    #[guard(sensitive, length(max = 1))]
    recovery_codes: Option<Vec<String>>,
    /// A four-digit PIN.
    #[guard(sensitive, range(min = 1000, max = 9999))]
    pin: u16,
    /// Named secrets.
    #[guard(sensitive)]
    secrets: Option<BTreeMap<String, String>>,
    /// The card to charge.
    card: Option<Card>,
    /// More cards.
    #[serde(default)]
    cards: Vec<Card>,
}

/// Signs a user up.
#[tool(name = "sign_up")]
fn sign_up(args: SignUp) -> String {
    format!("welcome {}", args.username)
}

/// The release before: no PIN, so a model calibrated on it misses the PIN and its error
/// carries a contract-awareness block.
#[derive(Debug, Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read through validation only")]
struct SignUpV1 {
    /// The user name.
    username: String,
    /// The password.
    #[guard(sensitive)]
    password: String,
}

/// Signs a user up.
#[tool(name = "sign_up")]
fn sign_up_v1(args: SignUpV1) -> String {
    args.username
}

/// Every secret below contains this marker; none of it may be echoed.
const MARKER: &str = "ZQXJ";

/// A call that breaks a sensitive value at every position the test covers.
fn hostile_call() -> Value {
    json!({
        "username": "al",
        // Too short, at the top level.
        "password": "ZQXJ-pw",
        // An array too long, and an item of the wrong type, inside a sensitive array.
        "recovery_codes": ["ZQXJ-rc1", "ZQXJ-rc2", 7],
        // Out of range (77777 is not a marker, but it must not be echoed either).
        "pin": 77777,
        // A map whose key and value are both secret; the value is of the wrong type.
        "secrets": {"ZQXJ-key": ["ZQXJ-value"]},
        // A nested struct whose sensitive field breaks its pattern.
        "card": {"number": "ZQXJ41111111", "holder": "Ada"},
        // The same, in an array of structs, and a type error there.
        "cards": [{"number": "4111111111111111", "holder": "Ada"}, {"number": ["ZQXJ-arr"], "holder": "Bob"}],
        // A near miss of a sensitive field's name.
        "pasword": "ZQXJ-near",
        // A sensitive field of a nested struct sent at the top level.
        "number": "ZQXJ-misplaced",
    })
}

fn assert_withheld(text: &str) {
    assert!(
        !text.contains(MARKER),
        "a sensitive value was echoed:\n{text}"
    );
    assert!(!text.contains("77777"), "the PIN was echoed:\n{text}");
    assert!(
        !text.contains("pw\""),
        "a part of the password was echoed:\n{text}"
    );
}

const FORMATS: [RenderFormat; 3] = [
    RenderFormat::Xml,
    RenderFormat::Markdown,
    RenderFormat::Json,
];

#[tokio::test]
async fn no_byte_of_a_sensitive_value_is_echoed_in_any_format() {
    for format in FORMATS {
        for summary in [false, true] {
            let server = Server::new(()).tool(sign_up).config(
                GuardConfig::new()
                    .render_options(RenderOptions::new(format).with_schema_summary(summary)),
            );
            let out = server.call("sign_up", hostile_call()).await.unwrap();
            assert!(out.is_error);
            for text in &out.text {
                assert_withheld(text);
                // The user name is not sensitive: it is echoed as usual.
                assert!(text.contains("al"), "{text}");
            }
            // Nor in the structured report beside the text.
            let report = out.report.expect("a rejection carries its report");
            assert_withheld(&report.to_string());
        }
    }
}

#[tokio::test]
async fn nor_in_a_contract_awareness_block() {
    let v1 = Server::new(()).tool(sign_up_v1);
    let known_good = KnownGood::from_lockfile_str(&v1.server_contract().to_lockfile()).unwrap();
    for format in FORMATS {
        let server = Server::new(()).tool(sign_up).config(
            GuardConfig::new()
                .known_good(known_good.clone())
                .format(format),
        );
        let out = server.call("sign_up", hostile_call()).await.unwrap();
        let text = &out.text[0];
        assert!(
            text.contains("contract_awareness")
                || text.contains("Contract changes")
                || text.contains("contractAwareness"),
            "no awareness block in {format:?}:\n{text}"
        );
        assert_withheld(text);
    }
}

#[test]
fn each_issue_says_what_kind_of_value_was_sent_and_its_size() {
    let report = SignUp::validate_value(hostile_call()).unwrap_err();
    let received = |path: &str| {
        report
            .at(path)
            .unwrap_or_else(|| panic!("no issue at {path}: {report}"))
            .received
            .clone()
            .unwrap()
    };
    assert_eq!(received("password"), "(withheld: a string of 7 characters)");
    assert_eq!(
        received("recovery_codes"),
        "(withheld: an array of 3 items)"
    );
    assert_eq!(received("pin"), "(withheld: a number)");
    assert_eq!(
        received("card.number"),
        "(withheld: a string of 12 characters)"
    );
    assert_eq!(
        received("cards[1].number"),
        "(withheld: an array of 1 item)"
    );
    assert_eq!(received("pasword"), "(withheld: a string of 9 characters)");
    assert_eq!(received("number"), "(withheld: a string of 14 characters)");
    // The key of a sensitive map is data too.
    assert!(
        report.issues().iter().any(|i| i.path == r#"secrets["*"]"#
            && i.received.as_deref() == Some("(withheld: an array of 1 item)")),
        "{report}"
    );
    // What is not sensitive is echoed as before.
    assert_eq!(received("username"), r#""al""#);
    assert_eq!(
        received("card.number").len(),
        withheld(&json!("ZQXJ41111111")).len()
    );
}

#[test]
fn the_example_is_a_placeholder_and_the_schema_says_write_only() {
    let example = SignUp::example();
    assert_eq!(example["password"], "************", "{example}");
    assert!(SignUp::validate_value(example.clone()).is_ok());
    let schema = serde_json::to_value(SignUp::schema()).unwrap();
    let properties = &schema["properties"];
    assert_eq!(properties["password"]["writeOnly"], true);
    assert_eq!(properties["pin"]["writeOnly"], true);
    assert_eq!(
        properties["card"]["properties"]["number"]["writeOnly"],
        true
    );
    assert!(properties["username"].get("writeOnly").is_none());
    assert!(
        properties["card"]["properties"]["holder"]
            .get("writeOnly")
            .is_none()
    );
    // A placeholder that breaks the field's pattern is not used: the type's own example is.
    let card = Card::example();
    assert!(Card::validate_value(card.clone()).is_ok(), "{card}");
    assert_ne!(card["number"], "************");
}

/// A server that echoes no value: not even those of fields that are not sensitive.
#[tokio::test]
async fn a_server_can_echo_no_value_at_all() {
    let call = json!({"username": "QQ", "password": "a-long-enough-password", "pin": 1234, "usrname": "QQX"});
    for format in FORMATS {
        let server = Server::new(()).tool(sign_up).config(
            GuardConfig::new().render_options(RenderOptions::new(format).with_echo_values(false)),
        );
        let out = server.call("sign_up", call.clone()).await.unwrap();
        let text = &out.text[0];
        assert!(!text.contains("QQ"), "{format:?} echoed a value:\n{text}");
        assert!(!out.report.as_ref().unwrap().to_string().contains("QQ"));
        assert!(text.contains("a string of 2 characters"), "{text}");
        // Keys are named all the same: a misspelt one must be corrected.
        assert!(text.contains("usrname"), "{text}");
        // Arguments that are not an object are withheld too.
        let out = server
            .call("sign_up", json!("QQ-not-an-object"))
            .await
            .unwrap();
        assert!(!out.text[0].contains("QQ"), "{}", out.text[0]);
    }
    // Echoing stays the default.
    let out = Server::new(())
        .tool(sign_up)
        .call("sign_up", call)
        .await
        .unwrap();
    assert!(out.text[0].contains("\"QQ\""));
}

#[test]
fn validating_yourself_without_echo() {
    let call = json!({"username": "QQ", "password": "QQ", "pin": 1});
    let report = SignUp::validate_in(call.as_object().unwrap().clone(), Cx::withholding_values())
        .unwrap_err();
    assert!(
        report
            .issues()
            .iter()
            .all(|i| !i.received.as_deref().unwrap_or_default().contains("QQ")),
        "{report:?}"
    );
}

/// Telemetry says which fields were wrong and how, never what was sent: no value (sensitive
/// or not), no key the caller made up, in any span, event or metric, a repeated call's
/// included.
#[tokio::test]
async fn no_span_event_or_metric_carries_a_value_or_an_unknown_key() {
    use guardrails_tests::telemetry::Captured;
    use guardrails_tests::telemetry::names::{ISSUES, REJECTION_TARGET, UNKNOWN_FIELD};

    let captured = Captured::default();
    let installed = captured.install();
    let mut call = hostile_call();
    // A value that is not sensitive is not telemetry's either.
    call["username"] = json!("Q%");
    for format in FORMATS {
        let server = Server::new(())
            .tool(sign_up)
            .config(GuardConfig::new().format(format));
        for time in 1..=3 {
            let out = server.call("sign_up", call.clone()).await.unwrap();
            assert!(out.is_error);
            for text in &out.text {
                assert_withheld(text);
                // The shorter answer to a repeated call echoes no value at all.
                assert!(time == 1 || !text.contains("Q%"), "{text}");
            }
        }
    }
    drop(installed);
    let all = captured.all_text();
    assert_withheld(&all);
    assert!(!all.contains("Q%"), "a value was recorded:\n{all}");
    assert!(
        !all.contains("pasword"),
        "an unknown key was recorded:\n{all}"
    );
    assert!(!all.contains("ZQXJ-key"), "a map key was recorded:\n{all}");

    let events = captured.events(REJECTION_TARGET);
    let has = |field: &str, code: &str| {
        events.iter().any(|e| {
            e.contains(&format!(" field={field} ")) && e.ends_with(&format!(" code={code}"))
        })
    };
    assert!(has("username", "too_short"), "{events:#?}");
    assert!(has("password", "too_short"), "{events:#?}");
    assert!(has(UNKNOWN_FIELD, "unknown_field"), "{events:#?}");
    assert!(has("cards[].number", "type"), "{events:#?}");
    assert!(
        events.iter().any(|e| e.contains(" field=secrets.* ")),
        "a map's key is `*`: {events:#?}"
    );
    let labels = [
        ("gen_ai.tool.name", "sign_up"),
        ("field", "password"),
        ("code", "too_short"),
    ];
    assert_eq!(
        captured.counter(ISSUES, &labels),
        9,
        "three calls in three formats"
    );
}
