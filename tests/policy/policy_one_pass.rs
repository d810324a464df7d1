//! The one-pass scan must find exactly what running each rule separately finds, including the
//! matches of rules that overlap each other.

use std::sync::LazyLock;

use guardrails::policy::{Policy, Profile, Rule, RuleSeverity};
use proptest::prelude::*;

/// Rules built to overlap: shared prefixes, one inside another, the same text at the same
/// start, long runs that hide short matches, tags that are themselves matches of other rules.
fn overlapping_policy() -> Policy {
    static POLICY: LazyLock<Policy> = LazyLock::new(build_overlapping_policy);
    POLICY.clone()
}

fn build_overlapping_policy() -> Policy {
    Policy::builder()
        .critical(Rule::forbidden("dollar", r"\$[\d,]+"))
        .critical(Rule::forbidden("digits", r"\d+"))
        .critical(Rule::forbidden("percent", r"\d+%"))
        .warning(Rule::forbidden("digit_pair", r"\d\d"))
        .warning(Rule::forbidden("ab", "ab"))
        .warning(Rule::forbidden("b_then_cs", "bc+"))
        .warning(Rule::forbidden("a_word", r"a\w*"))
        .advisory(Rule::forbidden("lazy", r"b.*?c"))
        .advisory(Rule::forbidden("greedy_line", r"a[^\n]*b"))
        .critical(Rule::forbidden("quote", "\"[^\"]+\"").unless_followed_by(r"\[S\]"))
        .critical(Rule::forbidden("bracket", r"\[[^\]]*\]"))
        .warning(Rule::forbidden_words(
            "words",
            ["will", "will definitely", "aa"],
        ))
        .warning(Rule::mandatory_tag("tagged", r"(?i)\bab\b", r"[^.]*\[S\]"))
        .advisory(Rule::required("needs_tag", r"\[S\]"))
        .critical(Rule::forbidden("unicode", r"é+\p{L}"))
        // Unicode word boundaries around a part that can run to the end of the line.
        .advisory(Rule::forbidden("will_to_e", r"\bwill[^\n]*\bé"))
        .build()
        .expect("the overlapping policy compiles")
}

/// Runs longer than the engine's probe window, so that probes cannot decide and full searches
/// must.
static LONG_DIGITS: LazyLock<String> = LazyLock::new(|| "7".repeat(300));
static LONG_WORD: LazyLock<String> = LazyLock::new(|| "ab".repeat(200));

fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        LONG_DIGITS.as_str(),
        LONG_WORD.as_str(),
        "a",
        "b",
        "c",
        "ab",
        "bc",
        "abc",
        "cc",
        " ",
        " ",
        "\n",
        ".",
        "$",
        "$1",
        "5",
        "99",
        "1,000",
        "%",
        "\"",
        "[",
        "]",
        "[S]",
        "will",
        "Will",
        "definitely",
        "aa",
        "é",
        "ée",
        "👍",
        "e\u{301}",
        "ROI of 200%",
        "saves $50,000 annually",
        "costs $9",
        "guaranteed",
        "results",
        "75%",
        "reduction",
        "3x",
        "improvement",
        "[AI estimation",
        "[Source: a.md]",
        "therefore",
        "according to",
        "likely",
        "around",
        "[Source: various]",
        "\u{5e9}\u{5dc}",
        "ROI",
        "6 weeks",
        "given",
    ])
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(token(), 0..60).prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn one_pass_equals_per_rule_on_overlapping_rules(text in text()) {
        let policy = overlapping_policy();
        prop_assert_eq!(policy.check(&text), policy.check_each_rule_separately(&text));
    }

    #[test]
    fn one_pass_equals_per_rule_on_every_profile(text in text()) {
        for profile in Profile::ALL {
            let policy = profile.policy();
            prop_assert_eq!(policy.check(&text), policy.check_each_rule_separately(&text));
        }
    }

    #[test]
    fn one_pass_equals_per_rule_on_arbitrary_unicode(text in "\\PC{0,200}") {
        let policy = overlapping_policy();
        prop_assert_eq!(policy.check(&text), policy.check_each_rule_separately(&text));
    }

    #[test]
    fn every_reported_span_holds_its_text(text in text()) {
        let verdict = Profile::Decision.policy().check(&text);
        for violation in &verdict.violations {
            if let Some(found) = &violation.found {
                prop_assert_eq!(text.get(found.start..found.end), Some(found.text.as_str()));
                let before = &text[..found.start];
                prop_assert_eq!(found.line, 1 + before.matches('\n').count());
                let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
                prop_assert_eq!(found.column, 1 + before[line_start..].chars().count());
            }
        }
    }
}

