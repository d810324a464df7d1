//! The contract model: what a tool promises, as plain data that serializes to the lockfile.
//!
//! Everything here is assembled from what `#[tool]` and `#[derive(ToolArgs)]` declare (a
//! [`ToolSpec`](crate::ToolSpec), see [`Contract::from_spec`]), never from hand-written descriptions, so the lockfile cannot drift from the
//! code. Empty and default members are left out of the JSON, which keeps the lockfile short and
//! its diffs readable; reading fills them back in.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::policy::{Policy, Profile};
use crate::validation::{
    ArgsInfo, Bound, Constraints, FieldInfo, Kind, Literal, ProbeStep, ProbedPolicy, Tagging,
};

/// The contract of one tool: its definition, its arguments, its output and its guardrails.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Contract {
    /// The tool's name on the wire.
    pub(crate) name: String,
    /// The human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    /// What the tool does, for the model.
    pub(crate) description: String,
    /// The behaviour hints; an unset hint is absent.
    #[serde(default, skip_serializing_if = "Hints::is_empty")]
    pub(crate) annotations: Hints,
    /// The arguments a caller can send, by wire name.
    #[serde(default)]
    pub(crate) args: BTreeMap<String, Field>,
    /// The top-level properties of the structured result, by name, when the tool advertises an
    /// output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) output: Option<BTreeMap<String, OutputField>>,
    /// The agent limit: the most items of a collection result shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent_limit: Option<u64>,
    /// The byte cap of the payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_bytes: Option<u64>,
    /// The token budget of the payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_tokens: Option<u64>,
    /// Whether an output check (policy) is attached. A policy has no name of its own at run
    /// time, so only its presence is part of the contract.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) policy: bool,
    /// The struct-level checks of the arguments (`#[guard(check = f)]`,
    /// `#[guard(check(f, fields(..)))]`), by function name: rules the fields do not show, so
    /// that adding one is seen as a change that may reject calls that passed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) checks: Vec<String>,
}

/// A tool's behaviour hints as they were declared: `None` is an unset hint, which MCP clients
/// read as the protocol's default (read-only false, destructive true, idempotent false,
/// open-world true).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Hints {
    /// `readOnlyHint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) read_only: Option<bool>,
    /// `destructiveHint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) destructive: Option<bool>,
    /// `idempotentHint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) idempotent: Option<bool>,
    /// `openWorldHint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) open_world: Option<bool>,
}

impl Hints {
    /// Whether no hint is set.
    #[must_use]
    #[expect(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's skip_serializing_if passes a reference"
    )]
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The hints as a client reads them, unset ones taking MCP's defaults (read-only: false,
    /// destructive: true, idempotent: false, open-world: true). Comparing effective hints keeps
    /// "unset" and "set to the default" from being reported as a flip.
    #[must_use]
    pub(crate) fn effective(self) -> [(&'static str, bool); 4] {
        [
            ("read_only", self.read_only.unwrap_or(false)),
            ("destructive", self.destructive.unwrap_or(true)),
            ("idempotent", self.idempotent.unwrap_or(false)),
            ("open_world", self.open_world.unwrap_or(true)),
        ]
    }
}

/// The JSON type of an argument or of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub(crate) enum JsonType {
    /// A string.
    String,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// An array.
    Array,
    /// An object: declared `fields`, or data keys whose `values` share one shape.
    Object,
    /// Any JSON value.
    Any,
}

impl JsonType {
    /// The lowercase name, as in the lockfile.
    #[must_use]
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Array => "array",
            Self::Object => "object",
            Self::Any => "any",
        }
    }
}

/// A numeric bound of a field: the tighter of the declared guard and its Rust type's range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub(crate) struct Limit {
    /// The bound.
    pub(crate) value: Number,
    /// Whether the bound itself is excluded.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) exclusive: bool,
}

