//! One coaching whichever way a tool declares its arguments: the same mistakes sent to a
//! derived tool (`#[derive(ToolArgs)]`) and to a native rmcp tool of the same shapes (schemars,
//! checked against the schema rmcp advertises, as `guard_router` and `#[guarded]` check it)
//! are answered with the same issues: the same codes, at the same paths, with the same fix
//! texts. Both validators are driven directly, and the native tool again as a `#[guarded]`
//! rmcp server serves it.
//!
//! The types are written once (`shapes!`) and derived both ways; the arguments, which flatten an
//! enum, are written out on each side (the derive's code for a flattened field is spanned at
//! the field's type, which a `macro_rules!` body keeps apart). Their fields are declared in
//! the order of their names: a schema's `properties` are a JSON object, kept in the order of
//! its keys, so a list of fields reads the same only then.
//!
//! The differences allowed are listed in [`DIFFERENCES`], each with why; the test checks that
//! each is still one, so that the list cannot outlive it.

use guardrails::validation::{Cx, SchemaArgs};
use guardrails::{Report, ToolArgs};
use rmcp::handler::server::common::schema_for_type;
use serde_json::{Value, json};

macro_rules! shapes {
    ($($derive:tt)*) => {
        #[derive(Debug, Deserialize, $($derive)*)]
        pub(crate) struct Repository {
            pub(crate) branch: String,
            pub(crate) name: String,
        }

        #[derive(Debug, Deserialize, $($derive)*)]
        pub(crate) struct Polygon {
            pub(crate) sides: u8,
        }

        /// Internally tagged, with a newtype variant.
        #[derive(Debug, Deserialize, $($derive)*)]
        #[serde(tag = "type", rename_all = "lowercase")]
        pub(crate) enum Shape {
            Circle { radius: f64 },
            Dot,
            Polygon(Polygon),
            Square { side: f64 },
        }

        /// Externally tagged, variants with data only.
        #[derive(Debug, Deserialize, $($derive)*)]
        #[serde(rename_all = "lowercase")]
        pub(crate) enum Action {
            Close { id: u32, reason: String },
            Create { title: String },
        }

        /// Externally tagged, a unit variant declared after one with data.
        #[derive(Debug, Deserialize, $($derive)*)]
        #[serde(rename_all = "lowercase")]
        pub(crate) enum Mode {
            Manual { speed: u8 },
            Auto,
        }

        /// Adjacently tagged.
        #[derive(Debug, Deserialize, $($derive)*)]
        #[serde(tag = "t", content = "c", rename_all = "lowercase")]
        pub(crate) enum Step {
            Jump { dx: i8, dy: i8 },
            Never,
            Wait { ms: u16 },
        }

        /// Untagged.
        #[derive(Debug, Deserialize, $($derive)*)]
        #[serde(untagged)]
        pub(crate) enum Size {
            Named { label: String },
            Points { points: u16 },
        }

        /// Flattened into the arguments.
        #[derive(Debug, Deserialize, $($derive)*)]
        #[serde(tag = "by", rename_all = "lowercase")]
        pub(crate) enum Target {
            Id { id: u64 },
            Name { name: String },
        }

        #[derive(Debug, Deserialize, $($derive)*)]
        pub(crate) struct Filter {
            pub(crate) search: Option<String>,
            pub(crate) status: Option<String>,
        }
    };
}

mod derived {
    #![allow(dead_code, reason = "only validated")]
    use guardrails::ToolArgs;
    use serde::Deserialize;
    shapes!(ToolArgs);

    #[derive(Debug, Deserialize, ToolArgs)]
    pub(crate) struct Args {
        pub(crate) action: Action,
        pub(crate) count: u8,
        pub(crate) filter: Option<Filter>,
        pub(crate) mode: Mode,
        pub(crate) repositories: Vec<Repository>,
        pub(crate) shape: Shape,
        pub(crate) size: Option<Size>,
        pub(crate) step: Option<Step>,
        #[serde(flatten)]
        pub(crate) target: Target,
    }
}

mod native {
    #![allow(dead_code, reason = "only read")]
    use rmcp::schemars;
    use serde::Deserialize;
    shapes!(schemars::JsonSchema);

    #[derive(Debug, Deserialize, schemars::JsonSchema)]
    pub(crate) struct Args {
        pub(crate) action: Action,
        pub(crate) count: u8,
        pub(crate) filter: Option<Filter>,
        pub(crate) mode: Mode,
        pub(crate) repositories: Vec<Repository>,
        pub(crate) shape: Shape,
        pub(crate) size: Option<Size>,
        pub(crate) step: Option<Step>,
        #[serde(flatten)]
        pub(crate) target: Target,
    }
}

