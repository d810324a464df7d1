//! Policies read from TOML files, and the errors of bad files: each names its line and rule.

use std::path::PathBuf;

use guardrails::policy::{Policy, PolicyError, Problem, Profile, RuleSeverity, Status};

/// The problems of an invalid policy; none for the other errors.
fn problems(error: &PolicyError) -> &[Problem] {
    match error {
        PolicyError::Invalid { problems, .. } => problems,
        _ => &[],
    }
}

fn problems_of(text: &str) -> Vec<Problem> {
    match Policy::from_toml_str(text) {
        Ok(_) => panic!("the policy should be rejected:\n{text}"),
        Err(error) => problems(&error).to_vec(),
    }
}

fn single_problem(text: &str) -> Problem {
    let problems = problems_of(text);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    problems.into_iter().next().expect("one problem")
}

const EVERY_KIND: &str = r#"
[[rule]]
name = "untagged_dollar_amount"
severity = "critical"
pattern = '\$\d[\d,]*'
unless_followed_by = '\[AI estimation'
within = 64
message = "Dollar amounts need an estimation tag."
alternative = "Substantial investment [AI estimation: enterprise scope]"
fix = "substantial investment [AI estimation: enterprise scope]"

[[rule]]
name = "overconfident_language"
severity = "WARNING"
words = ["will", "guaranteed"]

[[rule]]
name = "inference_tag"
severity = "advisory"
content = '(?i)\btherefore\b'
tag = '[^.\n\[]*\[Inference:'

[[rule]]
name = "mandatory_source"
severity = "critical"
required = '\[Source: [^\]]+\]'
"#;

#[test]
fn a_file_describes_every_kind_of_rule() {
    let policy = Policy::from_toml_str(EVERY_KIND).expect("valid policy");
    let dollar = policy.rule("untagged_dollar_amount").expect("present");
    assert_eq!(dollar.severity(), RuleSeverity::Critical);
    // A rule serializes as the file describes it.
    let described = serde_json::to_value(dollar).unwrap();
    assert_eq!(described["tag_window"], 64);
    assert_eq!(
        described["fix"],
        "substantial investment [AI estimation: enterprise scope]"
    );
    let words = policy.rule("overconfident_language").expect("present");
    assert_eq!(words.severity(), RuleSeverity::Warning);
    let words = serde_json::to_value(words).unwrap();
    assert_eq!(
        (&words["kind"], words["words"].as_array().map(Vec::len)),
        (&serde_json::json!("words"), Some(2))
    );
    let tag = serde_json::to_value(policy.rule("inference_tag").expect("present")).unwrap();
    assert_eq!(tag["kind"], "mandatory_tag");

    let verdict = policy.check("It will cost $5. Therefore yes.");
    let rules: Vec<&str> = verdict.violations.iter().map(|v| v.rule.as_str()).collect();
    assert_eq!(
        rules,
        [
            "overconfident_language",
            "untagged_dollar_amount",
            "inference_tag",
            "mandatory_source"
        ]
    );
    assert!(
        policy
            .check("It costs $5 [AI estimation: quote] [Source: a.md].")
            .status
            == Status::Approved
    );
}

#[test]
fn a_file_extends_a_profile_and_disables_or_replaces_its_rules() {
    let policy = Policy::from_toml_str(
        r#"
extends = "decision"
disable = ["timeline_justification", "conservative_estimates"]

[[rule]]
name = "overconfident_language"
severity = "advisory"
words = ["will"]

[[rule]]
name = "house_rule"
severity = "warning"
pattern = "synergy"
"#,
    )
    .expect("valid policy");
    let decision = Profile::Decision.policy();
    assert!(policy.rule("timeline_justification").is_none());
    assert!(policy.rule("no_guarantees").is_some());
    assert_eq!(policy.rules().len(), decision.rules().len() - 2 + 1);
    // The replaced rule keeps its place.
    let position =
        |policy: &Policy, name: &str| policy.rules().iter().position(|rule| rule.name() == name);
    assert_eq!(
        position(&policy, "overconfident_language"),
        position(decision, "overconfident_language")
    );
    assert_eq!(policy.check("It will work.").status, Status::Approved);
    assert_eq!(policy.check("Synergy. synergy").status, Status::Pending);
}

#[test]
fn a_pattern_that_does_not_compile_names_its_rule_and_line() {
    let problem = single_problem(
        "[[rule]]\nname = \"fine\"\nseverity = \"warning\"\npattern = 'ok'\n\n\
         [[rule]]\nname = \"broken\"\nseverity = \"critical\"\npattern = '(unclosed'\n",
    );
    assert_eq!(problem.rule.as_deref(), Some("broken"));
    assert_eq!(problem.line, Some(9));
    assert_eq!(problem.column, Some(11));
    assert_eq!(
        problem.to_string(),
        "line 9, column 11: rule `broken`: `pattern` does not compile: unclosed group (at character 1)"
    );
}

