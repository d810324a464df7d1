//! The typed model of a `ToolArgs` struct or `ToolEnum` enum, as the user wrote it: names,
//! defaults, skips and the guards of each field, each with the span it was written at. Filled by
//! [`crate::attr`], judged by [`crate::valid`] into the model of [`crate::checked`].

use std::cmp::Ordering;
use std::fmt::Write as _;

use proc_macro2::Span;
use syn::{ExprPath, Ident, Type};

/// A number written in an attribute.
#[derive(Debug, Clone, Copy)]
pub(crate) enum NumLit {
    Int(i128),
    Float(Finite),
}

/// A finite `f64`: parsing rejects a float literal too large for `f64`, so that every number
/// has a JSON text and can be spelt as a token.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Finite(f64);

impl Finite {
    pub(crate) fn new(f: f64) -> Option<Self> {
        f.is_finite().then_some(Self(f))
    }

    pub(crate) fn get(self) -> f64 {
        self.0
    }
}

impl std::ops::Neg for Finite {
    type Output = Self;

    fn neg(self) -> Self {
        Self(-self.0)
    }
}

impl NumLit {
    /// The exact order of two numbers, integers and floats alike (`1` equals `1.0`, and
    /// integers beyond 2^53 keep every digit).
    pub(crate) fn cmp(self, other: Self) -> Ordering {
        match (self, other) {
            (Self::Int(a), Self::Int(b)) => a.cmp(&b),
            (Self::Float(a), Self::Float(b)) => a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal),
            (Self::Int(a), Self::Float(b)) => int_cmp_float(a, b.0),
            (Self::Float(a), Self::Int(b)) => int_cmp_float(b, a.0).reverse(),
        }
    }

    /// Whether the number is above zero.
    pub(crate) fn is_positive(self) -> bool {
        self.cmp(Self::Int(0)).is_gt()
    }
}

/// The order of an integer and a finite float, without rounding the integer.
fn int_cmp_float(int: i128, float: f64) -> Ordering {
    // 2^127: every float at or beyond it is beyond every `i128`.
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if float >= LIMIT {
        return Ordering::Less;
    }
    if float < -LIMIT {
        return Ordering::Greater;
    }
    let whole = float.trunc();
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a whole float within the bounds of `i128` converts exactly"
    )]
    let whole_int = whole as i128;
    int.cmp(&whole_int).then_with(|| {
        // Same whole part: the float's fraction decides.
        0.0_f64
            .partial_cmp(&(float - whole))
            .unwrap_or(Ordering::Equal)
    })
}

impl std::fmt::Display for NumLit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Int(i) => write!(f, "{i}"),
            Self::Float(x) => write!(f, "{}", x.0),
        }
    }
}

/// A string, number or boolean written in an attribute: a `one_of` item, or part of an
/// `example`.
#[derive(Debug, Clone)]
pub(crate) enum Scalar {
    Str(String),
    Num(NumLit),
    Bool(bool),
}

impl Scalar {
    /// The JSON text of the scalar.
    pub(crate) fn to_json(&self) -> String {
        match self {
            Self::Str(s) => json_string(s),
            Self::Num(NumLit::Int(i)) => i.to_string(),
            Self::Num(NumLit::Float(f)) => {
                let text = format!("{:?}", f.0);
                if text.contains(['.', 'e', 'E']) {
                    text
                } else {
                    format!("{text}.0")
                }
            }
            Self::Bool(b) => b.to_string(),
        }
    }
}

/// A literal value written in an attribute (`one_of` items, `example`).
#[derive(Debug, Clone)]
pub(crate) enum ValueLit {
    Scalar(Scalar),
    Array(Vec<ValueLit>),
}

