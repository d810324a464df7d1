//! Repair of slips whose meaning is not in doubt: a value sent as a string where the field's
//! type leaves one reading of it.
//!
//! A repair is tried only where a value does not have the JSON type its field reads (the
//! check a valid call passes anyway), so a call that needs none pays one test of a flag per
//! field. The repaired value then goes through the field's checks like any value sent, so a
//! repair never lets through anything those checks refuse. What is repaired:
//!
//! | the field's type | sent | read as |
//! |---|---|---|
//! | an integer | a string holding a JSON number with no fraction (`"25"`, `"25.0"`), within the type's range | that integer |
//! | a number | a string holding a JSON number (`"2.5"`), within the type's range | that number |
//! | a boolean | `"true"` or `"false"` | the boolean |
//! | an array (`Vec`) | a string holding a JSON array (`"[\"a\",\"b\"]"`) | the array |
//! | an object (a struct, a map, an enum with data tagged by a key) | a string holding a JSON object | the object |
//!
//! Never repaired: a value of a string field (a string stays what was sent, whatever it looks
//! like), of a field marked `sensitive` or `no_repair` or inside one, of an untagged enum
//! (which variant a value reads as is not to be decided by a repair), and a string with spaces
//! around the number, a sign `+`, `"True"`, `"1"` for a boolean: anything that is not exactly
//! what a model meant with the right type.

use serde_json::{Number, Value};

use super::info::{Kind, Tagging};

/// Which slip a repair mended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RepairKind {
    /// A number sent as a string: `"25"` for an integer or a number.
    NumberInString,
    /// A boolean sent as a string: `"true"` or `"false"`.
    BooleanInString,
    /// An array sent as a string of JSON.
    ArrayInString,
    /// An object sent as a string of JSON.
    ObjectInString,
}

impl RepairKind {
    /// The name of the slip, as telemetry labels it: `number_in_string`, `boolean_in_string`,
    /// `array_in_string`, `object_in_string`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NumberInString => "number_in_string",
            Self::BooleanInString => "boolean_in_string",
            Self::ArrayInString => "array_in_string",
            Self::ObjectInString => "object_in_string",
        }
    }

    /// What the model should send instead.
    #[must_use]
    pub(crate) const fn advice(self) -> &'static str {
        match self {
            Self::NumberInString => "send numbers unquoted",
            Self::BooleanInString => "send true and false unquoted",
            Self::ArrayInString => "send arrays as JSON arrays, not as strings",
            Self::ObjectInString => "send objects as JSON objects, not as strings",
        }
    }
}

/// One repair of a call's arguments: where, what was sent and how it was read. The values are
/// previews, bounded and never of a sensitive field (those are not repaired); a server that
/// echoes no value shows what kind of value each was and its size instead.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Repair {
    /// Where the value was, e.g. `limit` or `items[2].quantity`.
    pub path: String,
    /// Which slip it was.
    pub kind: RepairKind,
    /// What was sent, as a bounded JSON preview (`"25"`).
    pub sent: String,
    /// What it was read as, as a bounded JSON preview (`25`).
    pub read_as: String,
}

impl Repair {
    /// The line the model reads: "`limit` was the string \"25\": read as 25; send numbers
    /// unquoted."
    #[must_use]
    pub fn message(&self) -> String {
        let path = if self.path.is_empty() {
            "(arguments)"
        } else {
            &self.path
        };
        format!(
            "`{path}` was the string {}: read as {}; {}.",
            self.sent,
            self.read_as,
            self.kind.advice()
        )
    }
}

