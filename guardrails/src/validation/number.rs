//! Numbers and bounds of constraints: exact integers or `f64`, a bound with its exclusivity.
//! Shared by the constraints and their wording, which both read them.

use serde_json::{Number, Value};

/// A number in a constraint: integers stay exact, everything else is an `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// An integer bound or step.
    Int(i128),
    /// A fractional bound or step.
    Float(f64),
}

impl Num {
    /// The JSON number of this value.
    #[must_use]
    pub fn to_json(self) -> Value {
        match self {
            Self::Int(i) => i64::try_from(i)
                .map(Value::from)
                .or_else(|_| u64::try_from(i).map(Value::from))
                .unwrap_or_else(|_| json_f64(self.as_f64())),
            Self::Float(f) => json_f64(f),
        }
    }

    /// Writes the number as [`Display`](std::fmt::Display) does, integers without the
    /// formatting machinery.
    pub(crate) fn push_to(self, out: &mut String) {
        match self {
            Self::Int(i) => crate::text::push_int(out, i),
            Self::Float(_) => {
                use std::fmt::Write as _;
                let _ = write!(out, "{self}");
            }
        }
    }

    #[expect(
        clippy::cast_precision_loss,
        reason = "used only for fractional steps and bounds"
    )]
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Self::Int(i) => i as f64,
            Self::Float(f) => f,
        }
    }
}

fn json_f64(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Int(i) => write!(f, "{i}"),
            Self::Float(x) => write!(f, "{x}"),
        }
    }
}

/// A lower or upper bound on a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The bound itself.
    pub value: Num,
    /// Whether the bound itself is excluded.
    pub exclusive: bool,
}
