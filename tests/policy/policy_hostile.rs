//! Hostile text: huge inputs, pathological repetitions and unusual Unicode. Each check must
//! finish (the engines are linear in the length of the text) and be right; wall-clock times
//! are deliberately not asserted.

use guardrails::policy::{Policy, Profile, RenderLimits, Rule, Status, Verdict};

fn all_policies() -> Vec<Policy> {
    let mut policies: Vec<Policy> = Profile::ALL
        .into_iter()
        .map(|profile| profile.policy().clone())
        .collect();
    policies.push(
        Policy::builder()
            .critical(Rule::forbidden("dollar", r"\$[\d,]+"))
            .critical(Rule::forbidden("percent", r"\d+%"))
            .warning(Rule::forbidden("brackets", r"\[[^\]]*\]"))
            .warning(Rule::forbidden("quote", "\"[^\"]*\"").unless_followed_by(r"\[Source:"))
            .build()
            .expect("compiles"),
    );
    policies
}

/// Checks with the one-pass engine, and compares with the per-rule reference.
fn check_both(policy: &Policy, text: &str) -> Verdict {
    let verdict = policy.check(text);
    assert_eq!(
        verdict,
        policy.check_each_rule_separately(text),
        "one pass and per rule disagree"
    );
    verdict
}

fn count(verdict: &Verdict, rule: &str) -> usize {
    verdict
        .violations
        .iter()
        .filter(|violation| violation.rule == rule)
        .count()
}

#[test]
fn a_megabyte_of_dollar_signs() {
    let text = "$".repeat(1 << 20);
    for policy in all_policies() {
        let verdict = check_both(&policy, &text);
        assert_eq!(count(&verdict, "untagged_dollar_amount"), 0);
        assert_eq!(count(&verdict, "dollar"), 0);
    }
}

#[test]
fn a_megabyte_of_open_brackets() {
    let text = "[".repeat(1 << 20);
    for policy in all_policies() {
        let verdict = check_both(&policy, &text);
        assert_eq!(count(&verdict, "brackets"), 0);
    }
}

#[test]
fn a_megabyte_of_nines_is_one_number() {
    let nines = "9".repeat(1 << 20);
    let text = format!("${nines}%");
    let policy = all_policies().pop().expect("custom policy");
    let verdict = check_both(&policy, &text);
    assert_eq!(count(&verdict, "dollar"), 1);
    assert_eq!(count(&verdict, "percent"), 1);
    let dollar = verdict.violations[0].found.as_ref().expect("match");
    assert_eq!((dollar.start, dollar.end), (0, text.len() - 1));
    for policy in all_policies() {
        check_both(&policy, &nines);
    }
    let base = check_both(Profile::Base.policy(), &text);
    assert_eq!(count(&base, "untagged_dollar_amount"), 1);
    assert_eq!(count(&base, "untagged_percentage"), 1);
    assert_eq!(base.status, Status::Blocked);
}

#[test]
fn an_unclosed_quote_before_a_megabyte_of_text() {
    let text = format!("\"{}", "word ".repeat(200_000));
    for policy in all_policies() {
        let verdict = check_both(&policy, &text);
        assert_eq!(count(&verdict, "unsourced_quote"), 0);
        assert_eq!(count(&verdict, "quote"), 0);
    }
    let quotes = "\"".repeat(1 << 20);
    let verdict = check_both(&all_policies().pop().expect("custom"), &quotes);
    assert_eq!(count(&verdict, "quote"), 1 << 19);
}

#[test]
fn many_small_violations_are_all_reported_with_positions() {
    let text = "$1 9% [x] \"q\"\n".repeat(50_000);
    let policy = all_policies().pop().expect("custom");
    let verdict = check_both(&policy, &text);
    assert_eq!(verdict.violations.len(), 4 * 50_000);
    let last = verdict
        .violations
        .last()
        .and_then(|v| v.found.as_ref())
        .expect("match");
    assert_eq!((last.line, last.column), (50_000, 11));
}

#[test]
fn several_megabytes_of_prose_with_violations() {
    let paragraph = "The team reviewed the quarterly figures and the rollout plan. \
        It will cost $45,000 to migrate, and the vendor promised a 30% reduction in latency. \
        \"We expect a smooth launch,\" the lead said. Roughly 12 engineers are involved. \
        Therefore the plan proceeds [Source: plan.md].\n";
    let text = paragraph.repeat((3 << 20) / paragraph.len());
    let paragraphs = text.len() / paragraph.len();
    check_both(Profile::Decision.policy(), &text);
    for profile in Profile::ALL {
        let verdict = profile.policy().check(&text);
        assert_eq!(verdict.status, Status::Blocked);
        assert_eq!(count(&verdict, "untagged_dollar_amount"), paragraphs);
        assert_eq!(count(&verdict, "percentage_reduction"), paragraphs);
        assert_eq!(count(&verdict, "overconfident_language"), paragraphs);
        assert_eq!(count(&verdict, "unsourced_quote"), paragraphs);
    }
}

#[test]
fn unicode_of_every_kind_keeps_positions_right() {
    // Combining marks, right-to-left scripts with direction marks, emoji with modifiers and
    // joiners, and a byte-order mark.
    let line = "\u{feff}a\u{301}\u{302}\u{303} \u{202e}مرحبا\u{202c} שלום 👨‍👩‍👧‍👦🏳️‍🌈 will $5 ";
    let text = line.repeat(3_000);
    let verdict = check_both(Profile::Base.policy(), &text);
    assert_eq!(count(&verdict, "overconfident_language"), 3_000);
    assert_eq!(count(&verdict, "untagged_dollar_amount"), 3_000);
    let first = verdict.violations[0].found.as_ref().expect("match");
    assert_eq!(first.text, "will");
    assert_eq!(first.start, line.find("will").expect("present"));
    assert_eq!(first.column, line[..first.start].chars().count() + 1);
    let last = verdict
        .violations
        .last()
        .and_then(|v| v.found.as_ref())
        .expect("match");
    assert_eq!(last.line, 1);
    assert_eq!(last.column, text[..last.start].chars().count() + 1);
}

#[test]
fn invalid_looking_input_is_just_text() {
    for text in [
        "",
        "\0\0\0",
        "\u{fffd}",
        "\r\r\r",
        "[Source:",
        "[AI estimation",
        "$",
        "%",
    ] {
        for policy in all_policies() {
            check_both(&policy, text);
        }
    }
}

#[test]
fn rendering_a_huge_verdict_stays_small() {
    let text = format!("{} ${}", "will ".repeat(100_000), "1".repeat(100_000));
    let verdict = Profile::Base.policy().check(&text);
    assert_eq!(verdict.violations.len(), 100_001);
    let rendered = verdict.render_for_model_with(RenderLimits::default());
    assert!(rendered.len() < 8_000, "{} bytes", rendered.len());
    assert!(
        rendered.contains(r#"<omitted violations="99981"/>"#),
        "{rendered}"
    );
    // The most serious violation comes first, its found text cut short.
    let first = rendered.lines().nth(1).expect("a violation");
    assert!(first.starts_with(r#"<violation rule="untagged_dollar_amount" severity="CRITICAL""#));
    assert!(
        first.contains(&format!(r#"found="${}…""#, "1".repeat(79))),
        "{first}"
    );
}