/// A valid call, which both take.
fn valid() -> Value {
    json!({
        "action": {"create": {"title": "a"}},
        "count": 1,
        "mode": "auto",
        "repositories": [{"branch": "main", "name": "a"}],
        "shape": {"type": "dot"},
        "by": "id",
        "id": 7,
    })
}

/// `valid()` with the value at each pointer set (`Some`) or removed (`None`).
fn with(edits: &[(&str, Option<Value>)]) -> Value {
    let mut call = valid();
    for (pointer, value) in edits {
        let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
        let object = call
            .pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .expect("an object");
        match value {
            Some(value) => object.insert(key.to_owned(), value.clone()),
            None => object.remove(key),
        };
    }
    call
}

/// The mistakes, by name.
fn mistakes() -> Vec<(&'static str, Value)> {
    let mut all = misplaced();
    all.extend(externally_tagged());
    all.extend(tagged());
    all.extend(values());
    all
}

/// Fields at the wrong level.
fn misplaced() -> Vec<(&'static str, Value)> {
    vec![
        (
            "a field of each item beside the list",
            with(&[
                ("/repositories/0/branch", None),
                ("/branch", Some(json!("main"))),
            ]),
        ),
        (
            "a field of an optional object beside it",
            with(&[("/search", Some(json!("late")))]),
        ),
        (
            "a top-level field inside a nested object",
            with(&[("/count", None), ("/filter", Some(json!({"count": 1})))]),
        ),
        (
            "a near miss of a field elsewhere",
            with(&[("/serach", Some(json!("late")))]),
        ),
        (
            "a near miss here wins over a field elsewhere",
            with(&[("/repositores", Some(json!([])))]),
        ),
        (
            "a variant's field beside its enum",
            with(&[("/speed", Some(json!(3)))]),
        ),
    ]
}

/// Externally tagged enums.
fn externally_tagged() -> Vec<(&'static str, Value)> {
    vec![
        (
            "an empty object for an externally tagged enum",
            with(&[("/action", Some(json!({})))]),
        ),
        (
            "two variants at once",
            with(&[(
                "/action",
                Some(json!({"create": {"title": "a"}, "close": {"id": 1, "reason": "r"}})),
            )]),
        ),
        (
            "an extra key beside the variant's key",
            with(&[(
                "/action",
                Some(json!({"create": {"title": "a"}, "extra": 1})),
            )]),
        ),
        (
            "a misspelt variant",
            with(&[("/action", Some(json!({"creat": {"title": "a"}})))]),
        ),
        (
            "a variant with data named as a string",
            with(&[("/action", Some(json!("create")))]),
        ),
        (
            "an unknown key in a variant",
            with(&[("/action", Some(json!({"create": {"title": "a", "zz": 1}})))]),
        ),
        (
            "a wrong type in a variant",
            with(&[(
                "/action",
                Some(json!({"close": {"id": "x", "reason": "r"}})),
            )]),
        ),
        (
            "a missing field in a variant",
            with(&[("/action", Some(json!({"close": {"id": 1}})))]),
        ),
        (
            "a number for an externally tagged enum",
            with(&[("/action", Some(json!(3)))]),
        ),
        (
            "a unit variant with fields",
            with(&[("/mode", Some(json!({"auto": {"speed": 1}})))]),
        ),
        (
            "a misspelt unit variant",
            with(&[("/mode", Some(json!("auot")))]),
        ),
    ]
}

