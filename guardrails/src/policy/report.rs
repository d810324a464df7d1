//! Verdicts rendered for people (plain text, and located the way compilers report problems),
//! and the bounds of every rendering. For models, see the `<output_policy>` rendering in
//! [`crate::render`]; for machines the verdict types implement `serde::Serialize`.

use std::fmt::{self, Write as _};

use super::verdict::{Status, Verdict, Violation};
use crate::text::{head, plain, quote_json};

/// Bounds on a rendered verdict, so that its size does not depend on the text checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderLimits {
    /// How many violations are listed; the rest are counted.
    pub(crate) max_violations: usize,
    /// How many characters of a found text are echoed; longer ones are cut with `…`.
    pub(crate) max_echo_chars: usize,
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

impl Verdict {
    /// Renders the verdict for people within `limits`: every violation with where it is, what
    /// was found, why it is a violation and what to write instead, then what happens to the
    /// text. Without limits, it is the verdict's `Display` (`verdict.to_string()`).
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
        let omitted = self.not_listed(limits);
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
        let (shown, was_cut) = head(&found.text, limits.max_echo_chars);
        let _ = writeln!(
            out,
            "   found:    {}{}",
            quote_json(shown),
            if was_cut { "…" } else { "" }
        );
    }
    let _ = writeln!(out, "   why:      {}", violation.message);
    if let Some(alternative) = &violation.alternative {
        let _ = writeln!(out, "   instead:  {alternative}");
    }
    if let Some(fix) = &violation.fix {
        let _ = writeln!(out, "   fix:      replace with {}", quote_json(fix));
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
        // A path may hold anything but `/` and NUL: a line break would forge a report line,
        // a bidirectional control reorder one.
        let origin = plain(origin);
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
        let omitted = self.not_listed(limits);
        if omitted > 0 {
            let _ = writeln!(out, "{origin}: … and {omitted} more.");
        }
        out
    }
}

impl Verdict {
    /// How many violations a rendering within `limits` does not list: those past its cap, and
    /// those a capped check did not keep.
    fn not_listed(&self, limits: RenderLimits) -> usize {
        self.violations.len().saturating_sub(limits.max_violations) + self.omitted
    }
}

impl fmt::Display for Verdict {
    /// The text rendering, every violation listed ([`Verdict::render_text_with`] with
    /// [`RenderLimits::unlimited`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render_text_with(RenderLimits::unlimited()))
    }
}
