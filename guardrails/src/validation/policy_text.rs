//! Output policies on string arguments: an agent's text is checked where it enters the system,
//! and each violation that holds it back becomes a validation issue the model can act on.
//!
//! Critical violations are always issues. Warnings are issues only while they wait for an
//! acknowledgement (the PENDING status of a verdict): when the arguments have an acknowledgement
//! field and the call did not set it to `true`. Advisories never are.

use std::fmt::Write as _;

use serde_json::Value;

use super::args::ToolArgs;
use super::context::{Cx, ProbedPolicy};
use super::info::{FieldInfo, withheld_text};
use super::report::{Issue, IssueCode};
use super::value::ArgValue;
use crate::policy::{Policy, RuleSeverity, Violation};
use crate::text::{cut, preview_span, preview_text};

/// The most characters of a rule's message or alternative an issue repeats: they come from the
/// policy, not the caller, but a policy file is not bounded either.
const RULE_TEXT_CHARS: usize = 300;

/// Field types whose text an output policy checks: `String`, and `Option`, `Box` and `Vec` of
/// such types (each item of a list is checked on its own, at its own path).
///
/// Implement it for a string newtype that implements [`ArgValue`] to put policies on it.
#[diagnostic::on_unimplemented(
    message = "`policy` needs a field that holds text (`String`, `Option<String>`, `Vec<String>`, …), not `{Self}`"
)]
pub trait PolicyText {
    /// Calls `check` with each text the value holds; `cx` is positioned at the text (one index
    /// deeper for the items of a list).
    fn each_text(&self, cx: &mut Cx, check: &mut dyn FnMut(&mut Cx, &str));
}

impl PolicyText for String {
    fn each_text(&self, cx: &mut Cx, check: &mut dyn FnMut(&mut Cx, &str)) {
        check(cx, self);
    }
}

impl<T: PolicyText> PolicyText for Option<T> {
    fn each_text(&self, cx: &mut Cx, check: &mut dyn FnMut(&mut Cx, &str)) {
        if let Some(inner) = self {
            inner.each_text(cx, check);
        }
    }
}

impl<T: PolicyText> PolicyText for Box<T> {
    fn each_text(&self, cx: &mut Cx, check: &mut dyn FnMut(&mut Cx, &str)) {
        (**self).each_text(cx, check);
    }
}

impl<T: PolicyText> PolicyText for Vec<T> {
    fn each_text(&self, cx: &mut Cx, check: &mut dyn FnMut(&mut Cx, &str)) {
        for (index, item) in self.iter().enumerate() {
            cx.at_index(index, |cx| item.each_text(cx, check));
        }
    }
}

/// Field types that can acknowledge policy warnings: `bool` and `Option<bool>`, acknowledged
/// when `true`.
#[diagnostic::on_unimplemented(
    message = "`acknowledges_policy` needs a `bool` field, not `{Self}`",
    note = "declare it as `#[serde(default)] acknowledge_warnings: bool`"
)]
pub trait Acknowledgement {
    /// Whether the value acknowledges the warnings.
    fn acknowledged(&self) -> bool;
}

impl Acknowledgement for bool {
    fn acknowledged(&self) -> bool {
        *self
    }
}

impl Acknowledgement for Option<bool> {
    fn acknowledged(&self) -> bool {
        *self == Some(true)
    }
}

/// Whether the policy warnings of a call hold it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningGate {
    /// The arguments have no acknowledgement field, or the call acknowledged: warnings pass.
    Open,
    /// The call did not acknowledge: warnings are issues whose fix names this wire field.
    Closed {
        /// The wire name of the acknowledgement field.
        field: &'static str,
    },
}

/// The gate of a call whose acknowledgement field (wire name `field`) holds `value`; a value
/// that failed its own validation does not acknowledge.
pub fn warning_gate<T: Acknowledgement>(field: &'static str, value: Option<&T>) -> WarningGate {
    if value.is_some_and(Acknowledgement::acknowledged) {
        WarningGate::Open
    } else {
        WarningGate::Closed { field }
    }
}

