//! Output policies on string arguments: critical violations are `policy` issues whose fix names
//! the approved alternative, warnings wait for an acknowledgement, advisories pass, and every
//! policy issue is reported in the same pass as the other issues.

#![allow(
    dead_code,
    reason = "the argument types are read through their validators"
)]

use guardrails_tests::testing::{codes, reject};
use std::sync::LazyLock;

use guardrails::policy::{Policy, Rule};
use guardrails::render::render_report;
use guardrails::{IssueCode, ToolArgs};
use guardrails::{RenderFormat, RenderOptions};
use serde::Deserialize;
use serde_json::{Value, json};

static HOUSE_RULES: LazyLock<Policy> = LazyLock::new(|| {
    Policy::builder()
        .critical(
            Rule::forbidden("untagged_dollar_amount", r"\$\d[\d,]*")
                .unless_followed_by(r"\s*\[AI estimation")
                .message("Dollar amounts need an estimation tag.")
                .alternative("Qualitative language with an [AI estimation …] tag")
                .fix("a substantial investment [AI estimation: project scope]"),
        )
        .warning(
            Rule::forbidden_words("overconfident_language", ["guaranteed", "definitely"])
                .message("Overconfident language hides uncertainty.")
                .alternative("'may' or 'expected'"),
        )
        .advisory(
            Rule::forbidden_words("filler", ["very", "really"])
                .message("Filler words weaken the text."),
        )
        .build()
        .expect("the house rules compile")
});

fn house_rules() -> &'static Policy {
    &HOUSE_RULES
}

/// A note without an acknowledgement field: its warnings never block.
#[derive(Debug, Deserialize, ToolArgs)]
struct Note {
    #[guard(policy = house_rules)]
    body: String,
}

/// A summary whose warnings wait for `confirmWording`.
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(rename_all = "camelCase")]
struct Summary {
    #[guard(length(min = 3, max = 200), policy = house_rules)]
    body: String,
    #[guard(policy = house_rules)]
    key_points: Vec<String>,
    #[guard(policy = house_rules)]
    footnote: Option<String>,
    #[guard(range(min = 1, max = 5))]
    priority: u8,
    #[serde(default)]
    #[guard(acknowledges_policy)]
    confirm_wording: bool,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct Section {
    #[guard(non_empty)]
    heading: String,
    #[guard(policy = house_rules)]
    text: String,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct Document {
    #[guard(non_empty)]
    title: String,
    sections: Vec<Section>,
}

/// Every built-in profile can be named.
#[derive(Debug, Deserialize, ToolArgs)]
struct Profiles {
    #[guard(policy = "base")]
    base: String,
    #[guard(
        policy = "observation",
        example = "The login fails [Source: bug-123.md]."
    )]
    observation: String,
    // The example never acknowledges warnings, so it must satisfy the profile's own: the
    // decision profile warns when no estimate states its methodology.
    #[guard(
        policy = "decision",
        example = "Onboarding may be faster [AI estimation based on the pilot]."
    )]
    decision: Option<String>,
    #[serde(default)]
    #[guard(acknowledges_policy)]
    acknowledge: Option<bool>,
}

fn summary(body: &str) -> Value {
    json!({"body": body, "keyPoints": ["Faster onboarding."], "priority": 2})
}

