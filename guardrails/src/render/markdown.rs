//! Markdown: the rich form, with issues, suggestions, an optional schema summary and the valid
//! example as a JSON block. Everything a caller sent stands in code spans its own backticks
//! cannot close.

use std::fmt::Write as _;

use super::{RenderOptions, Renderer};
use crate::message::{
    BoundedError, ByteCut, ContractNotice, Failure, INSTRUCTIONS, MAX_VALUE_CHARS, PolicyAdvice,
    RECOVERY, REPAIRED_ADVICE, Rejection, RepairNotice, RepeatedCall, ToolErrorSeverity,
    TruncationNotice, delta_value, detail_text, received_text,
};
use crate::text::{code_span, count, cut};

/// The Markdown renderer.
pub(crate) struct Markdown;

impl Renderer for Markdown {
    fn repeated_call(&self, m: &RepeatedCall<'_>, out: &mut String) {
        let _ = write!(
            out,
            "## Repeated invalid call to {} ({} times)\n\n",
            code_span(m.tool),
            m.times
        );
        if let Some(corrected) = m.corrected {
            match (&m.call, corrected.withheld()) {
                (Some(call), _) => {
                    let fence = if corrected.is_complete() {
                        "json"
                    } else {
                        "text"
                    };
                    let _ = write!(out, "Your call, corrected:\n\n```{fence}\n{call}\n```\n\n");
                }
                (None, Some(why)) => {
                    let _ = write!(out, "Your call, corrected: not repeated ({why}).\n\n");
                }
                (None, None) => {}
            }
            let mut fill = corrected.fill().peekable();
            if fill.peek().is_some() {
                out.push_str("Fill in:\n\n");
                for (field, need) in fill {
                    let _ = writeln!(out, "- {}: {need}", code_span(field));
                }
                out.push('\n');
            }
            if !corrected.changes().is_empty() {
                let _ = write!(out, "Changed: {}.\n\n", corrected.changes().join("; "));
            }
        }
        if let Some(example) = m.example_call() {
            let _ = write!(
                out,
                "An example of a valid call, not your values:\n\n```json\n{example}\n```\n\n"
            );
        }
        let _ = write!(out, "Fields at fault: {}\n\n{}\n", m.faults(), m.directive);
    }

