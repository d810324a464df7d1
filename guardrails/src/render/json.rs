//! A structured JSON object per message: `{"error": {"type": "validation" | "tool_error", …}}`,
//! `{"truncated": {…}}`, `{"outputPolicy": {…}}`. Built as `serde_json` values, so every string
//! is escaped by the serializer, and written with invisible characters as `\uXXXX` escapes
//! ([`escape_json_text`]).

use serde_json::{Map, Value, json};

use super::{RenderOptions, Renderer};
use crate::message::repeated::EXAMPLE_LABEL;
use crate::message::{
    BoundedError, ByteCut, ContractNotice, Failure, INSTRUCTIONS, PolicyAdvice, RECOVERY,
    REPAIRED_ADVICE, Rejection, RepairNotice, RepeatedCall, TruncationNotice, bounded_json,
};
use crate::text::{count, cut, escape_json_text};

/// The JSON renderer.
pub(crate) struct Json;

impl Renderer for Json {
    fn repeated_call(&self, m: &RepeatedCall<'_>, out: &mut String) {
        let fields: Vec<Value> = m
            .fields
            .iter()
            .map(|(field, code)| json!({"field": field, "code": code}))
            .collect();
        let mut error = json!({
            "type": "repeated_call",
            "tool": m.tool,
            "times": m.times,
            "fields": fields,
            "recovery": m.directive,
        });
        if let Some(corrected) = m.corrected {
            error["correctedCall"] = corrected.to_value(m.tool);
        }
        if let Some(example) = m.example {
            error["validExample"] = json!({
                "name": m.tool,
                "arguments": example,
                "note": EXAMPLE_LABEL,
            });
        }
        push_json(out, &json!({ "error": error }));
    }

    fn rejection(&self, r: &Rejection<'_>, options: &RenderOptions, out: &mut String) {
        push_json(out, &rejection_value(r, options));
    }

    fn failure(&self, f: &Failure<'_>, out: &mut String) {
        push_json(out, &failure_value(f));
    }

    fn truncation(&self, n: &TruncationNotice<'_>, out: &mut String) {
        let t = n.truncated;
        let value = json!({
            "truncated": {
                "tool": t.tool,
                "shown": t.shown,
                "total": t.total,
                "reason": n.reason,
                "filters": n.filters,
                "paging": n.paging,
                "recovery": n.recovery,
            }
        });
        push_json(out, &value);
    }

    fn byte_cut(&self, b: &ByteCut<'_>, out: &mut String) {
        let value = json!({
            "truncated": {"tool": b.tool, "bytesShown": b.shown, "bytesTotal": b.total, "recovery": b.advice}
        });
        push_json(out, &value);
    }

    fn repairs(&self, r: &RepairNotice<'_>, out: &mut String) {
        let value = json!({
            "repaired": {"tool": r.tool, "repairs": repairs_value(r.repairs), "recovery": REPAIRED_ADVICE}
        });
        push_json(out, &value);
    }

    fn policy_advice(&self, a: &PolicyAdvice<'_>, out: &mut String) {
        let v = a.verdict;
        let (listed, omitted) = a.listed();
        let violations: Vec<Value> = listed
            .iter()
            .map(|violation| {
                let found = violation.found.as_ref();
                json!({
                    "rule": violation.rule,
                    "severity": violation.severity,
                    "line": found.map(|f| f.line),
                    "column": found.map(|f| f.column),
                    "found": found.map(|f| cut(&f.text, a.limits.max_echo_chars)),
                    "message": violation.message,
                    "alternative": violation.alternative,
                    "fix": violation.fix.as_deref().map(|fix| cut(fix, a.limits.max_echo_chars.max(200))),
                })
            })
            .collect();
        let value = json!({
            "outputPolicy": {
                "verdict": v.status,
                "critical": v.critical,
                "warnings": v.warnings,
                "advisories": v.advisories,
                "violations": violations,
                "omitted": omitted,
                "recovery": a.recovery,
            }
        });
        push_json(out, &value);
    }
}