#[test]
fn a_critical_violation_is_a_policy_issue_whose_fix_names_the_alternative() {
    let report = reject::<Note>(json!({"body": "The pilot costs $50,000 in total."}));
    assert_eq!(codes(&report), [("body", IssueCode::Policy)]);
    let issue = &report.issues()[0];
    assert!(
        issue.message.contains("`untagged_dollar_amount`"),
        "{}",
        issue.message
    );
    assert!(issue.message.contains("critical"), "{}", issue.message);
    assert!(issue.message.contains(r#""$50,000""#), "{}", issue.message);
    assert!(
        issue
            .message
            .contains(r#"found "$50,000" at line 1, column 17"#),
        "{}",
        issue.message
    );
    assert_eq!(
        issue.received.as_deref(),
        Some(r#""The pilot costs $50,000 in total.""#)
    );
    assert_eq!(
        issue.expected.as_deref(),
        Some("Qualitative language with an [AI estimation …] tag")
    );
    let fix = issue.fix.as_deref().unwrap_or_default();
    assert!(
        fix.contains("Qualitative language with an [AI estimation …] tag"),
        "{fix}"
    );
    assert!(
        fix.contains(
            r#"replace "$50,000" with "a substantial investment [AI estimation: project scope]""#
        ),
        "{fix}"
    );
    assert!(fix.contains("call the tool again"), "{fix}");
}

#[test]
fn the_rewritten_text_passes() {
    let note = Note::validate_value(json!({
        "body": "The pilot costs $50,000 [AI estimation: vendor quote] in total."
    }))
    .expect("tagged amounts pass");
    assert!(note.body.starts_with("The pilot"));
}

#[test]
fn each_critical_violation_is_its_own_issue() {
    let report = reject::<Note>(json!({"body": "$5 here,\nand $7 there."}));
    assert_eq!(report.len(), 2);
    assert!(report.issues()[1].message.contains("line 2, column 5"));
}

#[test]
fn without_an_acknowledgement_field_warnings_and_advisories_do_not_block() {
    let note = Note::validate_value(json!({"body": "It is definitely a very good plan."}))
        .expect("warnings and advisories pass");
    assert_eq!(note.body, "It is definitely a very good plan.");
}

#[test]
fn warnings_wait_for_the_acknowledgement_field() {
    let report = reject::<Summary>(summary("Results are guaranteed."));
    assert_eq!(codes(&report), [("body", IssueCode::Policy)]);
    let issue = &report.issues()[0];
    assert!(
        issue
            .message
            .contains("warning output policy rule `overconfident_language`")
    );
    let fix = issue.fix.as_deref().unwrap_or_default();
    assert!(fix.contains("'may' or 'expected'"), "{fix}");
    assert!(
        fix.contains(r#"If the wording is intentional, call again with "confirmWording": true"#),
        "{fix}"
    );

    let mut acknowledged = summary("Results are guaranteed.");
    acknowledged["confirmWording"] = json!(true);
    let args = Summary::validate_value(acknowledged).expect("acknowledged warnings pass");
    assert!(args.confirm_wording);

    let mut declined = summary("Results are guaranteed.");
    declined["confirmWording"] = json!(false);
    assert_eq!(reject::<Summary>(declined).len(), 1);
}

#[test]
fn an_acknowledgement_that_fails_its_own_check_acknowledges_nothing() {
    let mut call = summary("Results are guaranteed.");
    call["confirmWording"] = json!("yes");
    let report = reject::<Summary>(call);
    assert_eq!(
        codes(&report),
        [
            ("confirmWording", IssueCode::Type),
            ("body", IssueCode::Policy)
        ]
    );
}

#[test]
fn an_acknowledgement_never_lets_a_critical_violation_through() {
    let mut call = summary("It costs $900 and is guaranteed.");
    call["confirmWording"] = json!(true);
    let report = reject::<Summary>(call);
    assert_eq!(codes(&report), [("body", IssueCode::Policy)]);
    let fix = report.issues()[0].fix.as_deref().unwrap_or_default();
    assert!(!fix.contains("confirmWording"), "{fix}");
}

#[test]
fn advisories_never_block() {
    let mut call = summary("A very clear plan.");
    call["keyPoints"] = json!(["Really simple."]);
    Summary::validate_value(call).expect("advisories pass");
}

#[test]
fn every_item_of_a_list_is_checked_at_its_own_path() {
    let mut call = summary("A clear plan.");
    call["keyPoints"] = json!(["Fine.", "Saves $4,000.", "Definitely faster."]);
    call["footnote"] = json!("Budget: $12");
    let report = reject::<Summary>(call);
    assert_eq!(
        codes(&report),
        [
            ("keyPoints[1]", IssueCode::Policy),
            ("keyPoints[2]", IssueCode::Policy),
            ("footnote", IssueCode::Policy),
        ]
    );
}

#[test]
fn nested_fields_are_checked_at_their_paths() {
    let report = reject::<Document>(json!({
        "title": "Plan",
        "sections": [
            {"heading": "Why", "text": "Clear gains."},
            {"heading": "Cost", "text": "About $30,000."},
        ],
    }));
    assert_eq!(codes(&report), [("sections[1].text", IssueCode::Policy)]);
}

#[test]
fn policy_issues_come_in_the_same_pass_as_every_other_issue() {
    let report = reject::<Summary>(json!({
        "body": "It costs $1 and is guaranteed.",
        "keyPoints": ["$2 saved"],
        "priority": 9,
        "extra": true,
    }));
    assert_eq!(
        codes(&report),
        [
            ("priority", IssueCode::TooLarge),
            ("body", IssueCode::Policy),
            ("body", IssueCode::Policy),
            ("keyPoints[0]", IssueCode::Policy),
            ("extra", IssueCode::UnknownField),
        ]
    );
}

#[test]
fn the_policy_checks_only_text_that_passed_the_other_guards() {
    let report = reject::<Summary>(summary("$1"));
    assert_eq!(codes(&report), [("body", IssueCode::TooShort)]);
}

#[test]
fn the_builtin_profiles_are_named_by_their_names() {
    let report = reject::<Profiles>(json!({
        "base": "Saves $10,000 annually.",
        "observation": "The logs suggest a leak.",
        "decision": "Success is guaranteed.",
    }));
    let paths: Vec<&str> = report.issues().iter().map(|i| &*i.path).collect();
    assert!(paths.contains(&"base"), "{report}");
    assert!(paths.contains(&"observation"), "{report}");
    assert!(paths.contains(&"decision"), "{report}");
    assert!(report.issues().iter().all(|i| i.code == IssueCode::Policy));
}

#[test]
fn examples_of_policy_arguments_validate() {
    for (name, result) in [
        ("Note", Note::validate_value(Note::example().clone()).err()),
        (
            "Summary",
            Summary::validate_value(Summary::example().clone()).err(),
        ),
        (
            "Document",
            Document::validate_value(Document::example().clone()).err(),
        ),
        (
            "Profiles",
            Profiles::validate_value(Profiles::example().clone()).err(),
        ),
    ] {
        assert!(result.is_none(), "{name}: {result:?}");
    }
}

/// The same fields as `Summary`, without policies.
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(rename_all = "camelCase")]
struct PlainSummary {
    #[guard(length(min = 3, max = 200))]
    body: String,
    key_points: Vec<String>,
    footnote: Option<String>,
    #[guard(range(min = 1, max = 5))]
    priority: u8,
    #[serde(default)]
    confirm_wording: bool,
}

#[test]
fn a_policy_does_not_change_the_schema() {
    let properties = |schema| serde_json::to_value(schema).unwrap()["properties"].clone();
    assert_eq!(
        properties(Summary::schema()),
        properties(PlainSummary::schema())
    );
}

#[test]
fn echoed_text_is_escaped_and_bounded_when_rendered() {
    let hostile = format!("<b>$5</b> {}", "x".repeat(10_000));
    let report = reject::<Note>(json!({ "body": hostile }));
    let rendered = render_report(
        "write_note",
        &report,
        Note::info(),
        Note::example(),
        &RenderOptions::default(),
    );
    assert!(!rendered.contains("<b>"), "{rendered}");
    assert!(rendered.contains("&lt;b&gt;$5&lt;/b&gt;"), "{rendered}");
    assert!(rendered.len() < 4_000, "{} bytes", rendered.len());
    for format in [RenderFormat::Markdown, RenderFormat::Json] {
        let options = RenderOptions::new(format);
        let rendered = render_report(
            "write_note",
            &report,
            Note::info(),
            Note::example(),
            &options,
        );
        assert!(
            rendered.len() < 4_000,
            "{format:?}: {} bytes",
            rendered.len()
        );
    }
}

#[test]
fn a_text_with_countless_violations_keeps_the_report_bounded() {
    let body = "$1 ".repeat(50_000);
    let report = reject::<Note>(json!({ "body": body }));
    // A report keeps 64 issues, as `Report` documents.
    assert_eq!(report.issues().len(), 64);
    assert_eq!(report.len(), 50_000);
}
