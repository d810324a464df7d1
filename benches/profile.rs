//! One path of the validation benchmarks run N times, for a profiler that counts instructions:
//!
//! ```sh
//! cargo bench --bench profile --no-run
//! valgrind --tool=callgrind --toggle-collect='*profile::run*' \
//!     target/release/deps/profile-HASH unknown_key 10000
//! ```
//!
//! The inputs are built before the timed loop, so with `--toggle-collect` the counts are those
//! of the calls alone; divide by N. Paths: `valid` (the `NewTask` call through guardrails),
//! `floor` (serde then the same guards by hand), `invalid` (the `NewTask` call with five
//! problems, rendered), `jsonschema_invalid` (the same call through `jsonschema`, messages
//! collected), `unknown_key` (the create-user call with a hallucinated key and four other
//! problems, rendered), `jsonschema_unknown_key` (the same call through `jsonschema`, instance
//! paths collected).

use std::hint::black_box;

use guardrails::RenderOptions;
use guardrails::ToolArgs as _;
use guardrails_tests::fixtures::NewTask;
use serde_json::Value;

mod setup {
    pub(crate) mod validation;
}
use setup::validation;

/// Runs `call` on each input: the function a profiler is pointed at.
#[inline(never)]
fn run<O>(inputs: Vec<Value>, call: impl Fn(Value) -> O) {
    for input in inputs {
        black_box(call(black_box(input)));
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let path = args.first().map_or("valid", String::as_str);
    let n: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let options = RenderOptions::default();
    let inputs = |make: fn() -> Value| (0..n).map(|_| make()).collect::<Vec<_>>();
    match path {
        "valid" => run(inputs(validation::valid), |v| {
            NewTask::validate_value(v).unwrap()
        }),
        "floor" => run(inputs(validation::valid), validation::serde_then_guards),
        "invalid" => run(inputs(validation::invalid), |v| {
            validation::rendered_report(v, &options)
        }),
        "jsonschema_invalid" => {
            let validator = validation::jsonschema_validator();
            run(inputs(validation::invalid), |v| {
                validation::jsonschema_messages(&validator, &v)
            });
        }
        "unknown_key" => {
            let _ = validation::create_user_validator();
            run(inputs(validation::unknown_key), |v| {
                validation::rendered_create_user_report(v, &options)
            });
        }
        "jsonschema_unknown_key" => {
            let validator = validation::create_user_validator();
            run(inputs(validation::unknown_key), |v| {
                validation::jsonschema_instance_paths(&validator, &v)
            });
        }
        other => panic!(
            "unknown path {other}: valid, floor, invalid, jsonschema_invalid, unknown_key, \
             jsonschema_unknown_key"
        ),
    }
}
