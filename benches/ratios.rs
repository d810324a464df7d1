//! Every speed target of guardrails, as a ratio against its baseline measured in the same run.
//!
//! `cargo bench --bench ratios` (or `cargo bench --bench ratios -- NAME…` for some of them).
//!
//! On a shared machine, two runs measured one after the other see different loads. Here the
//! two sides of each ratio are measured interleaved: round after round, a batch of one side
//! then a batch of the other (which goes first alternates), each batch long enough for the
//! clock. The ratio is the median of the per-round ratios, so a load that comes and goes
//! touches both sides of the rounds it falls in, and the median drops the rounds it spoiled.
//! Batches are timed in the thread's CPU time (on Unix): a batch preempted by another process
//! is not charged for the time that process ran.
//!
//! Each ratio prints one line, `RATIO <name> <value> <target>`, met when `value <= target`;
//! then a table for people, and under it reference ratios without a target (the same baseline
//! against a subject that skips the work being measured: how far a ratio could go). The
//! criterion benches (`validation`, `policy`, `pipeline`, `presenter`, `contract`) measure the
//! same pairs, and more, in detail.
//!
//! # Notes
//!
//! Instructions per call, counted by callgrind (`cargo bench --bench profile -- PATH 1000` under
//! `valgrind --tool=callgrind --toggle-collect='*profile::run*'`, divided by 1,000; see
//! `benches/profile.rs`), before and after the places and did-you-mean names of a type were
//! found once per type:
//!
//! | path | before | after |
//! |---|---|---|
//! | `valid` (`NewTask`, the valid path) | 5,335 | 5,368 |
//! | `floor` (serde, then the guards by hand) | 4,650 | 4,658 |
//! | `unknown_key` (create-user, unknown key and four problems, rendered) | 57,685 | 33,793 |
//! | `jsonschema_unknown_key` (the same call, instance paths) | 12,723 | 12,688 |
//!
//! The rest of the unknown-key path is the invalid path's own: issues worded, the report
//! rendered and escaped, their allocations (`invalid`, the `NewTask` call with five problems
//! and no unknown key, is 29,105). On a loaded 2-core machine (load average 7 to 9) the ratios read
//! `invalid_unknown_key_vs_jsonschema` 5.01 before, 4.01 after; `valid_vs_floor` 1.06 and 1.11
//! (the valid path did not change: that is the noise); `guard_router_vs_rmcp` 1.17.
//!
//! Then before and after an unknown key's texts were worded once per type (the fix that lists
//! the fields, an enum's allowed values), its path built once, the did-you-mean run on the stack
//! and skipped with no candidate, the report given room for eight issues at its first (growing
//! it moved it through the allocator's slowest path), numbers written without the formatting
//! machinery and texts escaped eight bytes at a time (`profile` paths, 2,000 calls):
//!
//! | path | before | after |
//! |---|---|---|
//! | `unknown_key` | 33,956 | 25,248 |
//! | `invalid` | 28,687 | 23,909 |
//! | `jsonschema_unknown_key` | 12,642 | 13,539 |
//! | `valid` | 5,062 | 5,062 |
//!
//! `jsonschema_unknown_key` runs no code of guardrails in the counted loop: its change most
//! likely comes from the heap its setup (which validates the call once) leaves behind. What is left of `unknown_key` is mostly the report itself: five issues of five
//! strings each (the `Issue` fields), allocated, freed and escaped as they are rendered
//! (the allocator about 7,600 against 9,900 before, escaping 4,600 against 6,200, the
//! did-you-mean 1,100 against 2,400). Allocations per call went from 52 and three moves to 46
//! and none. `invalid_unknown_key_vs_jsonschema` reads 3.05, 3.05 and 3.01 after (three runs,
//! load average 3.4 to 4.5): short of its target of 1.5.
//!
//! The operations layer (telemetry, the loop breaker, rate limits) on a valid call, per call,
//! before and after its metrics keys and span name were built once per tool and the loop
//! breaker's digest became a keyed hash walk (`profile` paths of the same names, 2,000 calls):
//!
//! | path | before | after |
//! |---|---|---|
//! | `guard_router` (`create_note` on the guarded router) | 16,096 | 14,986 |
//! | `rmcp_router` (the same call on rmcp's router) | 12,040 | 12,040 |
//! | `telemetry_off` (create-user on a `Server`, nothing installed) | 25,841 | 16,424 |
//! | `telemetry_on` (the same, a subscriber and a recorder installed) | 28,227 | 18,039 |
//!
//! What is left of `guard_router` over rmcp is mostly the schema check itself (`jsonschema`'s
//! `is_valid`, 1,650 instructions for this schema); of telemetry, the recorder's two lookups and
//! the span's eight attributes.
//!
//! Then, after the clock was read only where a histogram records a duration (not at all without
//! a recorder), the router guard asked who calls only for a rate limit, a pending repair or a
//! rejection, a valid native call became one hand-written future in the call's span (no async
//! block instrumented with a clone of the span), the server polled a tool's future in the span
//! it keeps, and the loop breaker digested sorted keys in one pass (same paths, 2,000 calls,
//! both columns measured the same day; `rmcp_router` runs no code of guardrails, its change is
//! the binary's):
//!
//! | path | before | after |
//! |---|---|---|
//! | `guard_router` | 15,157 | 14,632 |
//! | `rmcp_router` | 11,855 | 11,988 |
//! | `telemetry_off` | 16,676 | 16,278 |
//! | `telemetry_on` | 18,290 | 17,910 |
//!
//! `guard_router` over rmcp is now 2,644 instructions: the schema check 1,761 (`jsonschema`'s
//! `is_valid`, whose `required` and `additionalProperties` walks of the arguments' `BTreeMap`
//! are most of it), the rest the guard's future, its allocation and the moves of the response.
//! `telemetry_on` over `telemetry_off` is 1,632: about 985 in the bench's recorder (the
//! standard library's hash of each key, the key compared, a mutex, an `Arc` allocated per
//! histogram registration) and 460 in the subscriber's span (its attributes visited, enter,
//! exit, close); guardrails' own part is the clock read for the histogram and its two calls
//! into the recorder, about 200. The server still digests every call's arguments for the loop
//! breaker (1,192 instructions of `telemetry_off`), because the derived pipeline consumes them;
//! the router guard digests only rejected calls. On the loaded 2-core machine (load average 4 to 6), interleaved runs of the
//! binaries before and after read `guard_router_vs_rmcp` 1.406 and 1.342 before, 1.293, 1.295,
//! 1.296, 1.346, 1.387 and 1.377 after; `telemetry_on_vs_off` 1.115 and 1.122 before, 1.145,
//! 1.160, 1.159, 1.148, 1.143 and 1.139 after: the ratio rose because its baseline, the call
//! without telemetry, lost more (its clock read, part of the digest) than the call with it.
//!
//! The valid path, before and after the items of a list that cannot have an issue (strings,
//! booleans, integers in range) were read without building their places, a clean repairing
//! call stopped building a report, the per-field reader was inlined into generated code, the
//! scalar readers became inlinable across crates, an integer in range skipped the checks that
//! word its issues and the spare path buffer was taken only when a pass descends (`profile`
//! paths, 20,000 calls):
//!
//! | path | before | after |
//! |---|---|---|
//! | `valid` | 4,754 | 4,185 |
//! | `repairing` (the same call, a repairing context) | 4,862 | 4,223 |
//! | `floor` | 3,999 | 3,998 |
//!
//! A repairing context costs a valid call 0.9 % (2.3 % before), the guarded call 1.047 times
//! the floor in instructions (1.19 before). The telemetry ratio's recorder then became
//! `metrics_util`'s registry, which exporters use, in place of the bench's own (a mutex over a
//! standard-hasher map, an `Arc` per histogram registration): `telemetry_on` 16,822 against
//! `telemetry_off` 15,690 (2,000 calls), 1.072, where the bench's registry read 1.100 (17,910
//! against 16,278, before the valid-path changes above); what is
//! left is the registry's key comparisons (about 340), the subscriber's span (about 460) and
//! the clock read and two calls into the recorder. One whole run after all of it (load average
//! 3 to 4): `valid_vs_serde` 1.108, `valid_vs_floor` 1.032, `repair_unneeded` 1.025 (1.001 and
//! 1.004 in two runs of the valid-path ratios alone), `invalid_unknown_key_vs_jsonschema` 3.359 (24,836 against
//! 12,642 instructions: the allocations of the report's strings weigh more in time than in
//! instructions), `guard_router_vs_rmcp` 1.260, `telemetry_on_vs_off` 1.128.
//!
//! Telemetry, before and after a call stopped recording a call counter beside its duration
//! histogram (whose count is the calls by tool and outcome: one lookup in the recorder instead
//! of two), then after the subscriber of `telemetry_on` was installed as the global default
//! instead of a scoped `Dispatch` (`profile` paths, 2,000 calls):
//!
//! | path | before | one lookup | global subscriber |
//! |---|---|---|---|
//! | `telemetry_off` | 15,690 | 15,685 | 15,673 |
//! | `telemetry_on` | 16,822 | 16,570 | 16,524 |
//! | on over off | 1.072 | 1.056 | 1.054 |
//!
//! A scoped dispatch is an `Arc`: each span clones it and drops the clone, and the ratio's
//! per-call scope does too, four atomic operations per call that an application (whose
//! subscriber is global, a static dispatch) and the baseline (`Dispatch::none()`, static too)
//! never pay (an uncontended atomic add takes 14 to 17 ns on this machine, timed alone).
//! What is left of the 851 instructions: the subscriber's span
//! about 440 (five attributes visited at about 60 each, its enter, exit and close), the
//! registry's lookup of the histogram's key about 255 (the hash checked, the name and two
//! labels compared), the clock read and its conversion to seconds about 100. In time it is
//! dearer than in instructions: the clock read (45 ns here, a virtual machine's clock) and
//! eleven atomic operations (six in the subscriber, five in the registry: its read lock, the
//! handle's `Arc`, the add). A handle kept per tool would spare the lookup, but `metrics` gives
//! no way to tell the recorder that registered it from a later one at the same address (a
//! local recorder on a reused stack frame), so a kept handle could record into a recorder
//! already replaced; the span's constant attributes (`otel.kind`, `mcp.method.name`,
//! `gen_ai.operation.name`) are what the conventions ask of every span. `telemetry_on_vs_off`
//! read 1.124, 1.105 and 1.120 with one lookup (load average 4.2 to 5.3), then 1.100, 1.083 and
//! 1.094 with the global subscriber (load average 5.3 to 5.5): short of its target of 1.05.
//!
//! Then, before and after each field's guards became a constant of the generated code, checked
//! inline where the field declares them (the general check of `Constraints`, which words the
//! issues, now runs only on a value that fails them), the context's drop tested its path buffer
//! inline and an unknown-key list that never filled was no longer dropped (`profile` paths,
//! 20,000 calls, both columns measured the same day):
//!
//! | path | before | after |
//! |---|---|---|
//! | `valid` | 4,185 | 3,805 |
//! | `repairing` | 4,223 | 3,843 |
//! | `floor` | 3,998 | 3,998 |
//!
//! Through the general check, the guards of a valid `NewTask` call cost, beyond the pattern and
//! the date format themselves, 50 instructions for the title's length, 46 and 47 around the
//! pattern and the format, 128 for a priority of 1 to 5 and 72 around the labels' length check
//! and duplicate search; inline, the length and the range are a few compares. The guarded call
//! is now 0.952 times the floor in instructions (1.047 before), a repairing context 1.0 % more
//! than a plain one. Five runs of `cargo bench --bench ratios -- valid_vs_floor valid_vs_serde
//! repair_unneeded` after, on the shared 2-core machine: at load average 4.2 to 4.7,
//! `valid_vs_floor` 0.915, 0.961 and 1.046 (quartiles of the last 0.982 to 1.110: the noise of
//! the load), `valid_vs_serde` 0.987, 0.910 and 0.998, `repair_unneeded` 0.983, 0.959 and
//! 0.977; at 2.1 to 2.4, `valid_vs_floor` 0.958 and 0.944, `valid_vs_serde` 0.916 and 0.994,
//! `repair_unneeded` 1.008 and 1.000.
//!
//! Then the unknown-key path, before and after an issue's texts became `Cow`s, borrowed where
//! the declaration fixes them (a field's fix, a top-level field's path, an enum's, a format's
//! and a bound's texts, each worded once), places were told apart without a `memcmp` call per
//! comparison, escaping tested a word without branching, a derived type's example was known by
//! its address, and each thread remembered the declared tables it looked up (`profile` paths,
//! 20,000 calls, with the valid-path changes above merged):
//!
//! | path | before | after |
//! |---|---|---|
//! | `unknown_key` | 24,238 | 19,554 |
//! | `invalid` | 23,909 | 17,615 |
//! | `jsonschema_unknown_key` | 12,642 | 12,654 |
//!
//! Allocations per unknown-key call went from 41 to 24 (`jsonschema`'s call makes 32). The time
//! ratio moved much more than the instructions did, and callgrind could not show why: perf's
//! samples (`perf record -e cpu-clock --call-graph dwarf` on the `profile` binary) put a quarter
//! to a third of the
//! rejection in glibc's `memcmp`, whose AVX-512 variant this machine's CPU gets (callgrind runs
//! another, and counts those calls as little). They came from `misplaced::find` comparing each
//! place's container with the key's own, mostly two empty strings. After that, the lock of the
//! declared tables (two atomic operations per lookup, a dozen lookups per rejection) was a tenth
//! of the time. `invalid_unknown_key_vs_jsonschema`, load average about 2: 3.14 before the
//! `memcmp` calls went, 1.61 after, 1.53 once the example was known by address, 1.490, 1.491
//! and 1.491 with the per-thread tables, and 1.500 in a whole run of every ratio (target 1.5).
//! The same whole run: `valid_vs_floor` 0.931, `valid_vs_serde` 1.034, `repair_unneeded` 1.025
//! (quartiles 1.004 to 1.052), `guard_router_vs_rmcp` 1.290, `telemetry_on_vs_off` 1.095.
//!
//! Then `jsonschema` went from 0.60 to 0.61, whose fused check of `required` and
//! `additionalProperties: false` and compiled patterns make the strict schema's `is_valid` on a
//! valid `create_note` call 1,137 instructions instead of 1,734 (`guard_router` 14,569 before,
//! 14,277 after; `rmcp_router` 11,988 and 11,998; `jsonschema_unknown_key` 12,654 and 12,591,
//! so the unknown-key ratio's baseline did not move; `profile` paths, 20,000 calls).
//! `guard_router_vs_rmcp` read 1.260 and 1.224 after (1.290 before).
//!
//! Two references show how far the two ratios still short of their targets could go:
//! - `schema_check_then_rmcp_vs_rmcp`: rmcp's call after the strict schema's `is_valid` alone,
//!   with nothing of the guard around it, reads 1.100 (quartiles 1.076 to 1.123), 12,904
//!   instructions against rmcp's 11,998 (`profile` path `schema_check_then_rmcp`). The check the
//!   guard exists to make takes the whole of the 10 % that `guard_router_vs_rmcp`'s target
//!   allows; the guard's own part (its span, the boxed future that completes the result, the
//!   moves of the call's context) is 1,373 instructions more, of which about 260 are the tool's
//!   own serialization taking glibc's slower `realloc` path with the guard's one allocation
//!   between its blocks.
//! - `instruments_alone_vs_off`: the span `tools/call` with the attributes the conventions ask
//!   for, entered once, and one record of the duration histogram under the same key, by hand
//!   and with no call, under the ratio's subscriber and recorder: 194 ns against the call's
//!   1.66 µs without telemetry (0.119), and 929 instructions (`profile` path `instruments`,
//!   2,000 calls) where the whole of what telemetry adds to a call is 848 (`telemetry_on`
//!   31,758,158 against `telemetry_off` 30,061,434). Guardrails adds nothing beyond the
//!   instruments, which alone cost more than `telemetry_on_vs_off`'s target of 1.05 allows;
//!   most of their cost is the subscriber's and the registry's (an atomic operation per field
//!   visited, the registry's read lock, the handle's `Arc`, the comparison of the key's name
//!   and labels) and the clock read.
//!
//! Escaping then scanned sixteen bytes at a time before eight, in a loop of branch-free byte
//! tests the compiler turns into vector instructions: `escape_into` went from 4,241 to 3,744
//! instructions per unknown-key rejection, `unknown_key` from 19,459 to 19,041 and 18,634 in
//! two builds of the same code (the rest moves with glibc's `malloc`; `profile`, 20,000 calls). Three whole runs of `cargo bench --bench ratios` after all of the above (load
//! average 1.4 to 2.1, then 0.1 to 1.0 for the third):
//!
//! | ratio | run 1 | run 2 | run 3 | target |
//! |---|---|---|---|---|
//! | `valid_vs_serde` | 0.975 | 0.964 | 0.966 | 1.25 |
//! | `valid_vs_floor` | 0.932 | 0.935 | 0.835 | 1.0 |
//! | `repair_unneeded` | 0.995 | 1.033 | 1.006 | 1.02 |
//! | `invalid_vs_jsonschema` | 0.794 | 0.768 | 0.755 | 2 |
//! | `invalid_unknown_key_vs_jsonschema` | 1.514 | 1.470 | 1.490 | 1.5 |
//! | `policy_one_pass_vs_per_rule` | 0.193 | 0.187 | 0.188 | 0.2 |
//! | `policy_non_ascii_vs_ascii` | 1.401 | 1.370 | 1.374 | 1.5 |
//! | `pipeline_vs_rmcp` | 0.929 | 0.893 | 0.883 | 1.1 |
//! | `guard_router_vs_rmcp` | 1.302 | 1.314 | 1.249 | 1.1 |
//! | `presenter_1m_vs_1k` | 1.000 | 0.999 | 0.999 | 1.05 |
//! | `awareness_unchanged` | 1.002 | 0.996 | 1.000 | 1.02 |
//! | `telemetry_on_vs_off` | 1.127 | 1.103 | 1.095 | 1.05 |
//! | reference `schema_check_then_rmcp_vs_rmcp` | 1.114 | 1.128 | 1.124 | |
//! | reference `instruments_alone_vs_off` | 0.117 | 0.113 | 0.123 | |
//!
//! Run 1 was before the sixteen-byte scan. `repair_unneeded` (a repairing context costs a
//! valid call 1.0 % in instructions) missed in run 2 with quartiles of 0.986 to 1.071: the
//! noise of a loaded machine around a difference of one percent.
//!
//! Then the router guard's valid call, before and after a native tool's completed call was
//! recorded without building an output to throw away, the rate limits were not awaited when none
//! is set, the call's completion was built once where it is admitted and read in place, and the
//! schema check's report and repair became a cold path of their own (`profile` paths, 2,000
//! calls; "beyond the tool" leaves out the notes server's own `create_note`, whose count moves by
//! up to 350 instructions from one build to the next with glibc's `malloc` and serde's inlining,
//! while the rest does not move):
//!
//! | path | before | after | before, beyond the tool | after, beyond the tool |
//! |---|---|---|---|---|
//! | `guard_router` | 15,347 | 14,243 | 7,018 | 6,266 |
//! | `schema_check_then_rmcp` | 13,240 | 13,148 | 4,907 | 4,907 |
//! | `rmcp_router` | 12,090 | 11,994 | 3,760 | 3,760 |
//!
//! The guarded call is 1.083 times the schema check then rmcp's call (1.159 before), 1.103 with
//! the tool's own count taken equal. What is left of the guard beyond the check, about 1,360
//! instructions: the pipeline's admission about 530 (its state machine 210, the span and the
//! clock read at the start 100, moves of the call's completion 90, the check's own frames 100),
//! the route's call about 360 (moves of the request context into the tool and of the guard's
//! future into its box 150, the box itself), the guard's future about 380 (the record of the
//! call 190, the metrics recorder's lookup 70 of it) and its drop about 160 (the box freed). In
//! time it is dearer than in instructions: one whole run read `guard_router_vs_rmcp` 1.244 against
//! `schema_check_then_rmcp_vs_rmcp` 1.051 (load average 5.5), most likely for the clock read
//! (45 ns, timed above), the allocation of the box and the two atomic operations on the guard's
//! `Arc`, which weigh more than their instructions.
//!
//! Compile time: the CPU time (user + system) of `cargo build` after `touch src/lib.rs` in a
//! library crate of one, then ten, copies of the `NewTask` fixture (with its `Status` enum),
//! derived with `Deserialize` + `ToolArgs` against `Deserialize` + `JsonSchema` (schemars) with
//! the same constraints as schemars attributes, dev profile, dependencies built, medians of 5
//! to 7 interleaved runs on the same loaded machine:
//!
//! | types | `ToolArgs` | serde + schemars | `ToolArgs`, no incremental | serde + schemars, no incremental |
//! |---|---|---|---|---|
//! | 1 | 0.54 s | 0.36 s | 0.66 s | 0.34 s |
//! | 10 | 0.74 s | 0.45 s | 1.39 s | 0.68 s |

