//! The schemas a tool advertises, in the form its consumers read.
//!
//! A tool's JSON Schema is read by code the server does not control: model providers' SDKs
//! that turn an MCP tool into a model's tool (Anthropic's and `OpenAI`'s strict transforms,
//! Google `GenAI`), grammar engines that constrain decoding from it (xgrammar, llguidance,
//! outlines-core), and the MCP SDKs themselves. Each reads a different part of JSON Schema, and
//! several refuse a whole tool, or a whole tool list, over one keyword they do not know.
//!
//! So the server checks calls against the strict schema its declarations give (draft 2020-12,
//! every object closed, every bound), and advertises a [`SchemaProfile`] of it:
//!
//! - [`SchemaProfile::Portable`] (the default): the same meaning in the forms every consumer
//!   reads: `anyOf [T, {"type": "null"}]` for an option, `anyOf` for a union with each tag a
//!   one-value `enum` beside its `const`, closed variants carrying the shared properties where
//!   a flattened enum was closed by `unevaluatedProperties`, `items` with `minItems` and
//!   `maxItems` for a tuple, integer bounds at a Rust type's limit clamped to ±(2^53−1), no
//!   boolean subschema, no `$schema` (MCP's default dialect is 2020-12).
//! - [`SchemaProfile::Strict`]: the schema the server checks, as it is.
//! - [`SchemaProfile::OpenAi`]: what `OpenAI`'s strict mode requires: every property required,
//!   an optional one as `anyOf [T, null]`, only the keywords strict mode documents. The server
//!   reads `null` for an optional property as the property left out.
//! - [`SchemaProfile::Gemini`]: what Google's `Schema` reads: an option as `nullable`, no
//!   `const`, `additionalProperties`, `$schema`, `examples`, `writeOnly`, `uniqueItems`.
//! - [`SchemaProfile::Anthropic`]: the portable form with "anything" spelt as a union of every
//!   JSON type, since Anthropic's strict transform raises on a schema without a type.
//!
//! Whatever the profile, the server's validation is the same: a constraint a profile cannot
//! say is still enforced, and the coaching of a rejected call restates it. [`lint_tools`] names, for
//! each schema of each tool and each consumer, every keyword that consumer would refuse or drop.

#[cfg(feature = "rmcp")]
mod lint;
mod portable;
mod vendors;

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

#[cfg(feature = "rmcp")]
pub use lint::Severity;
#[cfg(feature = "rmcp")]
use lint::lint;

/// The form of JSON Schema a server advertises its tools' schemas in (see the
/// [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SchemaProfile {
    /// The forms every known consumer reads, with the strict schema's meaning (the default).
    #[default]
    Portable,
    /// The strict schema the server checks, as it is (JSON Schema 2020-12).
    Strict,
    /// `OpenAI`'s strict mode: every property required, optional ones nullable.
    OpenAi,
    /// Google Gemini's `Schema`.
    Gemini,
    /// Anthropic's strict tool use.
    Anthropic,
}

impl SchemaProfile {
    /// Every profile, the default first.
    pub const ALL: [Self; 5] = [
        Self::Portable,
        Self::Strict,
        Self::OpenAi,
        Self::Gemini,
        Self::Anthropic,
    ];

    /// The profile's name, as the command line and the lockfile write it (its `Display`).
    #[must_use]
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Portable => "portable",
            Self::Strict => "strict",
            Self::OpenAi => "openai",
            Self::Gemini => "gemini",
            Self::Anthropic => "anthropic",
        }
    }

    /// The schema advertised under this profile for a strict `schema` (a tool's `inputSchema`
    /// or `outputSchema`). Servers call it once per tool and profile, not per request.
    #[must_use]
    pub fn advertise(self, schema: &Map<String, Value>) -> Map<String, Value> {
        match self {
            Self::Strict => schema.clone(),
            Self::Portable => portable::portable(schema),
            Self::OpenAi => vendors::openai(portable::portable(schema)),
            Self::Gemini => vendors::gemini(portable::portable(schema)),
            Self::Anthropic => vendors::anthropic(portable::portable(schema)),
        }
    }

    /// The profile an `outputSchema` is advertised in under this one: the portable form, unless
    /// this is [`SchemaProfile::Strict`]. The strict consumers read only input schemas, while
    /// the MCP SDKs check each result against its output schema, which must describe the
    /// result as the tool sends it (no `nullable`, no map turned into entries).
    #[must_use]
    pub const fn for_output(self) -> Self {
        match self {
            Self::Strict => Self::Strict,
            _ => Self::Portable,
        }
    }

    /// Whether the server reads `null` sent for an optional property as the property left
    /// out: under a profile that makes every property required, a model sends `null` for the
    /// ones it means to leave out.
    #[cfg(feature = "rmcp")]
    #[must_use]
    pub(crate) const fn null_is_absent(self) -> bool {
        matches!(self, Self::OpenAi)
    }
}

