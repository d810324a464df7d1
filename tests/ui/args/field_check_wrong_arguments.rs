use guardrails::{FieldIssue, ToolArgs};

#[derive(serde::Deserialize, ToolArgs)]
#[guard(check(end_after_start, fields(start, end)), example = r#"{"start": 9, "end": 10}"#)]
struct Booking {
    start: u8,
    end: u8,
}

fn end_after_start(start: &u8) -> Result<(), FieldIssue> {
    if *start > 20 {
        return Err(FieldIssue::new("start", "Too late."));
    }
    Ok(())
}

fn main() {}