#[test]
fn a_bad_tag_pattern_points_at_the_tag() {
    let problem = single_problem(
        "[[rule]]\nname = \"t\"\nseverity = \"warning\"\ncontent = 'x'\ntag = '[oops'\n",
    );
    assert_eq!(problem.rule.as_deref(), Some("t"));
    assert!(problem.message.starts_with("`tag`"), "{problem}");
    assert_eq!(problem.line, Some(5));
}

#[test]
fn an_unknown_severity_names_its_rule_and_line() {
    let problem =
        single_problem("[[rule]]\nname = \"loud\"\nseverity = \"fatal\"\npattern = 'x'\n");
    assert_eq!(problem.rule.as_deref(), Some("loud"));
    assert_eq!(problem.line, Some(3));
    assert!(
        problem.message.contains("unknown severity `fatal`"),
        "{problem}"
    );
}

#[test]
fn missing_fields_are_reported_at_their_rule() {
    let problems = problems_of(
        "[[rule]]\nname = \"a\"\npattern = 'x'\n\n[[rule]]\nseverity = \"warning\"\npattern = 'y'\n\n\
         [[rule]]\nname = \"c\"\nseverity = \"warning\"\n\n[[rule]]\nname = \"d\"\nseverity = \"warning\"\ncontent = 'z'\n",
    );
    let summary: Vec<(Option<&str>, Option<usize>)> = problems
        .iter()
        .map(|problem| (problem.rule.as_deref(), problem.line))
        .collect();
    assert_eq!(
        summary,
        [
            (Some("a"), Some(1)),
            (None, Some(5)),
            (Some("c"), Some(9)),
            (Some("d"), Some(16))
        ]
    );
    assert!(problems[0].message.contains("missing field `severity`"));
    assert!(problems[1].message.contains("rule #2 has no `name`"));
    assert!(problems[2].message.contains("give one of `pattern`"));
    assert!(problems[3].message.contains("missing field `tag`"));
}

#[test]
fn an_unknown_key_names_its_rule_and_line() {
    let problem = single_problem(
        "[[rule]]\nname = \"first\"\nseverity = \"warning\"\npattern = 'x'\n\n\
         [[rule]]\nname = \"second\"\nseverity = \"warning\"\npatern = 'y'\n",
    );
    assert_eq!(problem.rule.as_deref(), Some("second"));
    assert_eq!(problem.line, Some(9));
    assert!(
        problem.message.contains("unknown field `patern`"),
        "{problem}"
    );
}

#[test]
fn a_wrong_type_names_its_rule_and_line() {
    let problem =
        single_problem("[[rule]]\nname = \"w\"\nseverity = \"warning\"\nwords = 'will'\n");
    assert_eq!(
        (problem.rule.as_deref(), problem.line),
        (Some("w"), Some(4))
    );
    let negative = single_problem(
        "[[rule]]\nname = \"n\"\nseverity = \"warning\"\npattern = 'x'\nunless_followed_by = 'y'\nwithin = -3\n",
    );
    assert_eq!(
        (negative.rule.as_deref(), negative.line),
        (Some("n"), Some(6))
    );
}

#[test]
fn a_syntax_error_gives_its_line() {
    let problem = single_problem("[[rule]]\nname = \"s\"\nseverity = \"warning\npattern = 'x'\n");
    assert_eq!(problem.line, Some(3));
}

#[test]
fn conflicting_and_duplicate_rules_are_refused() {
    let problems = problems_of(
        "[[rule]]\nname = \"twice\"\nseverity = \"warning\"\npattern = 'x'\nwords = ['y']\n\n\
         [[rule]]\nname = \"dup\"\nseverity = \"warning\"\npattern = 'x'\n\n\
         [[rule]]\nname = \"dup\"\nseverity = \"warning\"\npattern = 'y'\n\n\
         [[rule]]\nname = \"stray_tag\"\nseverity = \"warning\"\npattern = 'x'\ntag = 'y'\n",
    );
    let summary: Vec<(Option<&str>, Option<usize>)> = problems
        .iter()
        .map(|problem| (problem.rule.as_deref(), problem.line))
        .collect();
    assert_eq!(
        summary,
        [
            (Some("twice"), Some(1)),
            (Some("dup"), Some(13)),
            (Some("stray_tag"), Some(21))
        ]
    );
    assert!(problems[0].message.contains("not `pattern` and `words`"));
    assert!(
        problems[1]
            .message
            .contains("already used by the rule at line 7")
    );
}

#[test]
fn unknown_profiles_and_disabled_rules_are_refused() {
    let problems = problems_of("extends = \"strict\"\ndisable = [\"nothing\"]\n");
    assert_eq!(problems.len(), 2);
    assert_eq!(problems[0].line, Some(1));
    assert!(problems[0].message.contains("unknown profile `strict`"));
    assert_eq!(problems[1].line, Some(2));
    assert!(problems[1].message.contains("cannot disable `nothing`"));
}