/// The value `value` stands for where a value of `kind` is expected, when there is exactly one
/// reading of it; `None` when there is none, or when the value needs no repair.
pub(crate) fn attempt(kind: &Kind, value: &Value) -> Option<(Value, RepairKind)> {
    let Value::String(text) = value else {
        return None;
    };
    match kind {
        Kind::Boolean => match text.as_str() {
            "true" => Some((Value::Bool(true), RepairKind::BooleanInString)),
            "false" => Some((Value::Bool(false), RepairKind::BooleanInString)),
            _ => None,
        },
        Kind::Integer { min, max } => {
            let number = number_in(text)?;
            let int = number
                .as_i64()
                .map(i128::from)
                .or_else(|| number.as_u64().map(i128::from))
                .or_else(|| whole(number.as_f64()?))?;
            if int < *min || int > *max {
                return None;
            }
            let read = i64::try_from(int).ok().map(Value::from)?;
            Some((read, RepairKind::NumberInString))
        }
        Kind::Number { max_magnitude } => {
            let number = number_in(text)?;
            let magnitude = number.as_f64()?.abs();
            if max_magnitude.is_some_and(|max| magnitude > max) {
                return None;
            }
            Some((Value::Number(number), RepairKind::NumberInString))
        }
        Kind::Array(_) => json_in(text)
            .filter(Value::is_array)
            .map(|read| (read, RepairKind::ArrayInString)),
        // A tagged enum's value names its variant itself: read from a string, it names the
        // same one. An untagged enum's is chosen by the fields: not a repair's to decide.
        Kind::Variants(info) if matches!(info.tagging, Tagging::Untagged) => None,
        Kind::Object(_) | Kind::Map(_) | Kind::Variants(_) => json_in(text)
            .filter(Value::is_object)
            .map(|read| (read, RepairKind::ObjectInString)),
        _ => None,
    }
}

/// The integer a float without a fraction is, within `f64`'s exact integers.
fn whole(float: f64) -> Option<i128> {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "integral, and within ±2^53 where every integer is exact"
    )]
    (float.fract() == 0.0 && float.abs() <= 9_007_199_254_740_991.0).then_some(float as i128)
}

/// The JSON number `text` is, written as JSON writes it: no space around it, no `+`, no
/// leading zero, no `NaN`.
fn number_in(text: &str) -> Option<Number> {
    let first = *text.as_bytes().first()?;
    let last = *text.as_bytes().last()?;
    if !(first == b'-' || first.is_ascii_digit()) || !last.is_ascii_digit() {
        return None;
    }
    serde_json::from_str::<Number>(text).ok()
}

/// The JSON array or object `text` is, written with nothing before or after it.
fn json_in(text: &str) -> Option<Value> {
    let first = *text.as_bytes().first()?;
    let last = *text.as_bytes().last()?;
    if !matches!((first, last), (b'[', b']') | (b'{', b'}')) {
        return None;
    }
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Kind, RepairKind, attempt};

    fn int() -> Kind {
        Kind::Integer { min: 0, max: 255 }
    }

    #[test]
    fn only_what_the_type_leaves_no_doubt_about_is_repaired() {
        assert_eq!(
            attempt(&int(), &json!("25")),
            Some((json!(25), RepairKind::NumberInString))
        );
        assert_eq!(
            attempt(&int(), &json!("25.0")).map(|r| r.0),
            Some(json!(25))
        );
        for doubtful in [
            "25.5", " 25", "25 ", "+25", "0x19", "256", "-1", "", "1e999", "NaN",
        ] {
            assert_eq!(attempt(&int(), &json!(doubtful)), None, "{doubtful:?}");
        }
        let float = Kind::Number {
            max_magnitude: None,
        };
        assert_eq!(
            attempt(&float, &json!("2.5")).map(|r| r.0),
            Some(json!(2.5))
        );
        assert_eq!(attempt(&float, &json!("Infinity")), None);
        assert_eq!(
            attempt(&Kind::Boolean, &json!("true")).map(|r| r.0),
            Some(json!(true))
        );
        for doubtful in ["True", "1", "yes", " true"] {
            assert_eq!(attempt(&Kind::Boolean, &json!(doubtful)), None);
        }
        let list = Kind::Array(Box::new(Kind::String));
        assert_eq!(
            attempt(&list, &json!("[\"a\",\"b\"]")).map(|r| r.0),
            Some(json!(["a", "b"]))
        );
        assert_eq!(attempt(&list, &json!("{\"a\":1}")), None);
        assert_eq!(attempt(&list, &json!("[1,")), None);
        assert_eq!(attempt(&list, &json!(" [1]")), None);
        let map = Kind::Map(Box::new(Kind::String));
        assert_eq!(
            attempt(&map, &json!("{\"a\":\"b\"}")).map(|r| r.1),
            Some(RepairKind::ObjectInString)
        );
        // Strings, enums of names and any value are never repaired.
        assert_eq!(attempt(&Kind::String, &json!("25")), None);
        assert_eq!(attempt(&Kind::Enum(&["a"]), &json!("[\"a\"]")), None);
        assert_eq!(attempt(&Kind::Any, &json!("25")), None);
        // Only strings are read again.
        assert_eq!(attempt(&int(), &json!(true)), None);
    }
}
