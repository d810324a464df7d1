//! Behaviour of each rule kind and severity, verdicts, positions, fixes and composition.

use guardrails::policy::{
    Policy, PolicyError, Profile, Rule, RuleSeverity, Status, Verdict, Violation,
};

fn build(builder: guardrails::policy::PolicyBuilder) -> Policy {
    match builder.build() {
        Ok(policy) => policy,
        Err(error) => panic!("policy should build: {error}"),
    }
}

fn rules_found(verdict: &Verdict) -> Vec<(&str, Option<&str>)> {
    verdict
        .violations
        .iter()
        .map(|violation| {
            (
                violation.rule.as_str(),
                violation.found.as_ref().map(|found| found.text.as_str()),
            )
        })
        .collect()
}

/// The numbers of critical violations, warnings and advisories.
fn counts(verdict: &Verdict) -> (usize, usize, usize) {
    (
        verdict.count(RuleSeverity::Critical),
        verdict.count(RuleSeverity::Warning),
        verdict.count(RuleSeverity::Advisory),
    )
}

fn dollar_policy() -> Policy {
    build(
        Policy::builder().critical(
            Rule::forbidden("untagged_dollar_amount", r"\$\d[\d,]*")
                .unless_followed_by(r"\[AI estimation")
                .alternative("Substantial investment [AI estimation: enterprise scope]")
                .fix("substantial investment [AI estimation: enterprise scope]"),
        ),
    )
}

#[test]
fn a_forbidden_pattern_blocks_and_reports_everything_about_the_match() {
    let policy = build(
        Policy::builder().critical(
            Rule::forbidden("roi_figure", r"ROI of \d+%")
                .message("Figures need a source.")
                .alternative("Strong ROI potential")
                .fix("strong ROI potential"),
        ),
    );
    let verdict = policy.check("Intro.\nAn ROI of 200% is expected.");
    assert_eq!(verdict.status, Status::Blocked);
    assert_eq!(counts(&verdict), (1, 0, 0));
    let violation = &verdict.violations[0];
    assert_eq!(violation.rule, "roi_figure");
    assert_eq!(violation.severity, RuleSeverity::Critical);
    assert_eq!(violation.message, "Figures need a source.");
    assert_eq!(
        violation.alternative.as_deref(),
        Some("Strong ROI potential")
    );
    assert_eq!(violation.fix.as_deref(), Some("strong ROI potential"));
    let found = violation.found.as_ref().expect("a match has an occurrence");
    assert_eq!(found.text, "ROI of 200%");
    assert_eq!((found.start, found.end), (10, 21));
    assert_eq!((found.line, found.column), (2, 4));
}

#[test]
fn a_tag_right_after_the_match_makes_it_acceptable() {
    let policy = dollar_policy();
    assert!(
        policy
            .check("It costs $50,000 [AI estimation: vendor quote].")
            .status
            == Status::Approved
    );
    assert!(
        policy
            .check("It costs $50,000\n\t [AI estimation: quote].")
            .status
            == Status::Approved
    );
    let untagged = policy.check("It costs $50,000. [AI estimation: later]");
    assert_eq!(
        rules_found(&untagged),
        [("untagged_dollar_amount", Some("$50,000"))]
    );
    // Each match is judged on its own tag.
    let mixed = policy.check("$1 [AI estimation: a] and $2 and $3 [AI estimation: c]");
    assert_eq!(
        rules_found(&mixed),
        [("untagged_dollar_amount", Some("$2"))]
    );
}

#[test]
fn a_tag_must_end_within_the_window() {
    let policy = build(
        Policy::builder().critical(
            Rule::forbidden("dollar", r"\$\d+")
                .unless_followed_by(r"\[AI estimation\]")
                .within(20),
        ),
    );
    assert!(policy.check("$5 [AI estimation]").status == Status::Approved);
    let far = format!("$5{}[AI estimation]", " ".repeat(30));
    assert!(policy.check(&far).status == Status::Blocked);
}

