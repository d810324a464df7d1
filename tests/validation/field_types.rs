//! Field types of other crates (features `chrono`, `time`, `uuid`, `url`, `rust_decimal`):
//! each reads what its schema advertises, rejects the rest with the format's coaching text, and
//! its generated example validates.

use guardrails::RenderOptions;
use guardrails::render::render_report;
use guardrails::{IssueCode, ToolArgs};
use serde_json::{Value, json};

/// Arguments with one field of each type.
#[derive(ToolArgs)]
struct Booking {
    /// When, in UTC.
    at_utc: chrono::DateTime<chrono::Utc>,
    /// When, with its offset.
    at_local: chrono::DateTime<chrono::FixedOffset>,
    /// The day.
    day: chrono::NaiveDate,
    /// When, as `time` reads it.
    at_time: time::OffsetDateTime,
    /// The day, as `time` reads it.
    day_time: time::Date,
    /// The booking's id.
    id: uuid::Uuid,
    /// Where to call back.
    callback: url::Url,
    /// The price.
    price: rust_decimal::Decimal,
    /// Guests, each by id.
    #[guard(length(min = 2, max = 3), unique)]
    guests: Vec<uuid::Uuid>,
}

fn valid() -> Value {
    json!({
        "at_utc": "2026-03-01T10:00:00+02:00",
        "at_local": "2026-03-01T10:00:00+02:00",
        "day": "2026-03-01",
        "at_time": "2026-03-01T10:00:00.5-05:30",
        "day_time": "2026-02-28",
        "id": "123E4567-E89B-12D3-A456-426614174000",
        "callback": "https://example.com/hooks?id=1",
        "price": "-1234.50",
        "guests": ["123e4567-e89b-12d3-a456-426614174001", "123e4567-e89b-12d3-a456-426614174002"],
    })
}

fn with(key: &str, value: Value) -> Value {
    let mut args = valid();
    args[key] = value;
    args
}

fn only_issue(args: Value) -> guardrails::Issue {
    let Err(report) = Booking::validate_value(args) else {
        panic!("rejected")
    };
    assert_eq!(report.len(), 1, "{:?}", report.issues());
    report.issues()[0].clone()
}

#[test]
fn valid_values_are_read_into_their_types() {
    let booking = Booking::validate_value(valid()).unwrap();
    assert_eq!(booking.at_utc.to_rfc3339(), "2026-03-01T08:00:00+00:00");
    assert_eq!(booking.at_local.offset().local_minus_utc(), 7200);
    assert_eq!(booking.day.to_string(), "2026-03-01");
    assert_eq!(booking.at_time.offset().whole_minutes(), -330);
    assert_eq!(booking.day_time.to_string(), "2026-02-28");
    assert_eq!(
        booking.id.to_string(),
        "123e4567-e89b-12d3-a456-426614174000"
    );
    assert_eq!(booking.callback.host_str(), Some("example.com"));
    assert_eq!(booking.price.to_string(), "-1234.50");
    assert_eq!(booking.guests.len(), 2);
}

#[test]
fn each_invalid_value_is_one_issue_with_the_formats_coaching() {
    for (key, sent, code, fix) in [
        (
            "at_utc",
            json!("2026-03-01 10:00"),
            IssueCode::Format,
            "RFC 3339 date-time",
        ),
        (
            "at_local",
            json!("yesterday"),
            IssueCode::Format,
            "RFC 3339 date-time",
        ),
        ("day", json!("2026-02-30"), IssueCode::Format, "YYYY-MM-DD"),
        ("day", json!(20_260_301), IssueCode::Type, "YYYY-MM-DD"),
        (
            "at_time",
            json!("2026-03-01T10:00:00"),
            IssueCode::Format,
            "RFC 3339 date-time",
        ),
        (
            "day_time",
            json!("01/03/2026"),
            IssueCode::Format,
            "YYYY-MM-DD",
        ),
        (
            "id",
            json!("123e4567e89b12d3a456426614174000"),
            IssueCode::Format,
            "UUID",
        ),
        (
            "callback",
            json!("/relative/path"),
            IssueCode::Format,
            "absolute URL",
        ),
        (
            "price",
            json!(12.5),
            IssueCode::Type,
            "decimal number written as a string",
        ),
        (
            "price",
            json!("1e3"),
            IssueCode::Pattern,
            "decimal number written as a string",
        ),
        (
            "price",
            json!("123456789012345"),
            IssueCode::Pattern,
            "14 digits",
        ),
    ] {
        let issue = only_issue(with(key, sent.clone()));
        assert_eq!(issue.path, key, "{key}: {sent}");
        assert_eq!(issue.code, code, "{key}: {sent}: {}", issue.message);
        let expected = issue.expected.as_deref().unwrap_or_default();
        assert!(expected.contains(fix), "{key}: {sent}: {expected}");
    }
}

