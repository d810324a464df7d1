//! `guardrails diff OLD NEW`: the report and the exit status CI gates on. (Here, in the
//! package that owns the binary, because Cargo only tells a package's own tests where its
//! binaries are.)

use std::path::{Path, PathBuf};
use std::process::Command;

use guardrails::contract::{Contract, ServerContract};
use serde_json::json;

fn contract(value: serde_json::Value) -> Contract {
    serde_json::from_value(value).expect("a contract")
}

fn create_user(max_name: u64, currency: bool) -> Contract {
    let mut args = json!({
        "name": {"type": "string", "required": true, "max_length": max_name},
        "email": {"type": "string", "required": true, "format": "email"},
    });
    if currency {
        args["currency"] = json!({"type": "string", "required": true, "pattern": "^[A-Z]{3}$"});
    }
    contract(json!({"name": "create_user", "description": "Creates a user.", "args": args}))
}

fn delete_user() -> Contract {
    contract(json!({
        "name": "delete_user",
        "description": "Deletes a user.",
        "annotations": {"destructive": true},
        "args": {"id": {"type": "integer", "required": true, "minimum": {"value": 0}}},
    }))
}

fn v1_contracts() -> ServerContract {
    [create_user(40, false)].into_iter().collect()
}

fn v2_contracts() -> ServerContract {
    [create_user(20, true), delete_user()].into_iter().collect()
}

fn guardrails() -> Command {
    Command::new(env!("CARGO_BIN_EXE_guardrails"))
}

fn write(dir: &Path, name: &str, contracts: &ServerContract) -> PathBuf {
    let path = dir.join(name);
    contracts.write_lockfile(&path).unwrap();
    path
}

fn run(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = guardrails().args(args).output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn identical_lockfiles_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.lock", &v1_contracts());
    let b = write(dir.path(), "b.lock", &v1_contracts());
    let (code, stdout, _) = run(&["diff".as_ref(), a.as_ref(), b.as_ref()]);
    assert_eq!(code, 0);
    assert_eq!(stdout, "no contract changes\n");
}

#[test]
fn safe_changes_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut grown = v1_contracts();
    grown.insert(delete_user());
    let a = write(dir.path(), "a.lock", &v1_contracts());
    let b = write(dir.path(), "b.lock", &grown);
    let (code, stdout, _) = run(&["diff".as_ref(), a.as_ref(), b.as_ref()]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("SAFE      delete_user: Tool added."),
        "{stdout}"
    );
}

#[test]
fn breaking_changes_exit_1_with_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.lock", &v1_contracts());
    let b = write(dir.path(), "b.lock", &v2_contracts());
    let (code, stdout, _) = run(&["diff".as_ref(), a.as_ref(), b.as_ref()]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("BREAKING  create_user.args.currency"),
        "{stdout}"
    );

    let (code, stdout, _) = run(&[
        "diff".as_ref(),
        a.as_ref(),
        b.as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(report["breaking"], true);
    assert_eq!(report["counts"]["BREAKING"], 2);
}

#[test]
fn errors_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.lock", &v1_contracts());
    let missing = dir.path().join("missing.lock");
    let (code, _, stderr) = run(&["diff".as_ref(), a.as_ref(), missing.as_ref()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("missing.lock"), "{stderr}");

    let corrupt = dir.path().join("corrupt.lock");
    std::fs::write(&corrupt, "{\"format_version\": 1, \"tools\": ").unwrap();
    let (code, _, stderr) = run(&["diff".as_ref(), corrupt.as_ref(), a.as_ref()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("corrupt.lock") && stderr.contains("truncated"),
        "{stderr}"
    );

    let future = dir.path().join("future.lock");
    std::fs::write(&future, "{\"format_version\": 9}").unwrap();
    let (code, _, stderr) = run(&["diff".as_ref(), future.as_ref(), a.as_ref()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("format version 9"), "{stderr}");
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, stderr) = run(&["diff".as_ref(), "only-one".as_ref()]);
    assert_eq!(code, 2, "{stderr}");
    let (code, _, _) = run(&[
        "diff".as_ref(),
        "a".as_ref(),
        "b".as_ref(),
        "--format".as_ref(),
        "yaml".as_ref(),
    ]);
    assert_eq!(code, 2);
    let (code, stdout, _) = run(&["--help".as_ref()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("diff"), "{stdout}");
}
