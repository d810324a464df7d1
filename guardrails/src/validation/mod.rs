//! Strict argument validation: the issue model, the context one pass runs in, and the traits the
//! derives implement.
//!
//! A call's arguments are checked in one pass that collects every issue (unknown keys, missing
//! fields, wrong types, broken constraints, at any depth) and builds the typed value only when
//! there is none.

mod constraint;
mod policy;
mod report;
mod value;

use std::fmt::Write as _;

use serde_json::{Map, Value};

pub use constraint::{
    Bound, Constraints, CustomCheck, Literal, Num, Pattern, PresentValue, WholeValue,
};
pub use policy::{Acknowledgement, PolicyText};
#[doc(hidden)]
pub use policy::{WarningGate, policy_from, run_policy, warning_gate};
pub use report::{Issue, IssueCode, MAX_KEPT_ISSUES, Report};
pub use value::ArgValue;
#[doc(hidden)]
pub use value::{enum_example, enum_mismatch, enum_schema};

/// The most characters of a value sent by the caller that an issue echoes back.
pub const PREVIEW_CHARS: usize = 80;

/// The most characters of an unknown key that an issue echoes back.
const KEY_PREVIEW_CHARS: usize = 64;

/// What a value of some Rust type looks like in JSON; used for messages, fix texts and schemas.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Kind {
    /// A JSON string.
    String,
    /// `true` or `false`.
    Boolean,
    /// An integer within the range of its Rust type.
    Integer {
        /// The smallest value the type holds.
        min: i128,
        /// The largest value the type holds.
        max: i128,
    },
    /// A number, optionally bounded by the range of its Rust type (`f32`).
    Number {
        /// The largest magnitude the type holds, when smaller than `f64`'s.
        max_magnitude: Option<f64>,
    },
    /// An array whose items are of the inner kind.
    Array(Box<Kind>),
    /// A JSON object with declared fields.
    Object(&'static ArgsInfo),
    /// A JSON object whose keys are data and whose values are of the inner kind.
    Map(Box<Kind>),
    /// A string that is one of a fixed set of values.
    Enum(&'static [&'static str]),
    /// Any JSON value.
    Any,
}

impl Kind {
    /// The JSON Schema type name of the kind: `string`, `integer`, `number`, `boolean`, `array`,
    /// `object`, or `any`.
    #[must_use]
    pub fn json_type(&self) -> &'static str {
        match self {
            Self::String | Self::Enum(_) => "string",
            Self::Boolean => "boolean",
            Self::Integer { .. } => "integer",
            Self::Number { .. } => "number",
            Self::Array(_) => "array",
            Self::Object(_) | Self::Map(_) => "object",
            Self::Any => "any",
        }
    }

    /// A short noun phrase for the kind, as in "Expected {noun}".
    #[must_use]
    pub fn noun(&self) -> String {
        match self {
            Self::String => "a string".into(),
            Self::Boolean => "a boolean".into(),
            Self::Integer { .. } => "an integer".into(),
            Self::Number { .. } => "a number".into(),
            Self::Array(item) => format!("an array of {}", plural(item)),
            Self::Object(_) | Self::Map(_) => "an object".into(),
            Self::Enum(values) => format!("one of {}", quoted_list(values)),
            Self::Any => "any JSON value".into(),
        }
    }

    /// A full description of the values a field of this kind accepts under `constraints`, e.g.
    /// "a string of 3 to 20 characters matching ^[a-z]+$" or "an integer from 0 to 255".
    #[must_use]
    pub fn describe(&self, constraints: &Constraints) -> String {
        let details = constraints.describe(self);
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
    let wide_min = min <= i128::from(i64::MIN);
    let wide_max = max >= i128::from(i64::MAX);
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
        Kind::String => "strings".into(),
        Kind::Boolean => "booleans".into(),
        Kind::Integer { .. } => "integers".into(),
        Kind::Number { .. } => "numbers".into(),
        Kind::Array(inner) => format!("arrays of {}", plural(inner)),
        Kind::Object(_) | Kind::Map(_) => "objects".into(),
        Kind::Enum(values) => format!("values from {}", quoted_list(values)),
        Kind::Any => "values".into(),
    }
}