impl Limit {
    /// An inclusive bound.
    #[must_use]
    pub(crate) fn inclusive(value: Number) -> Self {
        Self {
            value,
            exclusive: false,
        }
    }

    /// Orders two lower bounds by what they admit: `Greater` when `self` is the tighter one.
    #[must_use]
    pub(crate) fn cmp_as_minimum(&self, other: &Self) -> Option<Ordering> {
        cmp_numbers(&self.value, &other.value).map(|o| o.then(self.exclusive.cmp(&other.exclusive)))
    }

    /// Orders two upper bounds by what they admit: `Greater` when `self` is the tighter one.
    #[must_use]
    pub(crate) fn cmp_as_maximum(&self, other: &Self) -> Option<Ordering> {
        cmp_numbers(&other.value, &self.value).map(|o| o.then(self.exclusive.cmp(&other.exclusive)))
    }

    pub(crate) fn to_json(&self) -> Value {
        if self.exclusive {
            serde_json::json!({ "value": self.value, "exclusive": true })
        } else {
            Value::Number(self.value.clone())
        }
    }
}

/// Compares two JSON numbers exactly when both are integers, as `f64` otherwise.
pub(crate) fn cmp_numbers(a: &Number, b: &Number) -> Option<Ordering> {
    let exact = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (exact(a), exact(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// An argument, an item of an array argument or a value of a map argument.
///
/// One shape serves the three: `required`, `nullable` and `description` are only ever set on
/// arguments and fields of nested objects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
#[expect(
    clippy::struct_excessive_bools,
    reason = "plain data mirroring the lockfile's members, each a yes/no of the contract"
)]
pub(crate) struct Field {
    /// The JSON type.
    #[serde(rename = "type")]
    pub(crate) json_type: JsonType,
    /// Whether the field must be present.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) required: bool,
    /// Whether `null` is accepted.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) nullable: bool,
    /// The field's documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// Minimum length (characters of a string, items of an array).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_length: Option<u64>,
    /// Lower bound of a number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) minimum: Option<Limit>,
    /// Upper bound of a number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) maximum: Option<Limit>,
    /// A step a number must be a multiple of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) multiple_of: Option<Number>,
    /// The source of a regular expression a string must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pattern: Option<String>,
    /// A string format (JSON Schema name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) format: Option<String>,
    /// The only values allowed, in declaration order (from a guard's `one_of` or an enum type).
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub(crate) enum_values: Option<Vec<Value>>,
    /// Whether the items of an array must be distinct.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) unique: bool,
    /// Whether a custom check runs on the value.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) custom: bool,
    /// The output policy that checks the text of a string field (`#[guard(policy = …)]`): the
    /// name of a built-in profile (`base`, `observation`, `decision`), or
    /// `custom:sha256:<16 hex digits>` for any other policy, a digest of its rules, so that
    /// changing a rule changes the contract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) policy: Option<String>,
    /// The shape of each item of an array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) items: Option<Box<Field>>,
    /// The shape of each value of an object whose keys are data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) values: Option<Box<Field>>,
    /// The declared fields of a nested object, by wire name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fields: Option<BTreeMap<String, Field>>,
    /// The Rust type of a nested object that contains itself; its fields are described where
    /// the type first appears.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) recursive: Option<String>,
    /// How an enum with data names its variant on the wire: `external`, `internal:<tag>`,
    /// `adjacent:<tag>,<content>` or `untagged`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tagging: Option<String>,
    /// The variants of an enum with data, by wire name: the fields of each (none for a unit
    /// variant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) variants: Option<BTreeMap<String, BTreeMap<String, Field>>>,
    /// The struct-level checks of a nested object, by function name; of an enum with data,
    /// those of its variants as `variant.function`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) checks: Vec<String>,
}

impl Field {
    /// A field of the given type and nothing else.
    #[must_use]
    pub(crate) fn of(json_type: JsonType) -> Self {
        Self {
            json_type,
            required: false,
            nullable: false,
            description: None,
            min_length: None,
            max_length: None,
            minimum: None,
            maximum: None,
            multiple_of: None,
            pattern: None,
            format: None,
            enum_values: None,
            unique: false,
            custom: false,
            policy: None,
            items: None,
            values: None,
            fields: None,
            recursive: None,
            tagging: None,
            variants: None,
            checks: Vec::new(),
        }
    }
}

/// A top-level property of a tool's structured result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub(crate) struct OutputField {
    /// The JSON type as the output schema states it (`string`, `integer|null`, `ref:Task`,
    /// `union` or `any`).
    #[serde(rename = "type")]
    pub(crate) json_type: String,
    /// Whether the output schema lists the property as required.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) required: bool,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_false(b: &bool) -> bool {
    !*b
}