#[test]
fn a_mandatory_tag_must_follow_its_content() {
    let policy = build(
        Policy::builder().warning(
            Rule::mandatory_tag(
                "inference_tag",
                r"(?i)\btherefore\b",
                r"[^.\n\[]*\[Inference:",
            )
            .alternative("Add [Inference: …]"),
        ),
    );
    assert!(
        policy
            .check("Therefore the plan works [Inference: from the tests].")
            .status
            == Status::Approved
    );
    let verdict = policy.check("Therefore the plan works. [Inference: late]");
    assert_eq!(verdict.status, Status::Pending);
    assert_eq!(
        rules_found(&verdict),
        [("inference_tag", Some("Therefore"))]
    );
    match verdict.violations[0].severity {
        RuleSeverity::Warning => {}
        other => panic!("expected a warning, got {other}"),
    }
}

#[test]
fn a_required_pattern_must_occur_somewhere() {
    let policy = build(Policy::builder().critical(
        Rule::required("mandatory_source", r"\[Source: [^\]]+\]").alternative("[Source: file.md]"),
    ));
    assert!(policy.check("Sales grew [Source: q3.md].").status == Status::Approved);
    let verdict = policy.check("Sales grew.");
    assert!(verdict.status == Status::Blocked);
    let violation = &verdict.violations[0];
    assert_eq!(violation.rule, "mandatory_source");
    assert_eq!(violation.found, None);
    assert_eq!(violation.alternative.as_deref(), Some("[Source: file.md]"));
    assert!(violation.message.contains(r"\[Source: [^\]]+\]"));
}

#[test]
fn word_lists_match_whole_words_in_any_case() {
    let policy = build(Policy::builder().warning(Rule::forbidden_words(
        "overconfident_language",
        ["will", "guaranteed", "definitely", "certainly"],
    )));
    let verdict =
        policy.check("It WILL work, Guaranteed. Willing goodwill; certainly-not. definitelyx");
    assert_eq!(
        rules_found(&verdict),
        [
            ("overconfident_language", Some("WILL")),
            ("overconfident_language", Some("Guaranteed")),
            ("overconfident_language", Some("certainly")),
        ]
    );
    assert_eq!(verdict.status, Status::Pending);
}

#[test]
fn phrases_in_word_lists_match_across_any_whitespace() {
    let policy = build(Policy::builder().critical(Rule::forbidden_words(
        "no_guarantees",
        ["guaranteed", "will definitely", "certain to"],
    )));
    let verdict = policy.check("It will\n  definitely pass; it is certain to.");
    assert_eq!(
        rules_found(&verdict),
        [
            ("no_guarantees", Some("will\n  definitely")),
            ("no_guarantees", Some("certain to")),
        ]
    );
}

#[test]
fn status_follows_the_most_serious_violation() {
    let policy = build(
        Policy::builder()
            .critical(Rule::forbidden("c", "CRIT"))
            .warning(Rule::forbidden("w", "WARN"))
            .advisory(Rule::forbidden("a", "ADV")),
    );
    let approved = policy.check("nothing to see");
    assert_eq!(approved.status, Status::Approved);
    assert!(approved.violations.is_empty());

    let advisory = policy.check("ADV");
    assert_eq!(advisory.status, Status::Approved);
    assert_eq!(counts(&advisory), (0, 0, 1));

    let pending = policy.check("ADV WARN");
    assert_eq!(pending.status, Status::Pending);
    assert_eq!(counts(&pending), (0, 1, 1));

    let blocked = policy.check("ADV WARN CRIT");
    assert_eq!(blocked.status, Status::Blocked);
    assert_eq!(counts(&blocked), (1, 1, 1));
    let severities: Vec<RuleSeverity> = blocked.violations.iter().map(|v| v.severity).collect();
    assert_eq!(
        severities,
        [
            RuleSeverity::Advisory,
            RuleSeverity::Warning,
            RuleSeverity::Critical
        ]
    );
}

#[test]
fn positions_are_bytes_lines_and_character_columns() {
    let policy = build(Policy::builder().critical(Rule::forbidden("dollar", r"\$\d+")));
    // Combining mark, emoji, right-to-left text, CRLF line ends.
    let text = "e\u{301}te\u{301} 👍🏽 $1\r\nשלום $22\n\nمرحبا $333";
    let verdict = policy.check(text);
    let positions: Vec<(usize, usize, usize, usize)> = verdict
        .violations
        .iter()
        .filter_map(|violation| violation.found.as_ref())
        .map(|found| {
            (
                found.start,
                found.line,
                found.column,
                found.end - found.start,
            )
        })
        .collect();
    let first = text.find("$1").expect("present");
    let second = text.find("$22").expect("present");
    let third = text.find("$333").expect("present");
    assert_eq!(
        positions,
        [(first, 1, 10, 2), (second, 2, 6, 3), (third, 4, 7, 4)]
    );
    for violation in &verdict.violations {
        let found = violation.found.as_ref().expect("match");
        assert_eq!(&text[found.start..found.end], found.text);
    }
}

