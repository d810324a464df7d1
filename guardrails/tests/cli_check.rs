//! `guardrails check`, run as a CI pipeline runs it: the built binary on files in a temporary
//! directory, judged by its exit status and its output.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn check(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_guardrails"))
        .arg("check")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, text) in files {
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("directories");
        }
        std::fs::write(path, text).expect("a file");
    }
    dir
}

const CLEAN: &str = "The team reviewed the onboarding flow.\n";
const BLOCKED: &str = "# Plan\n\nThe rollout needs $50,000 in total.\n";

#[test]
fn a_clean_file_exits_0() {
    let dir = workspace(&[("notes.md", CLEAN)]);
    let output = check(&["notes.md"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("APPROVED: 1 file checked"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_critical_violation_exits_1_with_its_place() {
    let dir = workspace(&[("plan.md", BLOCKED)]);
    let output = check(&["plan.md"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("plan.md:3:19: CRITICAL untagged_dollar_amount"),
        "{text}"
    );
    assert!(text.contains(r#"found:    "$50,000""#), "{text}");
    assert!(text.contains("instead:"), "{text}");
    assert!(
        text.contains("BLOCKED: 1 file checked, 1 blocked"),
        "{text}"
    );
}

#[test]
fn warnings_are_printed_but_do_not_fail() {
    let dir = workspace(&[("pitch.md", "This is definitely the right plan.\n")]);
    let output = check(&["pitch.md"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("pitch.md:1:9: WARNING overconfident_language"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn json_output_parses_and_carries_every_verdict() {
    let dir = workspace(&[("a.md", CLEAN), ("b.md", BLOCKED)]);
    let output = check(&["--json", "a.md", "b.md"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    assert_eq!(report["status"], "BLOCKED");
    assert_eq!(report["files_checked"], 2);
    assert_eq!(report["files"][0]["path"], "a.md");
    assert_eq!(report["files"][0]["status"], "APPROVED");
    let violation = &report["files"][1]["violations"][0];
    assert_eq!(violation["rule"], "untagged_dollar_amount");
    assert_eq!(violation["severity"], "CRITICAL");
    assert_eq!(violation["found"]["text"], "$50,000");
    assert_eq!(violation["found"]["line"], 3);
    assert_eq!(violation["found"]["column"], 19);
}

#[test]
fn a_directory_is_searched_for_markdown_and_text_files() {
    let dir = workspace(&[
        ("docs/a.md", CLEAN),
        ("docs/deep/b.txt", BLOCKED),
        ("docs/c.rs", BLOCKED),
        ("docs/.cache/d.md", BLOCKED),
    ]);
    let output = check(&["--json", "docs"], dir.path());
    let report: Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    let paths: Vec<String> = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|file| file["path"].as_str().unwrap_or_default().replace('\\', "/"))
        .collect();
    assert_eq!(paths, ["docs/a.md", "docs/deep/b.txt"]);
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn a_named_file_is_checked_whatever_its_extension() {
    let dir = workspace(&[("draft.rst", BLOCKED)]);
    let output = check(&["draft.rst"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
}

#[test]
fn the_profile_decides_the_rules() {
    let dir = workspace(&[(
        "finding.md",
        "The log indicates a leak [Source: app.log].\n",
    )]);
    assert_eq!(check(&["finding.md"], dir.path()).status.code(), Some(0));
    let output = check(&["--profile", "observation", "finding.md"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("finding.md:1:9: CRITICAL no_speculation"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_policy_file_applies_over_the_profile() {
    let dir = workspace(&[
        (
            "policy.toml",
            "disable = []\n\n[[rule]]\nname = \"no_asap\"\nseverity = \"critical\"\nwords = [\"asap\"]\n",
        ),
        ("memo.md", "Ship it ASAP.\n"),
    ]);
    let output = check(&["--policy", "policy.toml", "memo.md"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stdout(&output).contains("memo.md:1:9: CRITICAL no_asap"));
}

#[test]
fn a_bad_policy_file_exits_2_naming_the_rule_and_the_line() {
    let dir = workspace(&[
        (
            "policy.toml",
            "[[rule]]\nname = \"ok\"\nseverity = \"warning\"\nwords = [\"asap\"]\n\n[[rule]]\nname = \"broken\"\nseverity = \"critical\"\npattern = \"(unclosed\"\n",
        ),
        ("memo.md", CLEAN),
    ]);
    let output = check(&["--policy", "policy.toml", "memo.md"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("policy.toml"), "{message}");
    assert!(message.contains("line 9"), "{message}");
    assert!(message.contains("rule `broken`"), "{message}");
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
}

#[test]
fn an_unknown_profile_exits_2_with_a_suggestion() {
    let dir = workspace(&[("memo.md", CLEAN)]);
    let output = check(&["--profile", "decisoin", "memo.md"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("unknown profile `decisoin`, did you mean `decision`?"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_missing_file_exits_2() {
    let dir = workspace(&[]);
    let output = check(&["absent.md"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot read `absent.md`"));
}

#[test]
fn a_file_that_is_not_utf8_exits_2() {
    let dir = workspace(&[]);
    std::fs::write(dir.path().join("binary.md"), [b'o', b'k', 0xff, 0xfe]).expect("a file");
    let output = check(&["binary.md"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("`binary.md` is not UTF-8 text"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn no_paths_is_a_usage_error() {
    let dir = workspace(&[]);
    let output = check(&[], dir.path());
    assert_eq!(output.status.code(), Some(2));
}

/// Runs `guardrails check` and fails the test, rather than hang, when the run does not end.
fn check_within_patience(args: &[&str], dir: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_guardrails"))
        .arg("check")
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().expect("waitable").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("`guardrails check {args:?}` did not end");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("the output")
}

#[test]
fn violations_past_the_cap_are_counted_not_printed() {
    let dir = workspace(&[("flood.md", &"$1, ".repeat(10_000))]);
    let output = check(&["flood.md"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(text.matches(": CRITICAL ").count(), 50, "{}", &text[..500]);
    assert!(text.contains("flood.md: … and 9950 more."), "{text}");
    assert!(text.contains("10000 critical"), "{text}");

    let output = check(&["--max-violations", "3", "--json", "flood.md"], dir.path());
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let file = &report["files"][0];
    assert_eq!(file["violations"].as_array().map(Vec::len), Some(3));
    assert_eq!(file["omitted"], 9997);
    assert_eq!(file["critical"], 10_000);
}

#[test]
fn what_is_not_a_regular_file_is_skipped_with_a_note() {
    let dir = workspace(&[("ok.md", CLEAN)]);
    let fifo = dir.path().join("pipe.md");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // Found in a directory, and named.
    for args in [&["."][..], &["pipe.md", "ok.md"][..]] {
        let output = check_within_patience(args, dir.path());
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("skipped `")
                && stderr(&output).contains("pipe.md`: not a regular file"),
            "{}",
            stderr(&output)
        );
        assert!(
            stdout(&output).contains("1 file checked"),
            "{}",
            stdout(&output)
        );
    }
    let output = check_within_patience(&["/dev/zero"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("skipped `/dev/zero`: not a regular file"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn broken_and_looping_links_are_reported_and_the_run_goes_on() {
    let dir = workspace(&[("ok.md", CLEAN), ("bad.md", BLOCKED)]);
    std::os::unix::fs::symlink("missing.md", dir.path().join("dangling.md")).unwrap();
    std::os::unix::fs::symlink("loop.md", dir.path().join("loop.md")).unwrap();
    let output = check_within_patience(&["."], dir.path());
    let notes = stderr(&output);
    assert!(
        notes.contains("dangling.md`: a broken symbolic link"),
        "{notes}"
    );
    assert!(
        notes.contains("loop.md`: a broken symbolic link"),
        "{notes}"
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "the other files decide: {notes}"
    );
    assert!(
        stdout(&output).contains("2 files checked"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_file_past_the_size_bound_exits_2_and_says_how_to_raise_it() {
    let dir = workspace(&[("big.md", &"word ".repeat(100))]);
    let output = check(&["--max-file-bytes", "100", "big.md"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("larger than 100 bytes; raise --max-file-bytes"),
        "{}",
        stderr(&output)
    );
    let output = check(&["--max-file-bytes", "500", "big.md"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn paths_are_printed_without_control_or_invisible_characters() {
    let dir = workspace(&[("evil\u{202e}dm.md", BLOCKED)]);
    let output = check(&["."], dir.path());
    let text = stdout(&output);
    assert!(!text.contains('\u{202e}'), "{text}");
    assert!(text.contains("evil\u{fffd}dm.md:3:19"), "{text}");
}
