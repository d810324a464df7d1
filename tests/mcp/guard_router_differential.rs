//! The router guard against serde, on native argument types of every shape serde gives real
//! tools (nested structs, enums tagged every way, flattened enums and maps, a recursive enum,
//! tuples, maps, `Option`s and `Option<Option<_>>`, a `serde_json::Value`, an untagged variant
//! beside a unit one, chrono and uuid fields, integers of every width), checked against the
//! schema rmcp advertises for them, as `guard_router` checks a call:
//!
//! - every value serde writes is a call serde reads back, and the guard never refuses it (with
//!   string formats asserted or not);
//! - every value serde refuses (an overflow, a wrong type, a missing field, an unknown tag or
//!   variant, an integer written as a float, anywhere in the tree) is refused by the guard,
//!   with an issue at the field that was broken (or the enclosing field, when the broken value
//!   is a whole variant).
//!
//! Reproducible: a failing case is saved in `guard_router_differential.proptest-regressions`
//! and replayed first; CI fixes the seed with `PROPTEST_RNG_SEED`. Every property holds for
//! every generated case, so no run fails by chance.

use std::collections::BTreeMap;

use guardrails::profile::SchemaProfile;
use guardrails::validation::{SchemaArgs, SchemaOptions};
use proptest::prelude::*;
use rmcp::handler::server::common::schema_for_type;
use rmcp::schemars;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
struct Circle {
    radius: f64,
}

/// Internally tagged: a newtype, a struct and a unit variant.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Shape {
    Circle(Circle),
    Rect { width: u16, height: u16 },
    Dot,
}

/// Externally tagged and recursive.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Expr {
    Num(i32),
    Add(Vec<Expr>),
    Neg(Box<Expr>),
    Zero,
}

/// Adjacently tagged.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "t", content = "c", rename_all = "lowercase")]
enum Step {
    Wait(u16),
    Jump { dx: i8, dy: i8 },
}

/// Untagged.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum Size {
    Points(u32),
    Named { label: String },
}

/// A unit variant beside an untagged one that reads its name too.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
enum Mode {
    Auto,
    #[serde(untagged)]
    Named(String),
}

/// Flattened into the arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
enum Filter {
    Owner { owner: String },
    Serial { serial: u64 },
}

/// A struct with a flattened map of the keys it does not name.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
struct Meta {
    level: u8,
    #[serde(flatten)]
    extra: BTreeMap<String, u32>,
}

/// A struct with a flattened enum, behind an `Option`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
struct Pick {
    weight: u8,
    #[serde(flatten)]
    filter: Filter,
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
struct Inner {
    code: i16,
    note: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
struct Args {
    shape: Shape,
    expr: Expr,
    steps: Vec<Step>,
    size: Option<Size>,
    #[serde(flatten)]
    filter: Filter,
    slot: (u8, String),
    when: chrono::DateTime<chrono::Utc>,
    id: uuid::Uuid,
    tally: BTreeMap<String, i64>,
    meta: Meta,
    inner: Vec<Inner>,
    maybe: Option<Inner>,
    pick: Option<Pick>,
    mode: Mode,
    data: Value,
    #[expect(
        clippy::option_option,
        reason = "a partial update's field: absent, null or a value"
    )]
    patch: Option<Option<u8>>,
    count: i32,
    big: u64,
    small: usize,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (-1e9..1e9_f64).prop_map(|radius| Shape::Circle(Circle { radius })),
        (any::<u16>(), any::<u16>()).prop_map(|(width, height)| Shape::Rect { width, height }),
        Just(Shape::Dot),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![any::<i32>().prop_map(Expr::Num), Just(Expr::Zero)];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Expr::Add),
            inner.prop_map(|e| Expr::Neg(Box::new(e))),
        ]
    })
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<u16>().prop_map(Step::Wait),
        (any::<i8>(), any::<i8>()).prop_map(|(dx, dy)| Step::Jump { dx, dy }),
    ]
}

fn size() -> impl Strategy<Value = Size> {
    prop_oneof![
        any::<u32>().prop_map(Size::Points),
        "[a-z ]{0,8}".prop_map(|label| Size::Named { label }),
    ]
}

fn filter() -> impl Strategy<Value = Filter> {
    prop_oneof![
        "[a-z]{1,8}".prop_map(|owner| Filter::Owner { owner }),
        any::<u64>().prop_map(|serial| Filter::Serial { serial }),
    ]
}

