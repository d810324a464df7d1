//! Compact XML-style tags, the default: `<validation_error>`, `<tool_error>`, `<truncated>`,
//! `<output_policy>`, `<contract_awareness>`. Attributes and contents are escaped, so nothing a
//! caller sent can open or close a tag.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;

use serde_json::Value;

use super::{RenderOptions, Renderer};
use crate::contract::{Delta, Diff};
use crate::message::repeated::EXAMPLE_LABEL;
use crate::message::{
    BoundedError, ByteCut, ContractNotice, Failure, INSTRUCTIONS, MAX_VALUE_CHARS, PolicyAdvice,
    RECOVERY, REPAIRED_ADVICE, Rejection, RepairNotice, RepeatedCall, ToolErrorSeverity,
    TruncationNotice, by_importance, delta_value, detail_text, received_text,
};
use crate::policy::{RenderLimits, Status, Verdict};
use crate::text::{count, cut, escape_xml_attr_into, escape_xml_into, head, push_uint};
use crate::validation::IssueCode;
use crate::validation::example::is_lasting;

/// The XML-style renderer.
pub(crate) struct Xml;

impl Renderer for Xml {
    fn repeated_call(&self, m: &RepeatedCall<'_>, out: &mut String) {
        out.push_str("<repeated_call tool=\"");
        escape_xml_attr_into(out, m.tool);
        let _ = writeln!(out, "\" times=\"{}\">", m.times);
        if let Some(corrected) = m.corrected {
            match (&m.call, corrected.withheld()) {
                (Some(call), _) => {
                    out.push_str("<corrected_call>");
                    escape_xml_into(out, call);
                    out.push_str("</corrected_call>\n");
                }
                (None, Some(why)) => {
                    let _ = writeln!(
                        out,
                        "<corrected_call repeated=\"false\">Not repeated: {why}.</corrected_call>"
                    );
                }
                (None, None) => {}
            }
            for (field, need) in corrected.fill() {
                out.push_str("<fill_in field=\"");
                escape_xml_attr_into(out, field);
                out.push_str("\">");
                escape_xml_into(out, need);
                out.push_str("</fill_in>\n");
            }
            if !corrected.changes().is_empty() {
                out.push_str("<changes>");
                escape_xml_into(out, &corrected.changes().join("; "));
                out.push_str("</changes>\n");
            }
        }
        if let Some(example) = m.example_call() {
            let _ = write!(out, "<valid_example note=\"{EXAMPLE_LABEL}\">");
            escape_xml_into(out, &example);
            out.push_str("</valid_example>\n");
        }
        out.push_str("<fields>");
        escape_xml_into(out, &m.faults());
        out.push_str("</fields>\n<recovery>");
        escape_xml_into(out, &m.directive);
        out.push_str("</recovery>\n</repeated_call>");
    }