use std::hint::black_box;
use std::time::Duration;

use guardrails::__private::present_collection;
use guardrails::RenderOptions;
use guardrails::ToolArgs as _;
use guardrails::policy::Profile;
use guardrails::validation::Cx;
use guardrails_tests::fixtures::NewTask;
use serde_json::Value;

mod setup {
    pub(crate) mod contract;
    pub(crate) mod guard_router;
    pub(crate) mod pipeline;
    pub(crate) mod policy;
    pub(crate) mod presenter;
    pub(crate) mod telemetry;
    pub(crate) mod validation;
}
use setup::{contract, guard_router, pipeline, policy, presenter, validation};

/// How long one batch of one side should take: long enough for the clock and the loop to be
/// noise, short enough for many rounds.
const BATCH: Duration = Duration::from_millis(2);
/// Rounds below which a ratio is not reported, whatever its time budget.
const MIN_ROUNDS: usize = 9;
/// Rounds past which more would not change the median.
const MAX_ROUNDS: usize = 2_000;

/// The time this thread has run: a batch measured with it is not charged for the time other
/// processes ran while it waited.
#[cfg(unix)]
fn now() -> Duration {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(time.tv_sec).unwrap_or_default(),
        u32::try_from(time.tv_nsec).unwrap_or_default(),
    )
}