#[test]
fn files_are_read_from_disk_and_errors_name_the_file() {
    let directory = std::env::temp_dir().join(format!("guardrails-policy-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("temp dir");
    let good = directory.join("good.toml");
    std::fs::write(&good, EVERY_KIND).expect("write");
    assert_eq!(
        Policy::from_toml_file(&good).expect("valid").rules().len(),
        4
    );

    let bad = directory.join("bad.toml");
    std::fs::write(
        &bad,
        "[[rule]]\nname = \"b\"\nseverity = \"critical\"\npattern = '['\n",
    )
    .expect("write");
    let error = Policy::from_toml_file(&bad).expect_err("invalid");
    let shown = error.to_string();
    assert!(shown.starts_with("policy file `"), "{shown}");
    assert!(
        shown.contains("bad.toml` is invalid: line 4, column 11: rule `b`:"),
        "{shown}"
    );
    assert!(matches!(error, PolicyError::Invalid { origin: Some(ref path), .. } if *path == bad));

    let missing = directory.join("missing.toml");
    assert!(matches!(
        Policy::from_toml_file(&missing),
        Err(PolicyError::Read { path, .. }) if path == missing
    ));

    // A profile and a file together: the file's rules over the profile's.
    let combined = Profile::Observation
        .policy()
        .merge(&Policy::from_toml_file(&good).expect("valid"))
        .expect("merges");
    assert!(combined.rule("no_speculation").is_some());
    assert_eq!(
        combined
            .rule("untagged_dollar_amount")
            .map(|rule| serde_json::to_value(rule).unwrap()["tag_window"].clone()),
        Some(serde_json::json!(64))
    );
    let _ = std::fs::remove_dir_all(PathBuf::from(&directory));
}

#[test]
fn arbitrary_bytes_never_panic() {
    for text in [
        "",
        "\u{0}",
        "[[rule]]",
        "[[rule]]\n[[rule]]\nname = 1",
        "rule = 5",
        "rule = [1, 2]",
        "[rule]\nname = \"x\"",
        "[[rule]]\nname = \"é\"\nseverity = \"critical\"\npattern = '\\p{Nope}'",
        "[[rule]]\nname = \"x\"\nseverity = \"critical\"\nwords = []",
        "[[rule]]\nname = \"x\"\nseverity = \"critical\"\npattern = 'x'\nwithin = 99999999999999999999",
    ] {
        let _ = Policy::from_toml_str(text);
    }
    let empty = Policy::from_toml_str("").expect("an empty file is an empty policy");
    assert!(empty.rules().is_empty());
    assert!(empty.check("anything at all").status == Status::Approved);
}

#[test]
fn misspelt_names_get_a_suggestion() {
    let severity =
        single_problem("[[rule]]\nname = \"r\"\nseverity = \"critcal\"\npattern = 'x'\n");
    assert_eq!(
        severity.message,
        "unknown severity `critcal`, did you mean `critical`?"
    );
    let problems = problems_of("extends = \"decison\"\n");
    assert_eq!(
        problems[0].message,
        "unknown profile `decison`, did you mean `decision`?"
    );
    let disabled = single_problem("extends = \"decision\"\ndisable = [\"overconfident\"]\n");
    assert_eq!(
        disabled.message,
        "cannot disable `overconfident`: no such rule, did you mean `overconfident_language`?"
    );
    assert_eq!(disabled.line, Some(2));
}

mod never_panics {
    use guardrails::policy::Policy;
    use proptest::prelude::*;

    fn fragment() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "[[rule]]\n",
            "[rule]\n",
            "name = \"r\"\n",
            "name = 3\n",
            "severity = \"critical\"\n",
            "severity = \"loud\"\n",
            "pattern = '\\d+'\n",
            "pattern = '('\n",
            "pattern = 'a*'\n",
            "words = [\"will\"]\n",
            "words = []\n",
            "content = 'x'\n",
            "tag = '\\[T\\]'\n",
            "required = '\\[S\\]'\n",
            "unless_followed_by = 'y'\n",
            "within = 0\n",
            "within = -1\n",
            "fix = '{found}!'\n",
            "extends = \"decision\"\n",
            "extends = 1\n",
            "disable = [\"no_guarantees\"]\n",
            "disable = [\"x\"]\n",
            "message = \"m\"\n",
            "alternative = \"a\"\n",
            "= \n",
            "\"unterminated\n",
            "é = 1\n",
            "\u{0}",
            "[[\n",
            "]]\n",
            "\n",
        ])
    }

    proptest! {
        #[test]
        fn any_policy_file_gives_a_policy_or_located_problems(
            fragments in prop::collection::vec(fragment(), 0..12)
        ) {
            let text = fragments.concat();
            match Policy::from_toml_str(&text) {
                Ok(policy) => {
                    let _ = policy.check("It will cost $5 [T] [S] x y.");
                }
                Err(error) => {
                    prop_assert!(!super::problems(&error).is_empty());
                    let lines = text.lines().count().max(1);
                    for problem in super::problems(&error) {
                        if let Some(line) = problem.line {
                            prop_assert!(line >= 1 && line <= lines + 1, "{problem} in {text:?}");
                        }
                    }
                }
            }
        }
    }
}
