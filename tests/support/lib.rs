//! Test support of guardrails (not published, and not the library: that is `guardrails`).
//!
//! [`fixtures`] holds realistic argument types shared by the tests, the benchmarks and the fuzz
//! target, so that each of them exercises the same declarations.

pub mod fixtures;
pub mod task_tracker;
pub mod testing;