#[test]
fn a_long_match_hides_many_matches_of_other_rules_and_all_are_found() {
    let policy = overlapping_policy();
    let text = format!("${}% ab\"x\"[S] abc", "1".repeat(1000));
    let one_pass = policy.check(&text);
    assert_eq!(one_pass, policy.check_each_rule_separately(&text));
    let count = |rule: &str| {
        one_pass
            .violations
            .iter()
            .filter(|v| v.rule == rule)
            .count()
    };
    assert_eq!(count("dollar"), 1);
    assert_eq!(count("digits"), 1);
    assert_eq!(count("percent"), 1);
    assert_eq!(count("digit_pair"), 500);
}

#[test]
fn the_same_text_matched_by_several_rules_is_reported_for_each() {
    let policy = overlapping_policy();
    let verdict = policy.check("ab");
    let rules: Vec<&str> = verdict.violations.iter().map(|v| v.rule.as_str()).collect();
    assert_eq!(
        rules,
        ["ab", "a_word", "greedy_line", "tagged", "needs_tag"]
    );
    assert_eq!(verdict, policy.check_each_rule_separately("ab"));
}

#[test]
fn more_rules_than_a_machine_word_still_agree() {
    // 150 patterns: the engine's sets of candidate patterns span several words.
    let mut builder = Policy::builder();
    for index in 0..150 {
        builder = builder.warning(Rule::forbidden(
            format!("rule_{index}"),
            format!("{index}[a-c]?"),
        ));
    }
    builder = builder.critical(Rule::required("tagged", r"\[T\]"));
    let policy = builder.build().expect("compiles");
    let mut text = String::new();
    for index in 0..2_000 {
        text.push_str(&(index % 173).to_string());
        text.push_str(["a ", "b ", " ", "[T] "][index % 4]);
    }
    let verdict = policy.check(&text);
    assert_eq!(verdict, policy.check_each_rule_separately(&text));
    assert!(
        verdict
            .violations
            .iter()
            .any(|violation| violation.rule == "rule_149")
    );
    assert!(
        verdict
            .violations
            .iter()
            .all(|violation| violation.rule != "tagged")
    );
}

#[test]
fn policies_are_shared_across_threads() {
    fn assert_shareable<T: Send + Sync + Clone + 'static>() {}
    assert_shareable::<Policy>();
    let policy = Profile::Observation.policy().clone();
    let handles: Vec<_> = (0..2)
        .map(|worker| {
            let policy = policy.clone();
            std::thread::spawn(move || {
                policy
                    .check(&format!("{worker} likely [Source: a.md]"))
                    .count(RuleSeverity::Critical)
            })
        })
        .collect();
    for handle in handles {
        assert_eq!(handle.join().expect("no panic"), 1);
    }
}

/// Rules whose literals the one-pass scan searches for before anything else: case-insensitive
/// words (with the long s and the Kelvin sign that `(?i)` also matches), phrases whose rarest
/// part is not their start, figures in other scripts' digits, curly quotes that can run past
/// what a candidate's check reads.
fn literal_policy() -> Policy {
    Policy::builder()
        .critical(Rule::forbidden(
            "report_says",
            r"(?i)\bthe (?:report|study) says\b",
        ))
        .critical(Rule::forbidden("cost", r"(?i)\bcosts?\s+\$\d+"))
        .warning(Rule::forbidden("kelvin", r"(?i)kelvin"))
        .warning(Rule::forbidden("weeks", r"\b\d+\s+weeks?\b"))
        .warning(Rule::forbidden("curly", "\u{201c}[^\u{201d}\\n]+\u{201d}"))
        .warning(Rule::forbidden_words("words", ["will", "the", "ROI"]))
        .advisory(Rule::forbidden("roi", r"\bROI\b"))
        .advisory(Rule::required("needs_source", r"\[Source: [^\]]+\]"))
        .build()
        .expect("the literal policy compiles")
}

/// 400 texts of up to `most` pieces each, drawn by a small linear congruential generator from
/// `seed`: the same texts on every run.
fn pieced_texts(pieces: &[&str], most: usize, seed: u64) -> Vec<String> {
    let mut state = seed;
    let mut next = |bound: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(state >> 33).unwrap_or_default() % bound
    };
    (0..400)
        .map(|_| {
            (0..next(most))
                .map(|_| pieces[next(pieces.len())])
                .collect()
        })
        .collect()
}

