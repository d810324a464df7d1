//! `#[serde(flatten)]` of a `ToolArgs` struct: one object on the wire, the flattened fields
//! checked at the holder's level in the same pass, unknown keys judged against the union of the
//! fields, and a schema of merged properties that stays closed.

use guardrails::{IssueCode, ToolArgs};
use serde::Deserialize;
use serde_json::json;

/// Paging, shared by every listing tool.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Paging {
    /// How many to skip.
    #[serde(default)]
    offset: u32,
    /// How many to return.
    #[guard(range(min = 1, max = 100))]
    limit: u8,
}

/// Lists notes.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct ListNotes {
    /// Only notes with this tag.
    #[guard(length(min = 1))]
    tag: Option<String>,
    #[serde(flatten)]
    page: Paging,
}

#[test]
fn the_flattened_fields_are_read_beside_the_holders_own() {
    let call = json!({"tag": "work", "limit": 10});
    let ours = ListNotes::validate_value(call.clone()).unwrap();
    let theirs: ListNotes = serde_json::from_value(call).unwrap();
    assert_eq!(ours, theirs);
    assert_eq!(
        ours.page,
        Paging {
            offset: 0,
            limit: 10
        }
    );
}

#[test]
fn every_issue_of_both_structs_comes_in_one_pass() {
    let report = ListNotes::validate_value(json!({"tag": "", "limit": 0, "ofset": 3})).unwrap_err();
    assert_eq!(report.at("tag").unwrap().code, IssueCode::TooShort);
    assert_eq!(report.at("limit").unwrap().code, IssueCode::TooSmall);
    // The misspelt key is judged against the union of the fields: `offset` is the flattened
    // struct's.
    let unknown = report.at("ofset").unwrap();
    assert_eq!(unknown.code, IssueCode::UnknownField);
    assert!(
        unknown.message.contains("Did you mean \"offset\"?"),
        "{}",
        unknown.message
    );
    assert_eq!(report.len(), 3, "{report}");
    let report = ListNotes::validate_value(json!({})).unwrap_err();
    assert_eq!(report.at("limit").unwrap().code, IssueCode::Missing);
}

#[test]
fn the_schema_merges_the_properties_and_stays_closed() {
    let schema = serde_json::to_value(<ListNotes as ToolArgs>::schema()).unwrap();
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["limit", "offset", "tag"]);
    assert_eq!(schema["required"], json!(["limit"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let example = <ListNotes as ToolArgs>::example().clone();
    ListNotes::validate_value(example).expect("the example validates");
}

/// The rejection of a call that breaks a field of the holder and one of the flattened struct,
/// and misspells a flattened key: what the model reads, in each format.
fn render(format: guardrails::RenderFormat) -> String {
    let report =
        ListNotes::validate_value(json!({"tag": "", "limit": 500, "ofset": 3})).unwrap_err();
    guardrails::render::render_report(
        "list_notes",
        &report,
        ListNotes::info(),
        <ListNotes as ToolArgs>::example(),
        &guardrails::RenderOptions::new(format).with_schema_summary(true),
    )
}

#[test]
fn rejection_xml() {
    insta::assert_snapshot!(render(guardrails::RenderFormat::Xml));
}

#[test]
fn rejection_markdown() {
    insta::assert_snapshot!(render(guardrails::RenderFormat::Markdown));
}

#[test]
fn rejection_json() {
    let value: serde_json::Value =
        serde_json::from_str(&render(guardrails::RenderFormat::Json)).unwrap();
    insta::assert_json_snapshot!(value);
}

/// A holder nested in other arguments: the flattened fields are read at the nested path.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Outer {
    notes: Vec<ListNotes>,
}

#[test]
fn a_nested_holder_reads_its_flattened_fields_at_their_paths() {
    let call = json!({"notes": [{"limit": 5}, {"tag": "x", "limit": 0, "limt": 1}]});
    let report = Outer::validate_value(call.clone()).unwrap_err();
    assert_eq!(
        report.at("notes[1].limit").unwrap().code,
        IssueCode::TooSmall
    );
    assert!(
        report
            .at("notes[1].limt")
            .unwrap()
            .message
            .contains("Did you mean \"limit\"?")
    );
    assert_eq!(report.len(), 2, "{report}");
    let call = json!({"notes": [{"limit": 5, "offset": 2}]});
    let ours = Outer::validate_value(call.clone()).unwrap();
    let theirs: Outer = serde_json::from_value(call).unwrap();
    assert_eq!(ours, theirs);
    let schema = serde_json::to_value(<Outer as ToolArgs>::schema()).unwrap();
    let item = &schema["properties"]["notes"]["items"];
    assert_eq!(item["properties"]["limit"]["maximum"], json!(100));
    assert_eq!(item["additionalProperties"], json!(false));
}

/// A key the holder declares is the holder's, as serde reads it: the flattened struct does not
/// see it, and the schema describes the holder's field.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Shadowing {
    /// The holder's own offset, a cursor.
    offset: String,
    #[serde(flatten)]
    page: Paging,
}

