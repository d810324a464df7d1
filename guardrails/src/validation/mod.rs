//! Strict argument validation: the issue model, the constraints, string formats, valid
//! examples and JSON Schemas, all from the declarations `#[derive(ToolArgs)]` reads.
//!
//! A call's arguments are checked in one pass that collects every issue (unknown keys, missing
//! fields, wrong types, broken constraints, at any depth) and builds the typed value only when
//! there is none. The schema a client reads and the example a model copies come from the same
//! declarations as the check, so the three cannot disagree.
//!
//! The floors of this module, each using only those below it: the [`Report`] of
//! [`Issue`]s; [`Constraints`] and [`StringFormat`]s; what the derive declares ([`ArgsInfo`],
//! [`FieldInfo`], [`Kind`]); the pass ([`Cx`]); the traits the derives implement ([`ToolArgs`],
//! [`ToolEnum`]); examples and schemas; field types ([`ArgValue`]); output policies on text
//! fields ([`PolicyText`]); arguments known only by a JSON Schema ([`SchemaArgs`]).

pub(crate) mod aliases;
pub(crate) mod args;
mod constraint;
mod context;
pub(crate) mod example;
mod field_types;
pub(crate) mod flatten;
pub(crate) mod hooks;
mod info;
mod json_schema;
mod misplaced;
pub(crate) mod policy_text;
mod report;
pub(crate) mod rules;
pub(crate) mod schema;
mod string_format;
mod value;
pub(crate) mod variants;

pub use args::{ToolArgs, ToolEnum};
pub use constraint::{
    Bound, Constraints, CustomCheck, Literal, Num, Pattern, PresentValue, WholeValue,
};
pub use context::{Cx, ListCx};
pub(crate) use context::{ProbeStep, ProbedPolicy};
pub use info::{ArgsInfo, FieldInfo, Kind, json_type_noun, withheld};
pub use info::{EnumInfo, Tagging, VariantInfo};
pub use json_schema::{SchemaArgs, SchemaError, SchemaOptions, strict_schema};
pub use policy_text::{Acknowledgement, PolicyText};
pub use report::{Issue, IssueCode, MAX_KEPT_ISSUES, Report};
pub use rules::{FieldArg, FieldIssue, IntoFieldIssues, StructCheck};
pub use schema::DIALECT;
pub use string_format::StringFormat;
pub use value::{ArgValue, MAX_SAFE_INTEGER};

pub use crate::text::PREVIEW_CHARS;
