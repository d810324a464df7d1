//! What the model sees, as data: the messages a call can end with, before any format is
//! chosen. Each is rendered as XML-style tags, Markdown or JSON by [`crate::render`].
//!
//! - [`Rejection`]: the arguments did not validate (every issue, a valid example, the recovery
//!   directive);
//! - [`Failure`]: the handler failed with a [`ToolError`], or the output was withheld;
//! - [`TruncationNotice`] and [`ByteCut`]: a result was cut to the agent limit or the byte cap,
//!   and how to narrow the next call;
//! - [`PolicyAdvice`]: an output policy flagged passages of a delivered output;
//! - [`RepairNotice`]: the arguments were repaired before they were checked (one line per
//!   repair);
//! - `RepeatedCall`: the same invalid call came again (the caller's call corrected, the fields
//!   at fault, what to do now);
//! - [`ContractNotice`]: a part of a rejection or a failure, the contract changes that may
//!   explain it.
//!
//! Everything a caller sent is already bounded here (previews, cuts); escaping for a format is
//! the renderer's job.

mod advice;
mod contract;
mod rejection;
mod repair;
pub(crate) mod repeated;
pub(crate) mod tool_error;
pub(crate) mod truncation;

pub(crate) use advice::by_importance;
pub(crate) use advice::{DELIVERED_WITH_CARE, PolicyAdvice};
pub(crate) use contract::MAX_VALUE_CHARS;
pub(crate) use contract::{ContractNotice, INSTRUCTIONS, bounded_json, delta_value};
pub(crate) use rejection::received_text;
pub(crate) use rejection::{RECOVERY, Rejection};
pub(crate) use repair::{REPAIRED_ADVICE, RepairNotice};
pub(crate) use repeated::RepeatedCall;
pub(crate) use tool_error::Failure;
pub(crate) use tool_error::{BoundedError, detail_text};
pub(crate) use tool_error::{ToolError, ToolErrorSeverity};
#[cfg(feature = "rmcp")]
pub(crate) use truncation::Filter;
pub(crate) use truncation::Truncated;
#[cfg(feature = "rmcp")]
pub(crate) use truncation::paging_name;
#[cfg(feature = "rmcp")]
pub(crate) use truncation::refine_advice_with;
pub(crate) use truncation::{ByteCut, TruncationNotice, refine_advice};