/// `"a", "b", "c"`: each item as a JSON string.
pub(crate) fn quoted_list(items: &[&str]) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&Value::from(*item).to_string());
    }
    out
}

/// The JSON type of a value as a noun, for "got …" in messages.
#[must_use]
pub fn json_type_noun(value: &Value) -> &'static str {
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

/// A bounded preview of a value in JSON notation: at most [`PREVIEW_CHARS`] characters, cut
/// with `…`. Serialization stops as soon as the preview is full, so a 10 MB string costs no more
/// than a short one.
#[must_use]
pub fn preview(value: &Value) -> String {
    struct Bounded {
        buf: Vec<u8>,
        limit: usize,
        full: bool,
    }
    impl std::io::Write for Bounded {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let room = self.limit - self.buf.len();
            if room == 0 {
                self.full = true;
                return Err(std::io::Error::other("preview is full"));
            }
            let n = room.min(bytes.len());
            self.buf.extend_from_slice(&bytes[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // Four bytes per character at most, plus one so that "exactly full" is told apart.
    let mut w = Bounded {
        buf: Vec::new(),
        limit: PREVIEW_CHARS * 4 + 1,
        full: false,
    };
    let _ = serde_json::to_writer(&mut w, value);
    let text = String::from_utf8_lossy(&w.buf);
    cut(&text, PREVIEW_CHARS, w.full)
}

/// Cuts `text` to at most `max` characters, marking the cut with `…`.
pub(crate) fn cut(text: &str, max: usize, force_mark: bool) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None if force_mark => format!("{text}…"),
        None => text.to_owned(),
    }
}

/// Where a validation pass is inside the arguments.
#[derive(Debug, Clone)]
enum Segment {
    /// A declared field, with the kind of its type (for its fix text).
    Field(&'static FieldInfo, fn() -> Kind),
    Index(usize),
    Key(String),
}

/// The context of one validation pass: the issues found so far and where the pass is.
///
/// Generated code and [`ArgValue`] implementations record issues through it; the path and the
/// fix text of the field being checked are added automatically.
#[derive(Debug, Default)]
pub struct Cx {
    report: Report,
    /// The containers the pass is inside.
    path: Vec<Segment>,
    /// The field being checked at the innermost level. Kept out of `path` so that checking a
    /// scalar field costs a store, not a push and a pop; it joins `path` only when the pass
    /// descends into the field's value.
    leaf: Option<Leaf>,
}

/// A declared field, with the kind of its type (for its fix text).
type Leaf = (&'static FieldInfo, fn() -> Kind);

thread_local! {
    /// A path buffer kept between calls, so that validating valid arguments allocates nothing
    /// beyond the typed value itself.
    static SPARE_PATH: std::cell::Cell<Vec<Segment>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Cx {
    /// A fresh context at the top of the arguments.
    #[must_use]
    pub fn new() -> Self {
        let path = SPARE_PATH.with(std::cell::Cell::take);
        Self {
            report: Report::new(),
            path,
            leaf: None,
        }
    }

    /// The issues found so far.
    #[must_use]
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Ends the pass, returning its report.
    #[must_use]
    pub fn into_report(mut self) -> Report {
        std::mem::take(&mut self.report)
    }

    /// The number of issues found so far.
    #[must_use]
    pub fn issue_count(&self) -> usize {
        self.report.len()
    }

    /// The current path, e.g. `items[2].name`.
    #[must_use]
    pub fn path(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            match seg {
                Segment::Field(field, _) => push_key(&mut out, field.name),
                Segment::Key(name) => push_key(&mut out, name),
                Segment::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
            }
        }
        if let Some((field, _)) = self.leaf {
            push_key(&mut out, field.name);
        }
        out
    }

    /// Runs `f` one array index deeper.
    pub fn at_index<R>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        self.descend(Some(Segment::Index(index)), f)
    }

    /// Runs `f` one object key deeper (for map-like values whose keys are data).
    pub fn at_key<R>(&mut self, key: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        self.descend(Some(Segment::Key(cut(key, KEY_PREVIEW_CHARS, false))), f)
    }

    /// Runs `f` inside the value of the current field: how a nested struct's fields are
    /// checked. Used by generated code.
    #[doc(hidden)]
    pub fn nested<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.descend(None, f)
    }

    fn descend<R>(&mut self, step: Option<Segment>, f: impl FnOnce(&mut Self) -> R) -> R {
        let leaf = self.leaf.take();
        if let Some((field, kind)) = leaf {
            self.path.push(Segment::Field(field, kind));
        }
        let stepped = step.is_some();
        if let Some(step) = step {
            self.path.push(step);
        }
        let out = f(self);
        if stepped {
            self.path.pop();
        }
        if leaf.is_some() {
            self.path.pop();
        }
        self.leaf = leaf;
        out
    }

    fn enter(&mut self, field: &'static FieldInfo, kind: fn() -> Kind) -> Option<Leaf> {
        self.leaf.replace((field, kind))
    }

    fn leave(&mut self, previous: Option<Leaf>) {
        self.leaf = previous;
    }

    /// The fix text of the innermost field being checked.
    fn current_fix(&self) -> Option<String> {
        let in_path = self.path.iter().rev().find_map(|seg| match seg {
            Segment::Field(field, kind) => Some((*field, *kind)),
            _ => None,
        });
        self.leaf
            .or(in_path)
            .map(|(field, kind)| field.fix_with(&kind()))
    }

    /// Records an issue at the current path.
    pub fn fail(
        &mut self,
        code: IssueCode,
        message: impl Into<String>,
        received: Option<&Value>,
        expected: Option<String>,
    ) {
        if !self.report.has_room() {
            self.report.count_omitted();
            return;
        }
        let issue = Issue {
            path: self.path(),
            code,
            message: message.into(),
            received: received.map(preview),
            expected,
            fix: self.current_fix(),
        };
        self.report.push(issue);
    }

    /// Records that `value` is not of the JSON type `kind` describes.
    pub fn type_mismatch(&mut self, kind: &Kind, value: &Value) {
        if !self.report.has_room() {
            self.report.count_omitted();
            return;
        }
        let noun = kind.noun();
        let got = json_type_noun(value);
        self.fail(
            IssueCode::Type,
            format!("Expected {noun}, got {got}."),
            Some(value),
            Some(noun),
        );
    }

    /// Records every key of `unknown` (keys of an object that are not among `fields`), each with
    /// the closest field as a suggestion. Generated code reports them after the fields' own
    /// issues, so the model reads about its real fields first.
    pub fn unknown_fields(&mut self, unknown: Vec<(String, Value)>, fields: &'static [FieldInfo]) {
        for (key, value) in unknown {
            self.unknown_field(&key, &value, fields);
        }
    }

    /// Records a key of an object that is not one of `fields`, suggesting the closest field.
    pub fn unknown_field(&mut self, key: &str, value: &Value, fields: &'static [FieldInfo]) {
        if !self.report.has_room() {
            self.report.count_omitted();
            return;
        }
        let names = fields.iter().filter(|f| !f.skipped).map(|f| f.name);
        let by_rust_name = fields
            .iter()
            .find(|f| !f.skipped && f.rust_name == key)
            .map(|f| f.name);
        let (message, fix) = match by_rust_name.or_else(|| did_you_mean(key, names.clone())) {
            Some(best) => {
                let best = Value::from(best);
                (
                    format!("Not a field of this tool. Did you mean {best}?"),
                    format!("Remove it, or rename it to {best}."),
                )
            }
            None => {
                let all: Vec<&str> = names.collect();
                let fix = if all.is_empty() {
                    "Remove it: no field is accepted here.".to_owned()
                } else {
                    format!("Remove it. The fields are: {}.", quoted_list(&all))
                };
                ("Not a field of this tool.".to_owned(), fix)
            }
        };
        self.path
            .push(Segment::Key(cut(key, KEY_PREVIEW_CHARS, false)));
        let issue = Issue {
            path: self.path(),
            code: IssueCode::UnknownField,
            message,
            received: Some(preview(value)),
            expected: None,
            fix: Some(fix),
        };
        self.path.pop();
        self.report.push(issue);
    }

    fn missing(&mut self, field: &'static FieldInfo, kind: fn() -> Kind) {
        let previous = self.enter(field, kind);
        self.fail(
            IssueCode::Missing,
            "Required field is missing.",
            None,
            Some(kind().noun()),
        );
        self.leave(previous);
    }

    /// Records the failure of a custom check; the message is cut to a bounded length.
    pub fn custom(&mut self, message: &str) {
        let message = cut(message, 300, false);
        self.fail(IssueCode::Custom, message, None, None);
    }
}

impl Drop for Cx {
    fn drop(&mut self) {
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        self.leaf = None;
        SPARE_PATH.with(|spare| spare.set(path));
    }
}

fn push_key(out: &mut String, name: &str) {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if plain {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(name);
    } else {
        let _ = write!(out, "[{}]", Value::from(name));
    }
}

/// The field name closest to `key`, when one is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(key: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    // A key much longer than any field cannot be close to one; skipping it also keeps the
    // quadratic distance computation bounded on hostile keys.
    if key.len() > 128 {
        return None;
    }
    let normalize = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = normalize(key);
    let mut best: Option<(&str, f64)> = None;
    for name in names {
        let candidate = normalize(name);
        let score = if candidate == wanted {
            1.0
        } else {
            strsim::normalized_damerau_levenshtein(&wanted, &candidate)
        };
        if score >= 0.7 && best.is_none_or(|(_, s)| score > s) {
            best = Some((name, score));
        }
    }
    best.map(|(name, _)| name)
}