/// What a tool declares, as its contract reads it: a [`ToolSpec`](crate::ToolSpec) gives it.
pub(crate) struct Declared<'a> {
    pub(crate) name: &'a str,
    pub(crate) title: Option<&'a str>,
    pub(crate) description: &'a str,
    pub(crate) hints: Hints,
    pub(crate) args: &'static ArgsInfo,
    pub(crate) output_schema: Option<&'a Map<String, Value>>,
    pub(crate) agent_limit: Option<usize>,
    pub(crate) max_bytes: Option<usize>,
    pub(crate) max_tokens: Option<usize>,
    pub(crate) policy: bool,
    /// The argument fields whose text a policy checks.
    pub(crate) arg_policies: Vec<ProbedPolicy>,
}

impl Contract {
    /// The tool's name on the wire.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human-readable title, when the tool has one.
    #[must_use]
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// What the tool does, for the model.
    #[must_use]
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The contract of what a tool declares.
    pub(crate) fn declared(d: &Declared<'_>) -> Self {
        let mut args = object_fields(d.args, &mut Vec::new());
        for (steps, policy) in &d.arg_policies {
            if let Some(field) = field_at(&mut args, steps) {
                field.policy = Some(policy_name(policy));
            }
        }
        Self {
            name: d.name.to_owned(),
            title: d.title.map(str::to_owned),
            description: d.description.to_owned(),
            annotations: d.hints,
            args,
            output: d.output_schema.map(output_fields),
            agent_limit: d.agent_limit.map(|l| u64::try_from(l).unwrap_or(u64::MAX)),
            max_bytes: d.max_bytes.map(|b| u64::try_from(b).unwrap_or(u64::MAX)),
            max_tokens: d.max_tokens.map(|t| u64::try_from(t).unwrap_or(u64::MAX)),
            policy: d.policy,
            checks: d.args.checks.iter().map(|&c| c.to_owned()).collect(),
        }
    }
}

/// The name of a policy in contracts: a built-in profile's name when it has a profile's rules,
/// `custom:sha256:…` (the first 16 hex digits of the digest of its rules) otherwise.
fn policy_name(policy: &Policy) -> String {
    if let Some(profile) = Profile::ALL
        .into_iter()
        .find(|profile| profile.policy().rules() == policy.rules())
    {
        return profile.name().to_owned();
    }
    let rules = serde_json::to_value(policy.rules()).unwrap_or(Value::Null);
    let digest = super::digest::sha256_hex(&rules);
    let short = digest.get(..7 + 16).unwrap_or(&digest);
    format!("custom:{short}")
}

/// The field at `steps` in `args`: a field of a nested object for each further field step,
/// the items of an array for an index, the values of a map for a key.
fn field_at<'a>(
    args: &'a mut BTreeMap<String, Field>,
    steps: &[ProbeStep],
) -> Option<&'a mut Field> {
    let (ProbeStep::Field(first), rest) = steps.split_first()? else {
        return None;
    };
    let mut field = args.get_mut(*first)?;
    for step in rest {
        field = match step {
            ProbeStep::Field(name) => field.fields.as_mut()?.get_mut(*name)?,
            ProbeStep::Index => field.items.as_deref_mut()?,
            ProbeStep::Key => field.values.as_deref_mut()?,
        };
    }
    Some(field)
}

