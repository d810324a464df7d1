//! What the model sees: snapshots of each output format, and the properties they must keep.

use guardrails::ToolArgs;
use guardrails::render::render_report;
use guardrails::{RenderFormat, RenderOptions};
use guardrails_tests::fixtures::CreateUser;
use serde_json::{Value, json};

fn seed_call() -> guardrails::Report {
    CreateUser::validate_value(json!({
        "username": "ab",
        "email": "not-an-email",
        "age": 15,
        "role": "superadmin",
        "usrname": "john"
    }))
    .unwrap_err()
}

fn render(format: RenderFormat, summary: bool) -> String {
    render_report(
        "create-user",
        &seed_call(),
        CreateUser::info(),
        CreateUser::example(),
        &RenderOptions::new(format).with_schema_summary(summary),
    )
}

#[test]
fn xml_snapshot() {
    insta::assert_snapshot!(render(RenderFormat::Xml, false));
}

#[test]
fn xml_with_schema_snapshot() {
    insta::assert_snapshot!(render(RenderFormat::Xml, true));
}

#[test]
fn markdown_snapshot() {
    insta::assert_snapshot!(render(RenderFormat::Markdown, true));
}

#[test]
fn json_snapshot() {
    let value: Value = serde_json::from_str(&render(RenderFormat::Json, true)).unwrap();
    insta::assert_json_snapshot!(value);
}

#[test]
fn schema_snapshot() {
    insta::assert_json_snapshot!(CreateUser::schema());
}

/// Every issue's field is named in every format, and the example shown validates.
#[test]
fn every_format_names_every_field_and_shows_a_valid_example() {
    let report = seed_call();
    for format in [
        RenderFormat::Xml,
        RenderFormat::Markdown,
        RenderFormat::Json,
    ] {
        let text = render(format, false);
        for issue in report.issues() {
            assert!(
                text.contains(&*issue.path),
                "{format:?} names {}",
                issue.path
            );
        }
        assert!(
            text.contains("Do not explain the error"),
            "{format:?} has the recovery directive"
        );
    }
    let xml = render(RenderFormat::Xml, false);
    let start = xml.find("<valid_example>").unwrap() + "<valid_example>".len();
    let end = xml.find("</valid_example>").unwrap();
    let example: Value = serde_json::from_str(&xml[start..end]).unwrap();
    assert!(CreateUser::validate_value(example).is_ok());
}

#[test]
fn max_issues_caps_the_list_and_counts_the_rest() {
    let text = render_report(
        "create-user",
        &seed_call(),
        CreateUser::info(),
        CreateUser::example(),
        &RenderOptions::new(RenderFormat::Xml).with_max_issues(2),
    );
    assert_eq!(text.matches("<field ").count(), 2);
    assert!(text.contains("<more_issues count=\"3\">"), "{text}");
}
