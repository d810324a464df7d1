//! Enums with data as argument fields: every serde representation, read in the one pass with
//! the tag checked first, the chosen variant's fields at their paths, a field of another variant
//! named as such, and the serde value built exactly as serde would build it.

use guardrails::{IssueCode, Report, ToolArgs};
use serde::Deserialize;
use serde_json::{Value, json};

/// Weekly options, shared by a newtype variant.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Monthly {
    /// The day of the month.
    #[guard(range(min = 1, max = 28))]
    day: u8,
}

/// How often a task repeats.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
enum Recurrence {
    /// Every week, a number of times.
    Weekly {
        #[guard(range(min = 1, max = 52))]
        count: u8,
        #[guard(length(min = 1, max = 7))]
        week_days: Vec<String>,
    },
    /// Every day until a date.
    Daily {
        #[guard(length(equal = 10))]
        until: String,
    },
    Monthly(Monthly),
    Never,
}

/// Plans a task.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Plan {
    #[guard(length(min = 1))]
    title: String,
    recurrence: Recurrence,
    later: Option<Recurrence>,
}

/// The same variants, adjacently tagged.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Weekly {
        #[guard(range(min = 1))]
        count: u8,
    },
    Never,
}

/// The same variants, externally tagged (serde's default).
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
#[serde(rename_all = "lowercase")]
enum External {
    Weekly {
        #[guard(range(min = 1))]
        count: u8,
    },
    Daily {
        until: String,
    },
    Never,
}

/// Untagged: the first variant the value fits.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
#[serde(untagged)]
enum Target {
    ById {
        #[guard(range(min = 1))]
        id: u32,
    },
    ByName {
        #[guard(length(min = 3))]
        name: String,
        #[guard(length(min = 2))]
        team: String,
    },
}

#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Other {
    adjacent: Option<Adjacent>,
    external: Option<External>,
    target: Option<Target>,
}

fn plan(call: Value) -> Result<Plan, Report> {
    Plan::validate_value(call)
}

fn other(call: Value) -> Result<Other, Report> {
    Other::validate_value(call)
}

/// Whatever the validator accepts, serde reads to the same value.
fn agrees_with_serde<T: ToolArgs + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(
    call: &Value,
) {
    let ours = T::validate_value(call.clone()).expect("valid");
    let theirs: T = serde_json::from_value(call.clone()).expect("serde reads it");
    assert_eq!(ours, theirs);
}

#[test]
fn every_representation_reads_what_serde_reads() {
    for call in [
        json!({"title": "a", "recurrence": {"kind": "weekly", "count": 3, "weekDays": ["mo"]}}),
        json!({"title": "a", "recurrence": {"kind": "daily", "until": "2026-12-01"}, "later": null}),
        json!({"title": "a", "recurrence": {"kind": "monthly", "day": 3}, "later": {"kind": "never"}}),
    ] {
        agrees_with_serde::<Plan>(&call);
    }
    for call in [
        json!({"adjacent": {"t": "Weekly", "c": {"count": 2}}}),
        json!({"adjacent": {"t": "Never"}}),
        json!({"adjacent": {"t": "Never", "c": null}}),
        json!({"external": {"weekly": {"count": 2}}}),
        json!({"external": "never"}),
        json!({"external": {"never": null}}),
        json!({"target": {"id": 4}}),
        json!({"target": {"name": "ada", "team": "core"}}),
    ] {
        agrees_with_serde::<Other>(&call);
    }
}

#[test]
fn a_misspelt_tag_is_one_issue_with_a_did_you_mean() {
    let report =
        plan(json!({"title": "a", "recurrence": {"kind": "weekyl", "count": 3}})).unwrap_err();
    assert_eq!(report.len(), 1, "{report}");
    let issue = report.at("recurrence.kind").expect("at the tag");
    assert_eq!(issue.code, IssueCode::Enum);
    assert!(
        issue.message.contains("Did you mean \"weekly\"?"),
        "{}",
        issue.message
    );
    assert!(issue.message.contains("\"daily\""), "{}", issue.message);
}

