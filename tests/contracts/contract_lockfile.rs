//! The lockfile: canonical bytes, digests, errors on bad input, atomic writes, the test helper.

use guardrails_tests::user_service::{self, v1_contracts, v2_contracts};

#[test]
fn lockfile_sample() {
    insta::assert_snapshot!(v1_contracts().to_lockfile());
}

use std::path::Path;

use guardrails::contract::{
    ChangeSeverity, ContractError, ServerContract, assert_lockfile, assert_lockfile_accepting,
    check_lockfile,
};

#[test]
fn round_trip_gives_the_same_contracts_and_the_same_bytes() {
    let contracts = v2_contracts();
    let text = contracts.to_lockfile();
    let back = ServerContract::from_lockfile(&text).expect("a fresh lockfile reads back");
    assert_eq!(back, contracts);
    assert_eq!(
        back.to_lockfile(),
        text,
        "canonical: reading and writing is stable"
    );
    assert_eq!(
        v2_contracts().to_lockfile(),
        text,
        "assembling again gives the same bytes"
    );
}

#[test]
fn canonical_form_sorted_keys_two_space_indent_trailing_newline() {
    let text = v1_contracts().to_lockfile();
    assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
    assert!(text.starts_with("{\n  \"digest\": \"sha256:"));
    assert!(!text.contains('\t'));
    // Every object's keys appear in sorted order: check the top level and one contract.
    let top: Vec<usize> = ["\"digest\"", "\"format_version\"", "\"tools\""]
        .iter()
        .map(|k| text.find(k).expect("key present"))
        .collect();
    assert!(top.windows(2).all(|w| w[0] < w[1]));
    let contract = &text[text.find("\"create_user\"").unwrap()..];
    let keys: Vec<usize> = [
        "\"annotations\"",
        "\"args\"",
        "\"description\"",
        "\"name\"",
        "\"output\"",
    ]
    .iter()
    .map(|k| contract.find(k).expect("key present"))
    .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{contract}");
}

