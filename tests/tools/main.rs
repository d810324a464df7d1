//! Tools in process, without a transport: the call pipeline (validate, handler, present), handlers
//! of every kind, tool errors, paging and the rendering the model reads.

mod budgets;
mod opaque_returns;
mod paging;
mod pipeline;
mod pipeline_props;
mod render;
mod repair;
mod repair_props;
mod sync_handlers;
mod tool_error;
mod tool_error_conversions;
// Public, so that its public tools stay reachable and the lints it denies see them as a crate
// user's would be.
pub mod tool_lints;
