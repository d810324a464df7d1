//! Test support of guardrails: what the integration tests, the benchmarks and the fuzz target
//! share. Not published, and not the library (that is `guardrails`).
//!
//! - [`client`]: rmcp's client connected in process to a server;
//! - [`fixtures`]: realistic argument types covering every guard and field type, with the
//!   examples' own argument types re-exported beside them, so each type is declared once;
//! - [`create_user`] and [`task_tracker`]: the two example servers' tools, compiled from the
//!   examples' own files (the examples are the one place they are written);
//! - [`load`]: load on the Streamable HTTP server, for the load test and the `http_load` bench;
//! - [`notes_server`]: a native rmcp server, as rmcp's examples write one, for `guard_router`;
//! - [`pipeline_server`]: the pipeline tests' server, with limits sized for short expected texts;
//! - [`user_service`]: two releases of a small service, for the contract tests;
//! - [`redis`]: a `redis-server` of a test's own, for state shared by nodes;
//! - [`research_server`]: a native rmcp server whose long call runs as a task, for the proxy;
//! - [`telemetry`]: a capturing `tracing` subscriber and `metrics` recorder;
//! - [`testing`]: small helpers.

pub mod client;
/// The `create_user` example's tool and argument types, compiled from the example's own file.
#[path = "../../examples/create_user/user.rs"]
pub mod create_user;
pub mod fixtures;
pub mod load;
pub mod notes_server;
pub mod pipeline_server;
pub mod redis;
pub mod research_server;
/// The `task_tracker` example's state, tools and server, compiled from the example's own file.
#[path = "../../examples/task_tracker/tracker.rs"]
pub mod task_tracker;
pub mod telemetry;
pub mod testing;
pub mod user_service;