/// A rejected call as a JSON value: `{"error": {"type": "validation", …}}`, the structured
/// report a result carries beside its text.
pub(crate) fn rejection_value(r: &Rejection<'_>, options: &RenderOptions) -> Value {
    let (shown, hidden) = r.listed(options.max_issues);
    let issues: Vec<Value> = shown
        .iter()
        .map(|i| {
            json!({
                "field": i.location(),
                "code": i.code.as_str(),
                "problem": i.message,
                "received": i.received,
                "expected": i.expected,
                "fix": i.fix,
            })
        })
        .collect();
    let mut error = json!({
        "type": "validation",
        "tool": r.tool,
        "summary": format!(
            "Tool {} received invalid arguments: {} found.",
            r.tool,
            count(r.report.len(), "issue", "issues")
        ),
        "issues": issues,
        "omitted": hidden,
        "suggestions": r.suggestions(),
        "recovery": RECOVERY,
    });
    if !r.example.is_null() {
        error["validExample"] = r.example.clone();
    }
    if options.schema_summary {
        let info = r.args;
        let properties: Map<String, Value> = info
            .wire_fields()
            .map(|f| {
                (
                    f.name.to_owned(),
                    json!({
                        "type": (f.kind)().json_type(),
                        "description": f.description,
                        "required": f.required,
                        "accepts": f.fix(),
                    }),
                )
            })
            .collect();
        error["schema"] = json!({
            "description": info.description,
            "required": info.required().collect::<Vec<_>>(),
            "properties": properties,
        });
    }
    if let Some(contract) = &r.contract {
        error["contractAwareness"] = contract_object(contract);
    }
    json!({ "error": error })
}

/// A failed call as a JSON value: `{"error": {"type": "tool_error", …}}`.
pub(crate) fn failure_value(f: &Failure<'_>) -> Value {
    let e = BoundedError::new(f.error);
    let details: Map<String, Value> = e.details.into_iter().collect();
    let mut error = json!({
        "type": "tool_error",
        "tool": f.tool,
        "code": e.code,
        "severity": e.severity.as_str(),
        "message": e.message,
        "recovery": e.recovery,
        "availableActions": e.actions,
        "omittedActions": e.more_actions,
        "details": details,
        "retryAfterSeconds": e.retry_seconds,
    });
    if let Some(contract) = &f.contract {
        error["contractAwareness"] = contract_object(contract);
    }
    json!({ "error": error })
}

/// Writes `value` as JSON text, with nothing invisible in its strings.
fn push_json(out: &mut String, value: &Value) {
    out.push_str(&escape_json_text(&value.to_string()));
}

fn contract_object(c: &ContractNotice<'_>) -> Value {
    let deltas: Vec<Value> = c
        .deltas
        .iter()
        .map(|d| {
            json!({
                "severity": d.severity,
                "field": d.path,
                "description": d.description,
                "previous": bounded_json(d.before.as_ref()),
                "current": bounded_json(d.after.as_ref()),
            })
        })
        .collect();
    json!({
        "systemNote": c.system_note(),
        "changeCount": c.change_count,
        "maxSeverity": c.max_severity,
        "instructions": INSTRUCTIONS,
        "deltas": deltas,
        "omitted": c.omitted(),
    })
}

/// The receipts of repairs as data: each repair's field, kind, what was sent, what it was read
/// as, and the line the model reads. What the JSON format renders and what `_meta` carries.
pub(crate) fn repairs_value(repairs: &[crate::validation::Repair]) -> Value {
    repairs
        .iter()
        .map(|repair| {
            json!({
                "field": repair.path,
                "kind": repair.kind.as_str(),
                "sent": repair.sent,
                "readAs": repair.read_as,
                "message": repair.message(),
            })
        })
        .collect()
}