#[test]
fn digests_change_exactly_with_the_contract() {
    let a = v1_contracts();
    let b = v2_contracts();
    assert_ne!(a.digest(), b.digest());
    assert_eq!(a.digest(), v1_contracts().digest());
    // Each tool's digest, as its lockfile records it.
    let tool_digest = |contracts: &ServerContract| {
        let lockfile: serde_json::Value = serde_json::from_str(&contracts.to_lockfile()).unwrap();
        lockfile["tools"]["get_user"]["digest"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let get_user_a = tool_digest(&a);
    let get_user_b = tool_digest(&b);
    assert_eq!(get_user_a, get_user_b, "an unchanged tool keeps its digest");
    assert!(get_user_a.starts_with("sha256:") && get_user_a.len() == 7 + 64);
}

fn error_of(text: &str) -> ContractError {
    ServerContract::from_lockfile(text).expect_err("must be rejected")
}

#[test]
fn corrupt_json_names_line_and_column() {
    let e = error_of("{\n  \"format_version\": 1,\n  \"tools\": {,}\n}\n");
    let ContractError::Invalid {
        line: Some(line),
        column: Some(column),
        ..
    } = e
    else {
        panic!("expected a located error, got {e:?}")
    };
    assert_eq!((line, column), (3, 13));
    assert!(e.to_string().contains("not valid JSON"), "{e}");
    assert!(e.to_string().contains("line 3, column 13"), "{e}");
}

#[test]
fn truncated_and_empty_files_say_so() {
    let text = v1_contracts().to_lockfile();
    let e = error_of(&text[..text.len() / 2]);
    assert!(matches!(e, ContractError::Invalid { .. }), "{e:?}");
    assert!(e.to_string().contains("truncated"), "{e}");
    for empty in ["", "  \n"] {
        let e = error_of(empty);
        assert!(
            matches!(e, ContractError::Invalid { line: None, .. }),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "the lockfile is empty");
    }
}

#[test]
fn future_version_is_refused_by_number() {
    let text = v1_contracts()
        .to_lockfile()
        .replace("\"format_version\": 1", "\"format_version\": 7");
    let e = error_of(&text);
    assert!(matches!(e, ContractError::Invalid { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains("format version 7, but this version of guardrails reads versions up to 1"),
        "{e}"
    );
    // A future format may look nothing like this one: the version is still what is reported.
    let e = error_of("{\"format_version\": 2, \"something\": []}");
    assert!(e.to_string().contains("format version 2,"), "{e}");
    let e = error_of("{\"tools\": {}}");
    assert!(e.to_string().contains("format_version"), "{e}");
}

#[test]
fn a_hand_edit_is_caught_by_the_tool_digest() {
    let text = v1_contracts()
        .to_lockfile()
        .replace("\"max_length\": 40", "\"max_length\": 400");
    let e = error_of(&text);
    assert!(
        e.to_string()
            .contains("the digest of tool `create_user` does not match its contract"),
        "{e}"
    );
}

#[test]
fn a_tampered_server_digest_is_caught() {
    let contracts = v1_contracts();
    let text = contracts
        .to_lockfile()
        .replace(&contracts.digest(), &format!("sha256:{}", "0".repeat(64)));
    let e = error_of(&text);
    assert!(
        e.to_string()
            .starts_with("the server digest does not match the tools"),
        "{e}"
    );
}

#[test]
fn unknown_members_and_misfiled_tools_are_invalid() {
    let text = v1_contracts().to_lockfile().replacen(
        "\"tools\": {",
        "\"extra\": true,\n  \"tools\": {",
        1,
    );
    let e = error_of(&text);
    assert!(matches!(e, ContractError::Invalid { .. }), "{e:?}");
    assert!(e.to_string().contains("extra"), "{e}");
    let text = v1_contracts()
        .to_lockfile()
        .replace("\"get_user\": {", "\"got_user\": {");
    let e = error_of(&text);
    assert!(
        e.to_string()
            .contains("tool `got_user` holds the contract of `get_user`"),
        "{e}"
    );
    let e = error_of("[1, 2]");
    assert!(e.to_string().contains("format_version"), "{e}");
}

#[test]
fn no_truncation_or_byte_flip_panics() {
    let text = v1_contracts().to_lockfile();
    let bytes = text.as_bytes();
    for end in (0..bytes.len()).step_by(7) {
        let _ = ServerContract::from_lockfile(&String::from_utf8_lossy(&bytes[..end]));
    }
    for i in (0..bytes.len()).step_by(5) {
        let mut flipped = bytes.to_vec();
        flipped[i] ^= 0x21;
        let result = ServerContract::from_lockfile(&String::from_utf8_lossy(&flipped));
        // A flip may land in a place that does not matter (whitespace), never in a panic.
        if let Ok(contracts) = result {
            assert_eq!(contracts, v1_contracts());
        }
    }
}

#[test]
fn writes_are_atomic_and_leave_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guardrails.lock");
    v1_contracts().write_lockfile(&path).unwrap();
    v2_contracts().write_lockfile(&path).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        v2_contracts().to_lockfile()
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["guardrails.lock"]);
    assert_eq!(
        ServerContract::read_lockfile(&path).unwrap(),
        v2_contracts()
    );
}

#[test]
fn a_failed_write_keeps_the_old_file_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    // The target is a non-empty folder: the rename fails after the temporary file is written.
    let path = dir.path().join("guardrails.lock");
    std::fs::create_dir(&path).unwrap();
    std::fs::write(path.join("keep"), "x").unwrap();
    let e = v1_contracts()
        .write_lockfile(&path)
        .expect_err("cannot replace a folder");
    assert!(matches!(e, ContractError::Io { .. }), "{e:?}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
    let e = v1_contracts()
        .write_lockfile(dir.path().join("missing/guardrails.lock"))
        .expect_err("no such folder");
    assert!(e.to_string().contains("missing"), "{e}");
}

#[test]
fn read_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guardrails.lock");
    std::fs::write(&path, "{").unwrap();
    let e = ServerContract::read_lockfile(&path).unwrap_err();
    assert!(
        e.to_string().starts_with(&path.display().to_string()),
        "{e}"
    );
    assert!(e.to_string().contains("truncated"), "{e}");
}

fn lock_in(dir: &Path) -> std::path::PathBuf {
    dir.join("guardrails.lock")
}

#[test]
fn check_mode_reports_drift_beyond_what_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let path = lock_in(dir.path());
    let missing = check_lockfile(&v1_contracts(), &path, None);
    assert!(matches!(missing, Err(ContractError::Missing { .. })));

    v1_contracts().write_lockfile(&path).unwrap();
    let same = check_lockfile(&v1_contracts(), &path, None).unwrap();
    assert!(same.deltas().is_empty());

    let e = check_lockfile(&v2_contracts(), &path, Some(ChangeSeverity::Risky))
        .expect_err("v2 breaks create_user");
    let text = e.to_string();
    assert!(
        text.contains("BREAKING  create_user.args.currency"),
        "{text}"
    );
    assert!(text.contains("(changes up to RISKY)"), "{text}");

    // Only a SAFE change: a new tool.
    let mut grown = v1_contracts();
    grown.insert(v2_contracts().tools()["delete_user"].clone());
    assert!(check_lockfile(&grown, &path, None).is_err());
    let ok = check_lockfile(&grown, &path, Some(ChangeSeverity::Safe)).unwrap();
    assert_eq!(ok.deltas().len(), 1);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        v1_contracts().to_lockfile()
    );
}

#[test]
fn assert_lockfile_passes_on_a_match_and_fails_with_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let path = lock_in(dir.path());
    v1_contracts().write_lockfile(&path).unwrap();
    assert_lockfile(&user_service::v1_specs(), &path);
    assert_lockfile_accepting(&v1_contracts(), &path, ChangeSeverity::Cosmetic);
    let failure = std::panic::catch_unwind(|| assert_lockfile(&v2_contracts(), &path))
        .expect_err("drift fails the test");
    let message = failure
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(message.contains("create_user.args.currency"), "{message}");
    assert!(
        message.contains("GUARDRAILS_UPDATE_LOCK=1 cargo test"),
        "{message}"
    );
}

#[test]
fn a_server_is_a_contract_source() {
    use guardrails::contract::ContractSource as _;
    assert_eq!(user_service::v2_server().server_contract(), v2_contracts());
}
