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

use guardrails::__private::Format;
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

/// Asserts agreement, leaving room only for the known leniencies.
fn assert_agrees(format: Format, s: &str) {
    let ours = format.is_valid(s);
    let theirs = jsonschema_accepts(format, s);
    assert!(
        ours == theirs || (theirs && !ours && is_known_jsonschema_leniency(format, s)),
        "format `{format}` on {s:?}: guardrails says {ours}, jsonschema says {theirs}"
    );
}

/// Valid values and near misses per format, the seeds that mutations start from.
#[expect(clippy::too_many_lines, reason = "a flat table of seed strings")]
fn seeds(format: Format) -> &'static [&'static str] {
    match format {
        Format::Email => &[
            "user@example.com",
            "first.last+tag@sub.example.co.uk",
            "\"quoted local\"@example.com",
            "\"\"@example.com",
            "user@[127.0.0.1]",
            "user@[IPv6:::1]",
            "user@[ipv6:2001:db8::1]",
            "user@localhost",
            "user@xn--bcher-kva.example",
            "a!#$%&'*+/=?^_`{|}~-@example.org",
            "Jane <jane@example.com>",
            " <jane@example.com>",
            "\"a <b\"@example.com",
            "user@-example.com",
            "user.@example.com",
        ],
        Format::Url => &[
            "https://example.com",
            "http://user:pass@example.com:8080/a/b?q=1&r=2#frag",
            "http://",
            "a:b",
            "mailto:user@example.com",
            "urn:isbn:0451450523",
            "http://[::1]:80/",
            "http://[v1.fe]/",
            "http://[fe80::1%25eth0]/",
            "file:///etc/hosts",
            "https://example.com/%20%zz",
            "//example.com",
            "x+y.z-w:",
        ],
        Format::Uuid => &[
            "123e4567-e89b-12d3-a456-426614174000",
            "123E4567-E89B-12D3-A456-426614174000",
            "00000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "123e4567e89b12d3a456426614174000",
            "{123e4567-e89b-12d3-a456-426614174000}",
        ],
        Format::Date => &[
            "2024-01-31",
            "2024-02-29",
            "2023-02-29",
            "2000-02-29",
            "1900-02-29",
            "0000-01-01",
            "9999-12-31",
            "2024-04-31",
            "2024-13-01",
            "2024-1-01",
        ],
        Format::DateTime => &[
            "2024-01-31T09:30:00Z",
            "2024-01-31t09:30:00z",
            "2024-01-31T09:30:00.123456+05:30",
            "1998-12-31T23:59:60Z",
            "1998-12-31T15:59:60-08:00",
            "2024-01-31 09:30:00Z",
            "2024-01-31T09:30:00",
        ],
        Format::Time => &[
            "09:30:00Z",
            "23:59:60Z",
            "15:59:60-08:00",
            "00:29:60+00:30",
            "24:00:00Z",
            "09:30:00.5+01:00",
            "09:30:00+24:00",
            "09:30Z",
            "09:30:00",
        ],
        Format::Ipv4 => &[
            "192.168.1.1",
            "0.0.0.0",
            "255.255.255.255",
            "256.0.0.1",
            "01.2.3.4",
            "1.2.3",
        ],
        Format::Ipv6 => &[
            "2001:db8::1",
            "::",
            "::1",
            "::ffff:192.168.1.1",
            "fe80::1%eth0",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7:8:9",
            "12345::",
        ],
        Format::Hostname => &[
            "example.com",
            "a",
            "sub-domain.example-site.org",
            "xn--bcher-kva.example",
            "xn--nxasmq6b.com",
            "xn--abc",
            "ab--cd.com",
            "-leading.com",
            "trailing-.com",
            "a..b",
            "example.com.",
            "under_score.com",
        ],
        _ => &[],
    }
}

/// An edit applied to a seed.
#[derive(Debug, Clone)]
enum Edit {
    Insert(Index, char),
    Delete(Index),
    Replace(Index, char),
}

/// Characters that matter to some format's grammar, plus some that never should.
fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::sample::select(
            "@:/-.+_%[]<>\"\\ \t\nTtZz0123456789aAfFxX#?*,;=~!$&'()éß漢\u{200D}\u{00B7}\u{0660}"
                .chars()
                .collect::<Vec<_>>()
        ),
        1 => any::<char>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), interesting_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<Index>().prop_map(Edit::Delete),
        (any::<Index>(), interesting_char()).prop_map(|(i, c)| Edit::Replace(i, c)),
    ]
}

fn apply(seed: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = seed.chars().collect();
    for edit in edits {
        match edit {
            Edit::Insert(i, c) => chars.insert(i.index(chars.len() + 1), *c),
            Edit::Delete(i) if !chars.is_empty() => {
                chars.remove(i.index(chars.len()));
            }
            Edit::Replace(i, c) if !chars.is_empty() => {
                let at = i.index(chars.len());
                chars[at] = *c;
            }
            Edit::Delete(_) | Edit::Replace(..) => {}
        }
    }
    chars.into_iter().collect()
}

