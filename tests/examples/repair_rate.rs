//! The repair rate over every example tool (the task tracker's and `create-user`): each value
//! of a tool's valid example that is not a string, at any depth, sent as a string (a number
//! as written and, for an integer, as `"N.0"`; a boolean as `"true"`; an array or an object as
//! its JSON), with and without repair, and the round trips each slip costs. Run with
//! `--nocapture` to see the figures.

use guardrails::{GuardConfig, RepairPolicy, Server};
use guardrails_tests::{create_user, task_tracker};
use serde_json::Value;

/// Every slip of `value`: the JSON pointer of each value that is not a string or `null`, and
/// the strings it may be sent as.
fn slips(value: &Value, pointer: &str, out: &mut Vec<(String, Value)>) {
    match value {
        Value::String(_) | Value::Null => return,
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                slips(item, &format!("{pointer}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                slips(item, &format!("{pointer}/{key}"), out);
            }
        }
        Value::Bool(_) | Value::Number(_) => {}
    }
    if pointer.is_empty() {
        return;
    }
    out.push((pointer.to_owned(), Value::String(value.to_string())));
    if let Some(int) = value.as_i64() {
        out.push((pointer.to_owned(), Value::String(format!("{int}.0"))));
    }
}

/// `part` of `whole`, in percent.
fn percent(part: usize, whole: usize) -> f64 {
    let count = |n: usize| f64::from(u32::try_from(n).expect("a count of calls"));
    100.0 * count(part) / count(whole)
}

/// What the calls of one tool came to.
#[derive(Default)]
struct Tally {
    slips: usize,
    passed_strict: usize,
    repaired: usize,
    /// The calls still rejected with repair on.
    kept: Vec<String>,
}

/// Whether `out` is a rejection of the arguments (not a handler's error).
fn rejected(out: &guardrails::CallOutput) -> bool {
    out.report
        .as_ref()
        .is_some_and(|report| report["error"]["type"] == "validation")
}

async fn tally<S: Send + Sync + 'static>(
    strict: &Server<S>,
    lenient: &Server<S>,
) -> Vec<(String, bool, Tally)> {
    let mut out = Vec::new();
    for spec in strict.specs() {
        let example = spec.example().clone();
        let destructive = guardrails_tests::testing::entry(&spec.contract())["annotations"]["destructive"]
            == true;
        let mut found = Vec::new();
        slips(&example, "", &mut found);
        let mut tally = Tally::default();
        for (pointer, sent) in found {
            let mut call = example.clone();
            *call.pointer_mut(&pointer).unwrap() = sent;
            tally.slips += 1;
            let strict_out = strict.call(spec.name(), call.clone()).await.unwrap();
            if !rejected(&strict_out) {
                tally.passed_strict += 1;
            }
            let lenient_out = lenient.call(spec.name(), call.clone()).await.unwrap();
            if rejected(&lenient_out) {
                tally.kept.push(format!("{call} → {}", lenient_out.text[0]));
            } else {
                tally.repaired += 1;
                assert!(lenient_out.repairs.is_some(), "{}: {call}", spec.name());
            }
        }
        out.push((spec.name().to_owned(), destructive, tally));
    }
    out
}

#[tokio::test]
async fn every_slip_of_every_example_tool_is_repaired_where_declared() {
    let mut rows = tally(
        &task_tracker::server(50),
        &task_tracker::server(50).config(task_tracker::guards().repair(RepairPolicy::On)),
    )
    .await;
    let users = Server::new(()).tool(create_user::create_user);
    let lenient = users
        .clone()
        .config(GuardConfig::new().repair(RepairPolicy::On));
    rows.extend(tally(&users, &lenient).await);
    let (mut slips, mut repaired, mut destructive_slips) = (0, 0, 0);
    println!(
        "tool              slips  strict: accepted  repair on: accepted  round trips off → on"
    );
    for (tool, destructive, t) in &rows {
        // Strict, no slip gets through; repairing, every one does, but on a destructive tool.
        assert_eq!(t.passed_strict, 0, "{tool}");
        if *destructive {
            assert_eq!(t.repaired, 0, "{tool}");
            destructive_slips += t.slips;
        } else {
            assert_eq!(t.repaired, t.slips, "{tool}: {:#?}", t.kept);
        }
        slips += t.slips;
        repaired += t.repaired;
        // A slip costs a rejection and the corrected call; repaired, the one call.
        let off = 2 * t.slips;
        let on = 2 * t.slips - t.repaired;
        println!(
            "{tool:<17} {:>5}  {:>16}  {:>19}  {off:>9} → {on}{}",
            t.slips,
            t.passed_strict,
            t.repaired,
            if *destructive {
                " (destructive: not repaired)"
            } else {
                ""
            }
        );
    }
    println!(
        "all {} tools: {slips} slips, {repaired} repaired ({:.1}%; {:.1}% of the {} on tools not destructive); round trips {} → {}",
        rows.len(),
        percent(repaired, slips),
        percent(repaired, slips - destructive_slips),
        slips - destructive_slips,
        2 * slips,
        2 * slips - repaired,
    );
    assert!(
        slips > 20,
        "the examples hold too few values to slip: {slips}"
    );
}
