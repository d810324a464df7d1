//! What each known consumer of a tool's schema would refuse, or read with less meaning.
//!
//! The rules are the consumers' own, read from their code and checked against it (the
//! repository's consumer tests run every example tool through each consumer's package).

use serde::Serialize;
use serde_json::{Map, Value};

/// How a consumer takes a keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The consumer raises: the tool (or the whole tool list) cannot be used there.
    Refuses,
    /// The consumer reads the schema with less meaning than it has; the server still
    /// enforces it, and its coaching says it.
    Weakens,
}

/// One keyword of a schema that a consumer refuses or weakens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaFinding {
    pub(crate) consumer: &'static str,
    pub(crate) path: String,
    pub(crate) keyword: String,
    pub(crate) severity: Severity,
    pub(crate) message: &'static str,
}

#[cfg(test)]
impl std::fmt::Display for SchemaFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} `{}` at {}: {}",
            self.consumer,
            self.severity.verb(),
            self.keyword,
            shown_path(&self.path),
            self.message
        )
    }
}

impl Severity {
    /// `refuses` or `weakens`.
    pub(crate) const fn verb(self) -> &'static str {
        match self {
            Severity::Refuses => "refuses",
            Severity::Weakens => "weakens",
        }
    }
}

/// A JSON Pointer as a finding shows it: `(root)` for the root.
pub(crate) fn shown_path(path: &str) -> &str {
    if path.is_empty() { "(root)" } else { path }
}

/// The MCP SDKs, whose findings are the only ones on an `outputSchema`.
pub(crate) const MCP_SDK: &str = "@modelcontextprotocol/sdk";

/// The keywords Google `GenAI`'s `Schema` has a field for; it refuses any other.
const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
    "$defs",
    "$ref",
    "additionalProperties",
];

/// Every finding of every known consumer on an advertised `schema` (a tool's `inputSchema`;
/// for an `outputSchema`, only the MCP SDKs' findings matter).
#[must_use]
pub(crate) fn lint(schema: &Map<String, Value>) -> Vec<SchemaFinding> {
    let mut findings = Vec::new();
    let mut at = |consumer, path: &str, keyword: &str, severity, message| {
        let finding = SchemaFinding {
            consumer,
            path: path.to_owned(),
            keyword: keyword.to_owned(),
            severity,
            message,
        };
        if !findings.contains(&finding) {
            findings.push(finding);
        }
    };
    // At the root only.
    if schema.contains_key("anyOf") || schema.contains_key("oneOf") {
        let keyword = if schema.contains_key("anyOf") {
            "anyOf"
        } else {
            "oneOf"
        };
        at(
            "openai-agents",
            "",
            keyword,
            Severity::Refuses,
            "the root of a strict schema must not be a union",
        );
        at(
            "vscode",
            "",
            keyword,
            Severity::Weakens,
            "a union at the root is deleted",
        );
    }
    walk(&Value::Object(schema.clone()), "", 0, &mut at);
    findings
}

type At<'a> = dyn FnMut(&'static str, &str, &str, Severity, &'static str) + 'a;