#[test]
fn a_key_of_both_is_the_holders() {
    let call = json!({"offset": "abc", "limit": 3});
    let ours = Shadowing::validate_value(call.clone()).unwrap();
    let theirs: Shadowing = serde_json::from_value(call).unwrap();
    assert_eq!(ours, theirs);
    assert_eq!(ours.page.offset, 0);
    let schema = serde_json::to_value(<Shadowing as ToolArgs>::schema()).unwrap();
    assert_eq!(schema["properties"]["offset"]["type"], json!("string"));
}

/// How often, tagged by `kind`: flattened, its tag and fields sit beside the holder's own.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Every {
    Week {
        #[guard(range(min = 1, max = 52))]
        count: u8,
    },
    Day {
        until: String,
    },
    Never,
}

/// Where to send, adjacently tagged: flattened, its tag and content keys sit beside.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
#[serde(tag = "via", content = "to")]
enum Via {
    Email {
        #[guard(length(min = 3))]
        address: String,
    },
    Nobody,
}

/// A reminder, with both enums flattened.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Remind {
    #[guard(length(min = 1))]
    title: String,
    #[serde(flatten)]
    every: Every,
    #[serde(flatten)]
    via: Via,
}

#[test]
fn flattened_enums_read_what_serde_reads() {
    for call in [
        json!({"title": "a", "kind": "week", "count": 2, "via": "Email", "to": {"address": "a@b"}}),
        json!({"title": "a", "kind": "never", "via": "Nobody"}),
        json!({"title": "a", "kind": "day", "until": "x", "via": "Nobody", "to": null}),
    ] {
        let ours = Remind::validate_value(call.clone()).unwrap();
        let theirs: Remind = serde_json::from_value(call).unwrap();
        assert_eq!(ours, theirs);
    }
}

#[test]
fn a_flattened_enum_is_checked_beside_the_holders_fields() {
    let report = Remind::validate_value(json!({
        "title": "", "kind": "week", "count": 0, "until": "x", "via": "Emial", "titel": 1,
    }))
    .unwrap_err();
    assert_eq!(report.at("title").unwrap().code, IssueCode::TooShort);
    assert_eq!(report.at("count").unwrap().code, IssueCode::TooSmall);
    assert_eq!(
        report.at("until").unwrap().message,
        "`until` belongs to kind `day`; you chose `week`."
    );
    assert!(
        report
            .at("via")
            .unwrap()
            .message
            .contains("Did you mean \"Email\"?")
    );
    assert!(
        report
            .at("titel")
            .unwrap()
            .message
            .contains("Did you mean \"title\"?")
    );
    assert_eq!(report.len(), 5, "{report}");
    let report = Remind::validate_value(json!({"title": "a", "via": "Nobody"})).unwrap_err();
    assert_eq!(report.at("kind").unwrap().code, IssueCode::Missing);
    // A misspelt field of a variant is named by the variant that reads it.
    let report = Remind::validate_value(json!({
        "title": "a", "kind": "week", "cout": 2, "via": "Nobody",
    }))
    .unwrap_err();
    assert!(
        report
            .at("cout")
            .unwrap()
            .message
            .contains("Did you mean \"count\"?"),
        "{report}"
    );
    assert_eq!(report.at("count").unwrap().code, IssueCode::Missing);
    assert_eq!(report.len(), 2, "{report}");
}

