//! What the model sees: validation reports rendered as compact XML-style tags (the default),
//! Markdown, or a structured JSON object.
//!
//! Everything echoed back from the caller (keys, values) is escaped for the output format and
//! cut to a bounded length, and at most [`RenderOptions::max_issues`] issues are listed, so a
//! rendered message has a bounded size whatever the input.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::validation::{ArgsInfo, Issue, IssueCode, Report};

/// The directive that closes every rejected call.
pub const RECOVERY: &str =
    "Fix the fields above and call the tool again. Do not explain the error.";

/// The shape of rendered messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum RenderFormat {
    /// Compact XML-style tags: `<validation_error>` with a `<field>` per issue.
    #[default]
    Xml,
    /// Markdown with issues, suggestions, an optional schema summary and the valid example.
    Markdown,
    /// A structured JSON object: `{"error": {"type": "validation", …}}`.
    Json,
}

/// How reports are rendered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RenderOptions {
    /// The output shape.
    pub format: RenderFormat,
    /// Whether to include a summary of the tool's fields.
    pub schema_summary: bool,
    /// The most issues listed; the rest are counted.
    pub max_issues: usize,
    /// The contract awareness of the tool being called (see [`crate::contract`]): the server
    /// sets it per tool when a known-good lockfile is given and the tool changed since. `None`
    /// renders errors as they are.
    pub contract: Option<crate::contract::Awareness>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            format: RenderFormat::Xml,
            schema_summary: false,
            max_issues: 20,
            contract: None,
        }
    }
}

impl RenderOptions {
    /// The default options in the given format.
    #[must_use]
    pub fn new(format: RenderFormat) -> Self {
        Self {
            format,
            ..Self::default()
        }
    }

    /// Turns the schema summary on or off.
    #[must_use]
    pub fn with_schema_summary(mut self, on: bool) -> Self {
        self.schema_summary = on;
        self
    }

    /// Sets the contract awareness of the tool these options render for.
    #[must_use]
    pub fn with_contract(mut self, awareness: Option<crate::contract::Awareness>) -> Self {
        self.contract = awareness;
        self
    }

    /// Sets how many issues are listed at most (at least one is always listed).
    #[must_use]
    pub fn with_max_issues(mut self, max: usize) -> Self {
        self.max_issues = max.max(1);
        self
    }
}

/// Escapes text for XML content, so that nothing sent by a caller can open or close a tag.
/// Quotes stay as they are: they cannot end content, and escaping them costs the model tokens.
#[must_use]
pub fn escape_xml(text: &str) -> String {
    escape(text, false)
}

/// Escapes text for an XML attribute value (quotes included).
#[must_use]
pub fn escape_xml_attr(text: &str) -> String {
    escape(text, true)
}

fn escape(text: &str, quotes: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quotes => out.push_str("&quot;"),
            '\'' if quotes => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Wraps text in a Markdown code span that its own backticks cannot close.
#[must_use]
pub fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest > 0 || text.starts_with(' ') || text.ends_with(' ') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// Renders a rejected call of tool `tool` whose arguments type is described by `info`.
#[must_use]
pub fn render_report(
    tool: &str,
    report: &Report,
    info: &ArgsInfo,
    example: &Value,
    options: &RenderOptions,
) -> String {
    let shown = &report.issues()[..report.issues().len().min(options.max_issues.max(1))];
    let hidden = report.len() - shown.len();
    let rendering = Rendering {
        tool,
        report,
        shown,
        hidden,
        info,
        example,
        options,
    };
    match options.format {
        RenderFormat::Xml => xml(&rendering),
        RenderFormat::Markdown => markdown(&rendering),
        RenderFormat::Json => json_form(&rendering),
    }
}

/// Everything one rendering of a report reads, whatever the format.
#[derive(Clone, Copy)]
struct Rendering<'a> {
    tool: &'a str,
    report: &'a Report,
    shown: &'a [Issue],
    hidden: usize,
    info: &'a ArgsInfo,
    example: &'a Value,
    options: &'a RenderOptions,
}

fn received_text(issue: &Issue) -> &str {
    issue.received.as_deref().unwrap_or("(missing)")
}

fn xml(r: &Rendering<'_>) -> String {
    let Rendering {
        tool,
        report,
        shown,
        hidden,
        info,
        example,
        options,
    } = *r;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<validation_error tool=\"{}\" issues=\"{}\">",
        escape_xml_attr(tool),
        report.len()
    );
    for issue in shown {
        let mut text = issue.message.clone();
        if issue.code != IssueCode::UnknownField {
            let _ = write!(text, " You sent: {}.", received_text(issue));
        }
        if let Some(fix) = &issue.fix {
            if issue.code == IssueCode::UnknownField {
                let _ = write!(text, " {fix}");
            } else {
                let _ = write!(text, " Fix: {fix}.");
            }
        }
        let _ = writeln!(
            out,
            "<field name=\"{}\" code=\"{}\">{}</field>",
            escape_xml_attr(issue.location()),
            issue.code,
            escape_xml(&text)
        );
    }
    if hidden > 0 {
        let _ = writeln!(
            out,
            "<more_issues count=\"{hidden}\">{hidden} more issue(s) not listed; fix the ones above first.</more_issues>"
        );
    }
    if options.schema_summary {
        out.push_str("<schema>\n");
        for line in summary_lines(info) {
            out.push_str(&escape_xml(&line));
            out.push('\n');
        }
        out.push_str("</schema>\n");
    }
    let _ = writeln!(
        out,
        "<valid_example>{}</valid_example>",
        escape_xml(&example.to_string())
    );
    let _ = writeln!(out, "<recovery>{RECOVERY}</recovery>");
    out.push_str("</validation_error>");
    out
}