/// The fields of `A` (at any depth) whose text a policy checks, each with the policy's name in
/// contracts: a probe pass of `A`'s validator over its valid example (see [`Cx::probing`]).
pub(crate) fn probe_policies<A: ToolArgs>() -> Vec<ProbedPolicy> {
    let mut cx = Cx::probing();
    if let Value::Object(example) = A::example().clone() {
        let _ = A::validate_fields(example, &mut cx);
    }
    cx.into_probed()
}

/// The policy of a `#[guard(policy = path)]` field; taking a function pointer makes a path of
/// the wrong signature a type error at the path.
pub fn policy_from(policy: fn() -> &'static Policy) -> &'static Policy {
    policy()
}

/// Checks every text of a field's typed value against `policy`, recording an issue for each
/// violation that holds it back under `gate`. Used by generated code, once the field's other
/// guards have passed.
pub fn run_policy<T: ArgValue + PolicyText>(
    cx: &mut Cx,
    field: &'static FieldInfo,
    value: &T,
    policy: &Policy,
    gate: WarningGate,
) {
    if cx.is_probing() {
        cx.note_policy(field, policy);
        return;
    }
    let previous = cx.enter(field, T::kind);
    value.each_text(cx, &mut |cx, text| check_text(cx, text, policy, gate));
    cx.leave(previous);
}

fn check_text(cx: &mut Cx, text: &str, policy: &Policy, gate: WarningGate) {
    let verdict = policy.check(text);
    let warnings_block = matches!(gate, WarningGate::Closed { .. });
    if verdict.critical == 0 && !(warnings_block && verdict.warnings > 0) {
        return;
    }
    for violation in &verdict.violations {
        let acknowledgement = match (violation.severity, gate) {
            (RuleSeverity::Critical, _) => None,
            (RuleSeverity::Warning, WarningGate::Closed { field }) => Some(field),
            _ => continue,
        };
        if !cx.has_room() {
            cx.count_omitted();
            continue;
        }
        let withhold = cx.withholds_values();
        let issue = Issue {
            path: cx.path().into(),
            code: IssueCode::Policy,
            message: message(violation, withhold).into(),
            // The part of a long text around the violation, not its first line.
            received: Some(match &violation.found {
                _ if withhold => withheld_text(text).into(),
                Some(found) => preview_span(text, found.start..found.end).into(),
                None => preview_text(text).into(),
            }),
            expected: violation
                .alternative
                .as_deref()
                .map(|alternative| cut(alternative, RULE_TEXT_CHARS).into_owned().into()),
            fix: Some(fix(violation, acknowledgement, withhold).into()),
        };
        cx.push_issue(issue);
    }
}

/// The issue's message; with `withhold`, the flagged text is not quoted.
fn message(violation: &Violation, withhold: bool) -> String {
    let severity = match violation.severity {
        RuleSeverity::Critical => "critical",
        RuleSeverity::Warning => "warning",
        RuleSeverity::Advisory => "advisory",
    };
    let place = match &violation.found {
        Some(found) if withhold => format!(" at line {}, column {}", found.line, found.column),
        Some(found) => format!(
            ": found {} at line {}, column {}",
            preview_text(&found.text),
            found.line,
            found.column
        ),
        None => ": the required text is missing".to_owned(),
    };
    format!(
        "Breaks the {severity} output policy rule `{}`{place}. {}",
        cut(&violation.rule, 64),
        cut(&violation.message, RULE_TEXT_CHARS),
    )
}

fn fix(violation: &Violation, acknowledgement: Option<&'static str>, withhold: bool) -> String {
    let mut fix = match (&violation.alternative, &violation.found) {
        (Some(alternative), _) => format!(
            "Rewrite the text with the approved alternative: {}",
            cut(alternative, RULE_TEXT_CHARS).into_owned()
        ),
        (None, Some(_)) => "Rewrite the passage so that it follows the rule".to_owned(),
        (None, None) => "Add the required text".to_owned(),
    };
    if let (Some(replacement), Some(found), false) = (&violation.fix, &violation.found, withhold) {
        let _ = write!(
            fix,
            "; for example, replace {} with {}",
            preview_text(&found.text),
            Value::from(cut(replacement, RULE_TEXT_CHARS)),
        );
    }
    match acknowledgement {
        Some(field) => {
            let field = Value::from(field);
            let _ = write!(
                fix,
                ". If the wording is intentional, call again with {field}: true"
            );
        }
        None => fix.push_str(", then call the tool again"),
    }
    fix
}