#[test]
fn overlapping_rules_are_all_reported() {
    let verdict = Profile::Base.policy().check("It saves $50,000 annually.");
    assert_eq!(
        rules_found(&verdict),
        [
            ("annual_savings_figure", Some("saves $50,000 annually")),
            ("untagged_dollar_amount", Some("$50,000")),
        ]
    );
}

#[test]
fn fixes_replace_left_to_right_and_the_result_is_checked_again() {
    let policy = dollar_policy();
    let outcome = policy.fix("Phase one: $10,000.\nPhase two: $20,000 [AI estimation: x].");
    assert_eq!(
        outcome.text,
        "Phase one: substantial investment [AI estimation: enterprise scope].\nPhase two: $20,000 [AI estimation: x]."
    );
    assert_eq!(outcome.changes.len(), 1);
    let change = &outcome.changes[0];
    assert_eq!(
        change.to_string(),
        r#"line 1, column 12: "$10,000" → "substantial investment [AI estimation: enterprise scope]" (untagged_dollar_amount)"#
    );
    assert_eq!(
        serde_json::to_value(change).expect("serializes"),
        serde_json::json!({
            "rule": "untagged_dollar_amount",
            "start": 11,
            "end": 18,
            "line": 1,
            "column": 12,
            "found": "$10,000",
            "replacement": "substantial investment [AI estimation: enterprise scope]",
        })
    );
    assert!(outcome.after.status == Status::Approved);
}

#[test]
fn overlapping_fixes_keep_the_longer_match_and_leave_the_rest_to_the_recheck() {
    let outcome = Profile::Base
        .policy()
        .fix("It saves $50,000 annually and costs $9,000.");
    assert_eq!(
        outcome.text,
        "It delivers significant annual value [AI estimation based on operational improvement] \
         and requires a moderate investment [AI estimation based on project scope]."
    );
    let fixed: Vec<String> = outcome.changes.iter().map(ToString::to_string).collect();
    assert_eq!(
        fixed,
        [
            r#"line 1, column 4: "saves $50,000 annually" → "delivers significant annual value [AI estimation based on operational improvement]" (annual_savings_figure)"#,
            r#"line 1, column 31: "costs $9,000" → "requires a moderate investment [AI estimation based on project scope]" (cost_figure)"#,
        ]
    );
    assert_eq!(
        counts(
            &Profile::Base
                .policy()
                .check("It saves $50,000 annually and costs $9,000.")
        ),
        (4, 0, 0)
    );
    assert!(
        outcome.after.status == Status::Approved,
        "{}",
        outcome.after
    );
}

#[test]
fn a_fix_can_keep_the_match_and_add_its_tag() {
    let policy = build(
        Policy::builder().warning(
            Rule::forbidden("percent", r"\d+%")
                .unless_followed_by(r"\[AI estimation")
                .fix("{found} [AI estimation: to be justified]"),
        ),
    );
    let outcome = policy.fix("Growth of 40% and 12%.");
    assert_eq!(
        outcome.text,
        "Growth of 40% [AI estimation: to be justified] and 12% [AI estimation: to be justified]."
    );
    assert_eq!(outcome.changes.len(), 2);
    assert!(outcome.after.status == Status::Approved);
}

#[test]
fn a_fix_that_does_not_satisfy_the_policy_shows_in_the_recheck() {
    let policy = build(
        Policy::builder()
            .critical(Rule::forbidden("old", "colour").fix("color"))
            .warning(Rule::forbidden("new", "color")),
    );
    let outcome = policy.fix("A colour.");
    assert_eq!(outcome.text, "A color.");
    assert_eq!(policy.check("A colour.").status, Status::Blocked);
    assert_eq!(outcome.after.status, Status::Pending);
    assert_eq!(rules_found(&outcome.after), [("new", Some("color"))]);
}

