//! What the derive declares about an arguments type: its fields, their constraints and the
//! [`Kind`] of JSON value each accepts. Plain data, read as constants by the validation pass,
//! the messages, the schema and the contracts.

use std::cell::RefCell;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::constraint::Constraints;
use crate::text::{count, quoted_list};

/// What a value of some Rust type looks like in JSON; used for messages, fix texts and schemas.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Kind {
    /// A JSON string.
    String,
    /// `true` or `false`.
    #[doc(hidden)]
    Boolean,
    /// An integer within the range of its Rust type, and within ±(2^53 - 1), the integers
    /// every JSON client holds exactly.
    #[doc(hidden)]
    Integer {
        /// The smallest value the field accepts.
        min: i128,
        /// The largest value the field accepts.
        max: i128,
    },
    /// A number, optionally bounded by the range of its Rust type (`f32`).
    #[doc(hidden)]
    Number {
        /// The largest magnitude the type holds, when smaller than `f64`'s.
        max_magnitude: Option<f64>,
    },
    /// An array whose items are of the inner kind.
    #[doc(hidden)]
    Array(Box<Kind>),
    /// A JSON object with declared fields.
    #[doc(hidden)]
    Object(&'static ArgsInfo),
    /// A JSON object whose keys are data and whose values are of the inner kind.
    #[doc(hidden)]
    Map(Box<Kind>),
    /// A string that is one of a fixed set of values.
    #[doc(hidden)]
    Enum(&'static [&'static str]),
    /// A string in a format: what a field of a date, UUID or URL type accepts (the
    /// [`ArgValue`](crate::ArgValue) impls behind the features `chrono`, `time`, `uuid`, `url`).
    #[doc(hidden)]
    Formatted(super::StringFormat),
    /// A string of a shape of its own, in words that complete "Expected …" and "Fix: …", e.g.
    /// `"a customer id such as cus_1a2b3c4d"`: for a type that implements
    /// [`ArgValue`](crate::ArgValue) with a check of its own (a decimal, an identifier).
    Text(&'static str),
    /// Any JSON value.
    Any,
    /// A value of an enum with data (`#[derive(ToolArgs)]` on an enum): its variants and how
    /// serde tags them.
    #[doc(hidden)]
    Variants(&'static EnumInfo),
}

impl Kind {
    /// The JSON Schema type name of the kind: `string`, `integer`, `number`, `boolean`, `array`,
    /// `object`, or `any`.
    #[must_use]
    pub(crate) fn json_type(&self) -> &'static str {
        match self {
            Self::String | Self::Enum(_) | Self::Formatted(_) | Self::Text(_) => "string",
            Self::Boolean => "boolean",
            Self::Integer { .. } => "integer",
            Self::Number { .. } => "number",
            Self::Array(_) => "array",
            Self::Object(_) | Self::Map(_) => "object",
            Self::Variants(info) => info.json_type(),
            Self::Any => "any",
        }
    }

    /// A short noun phrase for the kind, as in "Expected {noun}".
    #[must_use]
    pub(crate) fn noun(&self) -> String {
        match self {
            Self::String => "a string".into(),
            Self::Boolean => "a boolean".into(),
            Self::Integer { .. } => "an integer".into(),
            Self::Number { .. } => "a number".into(),
            Self::Array(item) => format!("an array of {}", plural(item)),
            Self::Object(_) | Self::Map(_) => "an object".into(),
            Self::Enum(values) => format!("one of {}", quoted_list(values)),
            Self::Formatted(format) => format!("a string that is {}", format.describe()),
            Self::Text(words) => (*words).to_owned(),
            Self::Variants(info) => info.noun(),
            Self::Any => "any JSON value".into(),
        }
    }

    /// A full description of the values a field of this kind accepts under `constraints`, e.g.
    /// "a string of 3 to 20 characters matching ^[a-z]+$" or "an integer from 0 to 255".
    #[must_use]
    pub(crate) fn describe(&self, constraints: &Constraints) -> String {
        let details = match self {
            Self::Map(_) => constraints.describe_map(),
            Self::Any => constraints.describe_any(),
            _ => constraints.describe(matches!(self, Self::Array(_))),
        };
        match self {
            Self::Integer { min, max } => {
                let mut out = String::from("an integer");
                if constraints.minimum.is_none() && constraints.maximum.is_none() {
                    describe_type_range(&mut out, *min, *max);
                }
                out + &details
            }
            Self::Number {
                max_magnitude: Some(m),
            } if constraints.minimum.is_none() && constraints.maximum.is_none() => {
                format!("a number between -{m:e} and {m:e}{details}")
            }
            Self::Array(item) => {
                let each = item.describe(&Constraints::NONE);
                format!("an array{details}, each item {each}")
            }
            Self::Object(info) => {
                let names: Vec<&str> = info.fields.iter().map(|f| f.name).collect();
                format!("an object with the fields {}{details}", quoted_list(&names))
            }
            Self::Map(value) => {
                let each = value.describe(&Constraints::NONE);
                format!("an object{details}, each value {each}")
            }
            Self::Boolean => format!("true or false{details}"),
            other => other.noun() + &details,
        }
    }
}

