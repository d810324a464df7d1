//! Verdicts rendered for a model (compact tags) and for people (plain text). For machines the
//! verdict types implement `serde::Serialize`.

use std::fmt::{self, Write as _};

use super::verdict::{Status, Verdict, Violation};

/// Bounds on a rendered verdict, so that its size does not depend on the text checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderLimits {
    /// How many violations are listed; the rest are counted.
    pub max_violations: usize,
    /// How many characters of a found text are echoed; longer ones are cut with `…`.
    pub max_echo_chars: usize,
}

impl Default for RenderLimits {
    /// 20 violations, 80 characters of each found text.
    fn default() -> Self {
        RenderLimits {
            max_violations: 20,
            max_echo_chars: 80,
        }
    }
}

impl RenderLimits {
    /// No bound: every violation, every found text whole.
    #[must_use]
    pub const fn unlimited() -> Self {
        RenderLimits {
            max_violations: usize::MAX,
            max_echo_chars: usize::MAX,
        }
    }

    /// Sets how many violations are listed.
    #[must_use]
    pub const fn with_max_violations(mut self, max_violations: usize) -> Self {
        self.max_violations = max_violations;
        self
    }

    /// Sets how many characters of a found text are echoed.
    #[must_use]
    pub const fn with_max_echo_chars(mut self, max_echo_chars: usize) -> Self {
        self.max_echo_chars = max_echo_chars;
        self
    }
}

/// The first `max_chars` characters of `text`, and whether it was cut.
fn cut(text: &str, max_chars: usize) -> (&str, bool) {
    match text.char_indices().nth(max_chars) {
        Some((offset, _)) => (&text[..offset], true),
        None => (text, false),
    }
}

/// Escapes text for an attribute value; control characters, which have no place in one,
/// become U+FFFD.
fn escape_attribute_into(out: &mut String, text: &str) {
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            other if other.is_control() => out.push('\u{fffd}'),
            other => out.push(other),
        }
    }
}

/// Escapes text for the content of an element: only what could open or close markup, so that
/// quotes stay readable.
fn escape_content_into(out: &mut String, text: &str) {
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\t' => out.push(character),
            other if other.is_control() => out.push('\u{fffd}'),
            other => out.push(other),
        }
    }
}

fn escape_cut_into(out: &mut String, text: &str, max_chars: usize, escape: fn(&mut String, &str)) {
    let (shown, was_cut) = cut(text, max_chars);
    escape(out, shown);
    if was_cut {
        out.push('…');
    }
}

/// The violations to list first: the most serious, then in the order of the text.
fn by_importance(verdict: &Verdict) -> Vec<&Violation> {
    let mut ordered: Vec<&Violation> = verdict.violations.iter().collect();
    ordered.sort_by_key(|violation| std::cmp::Reverse(violation.severity));
    ordered
}

impl Verdict {
    /// Renders the verdict for a model with the [default limits](RenderLimits::default).
    #[must_use]
    pub fn render_for_model(&self) -> String {
        self.render_for_model_with(RenderLimits::default())
    }