#[test]
fn a_flattened_enum_is_a_one_of_beside_the_fields_closed_over_all() {
    let schema = serde_json::to_value(<Remind as ToolArgs>::schema()).unwrap();
    assert_eq!(schema["unevaluatedProperties"], json!(false));
    assert!(schema.get("additionalProperties").is_none());
    let every = schema["allOf"][0]["oneOf"].as_array().unwrap();
    assert_eq!(every[0]["properties"]["kind"], json!({"const": "week"}));
    assert!(every[0].get("additionalProperties").is_none());
    let example = <Remind as ToolArgs>::example().clone();
    let theirs: Remind = serde_json::from_value(example.clone()).unwrap();
    assert_eq!(Remind::validate_value(example).unwrap(), theirs);
    let validator = jsonschema::validator_for(&schema).unwrap();
    let valid = json!({"title": "a", "kind": "week", "count": 2, "via": "Nobody"});
    assert!(validator.is_valid(&valid));
    let foreign = json!({"title": "a", "kind": "week", "count": 2, "until": "x", "via": "Nobody"});
    assert!(!validator.is_valid(&foreign));
}

/// Sends a reminder.
#[guardrails::tool]
fn remind(args: Remind) -> String {
    format!("{args:?}")
}

#[test]
fn the_contract_records_a_flattened_enum_under_its_tag() {
    let contract = guardrails_tests::testing::entry(&remind.spec().contract());
    let args = contract["args"].as_object().unwrap();
    let names: Vec<&String> = args.keys().collect();
    assert_eq!(names, ["kind", "title", "via"]);
    let kind = &args["kind"];
    assert_eq!(kind["required"], true);
    assert_eq!(kind["tagging"], "internal:kind");
    let variants = &kind["variants"];
    assert_eq!(variants["week"]["count"]["required"], true);
    assert_eq!(variants["never"], serde_json::json!({}));
    assert_eq!(args["via"]["tagging"], "adjacent:via,to");
}

/// An enum flattened before a struct: a field of the struct that is a near miss of a variant's
/// field stays the struct's.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct EnumFirst {
    #[serde(flatten)]
    every: Every,
    #[serde(flatten)]
    window: Counted,
}

/// A field a letter away from `Every::Week`'s `count`.
#[derive(Debug, PartialEq, Deserialize, ToolArgs)]
struct Counted {
    counts: Option<u8>,
}

#[test]
fn a_near_miss_of_a_variant_field_that_another_struct_declares_is_that_structs() {
    let call = json!({"kind": "week", "count": 2, "counts": 3});
    let ours = EnumFirst::validate_value(call.clone()).unwrap();
    let theirs: EnumFirst = serde_json::from_value(call).unwrap();
    assert_eq!(ours, theirs);
}

/// A search whose rule reads a field of its flattened paging.
#[derive(Debug, Deserialize, ToolArgs)]
#[guard(check = few_for_a_wide_search, example = r#"{"query": "rust", "limit": 10}"#)]
struct Search {
    #[guard(length(min = 1))]
    query: String,
    #[serde(flatten)]
    page: Paging,
}

fn few_for_a_wide_search(search: &Search) -> Result<(), guardrails::FieldIssue> {
    if search.query.len() < 3 && search.page.limit > 20 {
        return Err(
            guardrails::FieldIssue::new("limit", "A short query returns at most 20.")
                .expected("at most 20"),
        );
    }
    Ok(())
}

#[test]
fn a_struct_check_names_a_flattened_field_and_is_reported_there() {
    let report = Search::validate_value(json!({"query": "ab", "limit": 50})).unwrap_err();
    assert_eq!(report.len(), 1, "{report}");
    let issue = report.at("limit").expect("reported at the flattened field");
    assert_eq!(issue.code, IssueCode::Custom);
    assert_eq!(issue.received.as_deref(), Some("50"));
    assert!(
        issue.fix.as_deref().unwrap().contains("1 to 100"),
        "{issue:?}"
    );
    let search = Search::validate_value(json!({"query": "rust", "limit": 50})).unwrap();
    assert_eq!((search.query.as_str(), search.page.limit), ("rust", 50));
}