/// Any small JSON value, for a field of type `serde_json::Value`.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z]{0,4}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn inner() -> impl Strategy<Value = Inner> {
    (any::<i16>(), prop::option::of("[a-z]{0,6}")).prop_map(|(code, note)| Inner { code, note })
}

fn args() -> impl Strategy<Value = Args> {
    let first = (
        shape(),
        expr(),
        prop::collection::vec(step(), 0..3),
        prop::option::of(size()),
        filter(),
        (any::<u8>(), "[a-z]{0,5}"),
        (0_i64..4_000_000_000, 0_u32..1_000_000_000),
        any::<u128>(),
    );
    let second = (
        prop::collection::btree_map("[a-z]{1,4}", any::<i64>(), 0..3),
        (
            any::<u8>(),
            prop::collection::btree_map("x_[a-z]{1,4}", any::<u32>(), 0..3),
        ),
        prop::collection::vec(inner(), 0..3),
        (
            prop::option::of(inner()),
            prop::option::of((any::<u8>(), filter())),
        ),
        (
            any::<i32>(),
            prop_oneof![Just(Mode::Auto), "Auto|[a-z]{0,6}".prop_map(Mode::Named)],
        ),
        (
            any::<u64>(),
            json_value(),
            prop::option::of(prop::option::of(any::<u8>())),
        ),
        any::<usize>(),
    );
    (first, second).prop_map(
        |(
            (shape, expr, steps, size, filter, slot, (secs, nanos), id),
            (tally, (level, extra), inner, (maybe, pick), (count, mode), (big, data, patch), small),
        )| Args {
            shape,
            expr,
            steps,
            size,
            filter,
            slot,
            when: chrono::DateTime::from_timestamp(secs, nanos).unwrap_or_default(),
            id: uuid::Uuid::from_u128(id),
            tally,
            meta: Meta { level, extra },
            inner,
            maybe,
            pick: pick.map(|(weight, filter)| Pick { weight, filter }),
            mode,
            data,
            patch,
            count,
            big,
            small,
        },
    )
}

thread_local! {
    static GUARDS: [SchemaArgs; 2] = {
        let schema = schema_for_type::<Args>();
        [
            SchemaArgs::new(&schema).expect("the schema compiles"),
            SchemaArgs::with_options(&schema, SchemaOptions::new().assert_formats(true))
                .expect("the schema compiles"),
        ]
    };
}

/// A way to break a valid value that serde refuses, and the path of the field broken.
#[derive(Debug, Clone)]
enum Break {
    /// An integer past its type's bounds.
    Overflow,
    /// A boolean where anything but a boolean is expected.
    WrongType,
    /// A required key removed from its object.
    Missing,
    /// A tag or variant that does not exist.
    UnknownVariant,
    /// An integer written as a float (`3.0`): JSON Schema counts it an integer, serde does not.
    WholeFloat,
}

/// The bounds of the integer at `path` (a guard path such as `expr.add[1].num`), from the
/// type that holds it.
fn integer_bounds(path: &str) -> Option<(i128, i128)> {
    let last = path.rsplit(['.', '[']).next().unwrap_or_default();
    let bounds = |min: i128, max: i128| Some((min, max));
    match last {
        "num" | "count" => bounds(i32::MIN.into(), i32::MAX.into()),
        "width" | "height" | "c" => bounds(0, u16::MAX.into()),
        "dx" | "dy" => bounds(i8::MIN.into(), i8::MAX.into()),
        "size" => bounds(0, u32::MAX.into()),
        "serial" | "big" => bounds(0, u64::MAX.into()),
        "small" => bounds(0, usize::MAX as i128),
        "level" | "weight" | "0]" => bounds(0, u8::MAX.into()),
        "code" => bounds(i16::MIN.into(), i16::MAX.into()),
        _ if path.starts_with("meta.x_") => bounds(0, u32::MAX.into()),
        _ if path.starts_with("tally.") => bounds(i64::MIN.into(), i64::MAX.into()),
        _ => None,
    }
}