#[test]
fn later_rules_replace_earlier_ones_of_the_same_name_in_place() {
    let base = build(
        Policy::builder()
            .critical(Rule::forbidden("first", "aaa"))
            .critical(Rule::forbidden("second", "bbb"))
            .critical(Rule::forbidden("third", "ccc")),
    );
    let overlay = build(
        Policy::builder()
            .advisory(Rule::forbidden("second", "BBB"))
            .warning(Rule::forbidden("fourth", "ddd")),
    );
    let merged = base.merge(&overlay).expect("merges");
    let names: Vec<&str> = merged.rules().iter().map(Rule::name).collect();
    assert_eq!(names, ["first", "second", "third", "fourth"]);
    let second = merged.rule("second").expect("kept");
    assert_eq!(second.severity(), RuleSeverity::Advisory);
    assert_eq!(
        serde_json::to_value(second).expect("serializes")["pattern"],
        "BBB"
    );
    assert!(merged.check("bbb").status == Status::Approved);
    assert_eq!(merged.check("BBB ddd").status, Status::Pending);

    let relaxed = build(merged.to_builder().without("first"));
    assert!(relaxed.check("aaa").status == Status::Approved);
    assert!(merged.check("aaa").status == Status::Blocked);
}

#[test]
fn profiles_carry_every_rule_of_their_kind_of_agent() {
    let names = |profile: Profile| -> Vec<String> {
        profile
            .policy()
            .rules()
            .iter()
            .map(|rule| rule.name().to_owned())
            .collect()
    };
    let base = names(Profile::Base);
    for rule in [
        "untagged_dollar_amount",
        "untagged_percentage",
        "unsourced_quote",
        "overconfident_language",
        "missing_estimation_tag",
        "roi_figure",
        "annual_savings_figure",
        "cost_figure",
        "percentage_reduction",
        "multiplier_improvement",
        "percentage_faster",
        "guaranteed_results",
    ] {
        assert!(base.iter().any(|name| name == rule), "base lacks {rule}");
    }
    let observation = names(Profile::Observation);
    assert!(observation.iter().any(|name| name == "no_speculation"));
    assert!(observation.iter().any(|name| name == "mandatory_source"));
    assert!(!observation.iter().any(|name| name == "no_guarantees"));
    let decision = names(Profile::Decision);
    assert!(decision.iter().any(|name| name == "conservative_estimates"));
    assert!(decision.iter().any(|name| name == "no_guarantees"));
    assert!(!decision.iter().any(|name| name == "no_speculation"));
    for profile in Profile::ALL {
        assert_eq!(
            profile
                .to_string()
                .parse::<Profile>()
                .expect("known")
                .policy()
                .rules()
                .len(),
            names(profile).len()
        );
    }
}

#[test]
fn the_observation_profile_wants_facts_with_sources() {
    let policy = Profile::Observation.policy();
    let speculative = policy.check("The data suggests churn is likely rising.");
    let rules: Vec<&str> = speculative
        .violations
        .iter()
        .map(|v| v.rule.as_str())
        .collect();
    assert_eq!(
        rules,
        ["no_speculation", "no_speculation", "mandatory_source"]
    );
    assert!(speculative.status == Status::Blocked);

    let factual = policy.check("Churn rose in March [Source: churn_report.md].");
    assert!(factual.status == Status::Approved, "{factual}");
}

#[test]
fn the_decision_profile_allows_tagged_estimation_and_no_guarantees() {
    let policy = Profile::Decision.policy();
    let good = policy.check(
        "A moderate investment [AI estimation based on team size] with strong ROI potential.",
    );
    assert!(good.status == Status::Approved, "{good}");
    let bad = policy.check("Results are guaranteed.");
    let rules: Vec<&str> = bad.violations.iter().map(|v| v.rule.as_str()).collect();
    assert_eq!(
        rules,
        [
            "overconfident_language",
            "no_guarantees",
            "conservative_estimates"
        ]
    );
    assert!(bad.status == Status::Blocked);
    let advisory = policy.check("The ROI is high [AI estimation based on pilots].");
    assert_eq!(advisory.status, Status::Approved);
    assert_eq!(advisory.count(RuleSeverity::Advisory), 1);
}