/// Elsewhere, the wall clock (since the start of the run).
#[cfg(not(unix))]
fn now() -> Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

/// One side of a ratio: runs `n` iterations and returns the time they took, without the time
/// spent preparing their inputs or dropping their outputs.
type Side<'a> = Box<dyn FnMut(usize) -> Duration + 'a>;

/// A side whose every iteration consumes a fresh input, prepared before the clock starts.
fn batched<'a, I, O>(
    mut setup: impl FnMut() -> I + 'a,
    mut routine: impl FnMut(I) -> O + 'a,
) -> Side<'a> {
    Box::new(move |n| {
        let inputs: Vec<I> = (0..n).map(|_| setup()).collect();
        let mut outputs = Vec::with_capacity(n);
        let start = now();
        for input in inputs {
            outputs.push(routine(black_box(input)));
        }
        let elapsed = now().saturating_sub(start);
        drop(black_box(outputs));
        elapsed
    })
}

/// A side that repeats the same routine.
fn repeated<'a, O>(mut routine: impl FnMut() -> O + 'a) -> Side<'a> {
    Box::new(move |n| {
        let start = now();
        for _ in 0..n {
            black_box(routine());
        }
        now().saturating_sub(start)
    })
}

/// What one ratio measured.
struct Measured {
    name: &'static str,
    target: f64,
    /// Median of the per-round ratios.
    value: f64,
    /// Quartiles of the per-round ratios, for the spread.
    low: f64,
    high: f64,
    /// Median time of one iteration of each side.
    subject: Duration,
    baseline: Duration,
    rounds: usize,
}

