//! Bidirectional controls and zero-width characters in what a caller sent never reach a
//! rendered message raw, in any format: they could make a model read an error other than the
//! one written.

use guardrails::__private::is_invisible;
use guardrails::policy::{Policy, RenderLimits, Rule, RuleSeverity};
use guardrails::render::render_report;
use guardrails::{RenderFormat, RenderOptions};
use guardrails::{ToolArgs, ToolError};
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Deserialize, ToolArgs)]
#[expect(dead_code, reason = "only validated, never built into a handler call")]
struct Account {
    /// The account's name.
    #[guard(length(max = 5), example = "ada")]
    name: String,
}

/// Every invisible character, each in a key and a value.
const SNEAKY: [char; 15] = [
    '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}',
    '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}', '\u{200B}', '\u{2060}', '\u{FEFF}',
];

fn formats() -> [RenderFormat; 3] {
    [
        RenderFormat::Xml,
        RenderFormat::Markdown,
        RenderFormat::Json,
    ]
}

#[test]
fn echoed_keys_and_values_show_invisible_characters_escaped() {
    for c in SNEAKY.into_iter().chain(['\u{200C}', '\u{200D}']) {
        let call = json!({
            "name": format!("admin{c}istrator"),
            format!("na{c}me"): "x",
        });
        let report = Account::validate_value(call).unwrap_err();
        for format in formats() {
            let message = render_report(
                "create_account",
                &report,
                Account::info(),
                Account::example(),
                &RenderOptions::new(format),
            );
            assert!(
                !message.chars().any(is_invisible),
                "{format:?} lets U+{:04X} through: {message}",
                u32::from(c)
            );
            // What was sent is still recognisable around the escape.
            assert!(message.contains("admin"), "{message}");
        }
    }
}

#[test]
fn tool_error_details_show_invisible_characters_escaped() {
    let error = ToolError::not_found("No such account.").detail("requested", "ad\u{202e}min");
    for format in formats() {
        let message = error.render("get_account", &RenderOptions::new(format));
        assert!(!message.chars().any(is_invisible), "{format:?}: {message}");
    }
}

#[test]
fn policy_reports_for_people_show_invisible_characters_escaped() {
    let policy = Policy::builder()
        .critical(Rule::forbidden("hidden_text", "secret.{0,3}plan"))
        .build()
        .unwrap();
    let verdict = policy.check("the secret\u{200b}\u{202e}plan");
    assert_eq!(verdict.count(RuleSeverity::Critical), 1);
    let text = verdict.to_string();
    let located = verdict.render_located("notes\u{202e}dm.txt", RenderLimits::default());
    for rendered in [text, located] {
        assert!(!rendered.chars().any(is_invisible), "{rendered}");
        assert!(rendered.contains("secret"), "{rendered}");
    }
}
