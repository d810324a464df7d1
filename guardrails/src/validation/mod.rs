//! Strict argument validation: the issue model, the constraints, string formats, valid
//! examples and JSON Schemas, all from the declarations `#[derive(ToolArgs)]` reads.
//!
//! A call's arguments are checked in one pass that collects every issue (unknown keys, missing
//! fields, wrong types, broken constraints, at any depth) and builds the typed value only when
//! there is none. The schema a client reads and the example a model copies come from the same
//! declarations as the check, so the three cannot disagree.
//!
//! The floors of this module, each using only those below it: the [`Report`] of
//! [`Issue`]s; [`Constraints`] and string formats; what the derive declares ([`ArgsInfo`],
//! its fields, [`Kind`]); the pass ([`Cx`]); the traits the derives implement ([`ToolArgs`],
//! [`ToolEnum`](crate::ToolEnum)); examples and schemas; field types ([`ArgValue`](crate::ArgValue)); output policies on text
//! fields (`policy` guards); arguments known only by a JSON Schema ([`SchemaArgs`]).

pub(crate) mod aliases;
pub(crate) mod args;
pub(crate) mod constraint;
mod context;
pub(crate) mod correction;
pub(crate) mod example;
mod field_types;
pub(crate) mod flatten;
pub(crate) mod hooks;
pub(crate) mod info;
mod json_schema;
mod misplaced;
pub(crate) mod number;
pub(crate) mod policy_text;
pub(crate) mod quick;
mod repair;
pub(crate) mod report;
pub(crate) mod rules;
pub(crate) mod schema;
pub(crate) mod string_format;
pub(crate) mod suggestion;
mod tables;
pub(crate) mod value;
pub(crate) mod variants;
mod wording;

pub(crate) use args::ToolArgs;
pub use constraint::Constraints;
pub(crate) use constraint::Literal;
pub use context::Cx;
pub(crate) use context::{ProbeStep, ProbedPolicy};
pub use info::{ArgsInfo, Kind, withheld};
pub(crate) use info::{EnumInfo, FieldInfo, Tagging, json_type_noun};
#[cfg(feature = "rmcp")]
pub(crate) use json_schema::Grounds;
pub use json_schema::{SchemaArgs, SchemaError, SchemaOptions, strict_schema};
pub(crate) use number::{Bound, Num};
pub use repair::{Repair, RepairKind};
pub(crate) use report::{Issue, IssueCode, Report};
pub(crate) use string_format::StringFormat;
pub(crate) use value::MAX_SAFE_INTEGER;