/// What a run measured: the ratios with targets, and reference ratios without one that show
/// how far a ratio could go (its baseline against a subject that skips the work measured).
#[derive(Default)]
struct Results {
    ratios: Vec<Measured>,
    references: Vec<Measured>,
}

/// How many iterations of `side` take about [`BATCH`] (at least one), warming it up meanwhile.
fn calibrate(side: &mut Side<'_>) -> u32 {
    let mut n: u32 = 1;
    loop {
        let elapsed = side(n as usize).max(Duration::from_nanos(1));
        if elapsed >= BATCH / 4 || n >= 1 << 24 {
            let wanted = u128::from(n) * BATCH.as_nanos() / elapsed.as_nanos();
            return u32::try_from(wanted).unwrap_or(u32::MAX).max(1);
        }
        n *= 2;
    }
}

/// The value at `numerator / denominator` of the way through `values` once sorted.
fn quantile(values: &mut [f64], numerator: usize, denominator: usize) -> f64 {
    values.sort_by(f64::total_cmp);
    values[(values.len() - 1) * numerator / denominator]
}

/// Measures `subject` against `baseline`, interleaved, for about `budget`. `scale` multiplies
/// each round's ratio (to compare throughputs of inputs of different sizes).
fn measure(
    name: &'static str,
    target: f64,
    budget: Duration,
    scale: f64,
    mut subject: Side<'_>,
    mut baseline: Side<'_>,
) -> Measured {
    let n_subject = calibrate(&mut subject);
    let n_baseline = calibrate(&mut baseline);
    let started = std::time::Instant::now();
    let (mut ratios, mut subject_times, mut baseline_times) = (Vec::new(), Vec::new(), Vec::new());
    while ratios.len() < MIN_ROUNDS || (started.elapsed() < budget && ratios.len() < MAX_ROUNDS) {
        let (s, b) = if ratios.len() % 2 == 0 {
            let s = subject(n_subject as usize);
            (s, baseline(n_baseline as usize))
        } else {
            let b = baseline(n_baseline as usize);
            (subject(n_subject as usize), b)
        };
        let s = s.as_secs_f64() / f64::from(n_subject);
        let b = b.as_secs_f64() / f64::from(n_baseline);
        ratios.push(s / b * scale);
        subject_times.push(s);
        baseline_times.push(b);
    }
    let rounds = ratios.len();
    Measured {
        name,
        target,
        value: quantile(&mut ratios, 1, 2),
        low: quantile(&mut ratios, 1, 4),
        high: quantile(&mut ratios, 3, 4),
        subject: Duration::from_secs_f64(quantile(&mut subject_times, 1, 2)),
        baseline: Duration::from_secs_f64(quantile(&mut baseline_times, 1, 2)),
        rounds,
    }
}

