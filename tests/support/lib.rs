//! Test support of guardrails (not published, and not the library: that is `guardrails`).
//!
//! [`fixtures`] holds realistic argument types shared by the tests, the benchmarks and the fuzz
//! target, so that each of them exercises the same declarations.

/// The `create_user` example's tool and argument types, compiled from the example's own file.
#[path = "../../examples/create_user/user.rs"]
pub mod create_user;
pub mod fixtures;
pub mod pipeline_server;
/// The `task_tracker` example's state, tools and server, compiled from the example's own file:
/// the example is the one place the server is written, and the tests reach it here.
#[path = "../../examples/task_tracker/tracker.rs"]
pub mod task_tracker;
pub mod testing;
pub mod user_service;
