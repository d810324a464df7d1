#![doc = include_str!("../../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod contract;
pub mod error;
pub mod format;
#[cfg(feature = "rmcp")]
pub mod mcp;
pub mod present;
pub mod render;
mod sample;
pub mod schema;
pub mod tool;
pub mod validation;

pub use error::{ErrorCode, Severity, ToolError};
pub use guardrails_derive::{ToolArgs, ToolEnum};
#[cfg(feature = "rmcp")]
pub use mcp::Server;
pub use render::{RenderFormat, RenderOptions};
pub use tool::{CallOutput, OutputCheck, StateRef, Tool, ToolSpec, Verdict};
pub use validation::{ArgValue, Issue, IssueCode, Report, ToolArgs, ToolEnum};

#[doc = include_str!("tool_attr.md")]
pub use guardrails_derive::tool;

/// Items used by generated code. Not part of the public API: no stability guarantees.
#[doc(hidden)]
pub mod __private {
    pub use serde_json::{Map, Value};
    pub use std::sync::OnceLock;
    pub use {schemars, serde_json};

    pub use crate::format::Format;
    pub use crate::present::probe::{ListingOf, NotListing, Probe, WithSchema, WithoutSchema};
    pub use crate::present::{present_collection, present_value};
    pub use crate::render::RenderOptions;
    pub use crate::schema::{build_example, nested_schema, root_schema};
    pub use crate::tool::outcome::{FallibleKind, ValueKind};
    pub use crate::tool::{
        AgentLimit, Annotations, BoxFuture, CallOutput, StateRef, Teaching, Tool, ToolSpec, run,
    };
    pub use crate::validation::{
        ArgValue, ArgsInfo, Bound, Constraints, Cx, FieldInfo, Kind, Literal, Num, Pattern,
        ToolArgs, ToolEnum, enum_example, enum_mismatch, enum_schema, run_custom, take_field,
        take_field_or,
    };
    pub use core::marker::PhantomData;
    pub use std::boxed::Box;

    /// Marker traits that say which guards fit a field's type; generated code asserts them
    /// so that a guard on the wrong type is a compile error at the guard.
    pub mod guards {
        use std::collections::{BTreeMap, HashMap};

        use serde_json::Value;

        /// Types whose length can be bounded: strings (characters) and arrays (items).
        #[diagnostic::on_unimplemented(
            message = "`length` and `non_empty` need a string or an array field, not `{Self}`"
        )]
        pub trait Length {}
        /// Types that hold numbers: `range` and `multiple_of` apply.
        #[diagnostic::on_unimplemented(
            message = "`range` and `multiple_of` need a numeric field, not `{Self}`"
        )]
        pub trait Numeric {}
        /// Types that hold strings: `pattern` and `format` apply.
        #[diagnostic::on_unimplemented(
            message = "`pattern` and `format` need a string field, not `{Self}`"
        )]
        pub trait Text {}
        /// Types that hold arrays: `unique` applies.
        #[diagnostic::on_unimplemented(message = "`unique` needs an array field, not `{Self}`")]
        pub trait Items {}

        impl Length for String {}
        impl<T> Length for Vec<T> {}
        impl Text for String {}
        impl<T> Items for Vec<T> {}
        macro_rules! numeric {
            ($($t:ty),*) => {$(impl Numeric for $t {})*};
        }
        numeric!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);
        impl Length for Value {}
        impl Numeric for Value {}
        impl Text for Value {}
        impl Items for Value {}
        impl<T: Length> Length for Option<T> {}
        impl<T: Numeric> Numeric for Option<T> {}
        impl<T: Text> Text for Option<T> {}
        impl<T: Items> Items for Option<T> {}
        impl<T: Length> Length for Box<T> {}
        impl<T: Numeric> Numeric for Box<T> {}
        impl<T: Text> Text for Box<T> {}
        impl<T: Items> Items for Box<T> {}
        impl<T> Length for BTreeMap<String, T> {}
        impl<T, S> Length for HashMap<String, T, S> {}

        /// Asserts at compile time that `T` satisfies the guard trait `G`.
        pub const fn assert_length<T: ?Sized + Length>() {}
        /// Asserts at compile time that `T` is numeric.
        pub const fn assert_numeric<T: ?Sized + Numeric>() {}
        /// Asserts at compile time that `T` holds strings.
        pub const fn assert_text<T: ?Sized + Text>() {}
        /// Asserts at compile time that `T` holds arrays.
        pub const fn assert_items<T: ?Sized + Items>() {}
    }
}
