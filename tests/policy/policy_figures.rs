//! The figure rules of the built-in profiles follow one principle: a figure is forbidden unless
//! an estimation or source tag follows it. Each rule is checked both ways, in every profile.

use guardrails::policy::{Profile, RuleSeverity, Verdict};

/// Each figure rule, a text it catches, and the figure's phrase within it (the tag goes right
/// after the phrase).
const FIGURES: [(&str, &str); 8] = [
    ("untagged_dollar_amount", "$120,000"),
    ("untagged_percentage", "40%"),
    ("roi_figure", "ROI of 40%"),
    ("annual_savings_figure", "saves $50,000 annually"),
    ("cost_figure", "costs $9,000"),
    ("percentage_reduction", "40% reduction"),
    ("multiplier_improvement", "3x improvement"),
    ("percentage_faster", "25% faster"),
];

/// Tags that make a figure acceptable.
const TAGS: [&str; 3] = [
    "[AI estimation based on pilot volumes]",
    "[AI estimation: vendor quote]",
    "[Source: budget-2026.md]",
];

fn flagged(verdict: &Verdict, rule: &str) -> bool {
    verdict.violations.iter().any(|v| v.rule == rule)
}

#[test]
fn an_untagged_figure_is_caught_by_its_rule_in_every_profile() {
    for profile in Profile::ALL {
        let policy = profile.policy();
        for (rule, phrase) in FIGURES {
            let text = format!("The plan {phrase} in the first year.");
            let verdict = policy.check(&text);
            assert!(flagged(&verdict, rule), "{profile}: {rule} misses {text:?}");
            assert!(
                verdict.count(RuleSeverity::Critical) > 0,
                "{profile}: {text:?}"
            );
        }
    }
}

#[test]
fn a_tagged_figure_passes_its_rule_in_every_profile() {
    for profile in Profile::ALL {
        let policy = profile.policy();
        for (rule, phrase) in FIGURES {
            for tag in TAGS {
                let text = format!("The plan {phrase} {tag} in the first year.");
                let verdict = policy.check(&text);
                assert!(
                    !flagged(&verdict, rule),
                    "{profile}: {rule} blocks the tagged {text:?}: {verdict:?}"
                );
            }
        }
    }
}

#[test]
fn a_tagged_percentage_claim_is_not_blocked() {
    // The claim of the issue that made the rules consistent: tagged dollars passed, tagged
    // percentages did not.
    for text in [
        "A 40% reduction [AI estimation based on pilot volumes] in handling time.",
        "$120,000 [AI estimation based on three vendor quotes] over two years.",
        "A 40% reduction [Source: pilot-report.md] in handling time.",
    ] {
        for profile in [Profile::Base, Profile::Decision] {
            let verdict = profile.policy().check(text);
            assert_eq!(
                verdict.count(RuleSeverity::Critical),
                0,
                "{profile}: {text:?}: {verdict:?}"
            );
        }
    }
}

#[test]
fn the_tag_must_follow_the_figure() {
    let policy = Profile::Base.policy();
    // A tag elsewhere in the text does not cover a figure.
    let verdict = policy.check("A 40% reduction in handling time. [AI estimation based on pilots]");
    assert!(flagged(&verdict, "percentage_reduction"), "{verdict:?}");
    // A dollar amount followed by other words needs its own tag, even inside a tagged phrase.
    let verdict = policy.check("It saves $50,000 annually [AI estimation based on pilots].");
    assert!(!flagged(&verdict, "annual_savings_figure"), "{verdict:?}");
    assert!(flagged(&verdict, "untagged_dollar_amount"), "{verdict:?}");
    let verdict = policy.check("It saves $50,000 [AI estimation based on pilots] annually.");
    assert_eq!(verdict.count(RuleSeverity::Critical), 0, "{verdict:?}");
}

#[test]
fn a_figure_rule_offers_both_ways_out() {
    let policy = Profile::Base.policy();
    for (rule, phrase) in FIGURES {
        let verdict = policy.check(&format!("The plan {phrase} in the first year."));
        let violation = verdict
            .violations
            .iter()
            .find(|v| v.rule == rule)
            .expect("the rule fires");
        let alternative = violation.alternative.as_deref().unwrap_or_default();
        assert!(
            alternative.contains("[AI estimation") && alternative.contains("[Source: …]"),
            "{rule}: {alternative}"
        );
    }
}