#[test]
fn building_reports_every_problem_with_its_rule() {
    let error = Policy::builder()
        .critical(Rule::forbidden("unclosed", "(abc"))
        .critical(Rule::forbidden("empty_match", "a*"))
        .warning(Rule::forbidden_words("no_words", Vec::<String>::new()))
        .critical(Rule::required("required_with_fix", "x").fix("y"))
        .critical(Rule::required("required_with_tag", "x").unless_followed_by("y"))
        .critical(Rule::forbidden("bad_tag", "x").unless_followed_by("[z"))
        .critical(Rule::forbidden("fine", "ok"))
        .build()
        .expect_err("invalid rules");
    let PolicyError::Invalid { problems, .. } = &error else {
        panic!("not a list of problems: {error}");
    };
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "rule `unclosed`: `pattern` does not compile: unclosed group (at character 1)",
            "rule `empty_match`: `pattern` can match the empty string; it must match at least one character",
            "rule `no_words`: the word list is empty",
            "rule `required_with_fix`: a required pattern has no match to replace, so it cannot have a fix",
            "rule `required_with_tag`: `unless_followed_by` does not apply to a required pattern",
            "rule `bad_tag`: `unless_followed_by` does not compile: unclosed character class (at character 1)",
        ]
    );
    let shown = error.to_string();
    assert!(shown.starts_with("the policy has 6 problems:"), "{shown}");
    assert!(
        shown.contains("rule `unclosed`: `pattern` does not compile: unclosed group"),
        "{shown}"
    );
    assert!(
        shown.contains("rule `empty_match`: `pattern` can match the empty string"),
        "{shown}"
    );
}

#[test]
fn profiles_are_found_by_name() {
    assert!(matches!(
        "strict".parse::<Profile>(),
        Err(PolicyError::UnknownProfile { name }) if name == "strict"
    ));
    assert_eq!("decision".parse::<Profile>().ok(), Some(Profile::Decision));
    let observation = "observation".parse::<Profile>().expect("observation");
    assert_eq!(observation.to_string(), "observation");
    assert!(observation.policy().rule("no_speculation").is_some());
}

#[test]
fn verdicts_serialize_to_json() {
    let verdict = dollar_policy().check("It costs $5.");
    let json = serde_json::to_value(&verdict).expect("serializes");
    assert_eq!(json["status"], "BLOCKED");
    assert_eq!(json["critical"], 1);
    let violation = &json["violations"][0];
    assert_eq!(violation["rule"], "untagged_dollar_amount");
    assert_eq!(violation["severity"], "CRITICAL");
    assert_eq!(violation["found"]["text"], "$5");
    assert_eq!(violation["found"]["start"], 9);
    assert_eq!(violation["found"]["line"], 1);
    assert_eq!(violation["found"]["column"], 10);
    assert_eq!(
        violation["fix"],
        "substantial investment [AI estimation: enterprise scope]"
    );
    let outcome = serde_json::to_value(dollar_policy().fix("$5")).expect("serializes");
    assert_eq!(outcome["after"]["status"], "APPROVED");
    assert_eq!(outcome["changes"][0]["found"], "$5");
}

#[test]
fn violations_are_plain_data() {
    let verdict = dollar_policy().check("$1 $2");
    let cloned: Vec<Violation> = verdict.violations.clone();
    assert_eq!(cloned, verdict.violations);
    assert_eq!(
        cloned
            .iter()
            .filter_map(|v| v.found.as_ref())
            .map(|f| f.start)
            .collect::<Vec<_>>(),
        [0, 3]
    );
}

#[test]
fn rules_serialize_with_their_kind() {
    let policy = dollar_policy();
    let json = serde_json::to_value(policy.rules()).expect("serializes");
    assert_eq!(json[0]["name"], "untagged_dollar_amount");
    assert_eq!(json[0]["severity"], "CRITICAL");
    assert_eq!(json[0]["kind"], "forbidden");
    assert_eq!(json[0]["pattern"], r"\$\d[\d,]*");
    assert_eq!(json[0]["unless_followed_by"], r"\[AI estimation");
    assert_eq!(json[0]["tag_window"], 256);
}
