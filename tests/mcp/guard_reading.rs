//! The handler's own reading decides values: tools under `#[guarded]` whose argument types read
//! more than their schemas say (`Lenient` in `tests/clients/serde_shapes_server.rs`: field and
//! variant aliases in every enum representation and in a flattened struct, a JSON string read
//! as the struct it holds, case-insensitive names in fields and in a map, a shorthand), driven
//! by rmcp's own client in process:
//!
//! - a call the schema refuses only for what the type decides, and that serde reads, reaches
//!   the tool, which gets it as sent, and the audit log's target counts it;
//! - a key serde drops (misspelt, of another variant, at the wrong level), a rule the schema
//!   declares (a title's length) and anything serde refuses are refused, coached as always.
//!
//! The property tests generate valid calls, apply mutations that serde reads and mistakes, and
//! hold the guard to serde: a call reaches the tool exactly when it holds no mistake and serde
//! reads it. Reproducible: the seed is fixed, or set with `PROPTEST_RNG_SEED` (as CI does).

use std::collections::BTreeMap;

use crate::serde_shapes_server::{
    Brush, Canvas, Color, DeployArgs, Edge, Fill, Finish, Host, Lenient, PaintArgs, Retry, Rollout,
    Stroke,
};
use guardrails::validation::SchemaArgs;
use guardrails_tests::client::{call, connect, text};
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestRunner};
use rmcp::model::CallToolResult;
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

async fn send(client: &Client, tool: &'static str, args: Value) -> CallToolResult {
    client.call_tool(call(tool, args)).await.expect("a result")
}

fn paint() -> Value {
    json!({
        "title": "dawn",
        "color": "red",
        "finish": "matte",
        "brush": {"kind": "round", "size": 3},
        "stroke": {"straight": {"length": 40}},
        "fill": {"t": "gradient", "c": {"from": "red", "to": "gray"}},
        "edge": {"style": "gloss", "width": 2},
        "canvas_width": 640,
        "canvas_height": 480,
        "layers": {"base": "matte"},
    })
}

fn deploy() -> Value {
    json!({
        "host": {"name": "web", "port": 443},
        "retry": {"count": 3, "backoff_ms": 250},
        "regions": {"eu": [{"name": "a", "port": 80}]},
        "strategy": "blue_green",
        "warmup_s": 30,
    })
}

/// `base` with the value at each pointer replaced, or the key removed where the value is
/// `None`; a key set in an object that does not have it is added.
fn edit(mut base: Value, edits: &[(&str, Option<Value>)]) -> Value {
    for (pointer, value) in edits {
        let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
        let object = base
            .pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .expect("an object");
        match value {
            Some(value) => {
                object.insert(key.to_owned(), value.clone());
            }
            None => {
                object.remove(key);
            }
        }
    }
    base
}

/// `base` with the key at `pointer` renamed `to`, its value kept.
fn rename(mut base: Value, pointer: &str, to: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
    let object = base
        .pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .expect("an object");
    let value = object.remove(key).expect("the key");
    object.insert(to.to_owned(), value);
    base
}

/// What serde reads of `args` as `T`, written back: what the tool echoes when it gets them.
fn read<T: serde::de::DeserializeOwned + serde::Serialize>(args: &Value) -> Option<String> {
    serde_json::from_value::<T>(args.clone())
        .ok()
        .map(|value| serde_json::to_string(&value).expect("written"))
}

