//! The advertised JSON Schema and the validator never disagree: for thousands of generated and
//! mutated inputs per type, the validator accepts what the `jsonschema` crate accepts under
//! the schema, and rejects what it rejects. One difference is by design: a `custom` check or
//! a `policy` guard judges what no JSON Schema can express (no deliveries on New Year's Day,
//! no invented figures), so it may reject a value the schema accepts; nothing else may.
//!
//! Reproducible: a failing case is saved in `schema_agreement.proptest-regressions` (kept in
//! the repository) and replayed first on every run; CI fixes the seed with
//! `PROPTEST_RNG_SEED`, so it never fails by chance.

use guardrails::{IssueCode, ToolArgs};
use guardrails_tests::fixtures::{
    Address, CreateUser, Everything, ListTasks, OrderLine, PlaceOrder, Schedule,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn interesting_numbers() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(2),
        json!(3),
        json!(5),
        json!(8),
        json!(17),
        json!(18),
        json!(19),
        json!(120),
        json!(121),
        json!(127),
        json!(128),
        json!(-128),
        json!(-129),
        json!(255),
        json!(256),
        json!(999),
        json!(1000),
        json!(1001),
        json!(-1000),
        json!(-1001),
        json!(4_294_967_295_u64),
        json!(4_294_967_296_u64),
        json!(i64::MAX),
        json!(i64::MIN),
        json!(u64::MAX),
        json!(0.0),
        json!(-0.0),
        json!(0.25),
        json!(0.5),
        json!(0.3),
        json!(0.1),
        json!(1.0),
        json!(2.0),
        json!(3.0),
        json!(1.5),
        json!(-0.5),
        json!(0.999_999),
        json!(1e30),
        json!(-1e30),
        json!(3.5e38),
        json!(3.4e38),
        json!(100_000.0),
        json!(100_000.25),
        json!(99_999.75),
        json!(1e-300),
        json!(18.0),
    ]
}

fn interesting_strings() -> Vec<Value> {
    [
        "",
        "a",
        "ab",
        "abc",
        "john_doe",
        "John Doe",
        "xxxxxxxxxxxxxxxxxxxxx",
        "xxxxxxxxxxxxxxxxxxxx",
        "user@example.com",
        "not-an-email",
        "a@b",
        "https://example.com",
        "not a url",
        "a:b",
        "123e4567-e89b-12d3-a456-426614174000",
        "123e4567e89b12d3a456426614174000",
        "2024-01-31",
        "2024-02-30",
        "2024-02-29",
        "2023-02-29",
        "2024-01-01",
        "2024-01-31T12:00:00Z",
        "2024-01-31 12:00:00",
        "admin",
        "superadmin",
        "guest",
        "EUR",
        "USD",
        "XXX",
        "ABC-1234",
        "abc-1234",
        "ABC-12345",
        "US",
        "usa",
        "U",
        "todo",
        "in_progress",
        "InProgress",
        "done",
        "日本語",
        "ééé",
        "𝄞𝄞",
        " ",
        "  x  ",
        "null",
        "1",
        "true",
    ]
    .into_iter()
    .map(Value::from)
    .collect()
}

/// A JSON value built from interesting pieces, random strings and numbers, and small
/// containers of them.
fn arb_value(samples: Vec<Value>) -> impl Strategy<Value = Value> {
    let mut pool = interesting_numbers();
    pool.extend(interesting_strings());
    pool.extend(samples);
    pool.extend([Value::Null, json!(true), json!(false), json!({}), json!([])]);
    let leaf = prop_oneof![
        4 => proptest::sample::select(pool),
        1 => "[a-zA-Z0-9_@.:/ -]{0,24}".prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f).map(Value::Number)),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z_]{1,8}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Replace(usize, Value),
    Remove(usize),
    Add(usize, String, Value),
    Duplicate(usize),
}