fn describe_type_range(out: &mut String, min: i128, max: i128) {
    // The limits of 64-bit types go unsaid: no value a model means to send is near them.
    let safe = i128::from(super::MAX_SAFE_INTEGER);
    let wide_min = min <= -safe;
    let wide_max = max >= safe;
    match (wide_min, wide_max) {
        (true, true) => {}
        (false, true) => {
            let _ = write!(out, " of at least {min}");
        }
        _ => {
            let _ = write!(out, " from {min} to {max}");
        }
    }
}

fn plural(kind: &Kind) -> String {
    match kind {
        Kind::String | Kind::Formatted(_) | Kind::Text(_) => "strings".into(),
        Kind::Boolean => "booleans".into(),
        Kind::Integer { .. } => "integers".into(),
        Kind::Number { .. } => "numbers".into(),
        Kind::Array(inner) => format!("arrays of {}", plural(inner)),
        Kind::Object(_) | Kind::Map(_) => "objects".into(),
        Kind::Enum(values) => format!("values from {}", quoted_list(values)),
        Kind::Variants(info) => format!("values of `{}`", info.type_name),
        Kind::Any => "values".into(),
    }
}

/// The JSON type of a value as a noun, for "got …" in messages.
#[must_use]
pub(crate) fn json_type_noun(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number with a fraction",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What a message says of a value it does not echo: its kind and its size, never its content,
/// e.g. `(withheld: a string of 14 characters)`. Used for sensitive fields and by a server that
/// echoes no value ([`Cx::withholding_values`](super::Cx::withholding_values)).
#[must_use]
pub fn withheld(value: &Value) -> String {
    let what = match value {
        Value::String(s) => return withheld_text(s),
        Value::Array(items) => format!("an array of {}", count(items.len(), "item", "items")),
        Value::Object(map) => format!("an object with {}", count(map.len(), "key", "keys")),
        other => json_type_noun(other).to_owned(),
    };
    format!("(withheld: {what})")
}

/// [`withheld`] of a string value.
pub(crate) fn withheld_text(text: &str) -> String {
    let chars = count(text.chars().count(), "character", "characters");
    format!("(withheld: a string of {chars})")
}

/// What the derive knows about one field of an arguments struct. `#[non_exhaustive]`: read
/// the fields, never build or destructure the struct.
#[derive(Debug)]
#[non_exhaustive]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts the derive states about a field, read as constants"
)]
pub struct FieldInfo {
    /// The name on the wire (after serde's `rename` / `rename_all`).
    pub name: &'static str,
    /// The name of the field in Rust; a caller that sends it is pointed to the wire name.
    pub rust_name: &'static str,
    /// The doc comment of the field.
    pub description: Option<&'static str>,
    /// Whether the field must be present.
    pub required: bool,
    /// Whether `null` is accepted (an `Option`).
    pub nullable: bool,
    /// Whether serde skips the field: it is never accepted on the wire.
    pub skipped: bool,
    /// The declared constraints.
    pub constraints: Constraints,
    /// Whether any constraint is declared (so that unconstrained fields skip the check).
    pub checked: bool,
    /// Whether the value is sensitive (`#[guard(sensitive)]`): never echoed in a message (an
    /// issue says what kind of value was sent and its size, see [`withheld`]), its example a
    /// placeholder, and its schema `writeOnly`.
    pub sensitive: bool,
    /// Whether a repair of the call never touches the value (`#[guard(no_repair)]`): for
    /// money, identifiers and whatever else must be sent exactly as the model meant it.
    pub no_repair: bool,
    /// An explicit example, as JSON text checked at compile time.
    pub example: Option<&'static str>,
    /// The kind of the field's type.
    pub kind: fn() -> Kind,
    /// The JSON Schema of the field's type, before constraints.
    pub schema: fn() -> Map<String, Value>,
    /// The example the field's type builds under constraints.
    pub generate_example: fn(&Constraints, usize) -> Value,
    /// The other names serde reads the field under (`#[serde(alias = "..")]`).
    pub aliases: &'static [&'static str],
}