/// Seeds as they are, mutated seeds, and strings from scratch.
fn candidates(format: Format) -> impl Strategy<Value = String> {
    let seeds = seeds(format);
    prop_oneof![
        1 => proptest::sample::select(seeds).prop_map(str::to_owned),
        6 => (proptest::sample::select(seeds), proptest::collection::vec(edit(), 1..4))
            .prop_map(|(seed, edits)| apply(seed, &edits)),
        1 => "[0-9a-fA-F:.@/TZ+-]{0,40}",
        1 => proptest::collection::vec(interesting_char(), 0..30)
            .prop_map(|chars| chars.into_iter().collect()),
        1 => ".{0,40}",
    ]
}

macro_rules! agreement {
    ($($name:ident => $format:expr),* $(,)?) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4000))]
            $(
                #[test]
                fn $name(s in candidates($format)) {
                    assert_agrees($format, &s);
                }
            )*
        }
    };
}

agreement! {
    email_agrees => Format::Email,
    url_agrees => Format::Url,
    uuid_agrees => Format::Uuid,
    date_agrees => Format::Date,
    date_time_agrees => Format::DateTime,
    time_agrees => Format::Time,
    ipv4_agrees => Format::Ipv4,
    ipv6_agrees => Format::Ipv6,
    hostname_agrees => Format::Hostname,
}

/// Hand-picked edge cases with the verdict both sides give.
#[test]
fn edge_cases_agree() {
    let cases: &[(Format, &str, bool)] = &[
        (Format::Date, "2024-02-29", true),
        (Format::Date, "2023-02-29", false),
        (Format::Date, "2000-02-29", true),
        (Format::Date, "1900-02-29", false),
        (Format::Date, "2024-04-31", false),
        (Format::Date, "2024-00-10", false),
        (Format::Date, "2024-01-00", false),
        (Format::Date, "２０２４-01-01", false),
        (Format::Time, "24:00:00Z", false),
        (Format::Time, "23:59:60Z", true),
        (Format::Time, "23:58:60Z", false),
        (Format::Time, "15:59:60-08:00", true),
        (Format::Time, "09:30:00", false),
        (Format::Time, "09:30:00.Z", false),
        (Format::Time, "09:30:00+23:59", true),
        (Format::Time, "09:30:00+24:00", false),
        (Format::DateTime, "2024-01-31T09:30:00Z", true),
        (Format::DateTime, "2024-01-31t09:30:00z", true),
        (Format::DateTime, "2024-01-31 09:30:00Z", false),
        (Format::Email, "user@example.com", true),
        (Format::Email, "user@[127.0.0.1]", true),
        (Format::Email, "user@[IPv6:::1]", true),
        (Format::Email, "user@[300.0.0.1]", false),
        (Format::Email, "\"\"@example.com", true),
        (Format::Email, "user@localhost", true),
        (Format::Email, "user@-example.com", false),
        (Format::Email, "userexample.com", false),
        (Format::Email, "ü@example.com", false),
        (Format::Email, "\"a <b\"@example.com", false),
        (Format::Email, "\"a b\"@example.com", true),
        (Format::Url, "http://", true),
        (Format::Url, "a:b", true),
        (Format::Url, "https://example.com/a b", false),
        (Format::Url, "//example.com", false),
        (Format::Url, "example.com", false),
        (Format::Url, "http://[::1]/", true),
        (Format::Url, "http://[::1/", false),
        (Format::Url, "http://example.com:80a/", false),
        (Format::Url, "https://example.com/%zz", false),
        (Format::Uuid, "123E4567-E89B-12D3-A456-426614174000", true),
        (Format::Uuid, "123e4567e89b12d3a456426614174000", false),
        (Format::Uuid, "123e4567-e89b-12d3-a456-42661417400g", false),
        (Format::Ipv4, "01.2.3.4", false),
        (Format::Ipv4, "256.0.0.1", false),
        (Format::Ipv6, "::ffff:1.2.3.4", true),
        (Format::Ipv6, "fe80::1%eth0", false),
        (Format::Hostname, "xn--bcher-kva.example", true),
        (Format::Hostname, "xn--abc", false),
        (Format::Hostname, "ab--cd.com", false),
        (Format::Hostname, "example.com.", false),
        (Format::Hostname, &"a".repeat(64), false),
        (Format::Hostname, &"a".repeat(63), true),
    ];
    for &(format, s, expected) in cases {
        assert_eq!(
            format.is_valid(s),
            expected,
            "guardrails, `{format}` on {s:?}"
        );
        assert_eq!(
            jsonschema_accepts(format, s),
            expected,
            "jsonschema, `{format}` on {s:?}"
        );
    }
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