/// One line per field: name, kind, requiredness, description and what it accepts.
fn summary_lines(info: &ArgsInfo) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(d) = info.description {
        lines.push(format!("Description: {d}"));
    }
    let required: Vec<&str> = info.required().collect();
    if !required.is_empty() {
        lines.push(format!("Required fields: {}", required.join(", ")));
    }
    for field in info.wire_fields() {
        let need = if field.required {
            "required"
        } else {
            "optional"
        };
        let mut line = format!("- {} ({}, {need})", field.name, (field.kind)().json_type());
        if let Some(d) = field.description {
            let _ = write!(line, ": {}", d.trim_end_matches('.'));
        }
        let _ = write!(line, ". Accepts {}.", field.fix());
        lines.push(line);
    }
    lines
}

/// Advice grouped by the kinds of issue found.
fn suggestions(report: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let paths = |code: IssueCode| -> Vec<&str> {
        report
            .issues()
            .iter()
            .filter(|i| i.code == code)
            .map(Issue::location)
            .collect()
    };
    let missing = paths(IssueCode::Missing);
    if !missing.is_empty() {
        out.push(format!(
            "Add the missing required fields: {}.",
            missing.join(", ")
        ));
    }
    let unknown = paths(IssueCode::UnknownField);
    if !unknown.is_empty() {
        out.push(format!(
            "Remove the fields this tool does not have: {}.",
            unknown.join(", ")
        ));
    }
    if report.has(IssueCode::Type) {
        out.push("Send each value with the JSON type its field expects.".into());
    }
    if [
        IssueCode::TooShort,
        IssueCode::TooLong,
        IssueCode::TooSmall,
        IssueCode::TooLarge,
    ]
    .into_iter()
    .any(|c| report.has(c))
    {
        out.push("Keep numbers and lengths within the allowed ranges.".into());
    }
    if report.has(IssueCode::Enum) {
        out.push("Use only the allowed values listed for each field.".into());
    }
    if report.has(IssueCode::Pattern) || report.has(IssueCode::Format) {
        out.push("Match the required pattern or format exactly.".into());
    }
    if report.has(IssueCode::NotUnique) {
        out.push("Remove repeated items from lists that must be distinct.".into());
    }
    if report.has(IssueCode::MultipleOf) {
        out.push("Round numbers to the required step.".into());
    }
    if report.has(IssueCode::Policy) {
        out.push("Rewrite the text the output policy flags with its approved alternative.".into());
    }
    out.push("Start from the valid example and change only what you need.".into());
    out
}

fn markdown(r: &Rendering<'_>) -> String {
    let Rendering {
        tool,
        report,
        shown,
        hidden,
        info,
        example,
        options,
    } = *r;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Tool {} received invalid arguments: {} issue(s) found.\n\n## Issues\n",
        code_span(tool),
        report.len()
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
            "\n{hidden} more issue(s) not listed; fix the ones above first."
        );
    }
    if options.schema_summary {
        out.push_str("\n## Tool schema\n\n");
        for line in summary_lines(info) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str("\n## Suggestions\n\n");
    for (n, s) in suggestions(report).iter().enumerate() {
        let _ = writeln!(out, "{}. {s}", n + 1);
    }
    let pretty = serde_json::to_string_pretty(example).unwrap_or_default();
    let _ = write!(
        out,
        "\n## Valid example\n\n```json\n{pretty}\n```\n\n{RECOVERY}\n"
    );
    out
}

fn json_form(r: &Rendering<'_>) -> String {
    let Rendering {
        tool,
        report,
        shown,
        hidden,
        info,
        example,
        options,
    } = *r;
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
        "tool": tool,
        "summary": format!("Tool {tool} received invalid arguments: {} issue(s) found.", report.len()),
        "issues": issues,
        "omitted": hidden,
        "suggestions": suggestions(report),
        "validExample": example,
        "recovery": RECOVERY,
    });
    if options.schema_summary {
        let properties: serde_json::Map<String, Value> = info
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
    json!({ "error": error }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escaping_neutralises_tags() {
        assert_eq!(
            escape_xml("</field><x a='1'>&"),
            "&lt;/field&gt;&lt;x a='1'&gt;&amp;"
        );
        assert_eq!(escape_xml_attr("a\"b'<"), "a&quot;b&apos;&lt;");
    }

    #[test]
    fn code_spans_survive_backticks() {
        assert_eq!(code_span("ab"), "`ab`");
        assert_eq!(code_span("a`b"), "`` a`b ``");
        assert_eq!(code_span("```"), "```` ``` ````");
    }
}
