use guardrails::{FieldIssue, ToolArgs};

#[derive(serde::Deserialize, ToolArgs)]
#[guard(check(end_after_start, fields(start, ned)), example = r#"{"start": 9, "end": 10}"#)]
struct Booking {
    start: u8,
    end: u8,
}

fn end_after_start(start: &u8, end: &u8) -> Result<(), FieldIssue> {
    if end <= start {
        return Err(FieldIssue::new("end", "Must be after `start`."));
    }
    Ok(())
}

fn main() {}
