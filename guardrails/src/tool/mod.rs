//! Tools: what `#[tool]` generates around a handler. A tool's definition and guardrails
//! ([`ToolSpec`]), the presenters of its output, its cursors and rate limits. Every call runs
//! the crate's one pipeline (see [`Tool`](crate::Tool)), which turns the arguments into a
//! [`CallOutput`] that a [`Server`](crate::Server) hands back and the rmcp adapter (feature
//! `rmcp`) turns into an MCP result.
//!
//! - [`ToolSpec`]: a tool's definition and guardrails, and the [`OutputCheck`](crate::OutputCheck) seam;
//! - [`present`](crate::present): agent limits, byte caps, token budgets, teaching blocks;
//! - [`cursor`]: the cursors of `paged` tools;
//! - where a tool finds its state: [`StateRef`](crate::StateRef).

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

pub(crate) use name::is_valid_tool_name;
pub(crate) use output::CallOutput;
pub(crate) use run::CallSettings;
pub(crate) use spec::Teaching;
pub(crate) use spec::ToolSpec;