/// The wire fields of an object type. `seen` holds the types being described further up, so a
/// type that contains itself ends in a `recursive` marker instead of recursing forever.
fn object_fields(
    info: &'static ArgsInfo,
    seen: &mut Vec<*const ArgsInfo>,
) -> BTreeMap<String, Field> {
    seen.push(std::ptr::from_ref(info));
    let mut fields: BTreeMap<String, Field> = info
        .wire_fields()
        .map(|f| (f.name.to_owned(), field(f, seen)))
        .collect();
    // A flattened enum is recorded under its tag: the key that names the variant.
    for flattened in info.flattened {
        let (Tagging::Internal { tag } | Tagging::Adjacent { tag, .. }) = flattened.tagging else {
            continue;
        };
        let mut shape = variants_shape(flattened, seen);
        shape.json_type = JsonType::String;
        shape.required = true;
        shape.description = flattened.description.map(str::to_owned);
        fields.insert(tag.to_owned(), shape);
    }
    seen.pop();
    fields
}

fn field(info: &'static FieldInfo, seen: &mut Vec<*const ArgsInfo>) -> Field {
    let kind = (info.kind)();
    let mut out = shape(&kind, seen);
    out.required = info.required;
    out.nullable = info.nullable;
    out.description = info.description.map(str::to_owned);
    apply_constraints(&mut out, &kind, &info.constraints);
    out
}

/// The shape of a kind, with the bounds its Rust type implies.
fn shape(kind: &Kind, seen: &mut Vec<*const ArgsInfo>) -> Field {
    match kind {
        Kind::String | Kind::Text(_) => Field::of(JsonType::String),
        Kind::Boolean => Field::of(JsonType::Boolean),
        Kind::Integer { min, max } => {
            let mut f = Field::of(JsonType::Integer);
            f.minimum = int_number(*min).map(Limit::inclusive);
            f.maximum = int_number(*max).map(Limit::inclusive);
            f
        }
        Kind::Number { max_magnitude } => {
            let mut f = Field::of(JsonType::Number);
            if let Some(m) = max_magnitude {
                f.minimum = Number::from_f64(-m).map(Limit::inclusive);
                f.maximum = Number::from_f64(*m).map(Limit::inclusive);
            }
            f
        }
        Kind::Array(item) => {
            let mut f = Field::of(JsonType::Array);
            f.items = Some(Box::new(shape(item, seen)));
            f
        }
        Kind::Object(info) => {
            let mut f = Field::of(JsonType::Object);
            if seen.contains(&std::ptr::from_ref(*info)) {
                f.recursive = Some(info.type_name.to_owned());
            } else {
                f.fields = Some(object_fields(info, seen));
            }
            f.checks = info.checks.iter().map(|&c| c.to_owned()).collect();
            f
        }
        Kind::Map(value) => {
            let mut f = Field::of(JsonType::Object);
            f.values = Some(Box::new(shape(value, seen)));
            f
        }
        Kind::Enum(values) => {
            let mut f = Field::of(JsonType::String);
            f.enum_values = Some(values.iter().map(|v| Value::from(*v)).collect());
            f
        }
        Kind::Formatted(format) => {
            let mut f = Field::of(JsonType::String);
            f.format = Some(format.schema_name().to_owned());
            f
        }
        Kind::Any => Field::of(JsonType::Any),
        Kind::Variants(info) => variants_shape(info, seen),
    }
}

