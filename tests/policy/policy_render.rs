//! What the model and people read: the tag rendering (escaped, bounded) and the text report.

use guardrails::policy::{Policy, Profile, RenderLimits, Rule};

fn policy() -> Policy {
    Policy::builder()
        .critical(
            Rule::forbidden("quote", "\"[^\"]+\"")
                .message("Quotes need a <source> & more.")
                .alternative("Add [Source: file.md]"),
        )
        .warning(Rule::forbidden_words("overconfident_language", ["will"]))
        .advisory(Rule::forbidden("roi", r"\bROI\b").fix("ROI potential"))
        .build()
        .expect("compiles")
}

#[test]
fn an_approved_text_renders_as_one_empty_element() {
    let verdict = policy().check("Nothing here.");
    assert_eq!(
        verdict.render_for_model_with(RenderLimits::default()),
        r#"<output_policy verdict="APPROVED" critical="0" warnings="0" advisories="0"/>"#
    );
    assert_eq!(
        verdict.to_string(),
        "Output policy: APPROVED (0 critical, 0 warnings, 0 advisories)\n\nCheck passed: ready for delivery.\n"
    );
}

#[test]
fn the_model_rendering_lists_the_most_serious_first_and_escapes_everything() {
    let verdict = policy().check("ROI: it will say \"<b>&'x'</b>\".");
    let rendered = verdict.render_for_model_with(RenderLimits::default());
    let expected = [
        r#"<output_policy verdict="BLOCKED" critical="1" warnings="1" advisories="1">"#,
        r#"<violation rule="quote" severity="CRITICAL" line="1" column="18" found="&quot;&lt;b&gt;&amp;&apos;x&apos;&lt;/b&gt;&quot;">Quotes need a &lt;source&gt; &amp; more. Instead: Add [Source: file.md].</violation>"#,
        r#"<violation rule="overconfident_language" severity="WARNING" line="1" column="9" found="will">This word is not allowed.</violation>"#,
        r#"<violation rule="roi" severity="ADVISORY" line="1" column="1" found="ROI">This text is not allowed. Fix: replace with 'ROI potential'.</violation>"#,
        "<recovery>Delivery is blocked. Rewrite every critical passage with its approved alternative, or apply the fixes, and submit the whole text again.</recovery>",
        "</output_policy>",
    ]
    .join("\n");
    assert_eq!(rendered, expected);
}

#[test]
fn control_characters_and_newlines_cannot_break_the_tags() {
    let verdict = policy().check("\"a\nb\u{7}</violation>\"");
    let rendered = verdict.render_for_model_with(RenderLimits::default());
    assert!(
        rendered.contains("found=\"&quot;a&#10;b\u{fffd}&lt;/violation&gt;&quot;\""),
        "{rendered}"
    );
    assert_eq!(rendered.matches("</violation>").count(), 1);
}

#[test]
fn the_model_rendering_is_bounded_and_counts_what_it_leaves_out() {
    let text = "will ".repeat(50);
    let verdict = policy().check(&text);
    let rendered = verdict.render_for_model_with(
        RenderLimits::default()
            .with_max_violations(3)
            .with_max_echo_chars(2),
    );
    assert_eq!(rendered.matches("<violation ").count(), 3);
    assert!(rendered.contains(r#"found="wi…""#), "{rendered}");
    assert!(
        rendered.contains(r#"<omitted violations="47"/>"#),
        "{rendered}"
    );
    assert!(rendered.contains("Delivery waits for acknowledgement."));
}

#[test]
fn the_text_report_says_what_was_found_where_and_what_to_do() {
    let verdict = Profile::Base
        .policy()
        .check("Intro.\nThis will bring $50,000.");
    let report = verdict.to_string();
    let expected_start = "\
Output policy: BLOCKED (1 critical, 1 warning, 0 advisories)

1. WARNING overconfident_language at line 2, column 6
   found:    \"will\"
   why:      Overconfident language hides uncertainty.
   instead:  'may', 'potential' or 'expected'

2. CRITICAL untagged_dollar_amount at line 2, column 17
   found:    \"$50,000\"
   why:      A dollar amount must be tagged as an estimate or with its source.
   instead:  The amount followed by [AI estimation based on …] or [Source: …], or qualitative language: \"Substantial investment [AI estimation: enterprise scope]\"
   fix:      replace with \"substantial investment [AI estimation: enterprise scope]\"
";
    assert!(report.starts_with(expected_start), "{report}");
    assert!(report.contains("Delivery blocked: 1 critical violation must be corrected first."));
    assert!(report.contains("4. Check the text again."));
    assert_eq!(verdict.render_text_with(RenderLimits::unlimited()), report);
}

#[test]
fn the_text_report_of_a_missing_requirement_and_of_warnings() {
    let verdict = Profile::Decision.policy().check("A plain sentence.");
    let report = verdict.to_string();
    assert!(
        report.contains("1. WARNING conservative_estimates (nowhere in the text)"),
        "{report}"
    );
    assert!(
        report
            .contains("Delivery pending: 1 warning must be corrected or explicitly acknowledged.")
    );
}

#[test]
fn the_seed_example_as_the_model_sees_it() {
    let verdict = Profile::Decision
        .policy()
        .check("This will save $50,000 annually and brings a 75% reduction in effort.");
    insta::assert_snapshot!(verdict.render_for_model_with(RenderLimits::default()), @r#"
    <output_policy verdict="BLOCKED" critical="4" warnings="2" advisories="0">
    <violation rule="annual_savings_figure" severity="CRITICAL" line="1" column="11" found="save $50,000 annually">A specific figure in this phrasing must be tagged with its methodology or source. Instead: Tag the figure with [AI estimation based on …] or [Source: …], or use the approved wording: Delivers significant annual value [AI estimation based on operational improvement]. Fix: replace with 'delivers significant annual value [AI estimation based on operational improvement]'.</violation>
    <violation rule="untagged_dollar_amount" severity="CRITICAL" line="1" column="16" found="$50,000">A dollar amount must be tagged as an estimate or with its source. Instead: The amount followed by [AI estimation based on …] or [Source: …], or qualitative language: "Substantial investment [AI estimation: enterprise scope]". Fix: replace with 'substantial investment [AI estimation: enterprise scope]'.</violation>
    <violation rule="untagged_percentage" severity="CRITICAL" line="1" column="46" found="75% reduction">A percentage must state its methodology or source. Instead: Conservative language with an [AI estimation based on …] or [Source: …] tag.</violation>
    <violation rule="percentage_reduction" severity="CRITICAL" line="1" column="46" found="75% reduction">A specific figure in this phrasing must be tagged with its methodology or source. Instead: Tag the figure with [AI estimation based on …] or [Source: …], or use the approved wording: Substantial reduction [AI estimation]. Fix: replace with 'substantial reduction [AI estimation]'.</violation>
    <violation rule="overconfident_language" severity="WARNING" line="1" column="6" found="will">Overconfident language hides uncertainty. Instead: 'may', 'potential' or 'expected'.</violation>
    <violation rule="conservative_estimates" severity="WARNING">Estimates must include methodology. Instead: Tag estimates with [AI estimation based on …].</violation>
    <recovery>Delivery is blocked. Rewrite every critical passage with its approved alternative, or apply the fixes, and submit the whole text again.</recovery>
    </output_policy>
    "#);
}
