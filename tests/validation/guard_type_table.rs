//! Every guard on every field type its marker trait accepts is enforced (a value that breaks
//! it is refused with the guard's code), advertised (its JSON Schema keyword is in the schema)
//! and worded right (the fix text counts in the unit of the type). The pairs the traits refuse
//! are compile errors at the guard: tests/ui/args.

#![expect(
    dead_code,
    reason = "each struct exists for its validator and schema; no handler reads it"
)]
#![expect(
    clippy::items_after_statements,
    reason = "the table declares each pair's type beside its row"
)]

use std::collections::{BTreeMap, HashMap};

use guardrails::{IssueCode, ToolArgs};
use serde_json::{Value, json};

/// What one pair's check found: the codes of the issues (or success), the field's schema and
/// its fix text.
type Found = (Result<(), Vec<IssueCode>>, Value, String);

/// One pair: its arguments type, a value of the field that breaks the guard, the code of the
/// issue, the schema keyword, and a phrase the fix text must contain.
struct Pair {
    name: &'static str,
    check: fn() -> Found,
    breaking: Value,
    code: IssueCode,
    keyword: &'static str,
    wording: &'static str,
}

macro_rules! pairs {
    ($( $name:ident: $ty:ty, guard($($guard:tt)*), $breaking:expr, $code:ident, $keyword:literal, $wording:literal; )*) => {{
        let mut pairs = Vec::new();
        $(
            #[derive(serde::Deserialize, ToolArgs)]
            struct $name {
                #[guard($($guard)*)]
                field: $ty,
            }
            pairs.push(Pair {
                name: stringify!($name),
                check: || {
                    let breaking: Value = $breaking;
                    let checked = $name::validate_value(json!({"field": breaking}));
                    // The fix text of the field, as every issue at it states it.
                    let fix = checked
                        .as_ref()
                        .err()
                        .and_then(|report| report.at("field"))
                        .and_then(|issue| issue.fix.as_deref())
                        .unwrap_or_default()
                        .to_owned();
                    let outcome = checked
                        .map(|_| ())
                        .map_err(|report| report.issues().iter().map(|i| i.code).collect());
                    let schema = serde_json::to_value($name::schema()).unwrap();
                    (outcome, schema["properties"]["field"].clone(), fix)
                },
                breaking: $breaking,
                code: IssueCode::$code,
                keyword: $keyword,
                wording: $wording,
            });
        )*
        pairs
    }};
}

