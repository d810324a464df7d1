//! A rule across fields (`#[guard(check = f)]` on a struct) with the example it must accept.
#![deny(warnings)]

use guardrails::{FieldIssue, ToolArgs};
use serde_json::json;

/// Books a room for some hours of a day.
#[derive(Debug, serde::Deserialize, ToolArgs)]
#[guard(check = end_after_start)]
#[guard(example = r#"{"start": 9, "end": 10}"#)]
struct Booking {
    /// The first hour.
    #[guard(range(min = 0, max = 23))]
    start: u8,
    /// The hour the booking ends.
    #[guard(range(min = 1, max = 24))]
    end: u8,
}

fn end_after_start(booking: &Booking) -> Result<(), FieldIssue> {
    if booking.end <= booking.start {
        return Err(FieldIssue::new("end", "Must be after `start`."));
    }
    Ok(())
}

#[test]
fn the_rule_across_fields_joins_the_pass() {
    let booking = Booking::validate_value(json!({"start": 9, "end": 11})).unwrap();
    assert_eq!((booking.start, booking.end), (9, 11));
    let report = Booking::validate_value(json!({"start": 12, "end": 11})).unwrap_err();
    assert!(report.at("end").is_some(), "{report}");
}