#[tokio::test]
async fn what_the_type_reads_reaches_the_tool_as_sent() {
    let client = connect(Lenient).await;
    let paints = [
        rename(paint(), "/color", "colour"),
        edit(paint(), &[("/color", Some(json!("grey")))]),
        edit(paint(), &[("/finish", Some(json!("GLOSS")))]),
        edit(paint(), &[("/layers/base", Some(json!("Matte")))]),
        rename(paint(), "/brush/size", "radius"),
        edit(
            paint(),
            &[(
                "/brush",
                Some(json!({"kind": "flat", "width": 4, "finish": "Gloss"})),
            )],
        ),
        edit(
            paint(),
            &[("/stroke", Some(json!({"line": {"length": 2}})))],
        ),
        rename(paint(), "/fill/c/to", "until"),
        edit(
            paint(),
            &[("/fill", Some(json!({"t": "solid", "c": "grey"})))],
        ),
        edit(paint(), &[("/edge/style", Some(json!("MATTE")))]),
        rename(paint(), "/canvas_width", "w"),
    ];
    let tools = client.list_all_tools().await.expect("tools/list");
    let schema = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).expect("the tool");
        SchemaArgs::new(&tool.input_schema).expect("compiles")
    };
    let (paint_schema, deploy_schema) = (schema("paint"), schema("deploy-app"));
    for args in paints {
        assert!(
            paint_schema.check(&args).is_err(),
            "the schema takes {args}"
        );
        let result = send(&client, "paint", args.clone()).await;
        assert_ne!(result.is_error, Some(true), "{args}: {}", text(&result, 0));
        assert_eq!(
            Some(text(&result, 0).to_owned()),
            read::<PaintArgs>(&args),
            "{args}"
        );
    }
    let deploys = [
        edit(
            deploy(),
            &[("/host", Some(json!(r#"{"name": "web", "port": 443}"#)))],
        ),
        edit(deploy(), &[("/retry", Some(json!(5)))]),
        edit(deploy(), &[("/dry", Some(json!(true)))]),
        edit(deploy(), &[("/strategy", Some(json!("bluegreen")))]),
        rename(deploy(), "/warmup_s", "warm"),
    ];
    for args in deploys {
        assert!(
            deploy_schema.check(&args).is_err(),
            "the schema takes {args}"
        );
        let result = send(&client, "deploy-app", args.clone()).await;
        assert_ne!(result.is_error, Some(true), "{args}: {}", text(&result, 0));
        assert_eq!(
            Some(text(&result, 0).to_owned()),
            read::<DeployArgs>(&args),
            "{args}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn keys_serde_drops_and_declared_rules_are_still_refused() {
    let client = connect(Lenient).await;
    let refused = [
        // Keys serde drops: misspelt, of another variant, at the wrong level, beside a
        // flattened struct, in an untagged variant, in a shorthand's object.
        (
            "paint",
            edit(paint(), &[("/colr", Some(json!("red")))]),
            r#"<field name="colr" code="unknown_field">"#,
        ),
        (
            "paint",
            edit(paint(), &[("/brush/width", Some(json!(3)))]),
            r#"<field name="brush.width" code="unknown_field">"#,
        ),
        (
            "paint",
            edit(paint(), &[("/length", Some(json!(3)))]),
            r#"<field name="length" code="unknown_field">"#,
        ),
        (
            "paint",
            edit(paint(), &[("/edge/zzz", Some(json!(1)))]),
            r#"<field name="edge.zzz" code="unknown_field">"#,
        ),
        (
            "deploy-app",
            edit(deploy(), &[("/retry/backof_ms", Some(json!(1)))]),
            r#"<field name="retry.backof_ms" code="unknown_field">"#,
        ),
        (
            "deploy-app",
            edit(deploy(), &[("/port", Some(json!(80)))]),
            r#"<field name="port" code="unknown_field">"#,
        ),
        (
            "deploy-app",
            edit(deploy(), &[("/batch", Some(json!(2)))]),
            r#"<field name="batch" code="unknown_field">`batch` belongs to strategy `rolling`; you chose `blue_green`."#,
        ),
        // An alias beside the name it stands for: serde refuses the duplicate.
        (
            "paint",
            edit(paint(), &[("/colour", Some(json!("red")))]),
            r#"<field name="colour" code="unknown_field">"#,
        ),
        // A rule the schema declares, which serde does not check, with a case serde reads.
        (
            "paint",
            edit(
                paint(),
                &[
                    ("/title", Some(json!(""))),
                    ("/finish", Some(json!("GLOSS"))),
                ],
            ),
            r#"<field name="title" code="too_short">"#,
        ),
        // What serde refuses.
        (
            "paint",
            edit(paint(), &[("/finish", Some(json!("satin")))]),
            r#"<field name="finish" code="enum">"#,
        ),
        (
            "deploy-app",
            edit(deploy(), &[("/host", Some(json!("web:443")))]),
            r#"<field name="host" code="type">"#,
        ),
    ];
    for (tool, args, expected) in refused {
        let result = send(&client, tool, args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{args} reached the tool");
        let message = text(&result, 0);
        assert!(message.contains(expected), "{expected} not in {message}");
    }
    client.cancel().await.unwrap();
}

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::Red), Just(Color::Gray)]
}

fn finish() -> impl Strategy<Value = Finish> {
    prop_oneof![Just(Finish::Matte), Just(Finish::Gloss)]
}

fn paint_args() -> impl Strategy<Value = PaintArgs> {
    let brush = prop_oneof![
        any::<u8>().prop_map(|size| Brush::Round { size }),
        (any::<u8>(), finish()).prop_map(|(width, finish)| Brush::Wide { width, finish }),
    ];
    let stroke = prop_oneof![
        any::<u16>().prop_map(|length| Stroke::Straight { length }),
        any::<u8>().prop_map(Stroke::Dots),
        Just(Stroke::Blank),
    ];
    let fill = prop::option::of(prop_oneof![
        color().prop_map(Fill::Solid),
        (color(), color()).prop_map(|(from, to)| Fill::Gradient { from, to }),
    ]);
    let edge = prop_oneof![
        any::<u8>().prop_map(Edge::Width),
        (finish(), any::<u8>()).prop_map(|(style, width)| Edge::Styled { style, width }),
    ];
    let canvas = (any::<u16>(), any::<u16>()).prop_map(|(canvas_width, canvas_height)| Canvas {
        canvas_width,
        canvas_height,
    });
    (
        ("[a-z]{1,12}", color(), finish()),
        (brush, stroke, fill, edge),
        canvas,
        prop::collection::btree_map("[a-z]{1,4}", finish(), 0..3),
    )
        .prop_map(
            |((title, color, finish), (brush, stroke, fill, edge), canvas, layers)| PaintArgs {
                title,
                color,
                finish,
                brush,
                stroke,
                fill,
                edge,
                canvas,
                layers,
            },
        )
}

fn host() -> impl Strategy<Value = Host> {
    ("[a-z]{1,6}", any::<u16>()).prop_map(|(name, port)| Host { name, port })
}

fn deploy_args() -> impl Strategy<Value = DeployArgs> {
    let rollout = prop_oneof![
        any::<u8>().prop_map(|batch| Rollout::Rolling { batch }),
        any::<u16>().prop_map(|warmup_s| Rollout::BlueGreen { warmup_s }),
    ];
    (
        host(),
        (any::<u8>(), any::<u32>()).prop_map(|(count, backoff_ms)| Retry { count, backoff_ms }),
        prop::collection::btree_map("[a-z]{1,3}", prop::collection::vec(host(), 0..3), 0..3),
        prop::option::of(any::<bool>()),
        rollout,
    )
        .prop_map(|(host, retry, regions, dry_run, rollout)| DeployArgs {
            host,
            retry,
            regions,
            dry_run,
            rollout,
        })
}

/// A change to a call: one that serde reads (`mistake: false`), or a mistake the guard must
/// refuse whatever serde does with it.
struct Mutation {
    mistake: bool,
    apply: fn(&mut Value),
}

/// Renames `key` of the object at `pointer` to `to`, when it is there.
fn rename_at(call: &mut Value, pointer: &str, key: &str, to: &str) {
    if let Some(object) = call.pointer_mut(pointer).and_then(Value::as_object_mut)
        && let Some(value) = object.remove(key)
    {
        object.insert(to.to_owned(), value);
    }
}

/// Sets `key` of the object at `pointer`, when there is one.
fn set_at(call: &mut Value, pointer: &str, key: &str, value: Value) {
    if let Some(object) = call.pointer_mut(pointer).and_then(Value::as_object_mut) {
        object.insert(key.to_owned(), value);
    }
}

/// The string at `pointer` written in upper case, when there is one.
fn shout(call: &mut Value, pointer: &str) {
    if let Some(Value::String(text)) = call.pointer_mut(pointer) {
        *text = text.to_uppercase();
    }
}

fn paint_mutations() -> Vec<Mutation> {
    vec![
        // Read by serde.
        Mutation {
            mistake: false,
            apply: |c| rename_at(c, "", "color", "colour"),
        },
        Mutation {
            mistake: false,
            apply: |c| {
                for pointer in ["/color", "/fill/c", "/fill/c/from", "/fill/c/to"] {
                    if c.pointer(pointer) == Some(&json!("gray")) {
                        *c.pointer_mut(pointer).expect("there") = json!("grey");
                    }
                }
            },
        },
        Mutation {
            mistake: false,
            apply: |c| {
                for pointer in ["/finish", "/brush/finish", "/edge/style"] {
                    shout(c, pointer);
                }
                if let Some(layers) = c.pointer_mut("/layers").and_then(Value::as_object_mut) {
                    for value in layers.values_mut() {
                        if let Value::String(text) = value {
                            *text = text.to_uppercase();
                        }
                    }
                }
            },
        },
        Mutation {
            mistake: false,
            apply: |c| {
                if c.pointer("/brush/kind") == Some(&json!("wide")) {
                    set_at(c, "/brush", "kind", json!("flat"));
                }
                rename_at(c, "/brush", "size", "radius");
            },
        },
        Mutation {
            mistake: false,
            apply: |c| rename_at(c, "/stroke", "straight", "line"),
        },
        Mutation {
            mistake: false,
            apply: |c| rename_at(c, "/fill/c", "to", "until"),
        },
        Mutation {
            mistake: false,
            apply: |c| rename_at(c, "", "canvas_width", "w"),
        },
        // Mistakes.
        Mutation {
            mistake: true,
            apply: |c| set_at(c, "", "colr", json!("red")),
        },
        Mutation {
            mistake: true,
            apply: |c| set_at(c, "", "kind", json!("round")),
        },
        Mutation {
            mistake: true,
            apply: |c| set_at(c, "/brush", "zzz", json!(1)),
        },
        Mutation {
            mistake: true,
            apply: |c| {
                let other = if c.pointer("/brush/kind") == Some(&json!("round")) {
                    "width"
                } else {
                    "size"
                };
                set_at(c, "/brush", other, json!(1));
            },
        },
        Mutation {
            mistake: true,
            apply: |c| {
                if let Some(Value::Object(variant)) = c.pointer_mut("/stroke/straight") {
                    variant.insert("lenght".to_owned(), json!(1));
                } else {
                    set_at(c, "", "length", json!(1));
                }
            },
        },
        Mutation {
            mistake: true,
            apply: |c| set_at(c, "/edge", "colour", json!("red")),
        },
        Mutation {
            mistake: true,
            apply: |c| set_at(c, "", "title", json!("")),
        },
        Mutation {
            mistake: true,
            apply: |c| set_at(c, "", "canvas_height", json!("480")),
        },
    ]
}

fn deploy_mutations() -> Vec<Mutation> {
    vec![
        Mutation {
            mistake: false,
            apply: |c| {
                if let Some(host) = c.get("host").filter(|h| h.is_object()) {
                    let text = serde_json::to_string(host).expect("written");
                    c["host"] = Value::String(text);
                }
            },
        },
        Mutation {
            mistake: false,
            apply: |c| {
                if let Some(count) = c.pointer("/retry/count").cloned() {
                    c["retry"] = count;
                }
            },
        },
        Mutation {
            mistake: false,
            apply: |c| rename_at(c, "", "dry_run", "dry"),
        },
        Mutation {
            mistake: false,
            apply: |c| {
                if c.get("strategy") == Some(&json!("blue_green")) {
                    set_at(c, "", "strategy", json!("bluegreen"));
                }
                rename_at(c, "", "warmup_s", "warm");
            },
        },
        Mutation {
            mistake: true,
            apply: |c| {
                let other = if c.get("strategy") == Some(&json!("rolling")) {
                    "warmup_s"
                } else {
                    "batch"
                };
                set_at(c, "", other, json!(1));
            },
        },
        Mutation {
            mistake: true,
            apply: |c| set_at(c, "", "port", json!(80)),
        },
        Mutation {
            mistake: true,
            apply: |c| set_at(c, "/host", "hots", json!("x")),
        },
        Mutation {
            mistake: true,
            apply: |c| set_at(c, "/retry", "backof_ms", json!(1)),
        },
        Mutation {
            mistake: true,
            apply: |c| {
                if let Some(Value::Object(regions)) = c.get_mut("regions")
                    && let Some(Value::Array(hosts)) = regions.values_mut().next()
                    && let Some(Value::Object(first)) = hosts.first_mut()
                {
                    first.insert("prot".to_owned(), json!(1));
                } else {
                    set_at(c, "", "region", json!({}));
                }
            },
        },
        Mutation {
            mistake: true,
            apply: |c| {
                if let Some(Value::Object(regions)) = c.get_mut("regions")
                    && let Some(hosts) = regions.values_mut().next()
                {
                    *hosts = json!("a:80");
                } else {
                    set_at(c, "", "dry_run", json!("yes"));
                }
            },
        },
    ]
}

/// One generated call: `value` written, then each chosen mutation applied.
fn mutated(
    value: &impl serde::Serialize,
    mutations: &[Mutation],
    chosen: &[bool],
) -> (Value, bool) {
    let mut call = serde_json::to_value(value).expect("written");
    let mut mistaken = false;
    for (mutation, on) in mutations.iter().zip(chosen) {
        if *on {
            let before = call.clone();
            (mutation.apply)(&mut call);
            mistaken |= mutation.mistake && call != before;
        }
    }
    (call, mistaken)
}

/// What became of the generated calls of one tool.
#[derive(Debug, Default)]
struct Tally {
    /// Refused by the schema, read by serde, and reached the tool.
    taken: usize,
    /// Held a mistake, and were refused.
    mistakes: usize,
    cases: usize,
}

/// The advertised input schema of `tool`, as the guard checks it.
fn schema_of(runtime: &tokio::runtime::Runtime, client: &Client, tool: &str) -> SchemaArgs {
    let tools = runtime
        .block_on(client.list_all_tools())
        .expect("tools/list");
    let tool = tools.iter().find(|t| t.name == tool).expect("the tool");
    SchemaArgs::new(&tool.input_schema).expect("compiles")
}

/// Runs 256 generated calls of `tool` (values of `T`, then mutations chosen with probability
/// `p`) and holds the guard to serde on each: a call reaches the tool exactly when it holds no
/// mistake and serde reads it, and then as serde reads it.
fn hold_to_serde<T>(
    tool: &'static str,
    values: impl Strategy<Value = T>,
    mutations: &[Mutation],
    p: f64,
) -> Tally
where
    T: serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
{
    let (runtime, client) = runtime_and_client();
    let schema = schema_of(&runtime, &client, tool);
    let tally = std::cell::RefCell::new(Tally::default());
    let mut config = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(256)
    };
    // A fixed seed unless CI sets one.
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = RngSeed::Fixed(0x5eed_0035);
    }
    let mut runner = TestRunner::new(config);
    let strategy = (
        values,
        prop::collection::vec(prop::bool::weighted(p), mutations.len()),
    );
    let outcome = runner.run(&strategy, |(value, chosen)| {
        let (call, mistaken) = mutated(&value, mutations, &chosen);
        let serde = read::<T>(&call);
        if !mistaken {
            // What serde reads by construction: the oracle is not empty.
            prop_assert!(serde.is_some(), "serde refuses {call}");
        }
        let result = runtime.block_on(send(&client, tool, call.clone()));
        let reached = result.is_error != Some(true);
        prop_assert_eq!(
            reached,
            !mistaken && serde.is_some(),
            "{} {}: {}",
            tool,
            call,
            text(&result, 0)
        );
        if reached {
            prop_assert_eq!(Some(text(&result, 0).to_owned()), serde);
        }
        let mut tally = tally.borrow_mut();
        tally.cases += 1;
        tally.taken += usize::from(reached && schema.check(&call).is_err());
        tally.mistakes += usize::from(mistaken);
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    runtime.block_on(client.cancel()).expect("closed");
    let tally = tally.into_inner();
    eprintln!("{tool}: {tally:?}");
    tally
}

fn runtime_and_client() -> (tokio::runtime::Runtime, Client) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let client = runtime.block_on(connect(Lenient));
    (runtime, client)
}

#[test]
fn paint_calls_reach_the_tool_exactly_when_serde_reads_them_and_they_hold_no_mistake() {
    let tally = hold_to_serde("paint", paint_args(), &paint_mutations(), 0.15);
    // Both sides of the property were exercised.
    assert!(tally.taken > tally.cases / 10, "{tally:?}");
    assert!(tally.mistakes > tally.cases / 10, "{tally:?}");
}

#[test]
fn deploy_calls_reach_the_tool_exactly_when_serde_reads_them_and_they_hold_no_mistake() {
    let tally = hold_to_serde("deploy-app", deploy_args(), &deploy_mutations(), 0.25);
    assert!(tally.taken > tally.cases / 10, "{tally:?}");
    assert!(tally.mistakes > tally.cases / 10, "{tally:?}");
}

/// The layers map and the regions map read their keys as data: any key is a layer.
#[test]
fn map_keys_are_data() {
    let mut layers = BTreeMap::new();
    layers.insert("any key at all".to_owned(), Finish::Gloss);
    let args = PaintArgs {
        layers,
        ..serde_json::from_value(paint()).expect("valid")
    };
    assert!(read::<PaintArgs>(&serde_json::to_value(args).expect("written")).is_some());
}