/// Internally, adjacently tagged and untagged enums.
fn tagged() -> Vec<(&'static str, Value)> {
    vec![
        (
            "an unknown key in a tagged variant",
            with(&[(
                "/shape",
                Some(json!({"type": "circle", "radius": 1.0, "zzz": 1})),
            )]),
        ),
        (
            "a near miss in a tagged variant",
            with(&[("/shape", Some(json!({"type": "circle", "radus": 1.0})))]),
        ),
        (
            "a field of another variant",
            with(&[(
                "/shape",
                Some(json!({"type": "circle", "radius": 1.0, "side": 2.0})),
            )]),
        ),
        (
            "a field of another variant beside a wrong value",
            with(&[(
                "/shape",
                Some(json!({"type": "circle", "radius": "x", "side": 2.0})),
            )]),
        ),
        (
            "a misspelt tag",
            with(&[("/shape", Some(json!({"type": "circel", "radius": 1.0})))]),
        ),
        (
            "a misspelt tag beside a field of another variant",
            with(&[("/shape", Some(json!({"type": "circel", "side": 1.0})))]),
        ),
        (
            "a missing tag",
            with(&[("/shape", Some(json!({"radius": 1.0})))]),
        ),
        (
            "a tag that is not a string",
            with(&[("/shape", Some(json!({"type": 3})))]),
        ),
        (
            "a newtype variant's field of the wrong type",
            with(&[("/shape", Some(json!({"type": "polygon", "sides": "x"})))]),
        ),
        (
            "a string for an internally tagged enum",
            with(&[("/shape", Some(json!("circle")))]),
        ),
        // Adjacently tagged.
        (
            "an unknown key in the content",
            with(&[("/step", Some(json!({"t": "wait", "c": {"ms": 1, "zz": 2}})))]),
        ),
        (
            "a field of another variant in the content",
            with(&[("/step", Some(json!({"t": "wait", "c": {"ms": 1, "dx": 2}})))]),
        ),
        (
            "a missing content",
            with(&[("/step", Some(json!({"t": "jump"})))]),
        ),
        (
            "a content for a unit variant",
            with(&[("/step", Some(json!({"t": "never", "c": {"ms": 1}})))]),
        ),
        (
            "a key beside the tag and the content",
            with(&[("/step", Some(json!({"t": "wait", "c": {"ms": 1}, "tt": 1})))]),
        ),
        (
            "a misspelt adjacent tag",
            with(&[("/step", Some(json!({"t": "wiat", "c": {"ms": 1}})))]),
        ),
        // Flattened and internally tagged.
        ("a flattened enum's missing tag", with(&[("/by", None)])),
        (
            "a flattened enum's misspelt tag",
            with(&[("/by", Some(json!("idd")))]),
        ),
        (
            "a flattened enum's field of another variant",
            with(&[("/name", Some(json!("ada")))]),
        ),
        (
            "a flattened enum's unknown key",
            with(&[("/zzz", Some(json!(1)))]),
        ),
        (
            "a near miss of a flattened variant's field",
            with(&[("/id", None), ("/idd", Some(json!(7)))]),
        ),
        // Untagged.
        (
            "an untagged value that fits no variant",
            with(&[("/size", Some(json!({"label": 3})))]),
        ),
        (
            "a number for an optional enum",
            with(&[("/step", Some(json!(3)))]),
        ),
    ]
}

/// Values and missing fields.
fn values() -> Vec<(&'static str, Value)> {
    vec![
        (
            "a string for a number",
            with(&[("/count", Some(json!("3")))]),
        ),
        ("an overflow", with(&[("/count", Some(json!(300)))])),
        ("a missing field", with(&[("/count", None)])),
        ("a missing enum", with(&[("/shape", None)])),
        (
            "a missing field in an item",
            with(&[("/repositories/0/name", None)]),
        ),
        (
            "an object for a list",
            with(&[("/repositories", Some(json!({"branch": "main"})))]),
        ),
    ]
}

/// The differences allowed, by mistake, and why each is one.
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "a misspelt unit variant",
        "the schema lists the unit variants before the variants with data (schemars writes \
         them as one `enum` branch first), so the list of variants is in another order",
    ),
    (
        "a misspelt tag beside a field of another variant",
        "for a misspelt tag, the schema path also names at once the keys that belong to another \
         variant than the one the tag was meant for (`side` is the square's, the tag meant \
         the circle), where the derive names the tag alone",
    ),
];