/// The shape of an enum with data: its tagging and each variant's fields.
fn variants_shape(
    info: &'static crate::validation::EnumInfo,
    seen: &mut Vec<*const ArgsInfo>,
) -> Field {
    let json_type = match Kind::Variants(info).json_type() {
        "object" => JsonType::Object,
        "string" => JsonType::String,
        _ => JsonType::Any,
    };
    let mut f = Field::of(json_type);
    f.tagging = Some(match info.tagging {
        Tagging::External => "external".to_owned(),
        Tagging::Internal { tag } => format!("internal:{tag}"),
        Tagging::Adjacent { tag, content } => format!("adjacent:{tag},{content}"),
        Tagging::Untagged => "untagged".to_owned(),
    });
    f.checks = info
        .variants
        .iter()
        .filter_map(|v| Some((v.name, v.fields?().checks)))
        .flat_map(|(name, checks)| checks.iter().map(move |c| format!("{name}.{c}")))
        .collect();
    f.variants = Some(
        info.variants
            .iter()
            .map(|v| {
                let fields = v
                    .fields
                    .map(|args| object_fields(args(), seen))
                    .unwrap_or_default();
                (v.name.to_owned(), fields)
            })
            .collect(),
    );
    f
}

/// An integer as a JSON number; a bound beyond 64 bits (an `i128` type's range) is no bound a
/// JSON client can reach, so it is left out.
fn int_number(i: i128) -> Option<Number> {
    i64::try_from(i)
        .map(Number::from)
        .or_else(|_| u64::try_from(i).map(Number::from))
        .ok()
}

fn number_of(n: crate::validation::Num) -> Option<Number> {
    match n.to_json() {
        Value::Number(n) => Some(n),
        _ => None,
    }
}

fn limit_of(bound: Bound) -> Option<Limit> {
    number_of(bound.value).map(|value| Limit {
        value,
        exclusive: bound.exclusive,
    })
}

/// Adds declared constraints to a shape, keeping the tighter of a declared bound and the one
/// its type implies: the contract states what is accepted, whichever of the two says so.
fn apply_constraints(out: &mut Field, kind: &Kind, c: &Constraints) {
    // Every guard recorded, none left out: a new guard the contract does not record does not
    // compile.
    let Constraints {
        min_length,
        max_length,
        minimum,
        maximum,
        pattern,
        format,
        one_of,
        unique,
        multiple_of,
        custom,
    } = c;
    out.min_length = *min_length;
    out.max_length = *max_length;
    if let Some(min) = minimum.and_then(limit_of) {
        out.minimum = Some(match out.minimum.take() {
            Some(ty) if ty.cmp_as_minimum(&min) == Some(Ordering::Greater) => ty,
            _ => min,
        });
    }
    if let Some(max) = maximum.and_then(limit_of) {
        out.maximum = Some(match out.maximum.take() {
            Some(ty) if ty.cmp_as_maximum(&max) == Some(Ordering::Greater) => ty,
            _ => max,
        });
    }
    out.multiple_of = multiple_of.and_then(number_of);
    out.pattern = pattern.as_ref().map(|p| p.source().to_owned());
    if let Some(format) = format {
        out.format = Some(format.schema_name().to_owned());
    }
    if !one_of.is_empty() {
        out.enum_values = Some(one_of.iter().map(|l: &Literal| l.to_json()).collect());
    } else if !matches!(kind, Kind::Enum(_)) {
        out.enum_values = None;
    }
    out.unique = *unique;
    out.custom = *custom;
}

/// The top-level properties of an output schema.
pub(super) fn output_fields(schema: &Map<String, Value>) -> BTreeMap<String, OutputField> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, prop)| {
                    let field = OutputField {
                        json_type: output_type(prop),
                        required: required.contains(&name.as_str()),
                    };
                    (name.clone(), field)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn output_type(prop: &Value) -> String {
    match prop.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => {
            let mut names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            names.sort_unstable();
            names.join("|")
        }
        _ => {
            if let Some(Value::String(r)) = prop.get("$ref") {
                let name = r.rsplit('/').next().unwrap_or(r);
                format!("ref:{name}")
            } else if prop.get("anyOf").is_some() || prop.get("oneOf").is_some() {
                "union".to_owned()
            } else {
                "any".to_owned()
            }
        }
    }
}
