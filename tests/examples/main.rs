//! The code a newcomer starts from: a billing server written from the docs, the task tracker
//! example, and every Rust block of the docs.

mod billing;
mod doc_blocks;
mod repair_rate;
mod task_tracker_export;
mod task_tracker_nodes;
mod task_tracker_paging;
