//! [`ArgValue`] for the field types of other crates, each behind the feature named for its
//! crate: dates and times (`chrono`, `time`), `uuid`, `url` and `rust_decimal`.
//!
//! JSON has no date, UUID, URL or decimal: each is a string, in the format JSON Schema names
//! for it (`date-time`, `date`, `uuid`, `uri`). The schema says that format, and the value is
//! checked with the same check as `#[guard(format = "..")]` before the crate parses it, so the
//! schema and the validator judge a string alike and the coaching message is the format's own.
//! A string in the format that the type still cannot hold (a year past what it stores) is a
//! `format` issue too.
//!
//! Decimals are strings as well, so that no client rounds them through a double: at most 14
//! digits before the point and 14 after, which every `Decimal` holds exactly (the schema's
//! `pattern` says the same).

#[cfg(any(
    feature = "chrono",
    feature = "time",
    feature = "uuid",
    feature = "url"
))]
mod formatted {
    use serde_json::{Map, Value};

    use crate::validation::constraint::{Constraints, check_format};
    use crate::validation::context::Cx;
    use crate::validation::example::string_example;
    use crate::validation::info::Kind;
    use crate::validation::report::IssueCode;
    use crate::validation::string_format::StringFormat;
    use crate::validation::value::ArgValue;

    /// Reads a string in `format` and parses it with `parse`, recording the issue when either
    /// fails.
    fn read_formatted<T>(
        value: &Value,
        cx: &mut Cx,
        format: StringFormat,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        let Value::String(s) = value else {
            cx.type_mismatch(&Kind::Formatted(format), value);
            return None;
        };
        if !check_format(format, s, value, cx) {
            return None;
        }
        let parsed = parse(s);
        if parsed.is_none() {
            cx.fail(
                IssueCode::Format,
                format!(
                    "Out of range: {} that this field can hold.",
                    format.describe()
                ),
                Some(value),
                Some(format.describe().into()),
            );
        }
        parsed
    }

    /// The schema of a string in `format`.
    fn formatted_schema(format: StringFormat) -> Map<String, Value> {
        let mut schema = Map::new();
        schema.insert("type".into(), "string".into());
        schema.insert("format".into(), format.schema_name().into());
        schema
    }

    /// The `nth` example of a string in `format`.
    fn formatted_example(format: StringFormat, constraints: &Constraints, nth: usize) -> Value {
        // The types take no guards: the format is their only constraint.
        let _ = constraints;
        let constraints = Constraints {
            format: Some(format),
            ..Constraints::NONE
        };
        string_example(&constraints, nth)
    }

    /// Implements [`ArgValue`] for a type read from a string in a format.
    macro_rules! formatted_arg {
        ($(#[$meta:meta])* $ty:ty, $format:expr, $parse:expr) => {
            $(#[$meta])*
            impl ArgValue for $ty {
                fn kind() -> Kind {
                    Kind::Formatted($format)
                }
                fn schema() -> Map<String, Value> {
                    formatted_schema($format)
                }
                fn shape_matches(value: &Value) -> bool {
                    value.is_string()
                }
                fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
                    read_formatted(&value, cx, $format, $parse)
                }
                fn example(constraints: &Constraints, nth: usize) -> Value {
                    formatted_example($format, constraints, nth)
                }
            }
        };
    }

    #[cfg(feature = "chrono")]
    mod chrono_types {
        use chrono::{DateTime, FixedOffset, NaiveDate, Utc};

        use super::{
            ArgValue, Constraints, Cx, Kind, Map, StringFormat, Value, formatted_example,
            formatted_schema, read_formatted,
        };

        formatted_arg!(
            /// An RFC 3339 date-time with an offset, converted to UTC.
            DateTime<Utc>,
            StringFormat::DateTime,
            |s| DateTime::parse_from_rfc3339(s).ok().map(|t| t.to_utc())
        );
        formatted_arg!(
            /// An RFC 3339 date-time, keeping its offset.
            DateTime<FixedOffset>,
            StringFormat::DateTime,
            |s| DateTime::parse_from_rfc3339(s).ok()
        );
        formatted_arg!(
            /// A calendar date, `YYYY-MM-DD`.
            NaiveDate,
            StringFormat::Date,
            |s| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
        );
    }

    #[cfg(feature = "time")]
    mod time_types {
        use time::format_description::well_known::{Iso8601, Rfc3339};
        use time::{Date, OffsetDateTime};

        use super::{
            ArgValue, Constraints, Cx, Kind, Map, StringFormat, Value, formatted_example,
            formatted_schema, read_formatted,
        };

        formatted_arg!(
            /// An RFC 3339 date-time with its offset.
            OffsetDateTime,
            StringFormat::DateTime,
            |s| OffsetDateTime::parse(s, &Rfc3339).ok()
        );
        formatted_arg!(
            /// A calendar date, `YYYY-MM-DD`.
            Date,
            StringFormat::Date,
            |s| Date::parse(s, &Iso8601::DATE).ok()
        );
    }

    #[cfg(feature = "uuid")]
    formatted_arg!(
        /// A hyphenated UUID, in either case.
        uuid::Uuid,
        StringFormat::Uuid,
        |s| uuid::Uuid::try_parse(s).ok()
    );

    #[cfg(feature = "url")]
    formatted_arg!(
        /// An absolute URL.
        url::Url,
        StringFormat::Url,
        |s| url::Url::parse(s).ok()
    );
}

#[cfg(any(feature = "rust_decimal", test))]
mod decimal {
    #[cfg(feature = "rust_decimal")]
    use serde_json::{Map, Value, json};