fn seconds(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// The valid and the invalid path against serde and `jsonschema`.
fn validation_ratios(wanted: &dyn Fn(&str) -> bool, results: &mut Results) {
    let options = RenderOptions::default();
    let validator = validation::jsonschema_validator();
    // The sides of the valid path: guardrails, serde alone, jsonschema then serde.
    let guarded = || batched(validation::valid, |v| NewTask::validate_value(v).unwrap());
    let serde_alone = || {
        batched(validation::valid, |v| {
            serde_json::from_value::<NewTask>(v).unwrap()
        })
    };
    let jsonschema_then_serde = || {
        batched(validation::valid, |v| {
            assert!(validator.is_valid(&v));
            serde_json::from_value::<NewTask>(v).unwrap()
        })
    };
    if wanted("valid_vs_serde") {
        results.ratios.push(measure(
            "valid_vs_serde",
            1.25,
            seconds(8),
            1.0,
            guarded(),
            serde_alone(),
        ));
    }
    if wanted("valid_vs_floor") {
        results.ratios.push(measure(
            "valid_vs_floor",
            1.0,
            seconds(8),
            1.0,
            guarded(),
            batched(validation::valid, validation::serde_then_guards),
        ));
        // What `valid_vs_floor` would read if checking every guard cost nothing: the typed
        // value built by serde alone against the same floor.
        results.references.push(measure(
            "serde_alone_vs_floor",
            f64::NAN,
            seconds(8),
            1.0,
            serde_alone(),
            batched(validation::valid, validation::serde_then_guards),
        ));
    }
    if wanted("repair_unneeded") {
        // A valid call validated by a context that repairs, against the plain validation
        // every call had before: a repair is tried only where a value has the wrong shape, so
        // a call that needs none pays one flag test per field.
        results.ratios.push(measure(
            "repair_unneeded",
            1.02,
            seconds(8),
            1.0,
            batched(validation::valid, |v| {
                let Value::Object(map) = v else {
                    unreachable!("the valid call is an object")
                };
                NewTask::validate_repairing(map, Cx::new().repairing(true))
                    .0
                    .unwrap()
            }),
            guarded(),
        ));
    }
    if wanted("valid_vs_jsonschema") {
        // The user's other choice: `jsonschema`, then serde (no target: the floor above,
        // serde then the guards by hand, is the one a guarded validator can be held to).
        results.references.push(measure(
            "valid_vs_jsonschema",
            f64::NAN,
            seconds(8),
            1.0,
            guarded(),
            jsonschema_then_serde(),
        ));
    }
    if wanted("invalid_vs_jsonschema") {
        results.ratios.push(measure(
            "invalid_vs_jsonschema",
            2.0,
            seconds(8),
            1.0,
            batched(validation::invalid, |v| {
                validation::rendered_report(v, &options)
            }),
            batched(validation::invalid, |v| {
                validation::jsonschema_messages(&validator, &v)
            }),
        ));
    }
    if wanted("invalid_unknown_key_vs_jsonschema") {
        let validator = validation::create_user_validator();
        results.ratios.push(measure(
            "invalid_unknown_key_vs_jsonschema",
            1.5,
            seconds(8),
            1.0,
            batched(validation::unknown_key, |v| {
                validation::rendered_create_user_report(v, &options)
            }),
            batched(validation::unknown_key, |v| {
                validation::jsonschema_instance_paths(&validator, &v)
            }),
        ));
    }
}

/// The output policy: one pass against a scan per rule, and text that is not ASCII.
fn policy_ratios(wanted: &dyn Fn(&str) -> bool, results: &mut Results) {
    let decision = Profile::Decision.policy();
    if wanted("policy_one_pass_vs_per_rule") {
        let text = policy::corpus(4 << 20);
        assert_eq!(
            decision.check(&text),
            decision.check_each_rule_separately(&text),
            "the two scans must agree before they are compared"
        );
        results.ratios.push(measure(
            "policy_one_pass_vs_per_rule",
            0.2,
            seconds(20),
            1.0,
            repeated(|| decision.check(&text)),
            repeated(|| decision.check_each_rule_separately(&text)),
        ));
    }
    if wanted("policy_non_ascii_vs_ascii") {
        let ascii = policy::corpus(1 << 20);
        let non_ascii = policy::non_ascii_corpus(1 << 20);
        assert_eq!(
            decision.check(&non_ascii),
            decision.check_each_rule_separately(&non_ascii),
            "the two scans must agree on text that is not ASCII too"
        );
        for (name, text) in [("ascii", &ascii), ("non-ascii", &non_ascii)] {
            eprintln!(
                "policy corpus {name}: {} bytes, {} violations",
                text.len(),
                decision.check(text).violations.len()
            );
        }
        // Time per byte: the ratio of times, times the ratio of sizes.
        let megabytes =
            |text: &str| f64::from(u32::try_from(text.len()).unwrap()) / f64::from(1 << 20);
        let scale = megabytes(&ascii) / megabytes(&non_ascii);
        results.ratios.push(measure(
            "policy_non_ascii_vs_ascii",
            1.5,
            seconds(20),
            scale,
            repeated(|| decision.check(&non_ascii)),
            repeated(|| decision.check(&ascii)),
        ));
    }
}

/// Whole tool calls: the pipeline against plain rmcp, the presenter, contract awareness.
fn tool_ratios(wanted: &dyn Fn(&str) -> bool, results: &mut Results) {
    let options = RenderOptions::default();
    if wanted("pipeline_vs_rmcp") {
        let harness = &pipeline::Harness::new();
        let calls = |route: &'static str| {
            batched(pipeline::arguments, move |arguments| {
                harness.call(route, arguments)
            })
        };
        results.ratios.push(measure(
            "pipeline_vs_rmcp",
            1.1,
            seconds(8),
            1.0,
            calls(pipeline::GUARDED),
            calls(pipeline::PLAIN),
        ));
        // The pipeline alone: the guarded tool's twin without guards against the same baseline.
        results.references.push(measure(
            "unguarded_pipeline_vs_rmcp",
            f64::NAN,
            seconds(8),
            1.0,
            calls(pipeline::UNGUARDED),
            calls(pipeline::PLAIN),
        ));
    }

    if wanted("guard_router_vs_rmcp") {
        // A valid call of a native rmcp tool through the router `guard_router` returns, against
        // the same call on the router rmcp built.
        let harness = &guard_router::Harness::new();
        let calls = |guarded: bool| {
            batched(guard_router::arguments, move |arguments| {
                harness.call(guarded, arguments)
            })
        };
        results.ratios.push(measure(
            "guard_router_vs_rmcp",
            1.1,
            seconds(8),
            1.0,
            calls(true),
            calls(false),
        ));
        // The floor of the ratio above: rmcp's call after the strict schema's `is_valid` alone,
        // with no guard around it (no span, no boxed future, no result to complete).
        results.references.push(measure(
            "schema_check_then_rmcp_vs_rmcp",
            f64::NAN,
            seconds(8),
            1.0,
            batched(guard_router::arguments, |arguments| {
                harness.checked_call(arguments)
            }),
            calls(false),
        ));
    }

    if wanted("presenter_1m_vs_1k") {
        let spec = presenter::list_rows.spec();
        let small = presenter::rows(1_000);
        let large = presenter::rows(1_000_000);
        results.ratios.push(measure(
            "presenter_1m_vs_1k",
            1.05,
            seconds(8),
            1.0,
            repeated(|| present_collection(spec, large.as_slice(), &options)),
            repeated(|| present_collection(spec, small.as_slice(), &options)),
        ));
    }

    if wanted("awareness_unchanged") {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let (disabled, enabled) = contract::servers();
        results.ratios.push(measure(
            "awareness_unchanged",
            1.02,
            seconds(10),
            1.0,
            batched(contract::unchanged_tool_call, |arguments| {
                runtime.block_on(enabled.call("get_user", arguments))
            }),
            batched(contract::unchanged_tool_call, |arguments| {
                runtime.block_on(disabled.call("get_user", arguments))
            }),
        ));
    }
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument selects ratios by name.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let wanted = |name: &str| only.is_empty() || only.iter().any(|part| name.contains(part));
    let mut results = Results::default();
    validation_ratios(&wanted, &mut results);
    policy_ratios(&wanted, &mut results);
    tool_ratios(&wanted, &mut results);
    // Last: it installs the process's global subscriber.
    telemetry::ratios(&wanted, &mut results);

    for result in &results.ratios {
        println!(
            "RATIO {} {:.3} {}",
            result.name, result.value, result.target
        );
    }
    println!();
    println!(
        "{:<34} {:>12} {:>12} {:>7} {:>15} {:>7} {:>7}  met",
        "ratio", "subject", "baseline", "ratio", "quartiles", "target", "rounds"
    );
    for result in &results.ratios {
        let met = if result.value <= result.target {
            "yes"
        } else {
            "NO"
        };
        print_row(result, &result.target.to_string(), met);
    }
    if !results.references.is_empty() {
        println!();
        println!("references (no target: how far the ratio above could go)");
        for result in &results.references {
            print_row(result, "", "");
        }
    }
}