/// What the derive knows about one field of an arguments struct.
#[derive(Debug)]
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
    /// An explicit example, as JSON text checked at compile time.
    pub example: Option<&'static str>,
    /// The kind of the field's type.
    pub kind: fn() -> Kind,
    /// The JSON Schema of the field's type, before constraints.
    pub schema: fn() -> Map<String, Value>,
    /// The example the field's type builds under constraints.
    pub generate_example: fn(&Constraints, usize) -> Value,
}

impl FieldInfo {
    /// The fix text of the field: what a valid value is.
    #[must_use]
    pub fn fix(&self) -> String {
        self.fix_with(&(self.kind)())
    }

    fn fix_with(&self, kind: &Kind) -> String {
        kind.describe(&self.constraints)
    }

    /// The example value of this field.
    #[must_use]
    pub fn example_value(&self) -> Value {
        self.example
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_else(|| (self.generate_example)(&self.constraints, 0))
    }

    /// The JSON Schema of this field: its type's schema with the constraints, the description
    /// and an example.
    #[must_use]
    pub fn schema(&self) -> Map<String, Value> {
        let kind = (self.kind)();
        let mut schema = (self.schema)();
        self.constraints
            .apply_to_schema(&kind, &mut schema, self.nullable);
        if self.nullable {
            crate::schema::allow_null(&mut schema);
        }
        if let Some(d) = self.description {
            schema.insert("description".into(), d.into());
        }
        schema.insert("examples".into(), Value::Array(vec![self.example_value()]));
        schema
    }
}