/// Deterministic texts from pieces chosen to hit the literals in every case and form.
fn literal_texts() -> Vec<String> {
    const PIECES: &[&str] = &[
        "The Report says",
        "THE STUDY SAYS",
        "the rePort saYs",
        "the report",
        "thé report says",
        "coſts $5",
        "CoSt $12",
        "COSTS  $1",
        "cost$",
        "Kelvin",
        "\u{212a}elvin",
        "KELVIN",
        "3 weeks",
        "\u{663} weeks",
        "12  week",
        "\u{967}\u{968} weeks",
        "3weeks",
        "\u{201c}",
        "\u{201d}",
        "\u{201c}quoted\u{201d}",
        "will",
        "WILL",
        "wiLL",
        "willing",
        "the",
        "The",
        "theme",
        "ROI",
        "roi",
        "ROIs",
        "[Source: a.md]",
        " ",
        " ",
        "\n",
        ".",
        "é",
        "日本",
        "👍",
        "$",
        "9",
        "x",
    ];
    let mut texts = pieced_texts(PIECES, 80, 0x0123_4567_89ab_cdef);
    // A curly quote left open for longer than a candidate's check reads, then closed.
    texts.push(format!(
        "\u{201c}{}\u{201d} the report says",
        "a".repeat(600)
    ));
    // Literals everywhere that start no match: the scan stops using its prefilter for a while.
    texts.push(format!("{}the study says 3 weeks", "thethe ".repeat(5_000)));
    texts.push(format!("{}ROI", "\u{201c}".repeat(3_000)));
    texts
}

#[test]
fn one_pass_equals_per_rule_where_literals_decide() {
    assert_one_pass_agrees(
        &[literal_policy(), Profile::Decision.policy().clone()],
        literal_texts(),
    );
}

/// Each policy's one pass finds in each text what its scan per rule finds.
fn assert_one_pass_agrees(policies: &[Policy], texts: Vec<String>) {
    for text in texts {
        for policy in policies {
            assert_eq!(
                policy.check(&text),
                policy.check_each_rule_separately(&text),
                "text: {text:?}"
            );
        }
    }
}

#[test]
fn a_rule_without_literals_keeps_the_scan_exact() {
    let policy = literal_policy()
        .to_builder()
        .warning(Rule::forbidden("gerund", r"\w+ing\b"))
        .build()
        .expect("compiles");
    for text in literal_texts() {
        assert_eq!(
            policy.check(&text),
            policy.check_each_rule_separately(&text),
            "text: {text:?}"
        );
    }
}

/// Word rules with more literals than a small multi-literal search holds, whose windows (the
/// rare parts of the literals that are searched for) also occur in words that start none of
/// them: "reports" holds the window of "the report", "estimation" that of "estimate".
fn many_words_policy() -> Policy {
    Policy::builder()
        .warning(Rule::forbidden_words(
            "claims",
            [
                "the report shows",
                "as reported in",
                "estimate",
                "unconfirmed",
                "it follows that",
                "we conclude",
                "presumably",
                "definitely",
                "assuming",
                "approximately",
                "roughly",
                "hence",
            ],
        ))
        .warning(Rule::forbidden_words(
            "more_claims",
            [
                "unverified",
                "according to",
                "the study finds",
                "therefore",
                "certainly",
                "we infer",
                "to be confirmed",
                "as stated in",
            ],
        ))
        .critical(Rule::forbidden("kelvin", r"(?i)\bkelvin scale\b"))
        .critical(Rule::forbidden("costs", r"(?i)costs?\s+\$\d+"))
        .advisory(Rule::forbidden("source", r"\[Source:\s*\]"))
        .build()
        .expect("the many-words policy compiles")
}

/// Deterministic texts from fragments that hold the windows of [`many_words_policy`] and of
/// the decision profile with or without their literals, in every case and with the long s and
/// the Kelvin sign.
fn window_texts() -> Vec<String> {
    const PIECES: &[&str] = &[
        "the report shows",
        "The Report Shows",
        "reports",
        "reported",
        "the reports",
        "as reported in",
        "AS REPORTED IN",
        "as repor",
        "estimate",
        "eſtimate",
        "estimation",
        "[AI estimation based on",
        "unconfirmed",
        "confirmed",
        "to be confirmed",
        "it follows that",
        "follows",
        "it follo",
        "we conclude",
        "conclude",
        "presumably",
        "preſumably",
        "definitely",
        "assuming",
        "aſſuming",
        "approximately",
        "roughly",
        "hence",
        "unverified",
        "according to",
        "ccording",
        "the study finds",
        "ſtudy",
        "therefore",
        "certainly",
        "certain to",
        "we infer",
        "as stated in",
        "as ſtated in",
        "kelvin scale",
        "\u{212a}elvin scale",
        "costs $5",
        "coſt $12",
        "cost",
        "[Source: ]",
        "[Source: a.md]",
        "[ſource: ]",
        "will",
        "ROI",
        "$3",
        "40%",
        "6 weeks",
        " ",
        " ",
        " ",
        "\n",
        ".",
        "é",
        "日本",
    ];
    let mut texts = pieced_texts(PIECES, 60, 0x9e37_79b9_7f4a_7c15);
    // Windows everywhere that start no literal, then matches.
    texts.push(format!(
        "{}the report shows hence [Source: ]",
        "reports estimation confirmed follows ".repeat(3_000)
    ));
    texts
}

#[test]
fn windows_found_without_their_literal_start_no_match() {
    assert_one_pass_agrees(
        &[many_words_policy(), Profile::Decision.policy().clone()],
        window_texts(),
    );
}