#[test]
fn a_missing_tag_lists_the_variants() {
    let report = plan(json!({"title": "a", "recurrence": {"count": 3}})).unwrap_err();
    assert_eq!(report.len(), 1, "{report}");
    let issue = report.at("recurrence.kind").expect("at the tag");
    assert_eq!(issue.code, IssueCode::Missing);
    assert!(
        issue.message.contains("\"weekly\", \"daily\", \"monthly\""),
        "{}",
        issue.message
    );
}

#[test]
fn the_variant_fields_are_checked_at_their_paths_in_one_pass() {
    let report = plan(json!({
        "title": "",
        "recurrence": {"kind": "weekly", "count": 99, "weekDays": [], "until": "2026-01-01"},
        "later": {"kind": "monthly", "day": 40},
    }))
    .unwrap_err();
    assert_eq!(report.at("title").unwrap().code, IssueCode::TooShort);
    assert_eq!(
        report.at("recurrence.count").unwrap().code,
        IssueCode::TooLarge
    );
    assert_eq!(
        report.at("recurrence.weekDays").unwrap().code,
        IssueCode::TooShort
    );
    assert_eq!(report.at("later.day").unwrap().code, IssueCode::TooLarge);
    let until = report.at("recurrence.until").expect("the foreign field");
    assert_eq!(until.code, IssueCode::UnknownField);
    assert_eq!(
        until.message,
        "`until` belongs to kind `daily`; you chose `weekly`."
    );
    assert_eq!(report.len(), 5, "{report}");
}

/// One enum field, so that a misplaced key has one place to go.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Schedule {
    recurrence: Recurrence,
}

#[test]
fn a_variant_field_sent_beside_the_enum_is_pointed_into_it() {
    let report = Schedule::validate_value(
        json!({"recurrence": {"kind": "weekly", "weekDays": ["mo"]}, "count": 3}),
    )
    .unwrap_err();
    let issue = report.at("count").expect("the misplaced key");
    assert_eq!(issue.code, IssueCode::UnknownField);
    assert_eq!(
        issue.message,
        "Not a field of this tool. `count` is a field of `recurrence`: move it there."
    );
    assert_eq!(
        issue.fix.as_deref(),
        Some("Remove it here and send it as `recurrence.count`.")
    );
    // Where the enum field is two, the key is pointed at both.
    let report =
        plan(json!({"title": "a", "recurrence": {"kind": "daily"}, "until": "2026-01-01"}))
            .unwrap_err();
    let issue = report.at("until").expect("the misplaced key");
    assert!(
        issue.message.contains("`recurrence`") && issue.message.contains("`later`"),
        "{}",
        issue.message
    );
}

#[test]
fn adjacent_and_external_forms_are_checked_at_their_paths() {
    let report = other(json!({
        "adjacent": {"t": "Weekly", "c": {"count": 0}},
        "external": {"weekly": {"count": 0, "until": "x"}},
    }))
    .unwrap_err();
    assert_eq!(
        report.at("adjacent.c.count").unwrap().code,
        IssueCode::TooSmall
    );
    assert_eq!(
        report.at("external.weekly.count").unwrap().code,
        IssueCode::TooSmall
    );
    assert_eq!(
        report.at("external.weekly.until").unwrap().message,
        "`until` belongs to variant `daily`; you chose `weekly`."
    );
    let report = other(json!({"external": {"wekly": {"count": 1}}})).unwrap_err();
    assert!(
        report
            .at("external")
            .unwrap()
            .message
            .contains("Did you mean \"weekly\"?")
    );
    let report = other(json!({"adjacent": {"c": {"count": 1}}})).unwrap_err();
    assert_eq!(report.at("adjacent.t").unwrap().code, IssueCode::Missing);
}

#[test]
fn untagged_reports_the_closest_variant_only() {
    let report = other(json!({"target": {"name": "al", "team": "core"}})).unwrap_err();
    assert_eq!(report.len(), 2, "{report}");
    let summary = report.at("target").expect("the closest variant named");
    assert!(
        summary.message.contains("\"ByName\""),
        "{}",
        summary.message
    );
    assert!(!summary.message.contains("an object or an object"));
    assert_eq!(report.at("target.name").unwrap().code, IssueCode::TooShort);
}