impl FieldInfo {
    /// The field of generated code, every fact in the order of the fields. Not part of the
    /// public API.
    #[doc(hidden)]
    #[must_use]
    #[expect(
        clippy::too_many_arguments,
        clippy::fn_params_excessive_bools,
        reason = "one argument per fact: a fact the derive does not state does not compile"
    )]
    pub const fn from_parts(
        name: &'static str,
        rust_name: &'static str,
        description: Option<&'static str>,
        required: bool,
        nullable: bool,
        skipped: bool,
        constraints: Constraints,
        checked: bool,
        sensitive: bool,
        no_repair: bool,
        example: Option<&'static str>,
        kind: fn() -> Kind,
        schema: fn() -> Map<String, Value>,
        generate_example: fn(&Constraints, usize) -> Value,
    ) -> Self {
        Self {
            name,
            rust_name,
            description,
            required,
            nullable,
            skipped,
            constraints,
            checked,
            sensitive,
            no_repair,
            example,
            kind,
            schema,
            generate_example,
            aliases: &[],
        }
    }

    /// This field, read under the other names `aliases` too. Not part of the public API.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// The value of this field in `object`, the object as sent: under its name, or under one
    /// of its aliases.
    pub(crate) fn sent_in<'v>(&self, object: &'v Map<String, Value>) -> Option<&'v Value> {
        object
            .get(self.name)
            .or_else(|| self.aliases.iter().find_map(|alias| object.get(*alias)))
    }

    /// The fix text of the field: what a valid value is.
    #[must_use]
    pub fn fix(&self) -> String {
        self.fix_with(&(self.kind)())
    }

    pub(crate) fn fix_with(&self, kind: &Kind) -> String {
        kind.describe(&self.constraints)
    }

    /// The example value of this field: the declared one, a placeholder for a sensitive text
    /// field (asterisks, when they pass its guards), or the one its type builds.
    #[must_use]
    pub fn example_value(&self) -> Value {
        if let Some(example) = self
            .example
            .and_then(|text| serde_json::from_str(text).ok())
        {
            return example;
        }
        if self.sensitive
            && matches!((self.kind)(), Kind::String)
            && let Some(placeholder) = self.constraints.sensitive_placeholder()
        {
            return placeholder;
        }
        (self.generate_example)(&self.constraints, 0)
    }
}

/// What the derive knows about an arguments struct: its fields, their guards and examples, as
/// [`ToolArgs::info`](crate::ToolArgs::info) gives it, for the renderers of [`render`](crate::render)
/// to word a rejection with. Opaque: the derive states it, the library reads it.
#[derive(Debug)]
pub struct ArgsInfo {
    /// The Rust name of the type.
    pub(crate) type_name: &'static str,
    /// The doc comment of the type.
    pub(crate) description: Option<&'static str>,
    /// Its fields, in declaration order (skipped ones included, marked).
    pub(crate) fields: &'static [FieldInfo],
    /// The enums with data flattened into it (`#[serde(flatten)]`), whose tag and fields sit
    /// beside its own fields.
    pub(crate) flattened: &'static [&'static EnumInfo],
    /// The functions of its struct-level checks (`#[guard(check = f)]` and
    /// `#[guard(check(f, fields(..)))]`), by name as written, those of the structs it flattens
    /// included: the contract records them.
    pub(crate) checks: &'static [&'static str],
}

