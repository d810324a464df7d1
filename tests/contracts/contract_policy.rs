//! Argument policies are part of a tool's contract: the lockfile names them, and adding,
//! changing or removing one is a graded change.

#![allow(
    dead_code,
    reason = "the argument types are what is tested: their contracts, not their fields' values"
)]

use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use guardrails::contract::{
    ChangeSeverity, Contract, ContractError, ServerContract, check_lockfile, diff,
};
use guardrails::policy::{Policy, Profile, Rule};
use guardrails::{ToolArgs, ToolSpec, tool};
use guardrails_tests::testing::entry;
use serde::Deserialize;

static HOUSE_RULES: LazyLock<Policy> = LazyLock::new(|| {
    Policy::builder()
        .critical(Rule::forbidden_words("placeholder", ["TODO", "TBD"]))
        .build()
        .expect("the rules compile")
});

static STRICTER_HOUSE_RULES: LazyLock<Policy> = LazyLock::new(|| {
    HOUSE_RULES
        .to_builder()
        .critical(Rule::forbidden_words(
            "placeholder",
            ["TODO", "TBD", "FIXME"],
        ))
        .build()
        .expect("the rules compile")
});

static DECISION_COPY: LazyLock<Policy> = LazyLock::new(|| Profile::Decision.policy().clone());

fn house_rules() -> &'static Policy {
    &HOUSE_RULES
}

fn stricter_house_rules() -> &'static Policy {
    &STRICTER_HOUSE_RULES
}

fn decision_copy() -> &'static Policy {
    &DECISION_COPY
}

/// How many times the custom check below ran.
static CHECKS_RUN: AtomicUsize = AtomicUsize::new(0);

/// A custom check that counts its runs: calls run it, assembling a contract must not.
#[expect(clippy::ptr_arg, reason = "a custom check takes the field's type")]
fn counted(summary: &String) -> Result<(), String> {
    CHECKS_RUN.fetch_add(1, Ordering::SeqCst);
    if summary.is_empty() {
        return Err("write a summary".to_owned());
    }
    Ok(())
}

/// A comment on a line.
#[derive(Debug, Deserialize, ToolArgs)]
struct Line {
    #[guard(policy = house_rules)]
    comment: String,
}

mod with_policy {
    use super::{Deserialize, Line, ToolArgs, counted, decision_copy, tool};

    /// Arguments of `publish`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(super) struct Publish {
        /// The summary.
        #[guard(length(max = 500), policy = "decision", custom = counted, example = "Ship it.")]
        pub(super) summary: String,
        /// Lines, each with its comment.
        pub(super) lines: Vec<Line>,
        /// Notes.
        #[guard(policy = decision_copy)]
        pub(super) notes: Option<Vec<String>>,
        /// Tags.
        #[guard(policy = "base")]
        pub(super) tags: Vec<String>,
    }

    /// Publishes a summary.
    #[tool]
    pub(super) fn publish(args: Publish) -> String {
        args.summary
    }
}

mod without_policy {
    use super::{Deserialize, Line, ToolArgs, tool};

    /// Arguments of `publish`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(super) struct Publish {
        /// The summary.
        #[guard(length(max = 500))]
        pub(super) summary: String,
        /// Lines, each with its comment.
        pub(super) lines: Vec<Line>,
        /// Notes.
        pub(super) notes: Option<Vec<String>>,
        /// Tags.
        #[guard(policy = "base")]
        pub(super) tags: Vec<String>,
    }

    /// Publishes a summary.
    #[tool]
    pub(super) fn publish(args: Publish) -> String {
        args.summary
    }
}

mod stricter {
    use super::{Deserialize, ToolArgs, stricter_house_rules, tool};

    /// A comment on a line.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(super) struct Line {
        #[guard(policy = stricter_house_rules)]
        pub(super) comment: String,
    }

    /// Arguments of `publish`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(super) struct Publish {
        /// The summary.
        #[guard(length(max = 500), policy = "observation")]
        pub(super) summary: String,
        /// Lines, each with its comment.
        pub(super) lines: Vec<Line>,
        /// Tags.
        #[guard(policy = "base")]
        pub(super) tags: Vec<String>,
    }

    /// Publishes a summary.
    #[tool]
    pub(super) fn publish(args: Publish) -> String {
        args.summary
    }
}

fn contract_of(spec: &ToolSpec) -> Contract {
    Contract::from_spec(spec)
}

fn spec_with() -> &'static ToolSpec {
    guardrails::Tool::<()>::spec(&with_policy::publish)
}

fn spec_without() -> &'static ToolSpec {
    guardrails::Tool::<()>::spec(&without_policy::publish)
}

fn spec_stricter() -> &'static ToolSpec {
    guardrails::Tool::<()>::spec(&stricter::publish)
}

