//! The contract records struct-level checks by function name, on the arguments, nested objects
//! and the variants of an enum with data, so that adding one is RISKY and removing one SAFE.

use guardrails::contract::{ChangeSeverity, Contract};
use guardrails::{FieldIssue, Tool, ToolArgs, tool};
use guardrails_tests::testing::{deltas, edited, entry};
use serde::Deserialize;
use serde_json::json;

/// A time window.
#[derive(Debug, Deserialize, ToolArgs)]
#[guard(check(ends_after_start, fields(start, end)))]
struct Window {
    #[guard(example = 9)]
    start: u8,
    #[guard(example = 10)]
    end: u8,
}

fn ends_after_start(start: u8, end: u8) -> Result<(), FieldIssue> {
    if end <= start {
        return Err(FieldIssue::new("end", "Must be after `start`."));
    }
    Ok(())
}

/// How it repeats.
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Repeat {
    #[guard(check(ends_after_start, fields(start, end)))]
    Daily {
        #[guard(example = 1)]
        start: u8,
        #[guard(example = 2)]
        end: u8,
    },
    Never,
}

/// Books a room.
#[derive(Debug, Deserialize, ToolArgs)]
#[guard(check = room_is_known, example = r#"{"room": "A1"}"#)]
struct Book {
    room: String,
    window: Window,
    repeat: Repeat,
}

fn room_is_known(args: &Book) -> Result<(), FieldIssue> {
    if args.room.is_empty() {
        return Err(FieldIssue::new("room", "Name a room."));
    }
    Ok(())
}

/// Books a room.
#[tool]
fn book(args: Book) -> String {
    let Book {
        room,
        window,
        repeat,
    } = args;
    let days = match repeat {
        Repeat::Daily { start, end } => end - start,
        Repeat::Never => 0,
    };
    format!("{room} {}-{} {days}", window.start, window.end)
}

fn contract() -> Contract {
    Tool::<()>::spec(&book).contract()
}

#[test]
fn the_contract_names_each_check_where_it_runs() {
    let c = entry(&contract());
    assert_eq!(c["checks"], json!(["room_is_known"]));
    assert_eq!(c["args"]["window"]["checks"], json!(["ends_after_start"]));
    assert_eq!(
        c["args"]["repeat"]["checks"],
        json!(["daily.ends_after_start"])
    );
    assert_eq!(c["args"]["room"].get("checks"), None);
}

#[test]
fn adding_a_check_is_risky_and_removing_one_safe() {
    let before = contract();
    let after = edited(&before, |c| {
        c["checks"]
            .as_array_mut()
            .unwrap()
            .push(json!("room_is_open"));
    });
    let d = deltas(&before, &after);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].severity, ChangeSeverity::Risky);
    assert_eq!(d[0].path, "book.checks");
    assert!(d[0].description.contains("room_is_open"));

    let d = deltas(&after, &before);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].severity, ChangeSeverity::Safe);

    let nested = edited(&before, |c| {
        c["args"]["window"]
            .as_object_mut()
            .unwrap()
            .remove("checks");
    });
    let d = deltas(&before, &nested);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].severity, ChangeSeverity::Safe);
    assert_eq!(d[0].path, "book.args.window.checks");
    let d = deltas(&nested, &before);
    assert_eq!(d[0].severity, ChangeSeverity::Risky);
}

#[test]
fn checks_survive_the_lockfile() {
    let c = contract();
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["checks"], json!(["room_is_known"]));
    let back: Contract = serde_json::from_value(json).unwrap();
    assert_eq!(back, c);
}

/// Shared paging with a rule of its own.
#[derive(Debug, Deserialize, ToolArgs)]
#[guard(check(page_fits, fields(offset, limit)))]
struct Paging {
    #[guard(example = 0)]
    offset: u32,
    #[guard(example = 10)]
    limit: u32,
}

fn page_fits(offset: u32, limit: u32) -> Result<(), FieldIssue> {
    if offset.checked_add(limit).is_none() {
        return Err(FieldIssue::new(
            "limit",
            "The page ends past the last index.",
        ));
    }
    Ok(())
}

/// Lists rooms.
#[derive(Debug, Deserialize, ToolArgs)]
#[guard(check = known_floor, example = r#"{"floor": 1}"#)]
struct ListRooms {
    floor: u8,
    #[serde(flatten)]
    page: Paging,
}

fn known_floor(args: &ListRooms) -> Result<(), FieldIssue> {
    if args.floor > 40 {
        return Err(FieldIssue::new("floor", "No such floor."));
    }
    Ok(())
}

/// Lists rooms.
#[tool]
fn list_rooms(args: ListRooms) -> String {
    format!("{} {} {}", args.floor, args.page.offset, args.page.limit)
}

#[test]
fn a_flattened_structs_checks_are_the_holders() {
    let c = entry(&Tool::<()>::spec(&list_rooms).contract());
    assert_eq!(c["checks"], json!(["known_floor", "page_fits"]));
}
