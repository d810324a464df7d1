//! `Format::is_valid` against the `jsonschema` crate: for every format, the check run before a
//! handler and the schema published to clients must give the same verdict on any string.
//!
//! One leniency of `jsonschema` 0.61 is not copied, and only it may differ (in the one
//! direction where guardrails is the stricter): it takes an address in angle brackets, after a
//! display name or not (`Jane <jane@example.com>`), as an email address. (`jsonschema` 0.60 also
//! read the bytes `*+,-./` as digits in dates and times; 0.61 refuses them, as guardrails does,
//! and [`dates_with_punctuation_for_digits_are_refused_on_both_sides`] holds that.)
//!
//! The names a `format` guard accepts are held against the runtime's here too, so that the
//! derive and the runtime never disagree on what a name means.

use std::sync::OnceLock;

use guardrails::validation::StringFormat as Format;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};

/// One compiled `{"type": "string", "format": NAME}` validator per format, built once.
fn jsonschema_accepts(format: Format, s: &str) -> bool {
    static VALIDATORS: OnceLock<Vec<(Format, jsonschema::Validator)>> = OnceLock::new();
    let validators = VALIDATORS.get_or_init(|| {
        Format::ALL
            .iter()
            .map(|&format| {
                let schema = json!({"type": "string", "format": format.schema_name()});
                let validator = jsonschema::draft202012::options()
                    .should_validate_formats(true)
                    .build(&schema)
                    .expect("a format schema compiles");
                (format, validator)
            })
            .collect()
    });
    let (_, validator) = validators
        .iter()
        .find(|(f, _)| *f == format)
        .expect("every format has a validator");
    validator.is_valid(&Value::String(s.to_owned()))
}

/// Whether `s` is one of the inputs `jsonschema` accepts by a leniency guardrails does not
/// share (see the module docs).
fn is_known_jsonschema_leniency(format: Format, s: &str) -> bool {
    // `email_address` splits a display name off at the last ` <`.
    format == Format::Email && s.contains(" <")
}

/// The leniencies the module docs name, pinned so a change in `jsonschema` shows up here.
#[test]
fn known_leniencies_of_jsonschema() {
    let cases = [
        (Format::Email, "Jane <jane@example.com>"),
        (Format::Email, " <jane@example.com> "),
    ];
    for (format, s) in cases {
        assert!(
            jsonschema_accepts(format, s),
            "jsonschema, `{format}` on {s:?}"
        );
        assert!(!format.is_valid(s), "guardrails, `{format}` on {s:?}");
        assert!(is_known_jsonschema_leniency(format, s));
    }
}

/// The leniency of `jsonschema` 0.60 in dates and times (the bytes `*+,-./` read as digits) is
/// gone in 0.61: both sides refuse such a date, time or timestamp.
#[test]
fn dates_with_punctuation_for_digits_are_refused_on_both_sides() {
    let cases = [
        (Format::Date, "2024-01-1*"),
        (Format::Date, "*000-01-01"),
        (Format::Date, "2024-0/-01"),
        (Format::Time, "1*:00:00Z"),
        (Format::Time, "10:00:00+0,:00"),
        (Format::DateTime, "2024-01-01T1*:00:00Z"),
        (Format::DateTime, "2.24-01-01T10:00:00Z"),
    ];
    for (format, s) in cases {
        assert!(
            !jsonschema_accepts(format, s),
            "jsonschema, `{format}` on {s:?}"
        );
        assert!(!format.is_valid(s), "guardrails, `{format}` on {s:?}");
        assert!(!is_known_jsonschema_leniency(format, s));
    }
}

#[test]
fn every_example_validates_on_both_sides() {
    for &format in Format::ALL {
        let example = format.example();
        assert!(format.is_valid(example), "guardrails rejects {example:?}");
        assert!(
            jsonschema_accepts(format, example),
            "jsonschema rejects {example:?}"
        );
    }
}

/// The names `#[guard(format = "..")]` accepts are the runtime's: each means the format
/// `StringFormat::from_name` gives it, and every format can be named by its schema name.
#[test]
fn the_derive_names_the_formats_the_runtime_knows() {
    let derive = guardrails::__private::string_formats!();
    for (name, format) in derive {
        assert_eq!(Format::from_name(name), Some(format), "{name}");
    }
    for &format in Format::ALL {
        assert!(
            derive.contains(&(format.schema_name(), format)),
            "the derive does not accept `format = \"{format}\"`"
        );
    }
}