#[test]
fn each_argument_policy_is_named_in_the_contract_at_its_place() {
    let contract = entry(&contract_of(spec_with()));
    let args = &contract["args"];
    assert_eq!(args["summary"]["policy"], "decision");
    assert_eq!(args["tags"]["policy"], "base");
    // A copy of a profile is that profile.
    assert_eq!(args["notes"]["policy"], "decision");
    // A custom policy, in a nested object inside a list, by the digest of its rules.
    let comment = &args["lines"]["items"]["fields"]["comment"];
    let custom = comment["policy"].as_str().unwrap();
    let digest = custom.strip_prefix("custom:sha256:").expect(custom);
    assert_eq!(digest.len(), 16);
    assert!(digest.chars().all(|c| c.is_ascii_hexdigit()));
    // Fields without a policy have none: their entry has no such member.
    assert_eq!(args["lines"].get("policy"), None);
    let plain = entry(&contract_of(spec_without()));
    assert_eq!(plain["args"]["summary"].get("policy"), None);
}

#[test]
fn the_lockfile_names_the_policies() {
    let lockfile = ServerContract::from_specs([spec_with()]).to_lockfile();
    assert!(lockfile.contains(r#""policy": "decision""#), "{lockfile}");
    assert!(
        lockfile.contains(r#""policy": "custom:sha256:"#),
        "{lockfile}"
    );
    let read = ServerContract::from_lockfile(&lockfile).unwrap();
    assert_eq!(read, ServerContract::from_specs([spec_with()]));
}

#[test]
fn adding_changing_or_removing_a_policy_is_risky() {
    let before = ServerContract::from_specs([spec_with()]);
    let removed = diff(&before, &ServerContract::from_specs([spec_without()]));
    let policy_deltas: Vec<_> = removed
        .deltas()
        .iter()
        .filter(|d| d.path.ends_with(".policy"))
        .collect();
    let paths: Vec<&str> = policy_deltas.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        ["publish.args.notes.policy", "publish.args.summary.policy"]
    );
    for delta in &policy_deltas {
        assert_eq!(delta.severity, ChangeSeverity::Risky, "{delta:?}");
        assert!(delta.description.contains("no longer checked"), "{delta:?}");
        assert_eq!(delta.after, None);
    }

    let added = diff(&ServerContract::from_specs([spec_without()]), &before);
    let summary = added
        .deltas()
        .iter()
        .find(|d| d.path == "publish.args.summary.policy")
        .expect("the added policy is a delta");
    assert_eq!(summary.severity, ChangeSeverity::Risky);
    assert_eq!(summary.after, Some("decision".into()));

    let changed = diff(&before, &ServerContract::from_specs([spec_stricter()]));
    let find = |path: &str| {
        changed
            .deltas()
            .iter()
            .find(|d| d.path == path)
            .unwrap_or_else(|| panic!("no delta at {path}: {changed}"))
    };
    let summary = find("publish.args.summary.policy");
    assert_eq!(summary.severity, ChangeSeverity::Risky);
    assert!(
        summary
            .description
            .contains("from `decision` to `observation`")
    );
    // A rule added to a custom policy changes its digest: the change is seen.
    let comment = find("publish.args.lines[].comment.policy");
    assert_eq!(comment.severity, ChangeSeverity::Risky);
    assert_ne!(comment.before, comment.after);
}

#[test]
fn removing_a_policy_no_longer_passes_the_lockfile_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guardrails.lock");
    std::fs::write(
        &path,
        ServerContract::from_specs([spec_with()]).to_lockfile(),
    )
    .unwrap();
    let current = ServerContract::from_specs([spec_without()]);
    let Err(ContractError::Drift { .. }) = check_lockfile(&current, &path, None) else {
        panic!("a removed policy is drift");
    };
    // Risky, so accepting non-breaking changes lets it through deliberately.
    assert!(check_lockfile(&current, &path, Some(ChangeSeverity::Risky)).is_ok());
    assert!(check_lockfile(&current, &path, Some(ChangeSeverity::Safe)).is_err());
}

#[test]
fn learning_the_policies_runs_no_user_code() {
    let before = CHECKS_RUN.load(Ordering::SeqCst);
    let _ = contract_of(spec_with());
    let _ = ServerContract::from_specs([spec_with()]).to_lockfile();
    assert_eq!(
        CHECKS_RUN.load(Ordering::SeqCst),
        before,
        "no custom check ran"
    );
    // Calls still run it, and still check their text.
    let call = serde_json::json!({"summary": "ok", "lines": [], "tags": []});
    assert!(with_policy::Publish::validate_value(call).is_ok());
    assert!(CHECKS_RUN.load(Ordering::SeqCst) > before);
    let untagged = serde_json::json!({"summary": "A 40% reduction.", "lines": [], "tags": []});
    assert!(with_policy::Publish::validate_value(untagged).is_err());
}
