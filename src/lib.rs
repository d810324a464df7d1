//! Integration tests, benchmarks and examples of guardrails (not published).
//!
//! [`fixtures`] holds realistic argument types shared by the tests, the benchmarks and the fuzz
//! target, so that each of them exercises the same declarations.

pub mod fixtures;
pub mod load;
pub mod task_tracker;
pub mod testing;
