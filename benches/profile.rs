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
//! paths collected), `guard_router` (a valid `create_note` call on the router `guard_router`
//! returns, the notes server's), `rmcp_router` (the same call on the router rmcp built),
//! `schema_check_then_rmcp` (the strict schema's `is_valid`, then the call on rmcp's router),
//! `telemetry_on` (a valid `create-user` call on a `Server` with a subscriber and a recorder
//! installed), `telemetry_off` (the same call with neither) and `instruments` (the span and the
//! histogram of one call by hand, with no call, under the subscriber and the recorder of
//! `telemetry_on`).

use std::hint::black_box;

use guardrails::RenderOptions;
use guardrails::ToolArgs as _;
use guardrails_tests::fixtures::NewTask;
use serde_json::Value;

mod setup {
    pub(crate) mod guard_router;
    pub(crate) mod telemetry;
    pub(crate) mod validation;
}
use setup::{guard_router, telemetry, validation};

/// Runs `call` on each input: the function a profiler is pointed at.
#[inline(never)]
fn run<I, O>(inputs: Vec<I>, call: impl Fn(I) -> O) {
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
        "repairing" => run(inputs(validation::valid), |v| {
            let Value::Object(map) = v else {
                unreachable!("the valid call is an object")
            };
            NewTask::validate_repairing(map, guardrails::validation::Cx::new().repairing(true))
                .0
                .unwrap()
        }),
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
        "guard_router" | "rmcp_router" => {
            let harness = guard_router::Harness::new();
            let guarded = path == "guard_router";
            let inputs = (0..n).map(|_| guard_router::arguments()).collect();
            run(inputs, |arguments| harness.call(guarded, arguments));
        }
        "schema_check_then_rmcp" => {
            let harness = guard_router::Harness::new();
            let inputs = (0..n).map(|_| guard_router::arguments()).collect();
            run(inputs, |arguments| harness.checked_call(arguments));
        }
        "telemetry_on" | "telemetry_off" => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("a runtime");
            let server = telemetry::server();
            telemetry::assert_succeeds(&runtime, &server);
            let inputs = (0..n).map(|_| telemetry::valid_call()).collect();
            let call = |arguments| runtime.block_on(server.call(telemetry::TOOL, arguments));
            if path == "telemetry_on" {
                // Installed as applications install theirs: the subscriber as the global
                // default (a static dispatch), the recorder as the thread's.
                tracing::dispatcher::set_global_default(tracing::Dispatch::new(
                    telemetry::Visiting::default(),
                ))
                .expect("the only subscriber");
                let recorder = telemetry::Registry::default();
                metrics::with_local_recorder(&recorder, || run(inputs, call));
            } else {
                run(inputs, call);
            }
        }
        "instruments" => {
            // The instruments of a call alone, installed as `telemetry_on` installs them.
            tracing::dispatcher::set_global_default(tracing::Dispatch::new(
                telemetry::Visiting::default(),
            ))
            .expect("the only subscriber");
            let recorder = telemetry::Registry::default();
            let instruments = telemetry::Instruments::new();
            metrics::with_local_recorder(&recorder, || {
                run(vec![(); n], |()| instruments.observe());
            });
        }
        other => panic!(
            "unknown path {other}: valid, floor, repairing, invalid, jsonschema_invalid, unknown_key, \
             jsonschema_unknown_key, guard_router, rmcp_router, schema_check_then_rmcp, \
             telemetry_on, telemetry_off, instruments"
        ),
    }
}