/// One row of the table for people.
fn print_row(result: &Measured, target: &str, met: &str) {
    println!(
        "{:<34} {:>12} {:>12} {:>7.3} {:>7.3}–{:<7.3} {:>7} {:>7}  {}",
        result.name,
        format!("{:.2?}", result.subject),
        format!("{:.2?}", result.baseline),
        result.value,
        result.low,
        result.high,
        target,
        result.rounds,
        met,
    );
}

/// The cost of telemetry: a valid call with a `tracing` subscriber and a `metrics` recorder
/// installed against the same call with neither (`Dispatch::none()`, `NoopRecorder`: what
/// an application that installs nothing has). The subscriber takes every span and event and
/// visits their fields; the recorder keeps each metric in an atomic found by its key, as
/// exporters' registries do; neither writes anything out, so the ratio is what guardrails adds.
mod telemetry {
    use super::setup::telemetry::{self, Instruments, Registry, Visiting};
    use super::{Results, batched, measure, seconds};

    pub(crate) fn ratios(wanted: &dyn Fn(&str) -> bool, results: &mut Results) {
        if !wanted("telemetry_on_vs_off") {
            return;
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let server = telemetry::server();
        telemetry::assert_succeeds(&runtime, &server);
        // The subscriber is installed as applications install theirs, as the global default,
        // whose dispatch is static: each span's clone of it counts nothing, where a scoped
        // dispatch's (an `Arc`) would cost every call four atomic operations (the span's clone
        // and its drop, the scope's) that neither an application nor the baseline pays. Each
        // call of either side then scopes its dispatch the same way, for the interleaving.
        // The global default stays for the rest of the process: this ratio runs last.
        tracing::dispatcher::set_global_default(tracing::Dispatch::new(Visiting::default()))
            .expect("the first global subscriber of the process");
        let subscriber = tracing::dispatcher::get_default(Clone::clone);
        let recorder = Registry::default();
        let off = tracing::Dispatch::none();
        results.ratios.push(measure(
            "telemetry_on_vs_off",
            1.05,
            seconds(10),
            1.0,
            batched(telemetry::valid_call, |arguments| {
                tracing::dispatcher::with_default(&subscriber, || {
                    metrics::with_local_recorder(&recorder, || {
                        runtime.block_on(server.call(telemetry::TOOL, arguments))
                    })
                })
            }),
            // Off: no subscriber and no recorder, scoped the same way, so that both sides pay
            // the same for the thread-local scoping the interleaving needs.
            batched(telemetry::valid_call, |arguments| {
                tracing::dispatcher::with_default(&off, || {
                    metrics::with_local_recorder(&metrics::NoopRecorder, || {
                        runtime.block_on(server.call(telemetry::TOOL, arguments))
                    })
                })
            }),
        ));
        // A floor of the ratio above: the instruments of one call alone (the same span and
        // histogram, by hand, under the same subscriber and recorder, warm), against the call
        // without telemetry. One plus this is the least the ratio above can read: guardrails
        // must create that span and record that histogram for each call.
        // The instruments run under the global subscriber and a recorder set for the whole
        // measure, with no scope of their own: the scopes of the ratio above are paid by both
        // of its sides.
        let instruments = Instruments::new();
        let _recorder = metrics::set_default_local_recorder(&recorder);
        results.references.push(measure(
            "instruments_alone_vs_off",
            f64::NAN,
            seconds(10),
            1.0,
            super::repeated(|| instruments.observe()),
            batched(telemetry::valid_call, |arguments| {
                tracing::dispatcher::with_default(&off, || {
                    metrics::with_local_recorder(&metrics::NoopRecorder, || {
                        runtime.block_on(server.call(telemetry::TOOL, arguments))
                    })
                })
            }),
        ));
    }
}