/// Every path (as a list of steps) to a value inside `root`.
fn paths(root: &Value) -> Vec<Vec<Step>> {
    fn walk(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        out.push(here.clone());
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    here.push(Step::Key(k.clone()));
                    walk(child, here, out);
                    here.pop();
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    here.push(Step::Index(i));
                    walk(child, here, out);
                    here.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), &mut out);
    out
}

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn at<'a>(root: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut cur = root;
    for step in path {
        cur = match (step, cur) {
            (Step::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn apply(mut value: Value, mutations: &[Mutation]) -> Value {
    for m in mutations {
        let all = paths(&value);
        let pick = |i: usize| all[i % all.len()].clone();
        match m {
            Mutation::Replace(i, new) => {
                if let Some(slot) = at(&mut value, &pick(*i)) {
                    *slot = new.clone();
                }
            }
            Mutation::Remove(i) => {
                let path = pick(*i);
                if let Some((last, parent)) = path.split_last()
                    && let Some(parent) = at(&mut value, parent)
                {
                    match (last, parent) {
                        (Step::Key(k), Value::Object(m)) => {
                            m.remove(k);
                        }
                        (Step::Index(i), Value::Array(a)) if *i < a.len() => {
                            a.remove(*i);
                        }
                        _ => {}
                    }
                }
            }
            Mutation::Add(i, key, new) => {
                if let Some(Value::Object(m)) = at(&mut value, &pick(*i)) {
                    m.insert(key.clone(), new.clone());
                }
            }
            Mutation::Duplicate(i) => {
                if let Some(Value::Array(a)) = at(&mut value, &pick(*i))
                    && let Some(first) = a.first().cloned()
                {
                    a.push(first);
                }
            }
        }
    }
    value
}

fn arb_mutations(samples: Vec<Value>, keys: Vec<String>) -> impl Strategy<Value = Vec<Mutation>> {
    let key = prop_oneof![proptest::sample::select(keys), "[a-z_]{1,10}"];
    let m = prop_oneof![
        4 => (any::<usize>(), arb_value(samples.clone())).prop_map(|(i, v)| Mutation::Replace(i, v)),
        2 => any::<usize>().prop_map(Mutation::Remove),
        1 => (any::<usize>(), key, arb_value(samples)).prop_map(|(i, k, v)| Mutation::Add(i, k, v)),
        1 => any::<usize>().prop_map(Mutation::Duplicate),
    ];
    proptest::collection::vec(m, 0..4)
}

fn field_names<T: ToolArgs>() -> Vec<String> {
    let schema = serde_json::to_value(T::schema()).unwrap();
    let mut out: Vec<String> = schema["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    out.extend(["streetLine", "street_line", "unknown", "sku", "quantity"].map(String::from));
    // The tags, variant names and variant fields of `Schedule`'s enums.
    out.extend(
        [
            "kind", "weekly", "daily", "count", "via", "to", "rename", "archive", "id", "name",
            "urgency", "level", "reason",
        ]
        .map(String::from),
    );
    out
}

fn check_agreement<T: ToolArgs + std::fmt::Debug>(cases: u32) {
    let schema = serde_json::to_value(T::schema()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles");
    let samples = vec![
        T::example().clone(),
        OrderLine::example().clone(),
        Address::example().clone(),
        json!(["a", "b"]),
        json!([1, 2, 3]),
        json!([[1, 2], [3]]),
        json!({"k": "v"}),
        // Variants of `Schedule`'s enums, so that mutations swap one for another.
        json!({"kind": "daily", "until": "2026-02-30"}),
        json!({"kind": "monthly", "day": 28}),
        json!({"kind": "never"}),
        json!({"via": "Nobody"}),
        json!({"via": "Email", "to": {"address": "a@b.co"}}),
        json!("archive"),
        json!({"archive": null}),
        json!({"move": {"to": 3}}),
        json!({"name": "ada", "team": "web"}),
        json!("high"),
        json!("low"),
        json!("Email"),
        json!({"address": "a@b.co"}),
    ];
    // The default persistence: failures are saved next to this file and replayed first.
    let config = ProptestConfig::with_cases(cases);
    let accepted = std::cell::Cell::new(0u32);
    let rejected = std::cell::Cell::new(0u32);
    proptest!(config, |(mutations in arb_mutations(samples.clone(), field_names::<T>()))| {
        let input = apply(T::example().clone(), &mutations);
        let ours = T::validate_value(input.clone());
        let theirs = validator.is_valid(&input);
        let counter = if theirs { &accepted } else { &rejected };
        counter.set(counter.get() + 1);
        let agree = match (&ours, theirs) {
            (Ok(_), true) | (Err(_), false) => true,
            (Ok(_), false) => false,
            // Only a guard the schema cannot express may reject what the schema accepts.
            (Err(report), true) => report
                .issues()
                .iter()
                .all(|issue| matches!(issue.code, IssueCode::Custom | IssueCode::Policy)),
        };
        prop_assert!(
            agree,
            "disagreement on {}: validator says {:?}, schema errors {:?}",
            input,
            ours.as_ref().err().map(ToString::to_string),
            validator.iter_errors(&input).map(|e| e.to_string()).collect::<Vec<_>>()
        );
    });
    // Both sides of the boundary must be exercised for the agreement to mean anything.
    let (yes, no) = (accepted.get(), rejected.get());
    eprintln!(
        "{}: {yes} accepted, {no} rejected",
        std::any::type_name::<T>()
    );
    assert!(
        yes * 10 >= cases && no * 10 >= cases,
        "{yes} accepted and {no} rejected of {cases}"
    );
}

#[test]
fn create_user_agrees() {
    check_agreement::<CreateUser>(3000);
}

#[test]
fn place_order_agrees() {
    check_agreement::<PlaceOrder>(3000);
}

/// The case that made the old claim ("exactly what the schema accepts") fail by chance: a
/// valid date that the type's `custom` check refuses.
#[test]
fn a_custom_check_may_refuse_what_the_schema_accepts() {
    let schema = serde_json::to_value(PlaceOrder::schema()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let mut input = PlaceOrder::example().clone();
    input["deliver_on"] = json!("2024-01-01");
    assert!(
        validator.is_valid(&input),
        "the schema accepts a valid date"
    );
    let report = PlaceOrder::validate_value(input).unwrap_err();
    assert!(
        report.issues().iter().all(|i| i.code == IssueCode::Custom),
        "{report}"
    );
}

#[test]
fn list_tasks_agrees() {
    check_agreement::<ListTasks>(3000);
}

#[test]
fn everything_agrees() {
    check_agreement::<Everything>(4000);
}

#[test]
fn address_agrees() {
    check_agreement::<Address>(2000);
}

/// Inputs that are not objects at all.
#[test]
fn non_objects_agree() {
    let schema = serde_json::to_value(CreateUser::schema()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for input in [
        Value::Null,
        json!(1),
        json!("x"),
        json!([]),
        json!(true),
        Value::Object(Map::new()),
    ] {
        assert_eq!(
            CreateUser::validate_value(input.clone()).is_ok(),
            validator.is_valid(&input),
            "{input}"
        );
    }
}

/// Enums with data in every representation, a flattened struct and flattened enums: the closed
/// `oneOf` (or untagged `anyOf`), the merged properties and the flattened variants closed by
/// `unevaluatedProperties` accept exactly what the validator accepts.
#[test]
fn enums_with_data_agree() {
    check_agreement::<Schedule>(4000);
}