    #[cfg(feature = "rust_decimal")]
    use crate::validation::{
        constraint::Constraints, context::Cx, info::Kind, report::IssueCode, value::ArgValue,
    };

    /// The pattern of a decimal field: what every `Decimal` holds exactly.
    pub(crate) const DECIMAL_PATTERN: &str = r"^-?[0-9]{1,14}(\.[0-9]{1,14})?$";

    /// What a decimal field accepts, for messages.
    #[cfg(feature = "rust_decimal")]
    const DECIMAL_DESCRIPTION: &str = "a decimal number written as a string, at most 14 digits before the point and 14 after, such as \"12.50\"";

    /// Whether `s` matches [`DECIMAL_PATTERN`], without compiling it.
    fn is_decimal_text(s: &str) -> bool {
        let digits = s.strip_prefix('-').unwrap_or(s);
        let (whole, fraction) = match digits.split_once('.') {
            Some((whole, fraction)) => (whole, Some(fraction)),
            None => (digits, None),
        };
        let run =
            |part: &str| (1..=14).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit());
        run(whole) && fraction.is_none_or(run)
    }

    #[cfg(feature = "rust_decimal")]
    impl ArgValue for rust_decimal::Decimal {
        fn kind() -> Kind {
            Kind::Text(DECIMAL_DESCRIPTION)
        }
        fn schema() -> Map<String, Value> {
            match json!({"type": "string", "pattern": DECIMAL_PATTERN}) {
                Value::Object(schema) => schema,
                _ => Map::new(),
            }
        }
        fn shape_matches(value: &Value) -> bool {
            value.is_string()
        }
        fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
            let Value::String(s) = &value else {
                cx.type_mismatch(&Self::kind(), &value);
                return None;
            };
            let parsed = is_decimal_text(s)
                .then(|| rust_decimal::Decimal::from_str_exact(s).ok())
                .flatten();
            if parsed.is_none() {
                cx.fail(
                    IssueCode::Pattern,
                    format!("Not {DECIMAL_DESCRIPTION}."),
                    Some(&value),
                    Some(DECIMAL_DESCRIPTION.into()),
                );
            }
            parsed
        }
        fn example(_: &Constraints, nth: usize) -> Value {
            Value::from(format!("{}.50", 12 + nth))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn decimal_text_is_the_pattern() {
            let pattern = regex::Regex::new(DECIMAL_PATTERN).unwrap();
            for s in [
                "0",
                "-0",
                "12.50",
                "12.",
                ".5",
                "1e3",
                "+1",
                "--1",
                "",
                "-",
                "1.2.3",
                "٣",
                "12345678901234",
                "123456789012345",
                "1.12345678901234",
                "1.123456789012345",
                "99999999999999.99999999999999",
                "0x10",
                " 1",
                "1 ",
            ] {
                assert_eq!(is_decimal_text(s), pattern.is_match(s), "{s:?}");
            }
        }
    }
}
