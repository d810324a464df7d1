//! exploration
#![allow(dead_code)]
use guardrails::ToolArgs;
use guardrails::validation::SchemaArgs;
use rmcp::handler::server::common::schema_for_type;
use rmcp::schemars;
use serde::Deserialize;
use serde_json::{Value, json};

macro_rules! shapes {
    ($($derive:tt)*) => {
#[derive(Debug, Deserialize, $($derive)*)]
struct Repository {
    name: String,
    branch: String,
}

#[derive(Debug, Deserialize, $($derive)*)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
    Dot,
}

#[derive(Debug, Deserialize, $($derive)*)]
#[serde(rename_all = "lowercase")]
enum Action {
    Create { title: String },
    Close { id: u32, reason: String },
    Noop,
}

#[derive(Debug, Deserialize, $($derive)*)]
#[serde(tag = "t", content = "c", rename_all = "lowercase")]
enum Step {
    Wait { ms: u16 },
    Jump { dx: i8, dy: i8 },
}

#[derive(Debug, Deserialize, $($derive)*)]
struct Filter {
    search: Option<String>,
    status: Option<String>,
}

#[derive(Debug, Deserialize, $($derive)*)]
pub(crate) struct Args {
    repositories: Vec<Repository>,
    shape: Shape,
    action: Action,
    step: Option<Step>,
    filter: Option<Filter>,
    count: u8,
}

    };
}

mod derived {
    use guardrails::ToolArgs;
    use serde::Deserialize;
    shapes!(ToolArgs);
}

mod native {
    use rmcp::schemars;
    use serde::Deserialize;
    shapes!(schemars::JsonSchema);
}

fn base() -> Value {
    json!({"repositories": [{"name": "a", "branch": "main"}], "shape": {"type": "dot"}, "action": "noop", "count": 1})
}

fn with(path: &[&str], v: Value) -> Value {
    let mut b = base();
    let mut at = &mut b;
    for p in &path[..path.len() - 1] {
        at = at.get_mut(*p).unwrap();
    }
    at.as_object_mut().unwrap().insert(path[path.len() - 1].to_string(), v);
    b
}

#[test]
fn explore() {
    let schema = schema_for_type::<native::Args>();
    let native = SchemaArgs::new(&schema).unwrap();
    let mut cases = vec![];
    let mut b = base();
    b["repositories"][0].as_object_mut().unwrap().remove("branch");
    b["branch"] = json!("main");
    cases.push(("misplaced", b));
    cases.push(("empty external", with(&["action"], json!({}))));
    cases.push(("two keys external", with(&["action"], json!({"create": {"title": "x"}, "close": {"id": 1, "reason": "r"}}))));
    cases.push(("extra beside variant key", with(&["action"], json!({"create": {"title": "x"}, "extra": 1}))));
    cases.push(("unknown in tagged", with(&["shape"], json!({"type": "circle", "radius": 1.0, "zzz": 1}))));
    cases.push(("near miss in tagged", with(&["shape"], json!({"type": "circle", "radus": 1.0}))));
    cases.push(("foreign in tagged", with(&["shape"], json!({"type": "circle", "radius": 1.0, "side": 2}))));
    cases.push(("misspelt tag", with(&["shape"], json!({"type": "circel", "radius": 1.0}))));
    cases.push(("missing tag", with(&["shape"], json!({"radius": 1.0}))));
    cases.push(("unknown variant ext", with(&["action"], json!({"creat": {"title": "x"}}))));
    cases.push(("unknown unit ext", with(&["action"], json!("nop"))));
    cases.push(("unknown in ext variant", with(&["action"], json!({"create": {"title": "x", "zz": 1}}))));
    cases.push(("wrong type in ext variant", with(&["action"], json!({"close": {"id": "x", "reason": "r"}}))));
    cases.push(("adjacent unknown", with(&["step"], json!({"t": "wait", "c": {"ms": 1, "zz": 2}}))));
    cases.push(("adjacent foreign", with(&["step"], json!({"t": "wait", "c": {"ms": 1, "dx": 2}}))));
    cases.push(("adjacent missing c", with(&["step"], json!({"t": "jump"}))));
    cases.push(("search beside filter", with(&["search"], json!("x"))));
    cases.push(("count string", with(&["count"], json!("3"))));
    cases.push(("count overflow", with(&["count"], json!(300))));
    cases.push(("missing count", { let mut b = base(); b.as_object_mut().unwrap().remove("count"); b }));
    for (name, call) in cases {
        let derived = derived::Args::validate_value(call.clone());
        let n = native.check(&call);
        println!("=== {name}: {call}");
        match derived { Ok(_) => println!("  DERIVED ok"), Err(r) => for i in r.issues() { println!("  D {} [{}] {} | fix: {:?}", i.path, i.code, i.message, i.fix) } }
        match n { Ok(_) => println!("  NATIVE ok"), Err(r) => for i in r.issues() { println!("  N {} [{}] {} | fix: {:?}", i.path, i.code, i.message, i.fix) } }
    }
}