impl ValueLit {
    /// The JSON text of the literal.
    pub(crate) fn to_json(&self) -> String {
        match self {
            Self::Scalar(scalar) => scalar.to_json(),
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
    /// `sensitive`: the value is never echoed.
    pub(crate) sensitive: Option<Span>,
    /// `no_repair`: a repair of the call never touches the value.
    pub(crate) no_repair: Option<Span>,
    pub(crate) example: Option<At<ValueLit>>,
    pub(crate) description: Option<String>,
}

impl Guards {
    /// Whether the field carries any guard besides its description.
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
            && self.sensitive.is_none()
            && self.no_repair.is_none()
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

/// One field of an arguments struct, with its guards as written ([`Guards`]) or as checked
/// ([`CheckedGuards`](crate::checked::CheckedGuards)).
pub(crate) struct Field<'a, G = Guards> {
    pub(crate) ident: &'a Ident,
    pub(crate) ty: &'a Type,
    pub(crate) wire_name: String,
    /// serde's `alias`es: other names the field is read under.
    pub(crate) aliases: Vec<String>,
    pub(crate) description: Option<String>,
    pub(crate) default: FieldDefault,
    /// Skipped by serde: never read (and, once checked, without guards).
    pub(crate) skip: bool,
    /// `#[serde(flatten)]`: a `ToolArgs` struct whose fields sit beside this struct's own.
    pub(crate) flatten: bool,
    pub(crate) guards: G,
}

/// An arguments struct, its fields' guards as written or as checked.
pub(crate) struct Struct<'a, G = Guards> {
    pub(crate) ident: &'a Ident,
    pub(crate) description: Option<String>,
    pub(crate) container_default: bool,
    pub(crate) fields: Vec<Field<'a, G>>,
    /// `#[guard(check = .., example = ..)]` on the struct.
    pub(crate) rules: StructRules,
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
    /// The variants read from the wire: not those serde skips.
    pub(crate) variants: Vec<Variant<'a>>,
    /// Whether serde skips some variants: never read, `as_str` must still name them.
    pub(crate) skips_variants: bool,
}

/// `check(path, fields(a, b))`: a rule that reads the fields it names.
pub(crate) struct FieldsCheck {
    /// A `Fn(A, B) -> Result<(), E>`, given the named fields' typed values in that order, each
    /// through `FieldArg` (by reference, by copy or as `Option<&U>`).
    pub(crate) path: ExprPath,
    /// The Rust names of the fields it reads.
    pub(crate) fields: Vec<Ident>,
}

/// The rules written on a struct.
#[derive(Default)]
pub(crate) struct StructRules {
    /// `check = path`, in the order written: each a `Fn(&Self) -> Result<(), E>`.
    pub(crate) checks: Vec<ExprPath>,
    /// `check(path, fields(..))`, in the order written.
    pub(crate) field_checks: Vec<FieldsCheck>,
    /// `example = "{…}"`: a JSON object whose fields override the built example's.
    pub(crate) example: Option<At<String>>,
    /// Set on the hidden struct of an enum's variant (and only there): its `check = f` takes
    /// the enum, so the enum's reader runs it once the variant is built, not this struct's
    /// validator; and its `ToolArgs` is never suggested in a compile error.
    pub(crate) whole_checks_elsewhere: bool,
}

#[cfg(test)]
mod tests {
    use std::cmp::Ordering;

    use super::{Finite, NumLit};

    fn float(f: f64) -> NumLit {
        NumLit::Float(Finite::new(f).unwrap())
    }

    #[test]
    fn numbers_compare_exactly() {
        let two_53 = 9_007_199_254_740_992_i128;
        // As `f64`, both sides would be 2^53.
        assert_eq!(
            NumLit::Int(two_53 + 1).cmp(float(9_007_199_254_740_992.0)),
            Ordering::Greater
        );
        assert_eq!(NumLit::Int(1).cmp(float(1.0)), Ordering::Equal);
        assert_eq!(float(-1.5).cmp(NumLit::Int(-1)), Ordering::Less);
        assert_eq!(NumLit::Int(-1).cmp(float(-1.5)), Ordering::Greater);
        assert_eq!(NumLit::Int(0).cmp(float(0.5)), Ordering::Less);
        assert_eq!(NumLit::Int(i128::MAX).cmp(float(1e300)), Ordering::Less);
        assert_eq!(NumLit::Int(i128::MIN).cmp(float(-1e300)), Ordering::Greater);
        assert_eq!(
            NumLit::Int(i128::MIN).cmp(float(-(2.0_f64.powi(127)))),
            Ordering::Equal
        );
        assert_eq!(float(-0.0).cmp(float(0.0)), Ordering::Equal);
        assert!(!float(0.0).is_positive());
        assert!(float(1e-300).is_positive());
    }

    #[test]
    fn only_finite_floats_are_numbers() {
        assert!(Finite::new(f64::INFINITY).is_none());
        assert!(Finite::new(f64::NAN).is_none());
        assert_eq!(Finite::new(2.5).map(Finite::get), Some(2.5));
    }
}