impl ArgsInfo {
    /// The arguments of generated code. Not part of the public API.
    #[doc(hidden)]
    #[must_use]
    pub const fn from_parts(
        type_name: &'static str,
        description: Option<&'static str>,
        fields: &'static [FieldInfo],
        flattened: &'static [&'static EnumInfo],
        checks: &'static [&'static str],
    ) -> Self {
        Self {
            type_name,
            description,
            fields,
            flattened,
            checks,
        }
    }

    /// The description of arguments that declare no field to this crate: those of a tool known
    /// only by its JSON Schema.
    #[cfg(any(feature = "rmcp", test))]
    pub(crate) const UNDECLARED: ArgsInfo = ArgsInfo {
        type_name: "",
        description: None,
        fields: &[],
        flattened: &[],
        checks: &[],
    };

    /// Its fields, in declaration order, for generated code. Not part of the public API.
    #[doc(hidden)]
    #[must_use]
    pub const fn fields(&self) -> &'static [FieldInfo] {
        self.fields
    }

    /// The fields a caller can send.
    pub(crate) fn wire_fields(&self) -> impl Iterator<Item = &'static FieldInfo> + use<> {
        let fields: &'static [FieldInfo] = self.fields;
        fields.iter().filter(|f| !f.skipped)
    }

    /// The names of the required fields.
    pub(crate) fn required(&self) -> impl Iterator<Item = &'static str> + use<> {
        self.wire_fields().filter(|f| f.required).map(|f| f.name)
    }
}

/// Runs `build` with `info` marked as in progress on `stack`, or returns `None` when it already
/// is: a recursive type reached itself. Schemas and examples of recursive types stop there.
pub(crate) fn guarded<R>(
    stack: &'static std::thread::LocalKey<RefCell<Vec<usize>>>,
    info: &ArgsInfo,
    build: impl FnOnce() -> R,
) -> Option<R> {
    let id = std::ptr::from_ref(info) as usize;
    if stack.with_borrow(|s| s.contains(&id)) {
        return None;
    }
    stack.with_borrow_mut(|s| s.push(id));
    let out = build();
    stack.with_borrow_mut(Vec::pop);
    Some(out)
}

/// Whether `info` is on `stack`: a recursive type is being built inside itself.
pub(crate) fn in_progress(
    stack: &'static std::thread::LocalKey<RefCell<Vec<usize>>>,
    info: &ArgsInfo,
) -> bool {
    let id = std::ptr::from_ref(info) as usize;
    stack.with_borrow(|s| s.contains(&id))
}

/// How serde names the variant of an enum on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tagging {
    /// `{"weekly": {...}}`, or `"daily"` for a unit variant (serde's default).
    External,
    /// `{"kind": "weekly", ...fields}` (`#[serde(tag = "kind")]`).
    Internal {
        /// The key of the tag.
        tag: &'static str,
    },
    /// `{"kind": "weekly", "data": {...}}` (`#[serde(tag = "kind", content = "data")]`).
    Adjacent {
        /// The key of the tag.
        tag: &'static str,
        /// The key of the variant's fields.
        content: &'static str,
    },
    /// The variant's fields alone; the first variant they fit is chosen
    /// (`#[serde(untagged)]`).
    Untagged,
}

/// One variant of an enum with data. `#[non_exhaustive]`: read the fields, never build or
/// destructure the struct.
#[derive(Debug)]
#[non_exhaustive]
pub struct VariantInfo {
    /// The name on the wire (after serde's `rename` / `rename_all`).
    pub name: &'static str,
    /// The fields of a struct variant or of the struct a newtype variant holds; `None` for a
    /// unit variant.
    pub fields: Option<fn() -> &'static ArgsInfo>,
}

/// What the derive knows about an enum with data. `#[non_exhaustive]`: read the fields, never
/// build or destructure the struct.
#[derive(Debug)]
#[non_exhaustive]
pub struct EnumInfo {
    /// The Rust name of the type.
    pub type_name: &'static str,
    /// The doc comment of the type.
    pub description: Option<&'static str>,
    /// How the variant is named on the wire.
    pub tagging: Tagging,
    /// The variants read from the wire, in declaration order.
    pub variants: &'static [VariantInfo],
}

impl VariantInfo {
    /// The variant of generated code. Not part of the public API.
    #[doc(hidden)]
    #[must_use]
    pub const fn from_parts(name: &'static str, fields: Option<fn() -> &'static ArgsInfo>) -> Self {
        Self { name, fields }
    }
}

impl EnumInfo {
    /// The enum of generated code. Not part of the public API.
    #[doc(hidden)]
    #[must_use]
    pub const fn from_parts(
        type_name: &'static str,
        description: Option<&'static str>,
        tagging: Tagging,
        variants: &'static [VariantInfo],
    ) -> Self {
        Self {
            type_name,
            description,
            tagging,
            variants,
        }
    }
}