/// Every place of `value` with its guard path (`a.b[0].c`) and JSON pointer.
fn places(value: &Value, path: &str, pointer: &str, out: &mut Vec<(String, String)>) {
    out.push((path.to_owned(), pointer.to_owned()));
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                places(v, &p, &format!("{pointer}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                places(v, &format!("{path}[{i}]"), &format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Keys whose removal serde refuses: the required fields of each type (not `Option`s, not
/// the flattened map's keys).
const REQUIRED: &[&str] = &[
    "shape", "expr", "steps", "by", "slot", "when", "id", "tally", "meta", "count", "big", "small",
    "type", "radius", "width", "height", "t", "dx", "dy", "owner", "serial", "level", "code",
    "label",
];

/// The tags of the tagged enums, and the keys of the externally tagged one.
fn breaks_a_tag(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or_default();
    matches!(last, "type" | "t" | "by")
}

/// `value` broken at one place `pick` chooses; the path of the broken field, or `None` when
/// this kind of break has no place in this value.
fn break_value(value: &mut Value, how: &Break, pick: prop::sample::Index) -> Option<String> {
    let mut all = Vec::new();
    places(value, "", "", &mut all);
    let candidates: Vec<(String, String)> = all
        .into_iter()
        .filter(|(path, pointer)| {
            let here = value.pointer(pointer).unwrap_or(&Value::Null);
            match how {
                Break::Overflow | Break::WholeFloat => {
                    here.is_i64() || here.is_u64() && integer_bounds(path).is_some()
                }
                Break::WrongType => !path.is_empty() && !here.is_boolean() && !here.is_null(),
                Break::Missing => {
                    let key = path.rsplit('.').next().unwrap_or_default();
                    REQUIRED.contains(&key) && !key.ends_with(']')
                }
                Break::UnknownVariant => {
                    breaks_a_tag(path)
                        || path.ends_with("expr")
                        || (path.starts_with("expr") && here == "zero")
                        || {
                            // An externally tagged variant with data, anywhere in the expression.
                            here.as_object().is_some_and(|o| {
                                o.len() == 1
                                    && o.keys()
                                        .all(|k| ["num", "add", "neg"].contains(&k.as_str()))
                            })
                        }
                }
            }
        })
        .filter(|(path, _)| {
            !matches!(how, Break::Overflow | Break::WholeFloat) || integer_bounds(path).is_some()
        })
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let (path, pointer) = candidates[pick.index(candidates.len())].clone();
    match how {
        Break::Overflow => {
            let (_, max) = integer_bounds(&path)?;
            let over = u64::try_from(max + 1).map_or(json!(-1), |n| json!(n));
            // Past the top of every type narrower than u64; u64 and usize go below zero.
            *value.pointer_mut(&pointer)? = if max >= i128::from(u64::MAX) {
                json!(-1)
            } else {
                over
            };
        }
        Break::WholeFloat => {
            let here = value.pointer_mut(&pointer)?;
            #[expect(
                clippy::cast_precision_loss,
                reason = "any float is refused, near or not"
            )]
            let float = here
                .as_i64()
                .map(|n| n as f64)
                .or_else(|| here.as_u64().map(|n| n as f64))?;
            *here = json!(float);
        }
        Break::WrongType => *value.pointer_mut(&pointer)? = json!(true),
        Break::Missing => {
            let (parent, key) = pointer.rsplit_once('/')?;
            value.pointer_mut(parent)?.as_object_mut()?.remove(key)?;
        }
        Break::UnknownVariant => {
            let here = value.pointer_mut(&pointer)?;
            match here {
                Value::String(_) => *here = json!("no_such_variant"),
                Value::Object(map) if map.len() == 1 => {
                    let (_, inner) = map.iter().next()?;
                    let inner = inner.clone();
                    map.clear();
                    map.insert("no_such_variant".to_owned(), inner);
                }
                _ => return None,
            }
        }
    }
    Some(path)
}

/// Whether `a` is `b` or a field that holds it (`expr.add` holds `expr.add[0].num`).
fn same_or_enclosing(a: &str, b: &str) -> bool {
    a == b
        || (b.starts_with(a)
            && (a.is_empty() || b[a.len()..].starts_with('.') || b[a.len()..].starts_with('[')))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn what_serde_writes_the_guard_never_refuses(args in args()) {
        let value = serde_json::to_value(&args).unwrap();
        prop_assert!(serde_json::from_value::<Args>(value.clone()).is_ok(), "{value}");
        GUARDS.with(|guards| {
            for guard in guards {
                if let Err(report) = guard.check(&value) {
                    return Err(TestCaseError::fail(format!("{value}\nrefused: {report}")));
                }
            }
            Ok(())
        })?;
    }

    #[test]
    fn what_serde_refuses_the_guard_refuses_at_the_same_field(
        args in args(),
        how in prop_oneof![
            Just(Break::Overflow),
            Just(Break::WrongType),
            Just(Break::Missing),
            Just(Break::UnknownVariant),
            Just(Break::WholeFloat),
        ],
        pick in any::<prop::sample::Index>(),
    ) {
        let mut value = serde_json::to_value(&args).unwrap();
        let Some(broken) = break_value(&mut value, &how, pick) else {
            return Ok(());
        };
        // Only what serde refuses is asked of the guard: an untagged enum may read a broken
        // value as another of its variants.
        prop_assume!(serde_json::from_value::<Args>(value.clone()).is_err());
        GUARDS.with(|guards| {
            for guard in guards {
                let Err(report) = guard.check(&value) else {
                    return Err(TestCaseError::fail(format!("{how:?} at {broken}: {value} passed")));
                };
                // The field itself, a field inside it, or the field that holds it; never the
                // arguments as a whole.
                let named = report.issues().iter().any(|issue| {
                    !issue.path.is_empty()
                        && (same_or_enclosing(&issue.path, &broken)
                            || same_or_enclosing(&broken, &issue.path))
                });
                if !named {
                    return Err(TestCaseError::fail(format!(
                        "{how:?} at {broken} not named: {value}\n{report}"
                    )));
                }
            }
            Ok(())
        })?;
    }
}

/// The largest integer a JSON number holds exactly.
const MAX_SAFE: u64 = (1 << 53) - 1;

/// `value` with every integer past what a JSON number holds exactly brought within it, keeping
/// its sign: the portable schema clamps the bounds of `u64` and `i64` fields there.
fn within_safe(value: &mut Value) {
    match value {
        Value::Number(n) => {
            if let Some(i) = n.as_i64().filter(|i| i.unsigned_abs() > MAX_SAFE) {
                *value = json!(i % MAX_SAFE.cast_signed());
            } else if let Some(u) = n.as_u64().filter(|u| *u > MAX_SAFE) {
                *value = json!(u % MAX_SAFE);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(within_safe),
        Value::Object(map) => map.values_mut().for_each(within_safe),
        _ => {}
    }
}

thread_local! {
    /// The schema the router guard advertises for `Args` (the portable form of the strict
    /// schema it checks), compiled as a validating consumer compiles it.
    static PORTABLE: jsonschema::Validator = {
        let strict = SchemaArgs::new(&schema_for_type::<Args>()).expect("the schema compiles");
        let portable = SchemaProfile::Portable.advertise(strict.schema());
        jsonschema::validator_for(&Value::Object(portable)).expect("the portable schema compiles")
    };
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn what_serde_writes_the_advertised_portable_schema_accepts(args in args()) {
        let mut value = serde_json::to_value(&args).unwrap();
        within_safe(&mut value);
        prop_assume!(serde_json::from_value::<Args>(value.clone()).is_ok());
        PORTABLE.with(|portable| {
            let errors: Vec<String> = portable.iter_errors(&value).map(|e| e.to_string()).collect();
            prop_assert!(errors.is_empty(), "{value}\n{errors:#?}");
            Ok(())
        })?;
    }

    #[test]
    fn an_unknown_key_the_guard_refuses_the_portable_schema_refuses(
        args in args(),
        place in prop_oneof![Just("/"), Just("/shape"), Just("/inner/0"), Just("/maybe"), Just("/pick")],
    ) {
        let mut value = serde_json::to_value(&args).unwrap();
        within_safe(&mut value);
        let target = if place == "/" { Some(&mut value) } else { value.pointer_mut(place) };
        let Some(Value::Object(object)) = target else {
            return Ok(());
        };
        object.insert("zz_not_a_field".into(), json!(1));
        GUARDS.with(|guards| {
            prop_assert!(guards[0].check(&value).is_err(), "the guard accepts {value}");
            Ok(())
        })?;
        PORTABLE.with(|portable| {
            prop_assert!(!portable.is_valid(&value), "the portable schema accepts {value}");
            Ok(())
        })?;
    }
}