#[test]
fn a_missing_field_is_described_by_its_type() {
    for (key, fix) in [
        ("day", "a string that is a date in YYYY-MM-DD form"),
        ("id", "a string that is a UUID"),
        ("price", "a decimal number written as a string"),
    ] {
        let mut args = valid();
        args.as_object_mut().unwrap().remove(key);
        let issue = only_issue(args);
        assert_eq!(issue.code, IssueCode::Missing, "{key}");
        let expected = issue.expected.as_deref().unwrap_or_default();
        assert!(expected.starts_with(fix), "{key}: {expected}");
    }
}

#[test]
fn the_rendered_error_coaches_with_the_format() {
    let args = with("day", json!("tomorrow"));
    let Err(report) = Booking::validate_value(args) else {
        panic!("rejected")
    };
    let message = render_report(
        "book",
        &report,
        Booking::info(),
        Booking::example(),
        &RenderOptions::default(),
    );
    assert!(
        message.contains(r#"<field name="day" code="format">Not a date in YYYY-MM-DD form such as 2024-01-31. You sent: "tomorrow"."#),
        "{message}"
    );
}

#[test]
fn the_schema_names_each_format() {
    let schema = Booking::schema().as_value();
    let properties = &schema["properties"];
    for (key, format) in [
        ("at_utc", "date-time"),
        ("at_local", "date-time"),
        ("day", "date"),
        ("at_time", "date-time"),
        ("day_time", "date"),
        ("id", "uuid"),
        ("callback", "uri"),
    ] {
        assert_eq!(properties[key]["type"], "string", "{key}");
        assert_eq!(properties[key]["format"], format, "{key}");
    }
    assert_eq!(properties["price"]["type"], "string");
    assert_eq!(
        properties["price"]["pattern"],
        r"^-?[0-9]{1,14}(\.[0-9]{1,14})?$"
    );
    assert_eq!(properties["guests"]["items"]["format"], "uuid");
}

#[test]
fn the_example_validates_and_the_schema_accepts_it() {
    let example = Booking::example().clone();
    assert!(
        Booking::validate_value(example.clone()).is_ok(),
        "{example}"
    );
    let guests = example["guests"].as_array().unwrap();
    assert_ne!(guests[0], guests[1], "unique items");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(Booking::schema().as_value())
        .unwrap();
    assert!(validator.is_valid(&example), "{example}");
    assert!(validator.is_valid(&valid()));
}

#[test]
fn the_schema_and_the_validator_agree_on_each_value() {
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(Booking::schema().as_value())
        .unwrap();
    for (key, sent) in [
        ("at_utc", json!("2026-03-01 10:00")),
        ("at_utc", json!("2026-03-01T10:00:00z")),
        ("day", json!("2026-02-29")),
        ("day", json!("2024-02-29")),
        ("day_time", json!("2024-02-29")),
        ("id", json!("urn:uuid:123e4567-e89b-12d3-a456-426614174000")),
        ("callback", json!("mailto:someone@example.com")),
        ("callback", json!("https://[::1]:8080/")),
        ("price", json!("0.10")),
        ("price", json!("-0")),
        ("price", json!(".5")),
    ] {
        let args = with(key, sent.clone());
        assert_eq!(
            validator.is_valid(&args),
            Booking::validate_value(args).is_ok(),
            "{key}: {sent}"
        );
    }
}