    fn rejection(&self, r: &Rejection<'_>, options: &RenderOptions, out: &mut String) {
        let (shown, hidden) = r.listed(options.max_issues);
        let _ = writeln!(
            out,
            "Tool {} received invalid arguments: {} found.\n\n## Issues\n",
            code_span(r.tool),
            count(r.report.len(), "issue", "issues")
        );
        for (n, issue) in shown.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}. **{}** ({}): {}",
                n + 1,
                code_span(issue.location()),
                issue.code,
                issue.message.replace('\n', " ")
            );
            let _ = writeln!(out, "   - Received: {}", code_span(received_text(issue)));
            if let Some(e) = &issue.expected {
                let _ = writeln!(out, "   - Expected: {e}");
            }
            if let Some(f) = &issue.fix {
                let _ = writeln!(out, "   - Fix: {f}");
            }
        }
        if hidden > 0 {
            let _ = writeln!(
                out,
                "\n{} not listed; fix the ones above first.",
                count(hidden, "more issue", "more issues")
            );
        }
        if options.schema_summary {
            out.push_str("\n## Tool schema\n\n");
            for line in r.summary_lines() {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out.push_str("\n## Suggestions\n\n");
        for (n, s) in r.suggestions().iter().enumerate() {
            let _ = writeln!(out, "{}. {s}", n + 1);
        }
        if !r.example.is_null() {
            let pretty = serde_json::to_string_pretty(r.example).unwrap_or_default();
            let _ = write!(out, "\n## Valid example\n\n```json\n{pretty}\n```\n");
        }
        let _ = write!(out, "\n{RECOVERY}\n");
        if let Some(contract) = &r.contract {
            contract_section(contract, out);
        }
    }

    fn failure(&self, f: &Failure<'_>, out: &mut String) {
        let e = BoundedError::new(f.error);
        let what = match e.severity {
            ToolErrorSeverity::Error => "failed",
            ToolErrorSeverity::Warning => "reported a warning",
        };
        let _ = writeln!(
            out,
            "Tool {} {what}: {}\n\n{}\n",
            code_span(f.tool),
            code_span(&e.code),
            e.message
        );
        let _ = writeln!(out, "**Recovery:** {}", e.recovery);
        if !e.actions.is_empty() {
            let spans: Vec<String> = e.actions.iter().map(|a| code_span(a)).collect();
            let _ = write!(out, "\n**Available actions:** {}", spans.join(", "));
            if e.more_actions > 0 {
                let _ = write!(out, " (and {} more)", e.more_actions);
            }
            out.push('\n');
        }
        if !e.details.is_empty() {
            out.push_str("\n**Details:**\n");
            for (k, v) in &e.details {
                let _ = writeln!(out, "- {}: {}", code_span(k), code_span(&detail_text(v)));
            }
            if e.more_details > 0 {
                let _ = writeln!(out, "- and {} more", e.more_details);
            }
        }
        if let Some(s) = e.retry_seconds {
            let seconds = count(
                usize::try_from(s).unwrap_or(usize::MAX),
                "second",
                "seconds",
            );
            let _ = writeln!(out, "\n**Retry after:** {seconds}.");
        }
        if let Some(contract) = &f.contract {
            contract_section(contract, out);
        }
    }

    fn truncation(&self, n: &TruncationNotice<'_>, out: &mut String) {
        let _ = writeln!(out, "⚠️ {}", n.reason);
        if !n.filters.is_empty() {
            let _ = writeln!(
                out,
                "\nNarrow the results with the filters of {}:",
                code_span(n.truncated.tool)
            );
            for f in &n.filters {
                let _ = writeln!(out, "- {}: {}", code_span(&f.name), f.accepts);
            }
        }
        let _ = write!(out, "\n{}\n", n.recovery);
    }

    fn byte_cut(&self, b: &ByteCut<'_>, out: &mut String) {
        let _ = write!(
            out,
            "⚠️ The result was cut to {} of {} bytes (this tool's size cap). {}",
            b.shown, b.total, b.advice
        );
    }

    fn repairs(&self, r: &RepairNotice<'_>, out: &mut String) {
        let _ = writeln!(out, "🔧 Arguments of {} repaired:\n", code_span(r.tool));
        for repair in r.repairs {
            let path = if repair.path.is_empty() {
                "(arguments)"
            } else {
                &repair.path
            };
            let _ = writeln!(
                out,
                "- {} was the string {}: read as {}; {}.",
                code_span(path),
                code_span(&repair.sent),
                code_span(&repair.read_as),
                repair.kind.advice()
            );
        }
        let _ = write!(out, "\n{REPAIRED_ADVICE}");
    }

    fn policy_advice(&self, a: &PolicyAdvice<'_>, out: &mut String) {
        let v = a.verdict;
        let _ = writeln!(
            out,
            "⚠️ Output policy: {} ({} critical, {}, {}).",
            v.status,
            v.critical,
            count(v.warnings, "warning", "warnings"),
            count(v.advisories, "advisory", "advisories"),
        );
        let (listed, omitted) = a.listed();
        if !listed.is_empty() {
            out.push('\n');
        }
        for (n, violation) in listed.iter().enumerate() {
            let _ = write!(
                out,
                "{}. **{}** {}",
                n + 1,
                violation.severity,
                code_span(&violation.rule)
            );
            if let Some(found) = &violation.found {
                let _ = write!(
                    out,
                    " at line {}, column {}: found {}",
                    found.line,
                    found.column,
                    code_span(&cut(&found.text, a.limits.max_echo_chars))
                );
            }
            let _ = write!(out, ". {}", violation.message.replace('\n', " "));
            if let Some(alternative) = &violation.alternative {
                let _ = write!(out, " Instead: {alternative}.");
            }
            if let Some(fix) = &violation.fix {
                let _ = write!(
                    out,
                    " Fix: replace with {}.",
                    code_span(&cut(fix, a.limits.max_echo_chars.max(200)))
                );
            }
            out.push('\n');
        }
        if omitted > 0 {
            let _ = writeln!(
                out,
                "\n{} not listed.",
                count(omitted, "more violation", "more violations")
            );
        }
        let _ = write!(out, "\n{}\n", a.recovery);
    }
}

/// The `## Contract changes` section, after a blank line.
fn contract_section(c: &ContractNotice<'_>, out: &mut String) {
    out.push_str("\n## Contract changes\n\n");
    let _ = writeln!(
        out,
        "**Important:** the contract of tool {} has changed since your last calibration: {}, highest severity {}. {INSTRUCTIONS}\n",
        code_span(c.tool),
        count(c.change_count, "change", "changes"),
        c.max_severity
    );
    for (n, d) in c.deltas.iter().enumerate() {
        let _ = write!(
            out,
            "{}. **{}** {}: {}\n   - Before: {}\n   - After: {}\n",
            n + 1,
            d.severity,
            code_span(&d.path),
            d.description.replace('\n', " "),
            code_span(&delta_value(d.before.as_ref(), MAX_VALUE_CHARS)),
            code_span(&delta_value(d.after.as_ref(), MAX_VALUE_CHARS)),
        );
    }
    let omitted = c.omitted();
    if omitted > 0 {
        let _ = writeln!(
            out,
            "\n{} not listed.",
            count(omitted, "more change", "more changes")
        );
    }
}
