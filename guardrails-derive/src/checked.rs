//! The model as the checks vouch for it, the only input of expansion: bounds in order and
//! typed, names resolved to the runtime items they stand for, patterns that compile, examples
//! that satisfy their own field. Built by [`crate::valid`] and [`crate::tool_valid`], and only
//! when they found nothing wrong; its types cannot hold what expansion could not emit (an array
//! in `one_of`, an unknown format or profile, an infinite number), so expansion has no case to
//! refuse.

use std::cmp::Ordering;

use proc_macro2::Span;
use syn::{ExprPath, ItemFn};

use crate::ast::{At, Field, NumLit, Scalar, Struct};
use crate::tool_ast::{Params, RepairOption};

/// An arguments struct whose every field passed the checks.
pub(crate) type CheckedStruct<'a> = Struct<'a, CheckedGuards>;

/// One field of a [`CheckedStruct`].
pub(crate) type CheckedField<'a> = Field<'a, CheckedGuards>;

/// The guards of one field, resolved.
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent flags of a field, each emitted as a constant"
)]
pub(crate) struct CheckedGuards {
    pub(crate) constraints: Constraints,
    /// Whether the field declares a constraint the runtime checks on its value (the
    /// `checked` flag of the runtime's `FieldInfo`).
    pub(crate) constrained: bool,
    /// The guard trait each guard needs of the field's type, at the guard: asserted at compile
    /// time, so that a guard on the wrong type is an error at the guard.
    pub(crate) type_needs: Vec<(Span, TypeNeed)>,
    pub(crate) custom: Option<ExprPath>,
    pub(crate) policy: Option<Policy>,
    pub(crate) acknowledges_policy: bool,
    /// Whether the value is never echoed (`sensitive`).
    pub(crate) sensitive: bool,
    /// Whether a repair never touches the value (`no_repair`).
    pub(crate) no_repair: bool,
    /// The example as JSON text.
    pub(crate) example: Option<String>,
}

/// The constraints the runtime checks on a field's value, as its `Constraints` holds them.
pub(crate) struct Constraints {
    /// `length(min)`, raised to one by `non_empty`.
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) minimum: Option<Bound>,
    pub(crate) maximum: Option<Bound>,
    pub(crate) pattern: Option<Pattern>,
    /// The variant of the runtime's `StringFormat`.
    pub(crate) format: Option<&'static str>,
    pub(crate) one_of: Vec<Scalar>,
    pub(crate) unique: bool,
    /// Positive.
    pub(crate) multiple_of: Option<NumLit>,
}

/// One end of a `range`.
#[derive(Clone, Copy)]
pub(crate) struct Bound {
    pub(crate) value: NumLit,
    pub(crate) exclusive: bool,
}

impl Bound {
    /// Whether `x` is on the allowed side of this bound, as a lower one or an upper one.
    pub(crate) fn admits(self, x: NumLit, upper: bool) -> bool {
        let inside = if upper {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        match x.cmp(self.value) {
            Ordering::Equal => !self.exclusive,
            order => order == inside,
        }
    }
}

/// A `pattern` that compiles.
pub(crate) struct Pattern {
    pub(crate) source: String,
    pub(crate) regex: regex::Regex,
}

/// A trait of `guardrails::__private::guards` a guard needs of its field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TypeNeed {
    /// `length`, `non_empty`.
    Length,
    /// `range`, `multiple_of`, `one_of` with numbers.
    Numeric,
    /// `pattern`, `format`, `one_of` with strings.
    Text,
    /// `unique`.
    Items,
    /// `one_of` with booleans (strings need `Text`, numbers `Numeric`).
    Boolean,
    /// `sensitive`: a value with no fields of its own, so that what is withheld is the whole
    /// value.
    Leaf,
}

/// The output policy a `policy` guard names.
pub(crate) enum Policy {
    /// A built-in profile, by its variant of the runtime's `Profile`.
    Profile(&'static str),
    /// A function returning the policy.
    Path(ExprPath),
}

/// A `#[tool]` function whose options and signature passed the checks.
pub(crate) struct CheckedTool<'a> {
    pub(crate) item: &'a ItemFn,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) title: Option<String>,
    /// The annotations written (`read_only`, `destructive`, `idempotent`, `open_world`), by
    /// the name of the `Annotations` method that sets each.
    pub(crate) annotations: Vec<(&'static str, At<bool>)>,
    pub(crate) agent_limit: Option<AgentLimit>,
    pub(crate) max_bytes: Option<u64>,
    pub(crate) max_tokens: Option<u64>,
    /// `rate_limit`: how many calls per how many seconds.
    pub(crate) rate_limit: Option<(u32, u64)>,
    pub(crate) policy: Option<syn::Path>,
    /// `repair`, as written.
    pub(crate) repair: Option<RepairOption>,
    /// `ignore_keys`: the prefixes and the names.
    pub(crate) ignore_keys: Option<(Vec<String>, Vec<String>)>,
    pub(crate) params: Params<'a>,
}

/// `agent_limit`, with what teaches the model when it cuts a result.
pub(crate) struct AgentLimit {
    pub(crate) max: At<u64>,
    pub(crate) teaching: Teaching,
    /// Past the limit, the result carries a cursor to the next page (`paged`).
    pub(crate) paged: bool,
}

/// Where the teaching block of an agent limit comes from.
pub(crate) enum Teaching {
    /// `hint = ".."`.
    Hint(String),
    /// `teach = path`.
    Teach(syn::Path),
    /// Neither: the runtime describes the filters of the arguments.
    Filters,
}