#[test]
fn every_accepted_pair_is_enforced_advertised_and_worded_right() {
    let pairs = pairs! {
        LengthString: String, guard(length(max = 2)), json!("abc"), TooLong, "maxLength", "at most 2 characters";
        LengthVec: Vec<u8>, guard(length(max = 2)), json!([1, 2, 3]), TooLong, "maxItems", "at most 2 items";
        LengthBTreeMap: BTreeMap<String, u8>, guard(length(max = 2)), json!({"a": 1, "b": 2, "c": 3}), TooLong, "maxProperties", "at most 2 entries";
        LengthHashMap: HashMap<String, String>, guard(length(min = 2)), json!({"a": "x"}), TooShort, "minProperties", "at least 2 entries";
        LengthOption: Option<String>, guard(length(min = 2)), json!("a"), TooShort, "minLength", "at least 2 characters";
        LengthBox: Box<Vec<String>>, guard(length(min = 1)), json!([]), TooShort, "minItems", "at least 1 item";
        LengthValueString: Value, guard(length(max = 1)), json!("ab"), TooLong, "maxLength", "at most 1 character, item or entry";
        LengthValueArray: Value, guard(length(max = 1)), json!([1, 2]), TooLong, "maxItems", "at most 1";
        LengthValueObject: Value, guard(length(max = 1)), json!({"a": 1, "b": 2}), TooLong, "maxProperties", "at most 1";
        NonEmptyString: String, guard(non_empty), json!(""), TooShort, "minLength", "at least 1 character";
        NonEmptyVec: Vec<String>, guard(non_empty), json!([]), TooShort, "minItems", "at least 1 item";
        NonEmptyMap: BTreeMap<String, String>, guard(non_empty), json!({}), TooShort, "minProperties", "at least 1 entry";
        RangeU8: u8, guard(range(max = 5)), json!(6), TooLarge, "maximum", "5";
        RangeI64: i64, guard(range(min = -5)), json!(-6), TooSmall, "minimum", "-5";
        RangeF64: f64, guard(range(exclusive_max = 1.5)), json!(1.5), TooLarge, "exclusiveMaximum", "1.5";
        RangeF32: Option<f32>, guard(range(min = 0.5)), json!(0.25), TooSmall, "minimum", "0.5";
        RangeValue: Value, guard(range(max = 5)), json!(6), TooLarge, "maximum", "5";
        MultipleOfU32: u32, guard(multiple_of = 5), json!(7), MultipleOf, "multipleOf", "multiple of 5";
        MultipleOfF64: f64, guard(multiple_of = 0.25), json!(0.3), MultipleOf, "multipleOf", "multiple of 0.25";
        MultipleOfValue: Value, guard(multiple_of = 2), json!(3), MultipleOf, "multipleOf", "multiple of 2";
        PatternString: String, guard(pattern = "^[a-z]+$"), json!("A1"), Pattern, "pattern", "^[a-z]+$";
        PatternOption: Option<String>, guard(pattern = "^[a-z]+$"), json!("A1"), Pattern, "pattern", "^[a-z]+$";
        PatternBox: Box<String>, guard(pattern = "^[a-z]+$"), json!("A1"), Pattern, "pattern", "^[a-z]+$";
        PatternValue: Value, guard(pattern = "^[a-z]+$"), json!("A1"), Pattern, "pattern", "^[a-z]+$";
        FormatString: String, guard(format = "email"), json!("nope"), Format, "format", "email";
        FormatValue: Value, guard(format = "date"), json!("nope"), Format, "format", "date";
        UniqueVec: Vec<u8>, guard(unique), json!([1, 1]), NotUnique, "uniqueItems", "distinct";
        UniqueOption: Option<Vec<String>>, guard(unique), json!(["a", "a"]), NotUnique, "uniqueItems", "distinct";
        UniqueValue: Value, guard(unique), json!([1, 1]), NotUnique, "uniqueItems", "distinct";
        OneOfString: String, guard(one_of("a", "b")), json!("c"), Enum, "enum", "\"a\", \"b\"";
        OneOfU8: u8, guard(one_of(1, 2)), json!(3), Enum, "enum", "1, 2";
        OneOfF64: Option<f64>, guard(one_of(0.5, 1.5)), json!(1.0), Enum, "enum", "0.5, 1.5";
        OneOfBool: bool, guard(one_of(true)), json!(false), Enum, "enum", "true";
        OneOfValue: Value, guard(one_of("a", "b")), json!("c"), Enum, "enum", "\"a\", \"b\"";
    };
    let mut wrong = Vec::new();
    for pair in &pairs {
        let (outcome, schema, fix) = (pair.check)();
        match outcome {
            Err(codes) if codes == [pair.code] => {}
            other => wrong.push(format!(
                "{}: {} gave {other:?}, not [{:?}]",
                pair.name, pair.breaking, pair.code
            )),
        }
        if schema.get(pair.keyword).is_none() {
            wrong.push(format!("{}: no `{}` in {schema}", pair.name, pair.keyword));
        }
        if !fix.contains(pair.wording) {
            wrong.push(format!(
                "{}: fix {fix:?} lacks {:?}",
                pair.name, pair.wording
            ));
        }
        let unit_words = ["character", "item", "entr"];
        let said: Vec<&str> = unit_words
            .iter()
            .copied()
            .filter(|u| fix.contains(u))
            .collect();
        if said.len() > 1 && !pair.name.contains("Value") {
            wrong.push(format!("{}: fix {fix:?} mixes units", pair.name));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
