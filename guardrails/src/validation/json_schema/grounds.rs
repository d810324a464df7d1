//! What a refusal rests on ([`Grounds`]): a rule the schema declares, or only what the type a
//! value is read into accepts, which that type's own reading can decide. Asked only by a caller
//! that can also ask the tool's own type (with the `rmcp` feature).

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::lookup::lookup;
use super::strict::integer_format_bounds;
use super::whole_integer::WHOLE_INTEGER;
use super::{MAX_UNION_DEPTH, SchemaArgs};

/// What a refusal rests on: whether a rule the schema declares failed, and the keys no schema
/// of their object takes. Every other issue is about what the type a value is read into
/// accepts (a JSON type, a name, a field it needs), which that type's own reading can decide.
#[derive(Debug, Default)]
pub(crate) struct Grounds {
    /// A rule the schema declares failed: a length, a range, a pattern, an asserted format.
    pub(crate) declared: bool,
    /// The keys no schema of their object takes: the JSON pointer of the object, and the key.
    pub(crate) keys: Vec<(String, String)>,
}

impl SchemaArgs {
    /// What a refusal of `arguments` rests on, for a caller that can also ask the tool's own
    /// type whether it reads them ([`Grounds`]). Call it on arguments [`SchemaArgs::check`]
    /// refuses: it walks the validator's errors again, the branches of failed unions included.
    #[must_use]
    pub(crate) fn grounds(&self, arguments: &Value) -> Grounds {
        let mut grounds = Grounds::default();
        for error in self.validator.iter_errors(arguments) {
            self.ground(&error, &mut grounds, 0);
        }
        grounds
    }

    fn ground(&self, error: &ValidationError<'_>, grounds: &mut Grounds, depth: usize) {
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                let at = error.instance_path().as_str();
                for key in unexpected {
                    if !grounds.keys.iter().any(|(o, k)| o == at && k == key) {
                        grounds.keys.push((at.to_owned(), key.clone()));
                    }
                }
            }
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context }
            | ValidationErrorKind::OneOfMultipleValid { context } => {
                if depth >= MAX_UNION_DEPTH {
                    grounds.declared = true;
                    return;
                }
                for inner in context.iter().flatten() {
                    self.ground(inner, grounds, depth + 1);
                }
            }
            // What the type a value is read into decides: its JSON type, the names it takes,
            // the fields it needs, the length of a tuple, a whole number, the duplicates of a
            // set (which serde folds).
            ValidationErrorKind::Type { .. }
            | ValidationErrorKind::Enum { .. }
            | ValidationErrorKind::Constant { .. }
            | ValidationErrorKind::Required { .. }
            | ValidationErrorKind::FalseSchema
            | ValidationErrorKind::AdditionalItems { .. }
            | ValidationErrorKind::UnevaluatedItems { .. }
            | ValidationErrorKind::UniqueItems => {}
            ValidationErrorKind::Custom { keyword, .. } if keyword == WHOLE_INTEGER => {}
            ValidationErrorKind::MinItems { .. } | ValidationErrorKind::MaxItems { .. }
                if self
                    .at_failed(error)
                    .is_some_and(|s| s.get("prefixItems").is_some()) => {}
            ValidationErrorKind::Minimum { limit }
            | ValidationErrorKind::Maximum { limit }
            | ValidationErrorKind::ExclusiveMinimum { limit }
            | ValidationErrorKind::ExclusiveMaximum { limit }
                if self
                    .at_failed(error)
                    .and_then(|s| s.get("format"))
                    .and_then(Value::as_str)
                    .and_then(integer_format_bounds)
                    .is_some_and(|(low, high)| *limit == low || *limit == high) => {}
            // A rule the schema declares (a length, a range, a pattern, an asserted format):
            // the tool's reading does not check it.
            _ => grounds.declared = true,
        }
    }

    /// The schema whose keyword `error` failed.
    fn at_failed(&self, error: &ValidationError<'_>) -> Option<&Value> {
        let parent = error
            .schema_path()
            .as_str()
            .rsplit_once('/')
            .map_or("", |(parent, _)| parent);
        lookup(&self.schema, parent)
    }
}