/// What the derive knows about an arguments struct.
#[derive(Debug)]
pub struct ArgsInfo {
    /// The Rust name of the type.
    pub type_name: &'static str,
    /// The doc comment of the type.
    pub description: Option<&'static str>,
    /// Its fields, in declaration order (skipped ones included, marked).
    pub fields: &'static [FieldInfo],
}

impl ArgsInfo {
    /// The fields a caller can send.
    pub fn wire_fields(&self) -> impl Iterator<Item = &'static FieldInfo> + use<> {
        let fields: &'static [FieldInfo] = self.fields;
        fields.iter().filter(|f| !f.skipped)
    }

    /// The names of the required fields.
    pub fn required(&self) -> impl Iterator<Item = &'static str> + use<> {
        self.wire_fields().filter(|f| f.required).map(|f| f.name)
    }
}

/// Arguments of a tool: a struct whose fields are checked strictly, in one pass, before a
/// handler ever sees them. Implemented by `#[derive(ToolArgs)]`.
pub trait ToolArgs: Sized {
    /// What the derive knows about the type.
    fn info() -> &'static ArgsInfo;

    /// Checks the fields of an object into the typed value, recording every issue in `cx`.
    /// Returns `None` when any issue was found. Generated; call [`ToolArgs::validate`] instead.
    #[doc(hidden)]
    fn validate_fields(object: Map<String, Value>, cx: &mut Cx) -> Option<Self>;

