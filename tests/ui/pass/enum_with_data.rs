//! An internally tagged enum with data as an argument field: the chosen variant's fields are
//! checked at their paths.
#![deny(warnings)]

use guardrails::ToolArgs;
use serde_json::json;

/// How often a task repeats.
#[derive(Debug, PartialEq, serde::Deserialize, ToolArgs)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Recurrence {
    /// Every week, a number of times.
    Weekly {
        /// How many weeks.
        #[guard(range(min = 1, max = 52))]
        count: u8,
    },
    /// Every day until a date.
    Daily {
        /// The last day, `YYYY-MM-DD`.
        #[guard(length(equal = 10))]
        until: String,
    },
    /// Once.
    Never,
}

/// Plans a task.
#[derive(Debug, PartialEq, serde::Deserialize, ToolArgs)]
struct Plan {
    /// What to do.
    #[guard(length(min = 1))]
    title: String,
    /// When it comes back.
    recurrence: Recurrence,
}

#[test]
fn the_chosen_variant_is_checked_at_its_paths() {
    let call = json!({"title": "Water", "recurrence": {"kind": "weekly", "count": 4}});
    let ours = Plan::validate_value(call.clone()).unwrap();
    let theirs: Plan = serde_json::from_value(call).unwrap();
    assert_eq!(ours, theirs);
    let report = Plan::validate_value(
        json!({"title": "Water", "recurrence": {"kind": "weekly", "count": 0}}),
    )
    .unwrap_err();
    assert!(report.at("recurrence.count").is_some(), "{report}");
}