#[test]
fn the_example_validates_and_the_schema_is_a_closed_one_of() {
    let example = <Plan as ToolArgs>::example().clone();
    Plan::validate_value(example.clone()).expect("the example validates");
    agrees_with_serde::<Plan>(&example);
    let example = <Other as ToolArgs>::example().clone();
    Other::validate_value(example).expect("the example validates");
    let schema = serde_json::to_value(<Plan as ToolArgs>::schema()).unwrap();
    let shapes = schema["properties"]["recurrence"]["oneOf"]
        .as_array()
        .unwrap();
    assert_eq!(shapes.len(), 4);
    assert_eq!(shapes[0]["properties"]["kind"], json!({"const": "weekly"}));
    assert_eq!(shapes[0]["additionalProperties"], json!(false));
    assert_eq!(shapes[0]["required"], json!(["kind", "count", "weekDays"]));
    let later = schema["properties"]["later"]["oneOf"].as_array().unwrap();
    assert_eq!(later.last().unwrap(), &json!({"type": "null"}));
}

/// The rejection of a call that misspells the tag of one enum and breaks a variant field of
/// another, with a field of another variant and a misplaced key: what the model reads.
fn rejection() -> (
    Report,
    &'static guardrails::validation::ArgsInfo,
    &'static Value,
) {
    let report = plan(json!({
        "title": "standup",
        "recurrence": {"kind": "weekly", "count": 0, "weekDays": ["mo"], "until": "2026-12-01"},
        "later": {"kind": "montly", "day": 3},
        "day": 4,
    }))
    .unwrap_err();
    (report, Plan::info(), <Plan as ToolArgs>::example())
}

fn render(format: guardrails::RenderFormat) -> String {
    let (report, info, example) = rejection();
    guardrails::render::render_report(
        "plan_task",
        &report,
        info,
        example,
        &guardrails::RenderOptions::new(format).with_schema_summary(true),
    )
}

#[test]
fn rejection_xml() {
    insta::assert_snapshot!(render(guardrails::RenderFormat::Xml));
}

#[test]
fn rejection_markdown() {
    insta::assert_snapshot!(render(guardrails::RenderFormat::Markdown));
}

#[test]
fn rejection_json() {
    let value: Value = serde_json::from_str(&render(guardrails::RenderFormat::Json)).unwrap();
    insta::assert_json_snapshot!(value);
}

#[test]
fn schema_snapshot() {
    insta::assert_json_snapshot!(<Plan as ToolArgs>::schema());
}

/// Two releases of one tool whose argument is an enum with data.
mod release {
    pub(crate) mod v1 {
        use guardrails::{ToolArgs, tool};
        use serde::Deserialize;

        #[derive(Debug, Deserialize, ToolArgs)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        #[allow(dead_code, reason = "read through validation only")]
        pub(crate) enum Repeat {
            Weekly {
                #[guard(range(min = 1))]
                count: u8,
            },
            Daily {
                until: String,
            },
        }

        #[derive(Debug, Deserialize, ToolArgs)]
        pub(crate) struct Args {
            pub(crate) repeat: Repeat,
        }

        /// Schedules a task.
        #[tool]
        pub(crate) fn schedule(args: Args) -> String {
            format!("{:?}", args.repeat)
        }
    }

    pub(crate) mod v2 {
        use guardrails::{ToolArgs, tool};
        use serde::Deserialize;

        #[derive(Debug, Deserialize, ToolArgs)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        #[allow(dead_code, reason = "read through validation only")]
        pub(crate) enum Repeat {
            Weekly {
                #[guard(range(min = 2))]
                count: u8,
            },
            Monthly {
                day: u8,
            },
        }

        #[derive(Debug, Deserialize, ToolArgs)]
        pub(crate) struct Args {
            pub(crate) repeat: Repeat,
        }

