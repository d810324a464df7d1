//! Rules across the fields of a struct variant (`#[guard(check(f, fields(..)))]` on the variant)
//! run in the one pass and are reported at the variant's field paths.

use guardrails::{FieldIssue, IssueCode, ToolArgs};
use serde::Deserialize;
use serde_json::json;

/// How a meeting repeats.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Recurrence {
    /// Every day between two days of the year.
    #[guard(check(until_after_from, fields(from, until)))]
    Daily {
        #[guard(range(min = 1, max = 366), example = 10)]
        from: u16,
        #[guard(range(min = 1, max = 366), example = 20)]
        until: u16,
    },
    /// A number of weeks.
    Weekly {
        #[guard(range(min = 1, max = 52))]
        count: u8,
    },
}

fn until_after_from(from: u16, until: u16) -> Result<(), FieldIssue> {
    if until <= from {
        return Err(FieldIssue::new("until", "Must be after `from`.")
            .expected(format!("a day after {from}")));
    }
    Ok(())
}

/// Plans a meeting.
#[derive(Debug, Deserialize, ToolArgs)]
struct Plan {
    #[guard(length(min = 3))]
    title: String,
    recurrence: Recurrence,
}

#[test]
fn a_variant_check_reports_at_the_variants_field_path_in_the_one_pass() {
    let report = Plan::validate_value(json!({
        "title": "x",
        "recurrence": {"kind": "daily", "from": 40, "until": 30},
    }))
    .unwrap_err();
    let mut paths: Vec<&str> = report.issues().iter().map(|i| &*i.path).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["recurrence.until", "title"]);
    let issue = report.at("recurrence.until").unwrap();
    assert_eq!(issue.code, IssueCode::Custom);
    assert_eq!(issue.message, "Must be after `from`.");
    assert_eq!(issue.received.as_deref(), Some("30"));
    assert_eq!(issue.expected.as_deref(), Some("a day after 40"));
}

#[test]
fn a_variant_check_waits_for_its_fields_and_passes_a_valid_value() {
    let report = Plan::validate_value(json!({
        "title": "standup",
        "recurrence": {"kind": "daily", "from": 400, "until": 30},
    }))
    .unwrap_err();
    assert_eq!(report.len(), 1);
    assert_eq!(report.issues()[0].path, "recurrence.from");
    assert_eq!(report.issues()[0].code, IssueCode::TooLarge);
    let plan = Plan::validate_value(json!({
        "title": "standup",
        "recurrence": {"kind": "daily", "from": 10, "until": 30},
    }))
    .unwrap();
    assert_eq!(
        plan.recurrence,
        Recurrence::Daily {
            from: 10,
            until: 30
        }
    );
    assert_eq!(plan.title, "standup");
    // Another variant is not held to the rule.
    let plan = Plan::validate_value(json!({
        "title": "standup",
        "recurrence": {"kind": "weekly", "count": 2},
    }))
    .unwrap();
    assert_eq!(plan.recurrence, Recurrence::Weekly { count: 2 });
}

#[test]
fn the_example_passes_the_variants_rule() {
    let example = Plan::checked_example().expect("the example passes every rule");
    Plan::validate_value(example.clone()).unwrap();
}

/// Who attends.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
#[serde(tag = "by", rename_all = "lowercase")]
enum Attendees {
    /// A team, whose size is capped by the room.
    #[guard(check = team_fits)]
    Team {
        #[guard(length(min = 2), example = "infra")]
        team: String,
        #[guard(range(min = 1, max = 100), example = 5)]
        size: u8,
    },
    /// One person.
    Person { name: String },
}

fn team_fits(attendees: &Attendees) -> Result<(), FieldIssue> {
    match attendees {
        Attendees::Team { team, size } if team == "all" && *size < 50 => Err(FieldIssue::new(
            "size",
            "The whole company is at least 50 people.",
        )),
        _ => Ok(()),
    }
}

/// Invites people.
#[derive(Debug, Deserialize, ToolArgs)]
struct Invite {
    #[guard(length(min = 3))]
    title: String,
    who: Attendees,
}

#[test]
fn a_whole_check_on_a_variant_is_given_the_enum_and_reports_at_the_variants_path() {
    let report = Invite::validate_value(json!({
        "title": "all hands",
        "who": {"by": "team", "team": "all", "size": 10},
    }))
    .unwrap_err();
    assert_eq!(report.len(), 1, "{report}");
    let issue = report.at("who.size").unwrap();
    assert_eq!(issue.code, IssueCode::Custom);
    assert_eq!(issue.received.as_deref(), Some("10"));
    // It waits for the variant's fields, as a struct's check does.
    let report = Invite::validate_value(json!({
        "title": "all hands",
        "who": {"by": "team", "team": "all", "size": 0},
    }))
    .unwrap_err();
    assert_eq!(report.len(), 1, "{report}");
    assert_eq!(report.issues()[0].code, IssueCode::TooSmall);
    let invite = Invite::validate_value(json!({
        "title": "all hands",
        "who": {"by": "team", "team": "all", "size": 60},
    }))
    .unwrap();
    assert_eq!(invite.title, "all hands");
    assert_eq!(
        invite.who,
        Attendees::Team {
            team: "all".to_owned(),
            size: 60
        }
    );
    assert!(Invite::checked_example().is_ok());
}

#[test]
fn the_contract_names_a_variants_whole_check() {
    use guardrails::Tool;
    /// Invites people.
    #[guardrails::tool]
    fn invite(args: Invite) -> String {
        args.title
    }
    let c = guardrails_tests::testing::entry(&Tool::<()>::spec(&invite).contract());
    assert_eq!(
        c["args"]["who"]["checks"],
        serde_json::json!(["team.team_fits"])
    );
}
