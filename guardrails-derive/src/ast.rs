//! The typed model of a `ToolArgs` struct or `ToolEnum` enum, as the user wrote it: names,
//! defaults, skips and the guards of each field, each with the span it was written at. Filled by
//! [`crate::attr`], judged by [`crate::valid`].

use std::fmt::Write as _;

use proc_macro2::Span;
use syn::{ExprPath, Ident, Type};

/// A number written in an attribute.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum NumLit {
    Int(i128),
    Float(f64),
}

impl NumLit {
    #[expect(clippy::cast_precision_loss, reason = "only used to compare bounds")]
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Self::Int(i) => i as f64,
            Self::Float(f) => f,
        }
    }
}

impl std::fmt::Display for NumLit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Int(i) => write!(f, "{i}"),
            Self::Float(x) => write!(f, "{x}"),
        }
    }
}

/// A literal value written in an attribute (`one_of` items, `example`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ValueLit {
    Str(String),
    Num(NumLit),
    Bool(bool),
    Array(Vec<ValueLit>),
}

impl ValueLit {
    /// The JSON text of the literal.
    pub(crate) fn to_json(&self) -> String {
        match self {
            Self::Str(s) => json_string(s),
            Self::Num(NumLit::Int(i)) => i.to_string(),
            Self::Num(NumLit::Float(f)) => {
                let text = format!("{f:?}");
                if text.contains(['.', 'e', 'E']) {
                    text
                } else {
                    format!("{text}.0")
                }
            }
            Self::Bool(b) => b.to_string(),
            Self::Array(items) => {
                let inner: Vec<String> = items.iter().map(Self::to_json).collect();
                format!("[{}]", inner.join(","))
            }
        }
    }
}

/// A string as a JSON string literal.
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Something written once in an attribute, with where it was written.
#[derive(Debug, Clone)]
pub(crate) struct At<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// `length(min = .., max = ..)` / `length(equal = ..)`.
#[derive(Debug, Clone, Default)]
pub(crate) struct LengthGuard {
    pub(crate) min: Option<At<u64>>,
    pub(crate) max: Option<At<u64>>,
}

/// `range(min = .., max = .., exclusive_min = .., exclusive_max = ..)`.
#[derive(Debug, Clone, Default)]
pub(crate) struct RangeGuard {
    pub(crate) min: Option<At<NumLit>>,
    pub(crate) max: Option<At<NumLit>>,
    pub(crate) exclusive_min: bool,
    pub(crate) exclusive_max: bool,
}

/// Where the output policy of a `policy` guard comes from.
#[derive(Debug, Clone)]
pub(crate) enum PolicySource {
    /// A built-in profile, by name (`policy = "decision"`).
    Profile(String),
    /// A function returning the policy (`policy = path::to::policy`).
    Path(ExprPath),
}

/// Every guard of one field.
#[derive(Debug, Clone, Default)]
pub(crate) struct Guards {
    pub(crate) length: Option<At<LengthGuard>>,
    pub(crate) range: Option<At<RangeGuard>>,
    pub(crate) pattern: Option<At<String>>,
    pub(crate) format: Option<At<String>>,
    pub(crate) one_of: Option<At<Vec<ValueLit>>>,
    pub(crate) unique: Option<Span>,
    pub(crate) multiple_of: Option<At<NumLit>>,
    pub(crate) non_empty: Option<Span>,
    pub(crate) custom: Option<ExprPath>,
    pub(crate) policy: Option<At<PolicySource>>,
    pub(crate) acknowledges_policy: Option<Span>,
    pub(crate) example: Option<At<ValueLit>>,
    pub(crate) description: Option<String>,
}

impl Guards {
    /// The effective length bounds: `length` with `non_empty` raising the minimum to one.
    pub(crate) fn length_bounds(&self) -> (Option<u64>, Option<u64>) {
        let declared = self.length.as_ref().map(|l| &l.value);
        let min = declared.and_then(|l| l.min.as_ref()).map(|m| m.value);
        let min = if self.non_empty.is_some() {
            Some(min.unwrap_or(0).max(1))
        } else {
            min
        };
        let max = declared.and_then(|l| l.max.as_ref()).map(|m| m.value);
        (min, max)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.length.is_none()
            && self.range.is_none()
            && self.pattern.is_none()
            && self.format.is_none()
            && self.one_of.is_none()
            && self.unique.is_none()
            && self.multiple_of.is_none()
            && self.non_empty.is_none()
            && self.custom.is_none()
            && self.policy.is_none()
            && self.acknowledges_policy.is_none()
            && self.example.is_none()
    }
}

/// How an absent field gets its value.
#[derive(Debug, Clone)]
pub(crate) enum FieldDefault {
    /// Required.
    None,
    /// `Default::default()`.
    Trait,
    /// A function path.
    Path(ExprPath),
}

/// One field of an arguments struct.
pub(crate) struct Field<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) ty: &'a Type,
    pub(crate) wire_name: String,
    pub(crate) description: Option<String>,
    pub(crate) default: FieldDefault,
    pub(crate) skip: bool,
    pub(crate) guards: Guards,
}

/// An arguments struct.
pub(crate) struct Struct<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) description: Option<String>,
    pub(crate) container_default: bool,
    pub(crate) fields: Vec<Field<'a>>,
}

/// A unit variant of an enum of allowed values.
pub(crate) struct Variant<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) wire_name: String,
}

/// An enum of allowed values.
pub(crate) struct Enum<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) description: Option<String>,
    pub(crate) variants: Vec<Variant<'a>>,
}

/// The guards a user can write, for did-you-mean on unknown ones.
pub(crate) const GUARD_NAMES: &[&str] = &[
    "length",
    "range",
    "pattern",
    "format",
    "one_of",
    "unique",
    "multiple_of",
    "non_empty",
    "custom",
    "policy",
    "acknowledges_policy",
    "example",
    "description",
];

/// The built-in output policy profiles `policy = ".."` accepts, with their variant of
/// `guardrails::policy::Profile`. The generated code names the variant, so a name the runtime
/// does not know cannot compile.
pub(crate) const POLICY_PROFILES: &[(&str, &str)] = &[
    ("base", "Base"),
    ("observation", "Observation"),
    ("decision", "Decision"),
];

/// The formats `format = ".."` accepts.
pub(crate) const FORMAT_NAMES: &[&str] = &[
    "email",
    "url",
    "uri",
    "uuid",
    "date",
    "date-time",
    "time",
    "ipv4",
    "ipv6",
    "hostname",
];