#[expect(
    clippy::too_many_lines,
    reason = "one rule after another, each a few lines, read in the order the consumers are listed"
)]
fn walk(schema: &Value, path: &str, depth: usize, at: &mut At<'_>) {
    if depth > 128 {
        return;
    }
    let schema = match schema {
        Value::Bool(_) => {
            at(
                MCP_SDK,
                path,
                "true/false",
                Severity::Refuses,
                "a boolean subschema makes listTools() throw for the whole list",
            );
            at(
                "outlines-core",
                path,
                "true/false",
                Severity::Refuses,
                "\"Unsupported JSON Schema structure\"",
            );
            return;
        }
        Value::Object(schema) => schema,
        _ => return,
    };
    if let Some(Value::Array(_)) = schema.get("type") {
        at(
            "anthropic",
            path,
            "type",
            Severity::Refuses,
            "its strict transform raises on a list of types",
        );
        at(
            "google-genai",
            path,
            "type",
            Severity::Refuses,
            "Schema takes one type",
        );
    }
    let typed = ["type", "anyOf", "oneOf", "allOf", "enum", "const", "$ref"]
        .iter()
        .any(|k| schema.contains_key(*k));
    if !typed && depth > 0 {
        at(
            "anthropic",
            path,
            "type",
            Severity::Refuses,
            "its strict transform raises on a schema without a type",
        );
    }
    for key in schema.keys() {
        if !GEMINI_FIELDS.contains(&key.as_str()) {
            at(
                "google-genai",
                path,
                key,
                Severity::Refuses,
                "Schema has no such field",
            );
        }
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        at(
            "google-genai mcp",
            path,
            "additionalProperties",
            Severity::Refuses,
            "its MCP conversion crashes on `false` (a defect of the SDK)",
        );
    }
    match schema.get("additionalProperties") {
        Some(Value::Bool(false)) | None => {}
        Some(_) => at(
            "openai-agents",
            path,
            "additionalProperties",
            Severity::Refuses,
            "strict mode has no open objects or maps",
        ),
    }
    if let Some(Value::Object(properties)) = schema.get("properties") {
        let required = schema.get("required").and_then(Value::as_array);
        if properties
            .keys()
            .any(|name| !required.is_some_and(|r| r.iter().any(|k| k == name.as_str())))
        {
            at(
                "openai-agents",
                path,
                "required",
                Severity::Weakens,
                "every optional property is made required",
            );
        }
    }
    if schema.contains_key("unevaluatedProperties") {
        at(
            "llguidance",
            path,
            "unevaluatedProperties",
            Severity::Refuses,
            "\"Unimplemented keys\": the grammar does not compile",
        );
        at(
            "outlines-core",
            path,
            "unevaluatedProperties",
            Severity::Weakens,
            "ignored: the object is open",
        );
        at(
            "draft-07 validators",
            path,
            "unevaluatedProperties",
            Severity::Weakens,
            "ignored: the object is open",
        );
    }
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        at(
            "llguidance",
            path,
            "uniqueItems",
            Severity::Refuses,
            "\"Unimplemented keys\": the grammar does not compile",
        );
        at(
            "outlines-core",
            path,
            "uniqueItems",
            Severity::Weakens,
            "ignored: repeated items are generated",
        );
    }
    // llguidance builds no regex for a range starting at i64::MIN (measured: every other
    // 64-bit bound compiles).
    for key in ["minimum", "exclusiveMinimum"] {
        if let Some(n) = schema.get(key).and_then(Value::as_i64)
            && n == i64::MIN
        {
            at(
                "llguidance",
                path,
                key,
                Severity::Refuses,
                "no regex for an integer range from -2^63: the grammar does not compile",
            );
        }
    }
    if schema.contains_key("prefixItems") {
        at(
            "openai-agents",
            path,
            "prefixItems",
            Severity::Refuses,
            "tuples raise in strict transforms",
        );
        if !schema.get("items").is_some_and(Value::is_object) {
            at(
                "vscode",
                path,
                "prefixItems",
                Severity::Refuses,
                "a tuple without a real `items` is refused",
            );
        }
    }
    if let Some(reference) = Some(schema).filter(|s| s.contains_key("$ref")) {
        let constraining = reference.keys().any(|k| {
            !matches!(
                k.as_str(),
                "$ref" | "description" | "title" | "examples" | "default" | "$defs" | "$comment"
            )
        });
        if constraining {
            at(
                "openai-agents",
                path,
                "$ref",
                Severity::Refuses,
                "a `$ref` with constraining keywords beside it",
            );
        }
    }
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = schema.get(key) {
            for (name, child) in children {
                let child_path = format!("{path}/{key}/{}", pointer_escape(name));
                walk(child, &child_path, depth + 1, at);
            }
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "not",
        "contains",
        "unevaluatedProperties",
    ] {
        match schema.get(key) {
            // `false` closing an object or a tuple is read by every consumer.
            Some(Value::Bool(false))
                if matches!(
                    key,
                    "additionalProperties" | "items" | "unevaluatedProperties"
                ) => {}
            Some(child) => walk(child, &format!("{path}/{key}"), depth + 1, at),
            None => {}
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = schema.get(key) {
            for (i, child) in children.iter().enumerate() {
                walk(child, &format!("{path}/{key}/{i}"), depth + 1, at);
            }
        }
    }
}

/// A name as a JSON Pointer token (RFC 6901).
fn pointer_escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::SchemaProfile;
    use serde_json::json;

    fn refusals(schema: &Value) -> Vec<String> {
        lint(schema.as_object().unwrap())
            .into_iter()
            .filter(|f| f.severity == Severity::Refuses)
            .map(|f| f.to_string())
            .collect()
    }

    #[test]
    fn the_strict_form_is_refused_where_the_consumers_say() {
        let strict = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object", "additionalProperties": false,
            "properties": {
                "due": {"type": ["integer", "null"], "minimum": i64::MIN},
                "slot": {"type": "array", "prefixItems": [{"type": "integer"}], "items": false},
                "any": true
            },
            "required": ["slot"]
        });
        let found = refusals(&strict);
        for expected in [
            "anthropic refuses `type` at /properties/due",
            "llguidance refuses `minimum` at /properties/due",
            "vscode refuses `prefixItems` at /properties/slot",
            "@modelcontextprotocol/sdk refuses `true/false` at /properties/any",
            "google-genai refuses `$schema` at (root)",
        ] {
            assert!(
                found.iter().any(|f| f.starts_with(expected)),
                "{expected} not in {found:#?}"
            );
        }
    }

    #[test]
    fn the_portable_form_of_it_is_refused_only_by_the_google_mcp_conversion() {
        let strict = json!({
            "type": "object", "additionalProperties": false,
            "properties": {
                "due": {"type": ["integer", "null"], "minimum": i64::MIN},
                "slot": {"type": "array", "prefixItems": [{"type": "integer"}], "items": false},
                "any": true
            },
            "required": ["slot"]
        });
        let portable = SchemaProfile::Portable.advertise(strict.as_object().unwrap());
        let found: Vec<String> = refusals(&Value::Object(portable));
        assert!(
            found
                .iter()
                .all(|f| f.starts_with("google-genai mcp refuses `additionalProperties`")),
            "{found:#?}"
        );
    }
}