    fn rejection(&self, r: &Rejection<'_>, options: &RenderOptions, out: &mut String) {
        let (shown, hidden) = r.listed(options.max_issues);
        let example = example_text(r.example);
        // One buffer for the whole message: its parts are written into it, each escaped as it
        // goes, and it is sized once for what is known of them.
        let issues: usize = shown
            .iter()
            .map(|issue| {
                issue.path.len()
                    + issue.message.len()
                    + issue.received.as_ref().map_or(0, |text| text.len())
                    + issue.fix.as_ref().map_or(0, |text| text.len())
            })
            .sum();
        out.reserve(256 + r.tool.len() + issues + 64 * shown.len() + example.len());
        out.push_str("<validation_error tool=\"");
        escape_xml_attr_into(out, r.tool);
        out.push_str("\" issues=\"");
        push_uint(out, u128::try_from(r.report.len()).unwrap_or(u128::MAX));
        out.push_str("\">\n");
        for issue in shown {
            out.push_str("<field name=\"");
            escape_xml_attr_into(out, issue.location());
            out.push_str("\" code=\"");
            out.push_str(issue.code.as_str());
            out.push_str("\">");
            // The message, what was sent and the fix, each escaped where it is written.
            escape_xml_into(out, &issue.message);
            if issue.code != IssueCode::UnknownField {
                out.push_str(" You sent: ");
                escape_xml_into(out, received_text(issue));
                out.push('.');
            }
            // A rule's own expectation says more than the field's fix text, which the value
            // already met for the rule to run.
            let rule_expects = issue
                .expected
                .as_ref()
                .filter(|_| issue.code == IssueCode::Custom);
            if let Some(fix) = rule_expects.or(issue.fix.as_ref()) {
                if issue.code == IssueCode::UnknownField {
                    out.push(' ');
                    escape_xml_into(out, fix);
                } else {
                    out.push_str(" Fix: ");
                    escape_xml_into(out, fix);
                    // A fix text that is a sentence already ends with its own period.
                    if !fix.ends_with('.') {
                        out.push('.');
                    }
                }
            }
            out.push_str("</field>\n");
        }
        if hidden > 0 {
            let _ = writeln!(
                out,
                "<more_issues count=\"{hidden}\">{} not listed; fix the ones above first.</more_issues>",
                count(hidden, "more issue", "more issues")
            );
        }
        if options.schema_summary {
            out.push_str("<schema>\n");
            for line in r.summary_lines() {
                escape_xml_into(out, &line);
                out.push('\n');
            }
            out.push_str("</schema>\n");
        }
        // No example is better than one that does not validate: `null` stands for none.
        if !r.example.is_null() {
            out.push_str("<valid_example>");
            out.push_str(&example);
            out.push_str("</valid_example>\n");
        }
        out.push_str("<recovery>");
        out.push_str(RECOVERY);
        out.push_str("</recovery>\n");
        if let Some(contract) = &r.contract {
            contract_block(contract, out);
            out.push('\n');
        }
        out.push_str("</validation_error>");
    }

    fn failure(&self, f: &Failure<'_>, out: &mut String) {
        let e = BoundedError::new(f.error);
        out.push_str("<tool_error tool=\"");
        escape_xml_attr_into(out, f.tool);
        out.push_str("\" code=\"");
        escape_xml_attr_into(out, &e.code);
        out.push('"');
        match e.severity {
            ToolErrorSeverity::Error => {}
            ToolErrorSeverity::Warning => out.push_str(" severity=\"warning\""),
        }
        out.push_str(">\n<message>");
        escape_xml_into(out, &e.message);
        out.push_str("</message>\n<recovery>");
        escape_xml_into(out, &e.recovery);
        out.push_str("</recovery>\n");
        if !e.actions.is_empty() {
            let mut list = e.actions.join(", ");
            if e.more_actions > 0 {
                let _ = write!(list, " (and {} more)", e.more_actions);
            }
            out.push_str("<available_actions>");
            escape_xml_into(out, &list);
            out.push_str("</available_actions>\n");
        }
        if !e.details.is_empty() {
            out.push_str("<details>\n");
            for (k, v) in &e.details {
                out.push_str("<detail key=\"");
                escape_xml_attr_into(out, k);
                out.push_str("\">");
                escape_xml_into(out, &detail_text(v));
                out.push_str("</detail>\n");
            }
            if e.more_details > 0 {
                let _ = writeln!(out, "<more_details count=\"{}\"/>", e.more_details);
            }
            out.push_str("</details>\n");
        }
        if let Some(s) = e.retry_seconds {
            let _ = writeln!(
                out,
                "<retry_after seconds=\"{s}\">Wait {} before calling again.</retry_after>",
                count(
                    usize::try_from(s).unwrap_or(usize::MAX),
                    "second",
                    "seconds"
                )
            );
        }
        if let Some(contract) = &f.contract {
            contract_block(contract, out);
            out.push('\n');
        }
        out.push_str("</tool_error>");
    }