    /// The JSON Schema (draft 2020-12) of the arguments, computed once.
    fn schema() -> &'static schemars::Schema;

    /// A complete example of valid arguments, computed once; it always validates.
    fn example() -> &'static Value;

    /// Checks the arguments of a call (the object an MCP client sends) and builds the typed
    /// value, or reports every issue found.
    ///
    /// # Errors
    /// A [`Report`] of every issue when the arguments are not valid.
    fn validate(arguments: Map<String, Value>) -> Result<Self, Report> {
        let mut cx = Cx::new();
        match Self::validate_fields(arguments, &mut cx) {
            Some(value) if cx.issue_count() == 0 => Ok(value),
            _ => Err(cx.into_report()),
        }
    }

    /// Like [`ToolArgs::validate`], for any JSON value: anything but an object is an issue.
    ///
    /// # Errors
    /// A [`Report`] of every issue when the value is not valid arguments.
    fn validate_value(arguments: Value) -> Result<Self, Report> {
        match arguments {
            Value::Object(map) => Self::validate(map),
            other => {
                let mut cx = Cx::new();
                cx.type_mismatch(&Kind::Object(Self::info()), &other);
                Err(cx.into_report())
            }
        }
    }
}

/// An enum of unit variants accepted as one of its (serde) names. Implemented by
/// `#[derive(ToolEnum)]`.
pub trait ToolEnum: Sized + 'static {
    /// The names of the variants on the wire, in declaration order.
    const VARIANTS: &'static [&'static str];

    /// The name of this variant on the wire.
    fn as_str(&self) -> &'static str;
}

/// Checks one field of an object. Used by generated code.
#[doc(hidden)]
pub fn take_field<T: ArgValue>(
    cx: &mut Cx,
    slot: Option<Value>,
    field: &'static FieldInfo,
) -> Option<T> {
    let Some(value) = slot else {
        if T::OPTIONAL {
            return T::absent();
        }
        cx.missing(field, T::kind);
        return None;
    };
    let previous = cx.enter(field, T::kind);
    let before = cx.issue_count();
    if field.checked && T::shape_matches(&value) {
        field.constraints.check(&value, cx, field.nullable);
    }
    let out = if cx.issue_count() == before {
        T::from_arg(value, cx)
    } else {
        None
    };
    cx.leave(previous);
    out
}

/// Checks one field that has a default when absent. Used by generated code.
#[doc(hidden)]
pub fn take_field_or<T: ArgValue>(
    cx: &mut Cx,
    slot: Option<Value>,
    field: &'static FieldInfo,
    default: impl FnOnce() -> T,
) -> Option<T> {
    match slot {
        None => Some(default()),
        some => take_field(cx, some, field),
    }
}

/// Runs a custom check on the typed value of a field. Used by generated code.
#[doc(hidden)]
pub fn run_custom<T: ArgValue, M, C: CustomCheck<T, M>>(
    cx: &mut Cx,
    field: &'static FieldInfo,
    value: &T,
    check: &C,
) {
    if let Err(message) = check.check(value) {
        let previous = cx.enter(field, T::kind);
        cx.custom(&message);
        cx.leave(previous);
    }
}