impl fmt::Display for SchemaProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A profile name that is not one of [`SchemaProfile::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown schema profile `{0}`: expected one of portable, strict, openai, gemini, anthropic"
)]
pub struct UnknownProfile(String);

impl FromStr for SchemaProfile {
    type Err = UnknownProfile;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownProfile(crate::text::cut(name, 40).into_owned()))
    }
}

/// Reads a call made under [`SchemaProfile::OpenAi`] as the strict schema expects it, given
/// the tool's portable schema (the form the `OpenAI` profile is made from): a `null` sent for a
/// property that is optional there and does not accept `null` itself is the property left
/// out, and a map sent as the array of `{"key", "value"}` entries the profile advertises is
/// the map. At every depth the schema names. Returns how many values were read so.
pub(crate) fn read_openai_call(
    arguments: &mut Map<String, Value>,
    portable: &Map<String, Value>,
) -> usize {
    read_object(arguments, portable, 0)
}

fn read_object(
    object: &mut Map<String, Value>,
    schema: &Map<String, Value>,
    depth: usize,
) -> usize {
    if depth > 32 {
        return 0;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return 0;
    };
    let required = |name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|k| k == name))
    };
    let mut read = 0;
    object.retain(|name, value| {
        let drop = value.is_null()
            && !required(name)
            && properties
                .get(name)
                .is_some_and(|property| !accepts_null(property));
        read += usize::from(drop);
        !drop
    });
    for (name, value) in object.iter_mut() {
        if let Some(property) = properties.get(name) {
            read += read_value(value, property, depth + 1);
        }
    }
    read
}

fn read_value(value: &mut Value, schema: &Value, depth: usize) -> usize {
    // An option's schema is `anyOf [T, null]`: read the value as `T`.
    let schema = match schema.get("anyOf").and_then(Value::as_array) {
        Some(branches) if branches.len() == 2 && accepts_null(schema) => branches
            .iter()
            .find(|b| b.get("type") != Some(&Value::from("null")))
            .unwrap_or(schema),
        _ => schema,
    };
    match value {
        Value::Object(object) => schema
            .as_object()
            .map_or(0, |schema| read_object(object, schema, depth)),
        Value::Array(items) => {
            if let Some(map) = entries_as_map(items, schema) {
                *value = Value::Object(map);
                return 1 + read_value(value, schema, depth);
            }
            match schema.get("items") {
                Some(item) => items
                    .iter_mut()
                    .map(|v| read_value(v, item, depth + 1))
                    .sum(),
                None => 0,
            }
        }
        _ => 0,
    }
}

/// A map (an object schema with `additionalProperties` and no properties) sent as the array of
/// `{"key", "value"}` entries the `OpenAI` profile advertises for it.
fn entries_as_map(items: &[Value], schema: &Value) -> Option<Map<String, Value>> {
    let is_map = schema
        .get("additionalProperties")
        .is_some_and(Value::is_object)
        && schema
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
    if !is_map {
        return None;
    }
    let mut map = Map::new();
    for item in items {
        let entry = item.as_object().filter(|e| e.len() == 2)?;
        let key = entry.get("key")?.as_str()?;
        map.insert(key.to_owned(), entry.get("value")?.clone());
    }
    Some(map)
}

/// Whether a schema says `null` is a value of its own (an `Option` field, where `null` and
/// absence may mean different things).
fn accepts_null(schema: &Value) -> bool {
    let Some(schema) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    if schema.is_empty() {
        return true;
    }
    let type_says = match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => false,
    };
    type_says
        || ["anyOf", "oneOf"].iter().any(|k| {
            schema
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(accepts_null))
        })
}

/// One keyword of one schema of one tool that a consumer refuses or weakens. It displays
/// itself as `create_task inputSchema: openai-agents refuses `oneOf` at (root): …`.
#[cfg(feature = "rmcp")]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// The tool's name.
    pub tool: String,
    /// Which of its schemas: `inputSchema` (read by model providers' SDKs and grammar
    /// engines) or `outputSchema` (read by the MCP SDKs to check structured results).
    pub schema: &'static str,
    /// The consumer, by its package (`anthropic`, `openai-agents`, `google-genai`, …).
    pub consumer: &'static str,
    /// Where in the schema, as a JSON Pointer (`/properties/slot`); empty for the root.
    pub path: String,
    /// The keyword at fault.
    pub keyword: String,
    /// Whether the consumer refuses it or weakens it.
    pub severity: Severity,
    /// What the consumer does with it.
    pub message: &'static str,
}

#[cfg(feature = "rmcp")]
impl Finding {
    fn new(tool: &str, schema: &'static str, finding: lint::SchemaFinding) -> Self {
        Self {
            tool: tool.to_owned(),
            schema,
            consumer: finding.consumer,
            path: finding.path,
            keyword: finding.keyword,
            severity: finding.severity,
            message: finding.message,
        }
    }
}

#[cfg(feature = "rmcp")]
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {} {} `{}` at {}: {}",
            self.tool,
            self.schema,
            self.consumer,
            self.severity.verb(),
            self.keyword,
            lint::shown_path(&self.path),
            self.message
        )
    }
}

/// The findings of every known consumer on the schemas of `tools` (the definitions a server
/// lists, such as [`Server::definitions`](crate::Server::definitions)): an `inputSchema` is read
/// by every consumer, an `outputSchema` by the MCP SDKs. A test that a server's tools are read
/// everywhere:
///
/// ```
/// use guardrails::profile::{Severity, lint_tools};
///
/// let server = guardrails::Server::new(());
/// let refused: Vec<_> = lint_tools(&server.definitions())
///     .into_iter()
///     .filter(|f| f.severity == Severity::Refuses)
///     .collect();
/// assert!(refused.is_empty(), "{refused:#?}");
/// ```
#[cfg(feature = "rmcp")]
#[must_use]
pub fn lint_tools(tools: &[rmcp::model::Tool]) -> Vec<Finding> {
    let mut out = Vec::new();
    for tool in tools {
        for finding in lint(&tool.input_schema) {
            out.push(Finding::new(&tool.name, "inputSchema", finding));
        }
        if let Some(output) = &tool.output_schema {
            for finding in lint(output) {
                if finding.consumer == lint::MCP_SDK {
                    out.push(Finding::new(&tool.name, "outputSchema", finding));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1},
                "note": {"type": ["string", "null"]},
                "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
                "lines": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                    "required": ["sku"], "additionalProperties": false
                }}
            },
            "required": ["title"],
            "additionalProperties": false
        })
        .as_object()
        .cloned()
        .unwrap()
    }

    #[test]
    fn under_openai_every_property_is_required_and_a_map_is_its_entries() {
        let openai = SchemaProfile::OpenAi.advertise(&strict());
        assert_eq!(
            openai["required"],
            json!(["labels", "limit", "lines", "note", "title"])
        );
        assert_eq!(
            openai["properties"]["limit"]["anyOf"][1],
            json!({"type": "null"})
        );
        let labels = &openai["properties"]["labels"]["anyOf"][0];
        assert_eq!(labels["type"], "array");
        assert_eq!(labels["items"]["required"], json!(["key", "value"]));
        assert_eq!(
            openai["properties"]["lines"]["anyOf"][0]["items"]["required"],
            json!(["qty", "sku"])
        );
    }

    #[test]
    fn a_call_made_as_openai_advertises_is_read_as_the_strict_schema_expects() {
        let strict = strict();
        let portable = SchemaProfile::Portable.advertise(&strict);
        let mut call = json!({
            "title": "t", "limit": null, "note": null,
            "labels": [{"key": "a", "value": 1}, {"key": "b", "value": 2}],
            "lines": [{"sku": "x", "qty": null}]
        })
        .as_object()
        .cloned()
        .unwrap();
        let read = read_openai_call(&mut call, &portable);
        assert_eq!(read, 3);
        // `note` accepts null itself: it stays, as the caller's null.
        assert_eq!(
            Value::Object(call.clone()),
            json!({"title": "t", "note": null, "labels": {"a": 1, "b": 2}, "lines": [{"sku": "x"}]})
        );
        assert!(jsonschema::is_valid(
            &Value::Object(strict),
            &Value::Object(call)
        ));
    }

    #[test]
    fn a_required_null_is_left_for_the_check_to_refuse() {
        let portable = SchemaProfile::Portable.advertise(&strict());
        let mut call = json!({"title": null}).as_object().cloned().unwrap();
        assert_eq!(read_openai_call(&mut call, &portable), 0);
        assert_eq!(call["title"], Value::Null);
    }

    #[test]
    fn profiles_are_named_and_read_back() {
        for profile in SchemaProfile::ALL {
            assert_eq!(profile.name().parse::<SchemaProfile>(), Ok(profile));
        }
        assert!("openapi".parse::<SchemaProfile>().is_err());
    }
}