    fn truncation(&self, n: &TruncationNotice<'_>, out: &mut String) {
        let t = n.truncated;
        out.push_str("<truncated tool=\"");
        escape_xml_attr_into(out, t.tool);
        let _ = write!(
            out,
            "\" shown=\"{}\" total=\"{}\">\n<reason>",
            t.shown, t.total
        );
        escape_xml_into(out, &n.reason);
        out.push_str("</reason>\n");
        if !n.filters.is_empty() {
            out.push_str("<filters>\n");
            for f in &n.filters {
                out.push_str("<filter name=\"");
                escape_xml_attr_into(out, &f.name);
                out.push_str("\">");
                escape_xml_into(out, &f.accepts);
                out.push_str("</filter>\n");
            }
            out.push_str("</filters>\n");
        }
        out.push_str("<recovery>");
        escape_xml_into(out, &n.recovery);
        out.push_str("</recovery>\n</truncated>");
    }

    fn byte_cut(&self, b: &ByteCut<'_>, out: &mut String) {
        out.push_str("<truncated tool=\"");
        escape_xml_attr_into(out, b.tool);
        let _ = write!(
            out,
            "\" bytes_shown=\"{}\" bytes_total=\"{}\">\n<recovery>",
            b.shown, b.total
        );
        escape_xml_into(out, &b.advice);
        out.push_str("</recovery>\n</truncated>");
    }

    fn policy_advice(&self, a: &PolicyAdvice<'_>, out: &mut String) {
        output_policy(a.verdict, a.limits, a.recovery, out);
    }

    fn repairs(&self, r: &RepairNotice<'_>, out: &mut String) {
        out.push_str("<repaired tool=\"");
        escape_xml_attr_into(out, r.tool);
        let _ = writeln!(out, "\" count=\"{}\">", r.repairs.len());
        for repair in r.repairs {
            out.push_str("<repair field=\"");
            escape_xml_attr_into(out, &repair.path);
            let _ = write!(out, "\" kind=\"{}\">", repair.kind.as_str());
            escape_xml_into(out, &repair.message());
            out.push_str("</repair>\n");
        }
        out.push_str("<recovery>");
        escape_xml_into(out, REPAIRED_ADVICE);
        out.push_str("</recovery>\n</repaired>");
    }
}

/// The most examples a thread keeps the escaped text of.
const CACHED_EXAMPLES: usize = 16;
/// The longest escaped example kept.
const CACHED_EXAMPLE_BYTES: usize = 16 << 10;

/// An example's escaped text, kept with the value it was written from and where that value is.
struct CachedExample {
    at: usize,
    /// Whether the value at `at` is the same for the rest of the process (an arguments type's
    /// example, in its static): then the address alone tells it.
    lasting: bool,
    value: Value,
    text: Rc<str>,
}

thread_local! {
    /// The escaped text of the examples this thread rendered last. A tool's example is one
    /// value for the life of the server, rendered with every rejection of its calls: it is
    /// written and escaped once, not once per rejection.
    static EXAMPLES: RefCell<Vec<CachedExample>> = const { RefCell::new(Vec::new()) };
}

/// The escaped text of `example`: from the cache when the value at this place is the one it
/// was written from (equal in every part, in the same order), else written now.
fn example_text(example: &Value) -> Rc<str> {
    let at = std::ptr::from_ref(example) as usize;
    // A thread that is ending has no cache left: the example is written anew there.
    let cached = EXAMPLES
        .try_with(|cache| {
            cache
                .borrow()
                .iter()
                .find(|c| c.at == at && (c.lasting || identical(&c.value, example)))
                .map(|c| Rc::clone(&c.text))
        })
        .ok()
        .flatten();
    if let Some(text) = cached {
        return text;
    }
    let json = serde_json::to_string(example).unwrap_or_default();
    let mut escaped = String::with_capacity(json.len() + 16);
    escape_xml_into(&mut escaped, &json);
    let text: Rc<str> = Rc::from(escaped);
    if text.len() <= CACHED_EXAMPLE_BYTES {
        let _ = EXAMPLES.try_with(|cache| {
            let mut cache = cache.borrow_mut();
            cache.retain(|c| c.at != at);
            if cache.len() >= CACHED_EXAMPLES {
                cache.remove(0);
            }
            cache.push(CachedExample {
                at,
                lasting: is_lasting(example),
                value: example.clone(),
                text: Rc::clone(&text),
            });
        });
    }
    text
}

