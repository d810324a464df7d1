//! Diffs of whole servers through the public API: tools added, removed and renamed, and the
//! reports of a release. The severity of each change to one tool is tested beside the diff.

use guardrails::contract::{ChangeSeverity, ServerContract, diff};
use guardrails_tests::testing::edited;
use guardrails_tests::user_service::{v1_contracts, v2_contracts};
use serde_json::{Value, json};

#[test]
fn tools_added_removed_and_renamed() {
    let v1 = v1_contracts();
    let mut added = v1.clone();
    added.insert(v2_contracts().tools()["delete_user"].clone());
    let d = diff(&v1, &added);
    assert_eq!(d.deltas().len(), 1);
    assert_eq!(
        (d.deltas()[0].severity, d.deltas()[0].path.as_str()),
        (ChangeSeverity::Safe, "delete_user")
    );

    let d = diff(&added, &v1);
    assert_eq!(
        (d.deltas()[0].severity, d.deltas()[0].path.as_str()),
        (ChangeSeverity::Breaking, "delete_user")
    );

    let mut renamed: ServerContract = v1
        .tools()
        .values()
        .filter(|c| c.name() != "get_user")
        .cloned()
        .collect();
    // The same contract under a new name.
    let fetch = edited(&v1.tools()["get_user"], |c| {
        c["name"] = json!("fetch_user");
    });
    renamed.insert(fetch);
    let d = diff(&v1, &renamed);
    assert_eq!(d.deltas().len(), 1, "{:#?}", d.deltas());
    let only = &d.deltas()[0];
    assert_eq!(
        (only.severity, only.path.as_str()),
        (ChangeSeverity::Breaking, "get_user")
    );
    assert_eq!(only.after, Some(json!("fetch_user")));
    assert!(only.description.contains("renamed"));
}

#[test]
fn identical_contracts_have_no_delta() {
    assert!(diff(&v1_contracts(), &v1_contracts()).deltas().is_empty());
}

#[test]
fn the_fixture_release_diff_as_text_and_json() {
    let d = diff(&v1_contracts(), &v2_contracts());
    assert!(d.is_breaking());
    insta::assert_snapshot!("release_text", d.to_string());
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["breaking"], Value::Bool(true));
    assert_eq!(json["changes"], Value::from(d.deltas().len()));
    assert_eq!(json["deltas"].as_array().unwrap().len(), d.deltas().len());
}