    /// Renders the verdict for a model: one `<output_policy>` element with one `<violation>` per
    /// listed violation, the most serious first, and what to do next. Every echoed text is
    /// escaped and cut to `limits.max_echo_chars`; past `limits.max_violations`, the rest are
    /// counted in an `<omitted>` element.
    ///
    /// ```
    /// use guardrails::policy::Profile;
    ///
    /// let verdict = Profile::Base.policy().check("It saves $50,000 annually.");
    /// let rendered = verdict.render_for_model();
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
    pub fn render_for_model_as(&self, limits: RenderLimits, recovery: &str) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<output_policy verdict="{}" critical="{}" warnings="{}" advisories="{}""#,
            self.status, self.critical, self.warnings, self.advisories
        );
        if self.violations.is_empty() {
            out.push_str("/>");
            return out;
        }
        out.push_str(">\n");
        let listed = by_importance(self);
        for violation in listed.iter().take(limits.max_violations) {
            out.push_str("<violation rule=\"");
            escape_attribute_into(&mut out, &violation.rule);
            let _ = write!(out, "\" severity=\"{}\"", violation.severity);
            if let Some(found) = &violation.found {
                let _ = write!(
                    out,
                    " line=\"{}\" column=\"{}\" found=\"",
                    found.line, found.column
                );
                escape_cut_into(
                    &mut out,
                    &found.text,
                    limits.max_echo_chars,
                    escape_attribute_into,
                );
                out.push('"');
            }
            out.push('>');
            escape_content_into(&mut out, &violation.message);
            if let Some(alternative) = &violation.alternative {
                out.push_str(" Instead: ");
                escape_content_into(&mut out, alternative);
                out.push('.');
            }
            if let Some(fix) = &violation.fix {
                out.push_str(" Fix: replace with '");
                escape_cut_into(
                    &mut out,
                    fix,
                    limits.max_echo_chars.max(200),
                    escape_content_into,
                );
                out.push_str("'.");
            }
            out.push_str("</violation>\n");
        }
        let omitted = listed.len().saturating_sub(limits.max_violations);
        if omitted > 0 {
            let _ = writeln!(out, r#"<omitted violations="{omitted}"/>"#);
        }
        out.push_str("<recovery>");
        escape_content_into(&mut out, recovery);
        out.push_str("</recovery>\n</output_policy>");
        out
    }

    /// Renders the verdict for people: every violation with where it is, what was found, why
    /// it is a violation and what to write instead, then what happens to the text.
    #[must_use]
    pub fn render_text(&self) -> String {
        self.render_text_with(RenderLimits::unlimited())
    }

    /// [`Verdict::render_text`] within `limits`.
    #[must_use]
    pub fn render_text_with(&self, limits: RenderLimits) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Output policy: {} ({} critical, {} {}, {} {})",
            self.status,
            self.critical,
            self.warnings,
            if self.warnings == 1 {
                "warning"
            } else {
                "warnings"
            },
            self.advisories,
            if self.advisories == 1 {
                "advisory"
            } else {
                "advisories"
            },
        );
        for (number, violation) in self
            .violations
            .iter()
            .take(limits.max_violations)
            .enumerate()
        {
            out.push('\n');
            let _ = write!(
                out,
                "{}. {} {}",
                number + 1,
                violation.severity,
                violation.rule
            );
            match &violation.found {
                Some(found) => {
                    let _ = writeln!(out, " at line {}, column {}", found.line, found.column);
                }
                None => out.push_str(" (nowhere in the text)\n"),
            }
            write_details(&mut out, violation, limits);
        }
        let omitted = self.violations.len().saturating_sub(limits.max_violations);
        if omitted > 0 {
            let _ = writeln!(out, "\n… and {omitted} more.");
        }
        out.push('\n');
        match self.status {
            Status::Blocked => {
                let _ = writeln!(
                    out,
                    "Delivery blocked: {} critical {} must be corrected first.",
                    self.critical,
                    if self.critical == 1 {
                        "violation"
                    } else {
                        "violations"
                    }
                );
                out.push_str(
                    "Next steps:\n  1. Apply the corrections above.\n  2. Check that every figure and estimate carries its tag.\n  3. Check that every claim names its source.\n  4. Check the text again.\n",
                );
            }
            Status::Pending => {
                let _ = writeln!(
                    out,
                    "Delivery pending: {} {} must be corrected or explicitly acknowledged.",
                    self.warnings,
                    if self.warnings == 1 {
                        "warning"
                    } else {
                        "warnings"
                    }
                );
            }
            Status::Approved if self.violations.is_empty() => {
                out.push_str("Check passed: ready for delivery.\n");
            }
            Status::Approved => {
                out.push_str(
                    "Check passed: ready for delivery; the suggestions above are optional.\n",
                );
            }
        }
        out
    }
}

/// What a violation found, why it is one and what to write instead, one indented line each.
fn write_details(out: &mut String, violation: &Violation, limits: RenderLimits) {
    if let Some(found) = &violation.found {
        let (shown, was_cut) = cut(&found.text, limits.max_echo_chars);
        let _ = writeln!(
            out,
            "   found:    {:?}{}",
            shown,
            if was_cut { "…" } else { "" }
        );
    }
    let _ = writeln!(out, "   why:      {}", violation.message);
    if let Some(alternative) = &violation.alternative {
        let _ = writeln!(out, "   instead:  {alternative}");
    }
    if let Some(fix) = &violation.fix {
        let _ = writeln!(out, "   fix:      replace with {fix:?}");
    }
}

impl Verdict {
    /// Renders the violations of a text that came from `origin` (a file path) the way compilers
    /// report problems, so that editors and CI logs link each one to its place:
    /// `origin:line:column: SEVERITY rule`, then what was found, why, and what to write
    /// instead. A required pattern that occurs nowhere is reported as `origin: SEVERITY rule`.
    /// Nothing is rendered for a text without violations.
    ///
    /// ```
    /// use guardrails::policy::{Profile, RenderLimits};
    ///
    /// let verdict = Profile::Base.policy().check("Intro.\nIt saves $50,000 annually.");
    /// let rendered = verdict.render_located("notes/plan.md", RenderLimits::unlimited());
    /// assert!(rendered.starts_with("notes/plan.md:2:4: CRITICAL annual_savings_figure\n"));
    /// ```
    #[must_use]
    pub fn render_located(&self, origin: &str, limits: RenderLimits) -> String {
        let mut out = String::new();
        for violation in self.violations.iter().take(limits.max_violations) {
            match &violation.found {
                Some(found) => {
                    let _ = writeln!(
                        out,
                        "{origin}:{}:{}: {} {}",
                        found.line, found.column, violation.severity, violation.rule
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "{origin}: {} {} (nowhere in the text)",
                        violation.severity, violation.rule
                    );
                }
            }
            write_details(&mut out, violation, limits);
        }
        let omitted = self.violations.len().saturating_sub(limits.max_violations);
        if omitted > 0 {
            let _ = writeln!(out, "{origin}: … and {omitted} more.");
        }
        out
    }
}

impl fmt::Display for Verdict {
    /// The text rendering, [`Verdict::render_text`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render_text())
    }
}