        /// Schedules a task.
        #[tool]
        pub(crate) fn schedule(args: Args) -> String {
            format!("{:?}", args.repeat)
        }
    }
}

#[test]
fn the_contract_records_the_variants_and_their_changes() {
    use guardrails::contract::ChangeSeverity;
    use guardrails_tests::testing::{deltas, entry};
    let before = release::v1::schedule.spec().contract();
    let after = release::v2::schedule.spec().contract();
    let repeat = &entry(&before)["args"]["repeat"];
    assert_eq!(repeat["tagging"], "internal:kind");
    let variants = repeat["variants"]
        .as_object()
        .expect("the variants are recorded");
    assert_eq!(variants.keys().collect::<Vec<_>>(), ["daily", "weekly"]);
    assert_eq!(variants["weekly"]["count"]["required"], true);
    let deltas: Vec<(ChangeSeverity, String)> = deltas(&before, &after)
        .into_iter()
        .map(|d| (d.severity, d.path))
        .collect();
    assert_eq!(
        deltas,
        [
            (
                ChangeSeverity::Breaking,
                "schedule.args.repeat.variants.daily".to_owned()
            ),
            (
                ChangeSeverity::Safe,
                "schedule.args.repeat.variants.monthly".to_owned()
            ),
            (
                ChangeSeverity::Breaking,
                "schedule.args.repeat.variants.weekly.count.minimum".to_owned()
            ),
        ]
    );
}

#[test]
fn adjacent_content_is_coached_by_the_tag_it_goes_with() {
    let report = other(json!({"adjacent": {"t": "Weekly"}})).unwrap_err();
    assert_eq!(
        report.at("adjacent.c").unwrap().message,
        "Missing \"c\": \"t\" is \"Weekly\", whose fields go in \"c\"."
    );
    let report = other(json!({"adjacent": {"t": "Never", "c": {"count": 1}}})).unwrap_err();
    assert_eq!(
        report.at("adjacent.c").unwrap().message,
        "\"t\" is \"Never\", which carries no fields: leave \"c\" out."
    );
    let report = other(json!({"adjacent": {"t": "Never", "x": 1}})).unwrap_err();
    assert_eq!(
        report.at("adjacent.x").unwrap().code,
        IssueCode::UnknownField
    );
}

#[test]
fn untagged_says_what_was_sent_bounded() {
    let report = other(json!({"target": {"team": "infra"}})).unwrap_err();
    let summary = report.at("target").expect("the closest variant named");
    let received = summary.received.as_deref().expect("what was sent is shown");
    assert!(
        received.contains("team") && received.contains("infra"),
        "{received}"
    );
    let long = "<b>".repeat(2000);
    let report = other(json!({"target": {"team": long}})).unwrap_err();
    let received = report.at("target").unwrap().received.clone().unwrap();
    assert!(received.chars().count() < 300, "{received}");
    let xml = guardrails::render::render_report(
        "plan",
        &report,
        <Other as ToolArgs>::info(),
        <Other as ToolArgs>::example(),
        &guardrails::RenderOptions::default(),
    );
    assert!(!xml.contains("<b>"), "{xml}");
    assert!(xml.contains(r#"You sent: {"team":"&lt;b&gt;"#), "{xml}");
}

/// What to do with an item: a tag whose name starts with a vowel.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
#[serde(tag = "action", rename_all = "snake_case")]
enum Act {
    Create { name: String },
    Delete { id: u32 },
}

/// Acts on an item.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Acting {
    act: Act,
}

#[test]
fn a_tag_is_named_in_words_that_fit_any_name() {
    let report = Acting::validate_value(json!({"act": {"action": "delet", "id": 1}})).unwrap_err();
    assert_eq!(
        report.at("act.action").unwrap().message,
        "This \"action\" names no variant. Did you mean \"delete\"? The \"action\" is one of \"create\", \"delete\"."
    );
    let report = Acting::validate_value(json!({"act": {"id": 1}})).unwrap_err();
    assert_eq!(
        report.at("act.action").unwrap().message,
        "Missing the field \"action\", which names the variant: one of \"create\", \"delete\"."
    );
}
