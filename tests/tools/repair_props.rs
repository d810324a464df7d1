//! Universal claims of repair, over arbitrary calls and arbitrary slips: a repaired call is
//! exactly what a model that had sent the right types would have sent, and no string is ever
//! changed.

use std::collections::BTreeMap;

use guardrails::ToolArgs;
use guardrails::validation::Cx;
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// A nested object.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
struct Inner {
    /// A count.
    count: u8,
    /// A label, any text.
    label: String,
    /// A flag.
    on: bool,
}

/// Arguments with a field of every kind a repair reads, and strings beside them.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
struct Every {
    /// Any text.
    query: String,
    /// A bounded integer.
    #[guard(range(min = 1, max = 1000))]
    limit: u32,
    /// A signed integer.
    offset: i64,
    /// A number.
    weight: f64,
    /// A boolean.
    flag: bool,
    /// Integers.
    ids: Vec<u16>,
    /// Texts.
    tags: Vec<String>,
    /// A nested object.
    inner: Option<Inner>,
    /// Integers by name.
    counts: BTreeMap<String, i32>,
    /// Texts by name.
    notes: BTreeMap<String, String>,
}

/// Texts a careless repair would read as something else.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("25".to_owned()),
        Just("-3.5".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("null".to_owned()),
        Just("[1,2]".to_owned()),
        Just("{\"count\":1}".to_owned()),
        Just(String::new()),
        ".{0,12}",
    ]
}

fn inner() -> impl Strategy<Value = Value> {
    (any::<u8>(), text(), any::<bool>())
        .prop_map(|(count, label, on)| json!({"count": count, "label": label, "on": on}))
}

/// A call as a model that sends the right types sends it.
fn right_call() -> impl Strategy<Value = Value> {
    (
        text(),
        1..=1000u32,
        -9_007_199_254_740_991..=9_007_199_254_740_991i64,
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        any::<bool>(),
        prop::collection::vec(any::<u16>(), 0..4),
        prop::collection::vec(text(), 0..4),
        prop::option::of(inner()),
        prop::collection::btree_map("[a-z]{1,5}", any::<i32>(), 0..3),
        prop::collection::btree_map("[a-z]{1,5}", text(), 0..3),
    )
        .prop_map(
            |(query, limit, offset, weight, flag, ids, tags, inner, counts, notes)| {
                json!({
                    "query": query, "limit": limit, "offset": offset, "weight": weight,
                    "flag": flag, "ids": ids, "tags": tags, "inner": inner,
                    "counts": counts, "notes": notes,
                })
            },
        )
}

/// `value` as a model that slips sends it: each value that is not a string, chosen by the
/// bits of `slips` in turn, sent as a string (a number as written, a boolean as `"true"`, an
/// array or an object as JSON, after its own values slipped). Strings stay as they are.
fn slip(value: &Value, slips: &mut impl Iterator<Item = bool>) -> Value {
    let slipped = match value {
        Value::Array(items) => Value::Array(items.iter().map(|v| slip(v, slips)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), slip(v, slips)))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    };
    let stringify = slips.next().unwrap_or(false);
    match slipped {
        Value::String(_) | Value::Null => slipped,
        other if stringify => Value::String(other.to_string()),
        other => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_repaired_call_is_the_call_with_the_right_types(
        right in right_call(),
        slips in prop::collection::vec(any::<bool>(), 64),
    ) {
        let expected = Every::validate(right.as_object().unwrap().clone())
            .expect("a call with the right types validates");
        let mut slips = slips.into_iter();
        // The top level itself is an object: it is sent as one.
        let Value::Object(fields) = &right else { unreachable!() };
        let sent: Map<String, Value> = fields
            .iter()
            .map(|(k, v)| (k.clone(), slip(v, &mut slips)))
            .collect();
        let (read, repairs) = Every::validate_repairing(sent.clone(), Cx::new().repairing(true));
        let read = read.unwrap_or_else(|report| panic!("{sent:?} is rejected: {report:?}"));
        prop_assert_eq!(&read, &expected);
        // Every string sent, at any depth, is read as it was sent.
        prop_assert_eq!(&read.query, &expected.query);
        prop_assert_eq!(&read.tags, &expected.tags);
        prop_assert_eq!(&read.notes, &expected.notes);
        prop_assert_eq!(
            read.inner.as_ref().map(|i| &i.label),
            expected.inner.as_ref().map(|i| &i.label)
        );
        // As many receipts as values slipped at the top of each repaired place: none when
        // nothing slipped.
        if Value::Object(sent.clone()) == right {
            prop_assert!(repairs.is_empty());
        } else {
            prop_assert!(!repairs.is_empty());
        }
    }

    #[test]
    fn a_string_field_is_never_changed(sent in text(), tag in text(), label in text()) {
        let call = json!({
            "query": sent, "limit": 1, "offset": 0, "weight": 0, "flag": false, "ids": [],
            "tags": [tag], "inner": {"count": 1, "label": label, "on": true},
            "counts": {}, "notes": {"a": sent},
        });
        let (read, repairs) =
            Every::validate_repairing(call.as_object().unwrap().clone(), Cx::new().repairing(true));
        let read = read.unwrap();
        prop_assert!(repairs.is_empty());
        prop_assert_eq!(&read.query, &sent);
        prop_assert_eq!(&read.tags, &vec![tag]);
        prop_assert_eq!(&read.inner.unwrap().label, &label);
        prop_assert_eq!(&read.notes["a"], &sent);
    }
}