/// Whether two values are written as the same JSON text: equal, objects with their keys in the
/// same order, fractions with the same bits (`0.0` is not `-0.0`).
fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && identical(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| identical(x, y))
        }
        (Value::Number(x), Value::Number(y)) => match (x.is_f64(), y.is_f64()) {
            (true, true) => x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits),
            (false, false) => x == y,
            _ => false,
        },
        _ => a == b,
    }
}

/// The `<contract_awareness>` block, without a line break after it.
fn contract_block(c: &ContractNotice<'_>, out: &mut String) {
    out.push_str("<contract_awareness>\n<system_note>");
    escape_xml_into(out, &c.system_note());
    out.push_str("</system_note>\n");
    let _ = writeln!(out, "<change_count>{}</change_count>", c.change_count);
    let _ = writeln!(out, "<max_severity>{}</max_severity>", c.max_severity);
    let _ = writeln!(out, "<instructions>{INSTRUCTIONS}</instructions>");
    out.push_str("<contract_deltas>\n");
    for d in &c.deltas {
        delta(d, MAX_VALUE_CHARS, out);
    }
    out.push_str("</contract_deltas>\n");
    let omitted = c.omitted();
    if omitted > 0 {
        let _ = writeln!(
            out,
            "<more_changes count=\"{omitted}\">{} not listed.</more_changes>",
            count(omitted, "more change", "more changes")
        );
    }
    out.push_str("</contract_awareness>");
}

/// One `<delta>` element, values cut to `max_chars`.
fn delta(d: &Delta, max_chars: usize, out: &mut String) {
    let _ = write!(out, "<delta severity=\"{}\" field=\"", d.severity);
    escape_xml_attr_into(out, &d.path);
    out.push_str("\">\n<description>");
    escape_xml_into(out, &d.description);
    out.push_str("</description>\n<previous>");
    escape_xml_into(out, &delta_value(d.before.as_ref(), max_chars));
    out.push_str("</previous>\n<current>");
    escape_xml_into(out, &delta_value(d.after.as_ref(), max_chars));
    out.push_str("</current>\n</delta>\n");
}

impl Diff {
    /// A report for models: `<contract_deltas>` with one `<delta>` per change. Every value is
    /// escaped.
    #[cfg(test)]
    pub(crate) fn to_xml(&self) -> String {
        let mut out = format!(
            "<contract_deltas count=\"{}\" max_severity=\"{}\">\n",
            self.len(),
            self.max_severity()
                .map_or("NONE", crate::contract::ChangeSeverity::as_str)
        );
        for d in self.deltas() {
            delta(d, usize::MAX, &mut out);
        }
        out.push_str("</contract_deltas>");
        out
    }
}

fn escape_cut_attr(out: &mut String, text: &str, max_chars: usize) {
    escape_xml_attr_into(out, &cut(text, max_chars));
}

