//! Tools and the call pipeline: what `#[tool]` generates, and the one path every call takes.
//!
//! ```text
//! arguments ─► validate ─┬─ invalid ─► Rejection (isError: true); the handler never runs
//!                        ▼
//!             handler(state, typed args) ─┬─ Err(ToolError) / panic ─► Failure
//!                                         ▼
//!             present: agent limit, serialize what is shown, byte cap, output check
//! ```
//!
//! The pipeline knows nothing of transports: it turns a map of arguments into a [`CallOutput`],
//! which a [`Server`](crate::Server) hands back and the rmcp adapter (feature `rmcp`) turns into
//! an MCP result.
//!
//! - [`ToolSpec`]: a tool's definition and guardrails, and the [`OutputCheck`](crate::OutputCheck) seam;
//! - [`present`](crate::present): agent limits, byte caps, token budgets, teaching blocks;
//! - [`cursor`]: the cursors of `paged` tools;
//! - the pipeline: [`Tool`], [`CallSettings`], [`StateRef`](crate::StateRef).

pub(crate) mod budget;
pub(crate) mod conformance;
pub mod cursor;
pub(crate) mod leniency;
mod name;
pub(crate) mod output;
mod policy_check;
pub(crate) mod presenter;
pub(crate) mod probe;
pub(crate) mod rate;
pub(crate) mod run;
pub(crate) mod spec;

pub use name::{MAX_TOOL_NAME_CHARS, is_valid_tool_name};
pub(crate) use output::CallOutput;
pub use run::BoxFuture;
pub(crate) use run::CallSettings;
pub(crate) use spec::ToolSpec;
pub use spec::{AgentLimit, Annotations, TeachFn, Teaching};