/// The issues of a report, as compared: code, path and fix text, in path order.
fn issues(report: &Report) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = report
        .issues()
        .iter()
        .map(|issue| {
            (
                issue.path.to_string(),
                issue.code.to_string(),
                issue.fix.as_deref().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

fn native_args() -> SchemaArgs {
    SchemaArgs::new(&schema_for_type::<native::Args>()).expect("compiles")
}

#[test]
fn the_valid_call_passes_both() {
    assert!(derived::Args::validate_value(valid()).is_ok());
    assert!(native_args().check(&valid()).is_ok());
    assert!(serde_json::from_value::<native::Args>(valid()).is_ok());
}

#[test]
fn the_same_mistakes_get_the_same_codes_paths_and_fixes() {
    let native = native_args();
    let mut failures = Vec::new();
    for (name, call) in mistakes() {
        let derived = derived::Args::validate_value(call.clone())
            .err()
            .unwrap_or_else(|| panic!("{name}: the derive takes {call}"));
        let schema = native
            .check(&call)
            .err()
            .unwrap_or_else(|| panic!("{name}: the schema takes {call}"));
        let (d, n) = (issues(&derived), issues(&schema));
        let allowed = DIFFERENCES.iter().any(|(case, _)| *case == name);
        if allowed || d != n {
            eprintln!("{name}: {call}\n  derived: {d:?}\n  native:  {n:?}");
        }
        if allowed && d == n {
            failures.push(format!("{name} is listed as a difference, and is none"));
        } else if !allowed && d != n {
            failures.push(format!(
                "{name}: {call}\n  derived: {d:#?}\n  native:  {n:#?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Slips whose meaning is not in doubt (a number sent as a string), in each representation.
fn slips() -> Vec<(&'static str, Value)> {
    vec![
        ("at the top", with(&[("/count", Some(json!("3")))])),
        (
            "in an internally tagged variant",
            with(&[("/shape", Some(json!({"type": "circle", "radius": "2.5"})))]),
        ),
        (
            "in a newtype variant",
            with(&[("/shape", Some(json!({"type": "polygon", "sides": "6"})))]),
        ),
        (
            "in an externally tagged variant",
            with(&[(
                "/action",
                Some(json!({"close": {"id": "7", "reason": "r"}})),
            )]),
        ),
        (
            "in an optional adjacently tagged variant",
            with(&[("/step", Some(json!({"t": "wait", "c": {"ms": "5"}})))]),
        ),
        ("in a flattened variant", with(&[("/id", Some(json!("8")))])),
        (
            "a tagged value sent whole as a string",
            with(&[(
                "/shape",
                Some(json!(r#"{"type": "circle", "radius": 1.5}"#)),
            )]),
        ),
        (
            "in an untagged variant, which is not repaired",
            with(&[("/size", Some(json!({"points": "3"})))]),
        ),
    ]
}

#[test]
fn the_same_slips_are_repaired_in_every_representation() {
    let native = native_args();
    for (name, call) in slips() {
        let Value::Object(object) = call.clone() else {
            unreachable!("an object");
        };
        let (read, derived) = derived::Args::validate_repairing(object, Cx::new().repairing(true));
        let repaired = native.repair(&call);
        let d: Vec<(String, String)> = derived
            .iter()
            .map(|r| (r.path.clone(), r.message()))
            .collect();
        let n: Vec<(String, String)> = repaired
            .iter()
            .flat_map(|(_, made)| made)
            .map(|r| (r.path.clone(), r.message()))
            .collect();
        // Repaired, the call is valid on both sides, or on neither.
        let fixed_is_valid = repaired
            .as_ref()
            .is_some_and(|(fixed, _)| native.check(fixed).is_ok());
        assert_eq!(read.is_ok(), fixed_is_valid, "{name}: {call}");
        if name.ends_with("not repaired") {
            // The one difference: the derive notes a repair in the untagged variant closest to
            // the value, though it refuses the call all the same (it has no variant it fits);
            // the schema path repairs nothing there.
            assert!(read.is_err() && n.is_empty(), "{name}: {d:?} {n:?}");
            continue;
        }
        assert_eq!(d, n, "{name}: {call}");
        assert!(!d.is_empty(), "{name}: nothing repaired");
    }
}

/// The native tool, served by rmcp under `#[guarded]`.
#[derive(Clone)]
struct Native;

#[guardrails::guarded]
#[rmcp::tool_router(server_handler)]
impl Native {
    #[rmcp::tool(description = "Takes every shape")]
    #[allow(clippy::unused_self, reason = "rmcp tools are methods")]
    fn parity(
        &self,
        rmcp::handler::server::wrapper::Parameters(_args): rmcp::handler::server::wrapper::Parameters<
            native::Args,
        >,
    ) -> String {
        "taken".to_owned()
    }
}

#[tokio::test]
async fn the_guarded_native_tool_says_what_the_derive_says() {
    let client = guardrails_tests::client::connect(Native).await;
    for (name, call) in mistakes() {
        if DIFFERENCES.iter().any(|(case, _)| *case == name) {
            continue;
        }
        let report = derived::Args::validate_value(call.clone()).expect_err("refused");
        let result = client
            .call_tool(guardrails_tests::client::call("parity", call.clone()))
            .await
            .expect("a result");
        assert_eq!(result.is_error, Some(true), "{name}: reached the tool");
        let text = guardrails_tests::client::text(&result, 0);
        for issue in report.issues() {
            let field = format!(r#"<field name="{}" code="{}">"#, issue.path, issue.code);
            assert!(text.contains(&field), "{name}: {field} not in {text}");
            let fix = issue.fix.as_deref().unwrap_or_default();
            assert!(text.contains(fix), "{name}: {fix} not in {text}");
        }
        assert!(
            text.contains(&format!(r#"issues="{}""#, report.len())),
            "{name}: {text}"
        );
    }
    client.cancel().await.expect("closed");
}