/// The `<output_policy>` element of a verdict.
fn output_policy(verdict: &Verdict, limits: RenderLimits, recovery: &str, out: &mut String) {
    let _ = write!(
        out,
        r#"<output_policy verdict="{}" critical="{}" warnings="{}" advisories="{}""#,
        verdict.status, verdict.critical, verdict.warnings, verdict.advisories
    );
    if verdict.violations.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push_str(">\n");
    let (listed, omitted) = by_importance(verdict, limits.max_violations);
    for violation in listed {
        out.push_str("<violation rule=\"");
        escape_xml_attr_into(out, &violation.rule);
        let _ = write!(out, "\" severity=\"{}\"", violation.severity);
        if let Some(found) = &violation.found {
            let _ = write!(
                out,
                " line=\"{}\" column=\"{}\" found=\"",
                found.line, found.column
            );
            escape_cut_attr(out, &found.text, limits.max_echo_chars);
            out.push('"');
        }
        out.push('>');
        escape_xml_into(out, &violation.message);
        if let Some(alternative) = &violation.alternative {
            out.push_str(" Instead: ");
            escape_xml_into(out, alternative);
            out.push('.');
        }
        if let Some(fix) = &violation.fix {
            out.push_str(" Fix: replace with '");
            let (shown, was_cut) = head(fix, limits.max_echo_chars.max(200));
            escape_xml_into(out, shown);
            if was_cut {
                out.push('…');
            }
            out.push_str("'.");
        }
        out.push_str("</violation>\n");
    }
    if omitted > 0 {
        let _ = writeln!(out, r#"<omitted violations="{omitted}"/>"#);
    }
    out.push_str("<recovery>");
    escape_xml_into(out, recovery);
    out.push_str("</recovery>\n</output_policy>");
}

impl Verdict {
    /// Renders the verdict for a model: one `<output_policy>` element with one `<violation>` per
    /// listed violation, the most serious first, and what to do next. Every echoed text is
    /// escaped and cut to `limits.max_echo_chars`; past `limits.max_violations`, the rest are
    /// counted in an `<omitted>` element. [`RenderLimits::default`] is what a server uses.
    ///
    /// ```
    /// use guardrails::policy::{Profile, RenderLimits};
    ///
    /// let verdict = Profile::Base.policy().check("It saves $50,000 annually.");
    /// let rendered = verdict.render_for_model_with(RenderLimits::default());
    /// assert!(rendered.starts_with(r#"<output_policy verdict="BLOCKED" critical="2""#));
    /// assert!(rendered.contains(r#"rule="annual_savings_figure""#));
    /// ```
    #[must_use]
    pub fn render_for_model_with(&self, limits: RenderLimits) -> String {
        let recovery = match self.status {
            Status::Blocked => {
                "Delivery is blocked. Rewrite every critical passage with its approved alternative, or apply the fixes, and submit the whole text again."
            }
            Status::Pending => {
                "Delivery waits for acknowledgement. Revise the flagged passages, or confirm them explicitly, and submit again."
            }
            Status::Approved => "Delivery is allowed. The suggestions above are optional.",
        };
        self.render_for_model_as(limits, recovery)
    }

    /// Like [`Verdict::render_for_model_with`], with the closing `<recovery>` directive given by
    /// the caller: where the text is not the model's to resubmit (a tool's output that was
    /// delivered anyway), the directive says what to do instead.
    #[must_use]
    pub(crate) fn render_for_model_as(&self, limits: RenderLimits, recovery: &str) -> String {
        let mut out = String::new();
        output_policy(self, limits, recovery, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::render::RenderFormat;
    use crate::validation::{ArgsInfo, Report};

    fn shown_example(example: &Value) -> String {
        let report = Report::new();
        let rejection = Rejection::new("t", &report, &ArgsInfo::UNDECLARED, example);
        let text = super::super::rejection(&rejection, &RenderOptions::default());
        let start = text.find("<valid_example>").unwrap() + "<valid_example>".len();
        let end = text.find("</valid_example>").unwrap();
        text[start..end].to_owned()
    }

    #[test]
    fn an_example_changed_in_place_is_written_anew() {
        let mut example = json!({"a": "<b>", "n": 0.0});
        assert_eq!(shown_example(&example), r#"{"a":"&lt;b&gt;","n":0.0}"#);
        assert_eq!(shown_example(&example), r#"{"a":"&lt;b&gt;","n":0.0}"#);
        example["n"] = json!(-0.0);
        assert_eq!(shown_example(&example), r#"{"a":"&lt;b&gt;","n":-0.0}"#);
        example["a"] = json!("\u{202e}&");
        assert_eq!(
            shown_example(&example),
            "{\"a\":\"\u{fffd}&amp;\",\"n\":-0.0}"
        );
        for other in [json!(1), json!([1, "x"])] {
            assert_eq!(shown_example(&other), other.to_string());
        }
    }

    #[test]
    fn no_example_is_shown_rather_than_null() {
        let report = Report::new();
        let rejection = Rejection::new("t", &report, &ArgsInfo::UNDECLARED, &Value::Null);
        for format in [
            RenderFormat::Xml,
            RenderFormat::Markdown,
            RenderFormat::Json,
        ] {
            let text = super::super::rejection(&rejection, &RenderOptions::from(format));
            assert!(!text.contains("null"), "{text}");
            assert!(!text.to_lowercase().contains("example"), "{text}");
            assert!(text.contains(RECOVERY), "{text}");
        }
    }
}
