use guardrails::{FieldIssue, ToolArgs};

#[derive(serde::Deserialize, ToolArgs)]
#[guard(check = end_after_start)]
struct Booking {
    start: u8,
    end: u8,
}

fn end_after_start(booking: &Booking) -> Result<(), FieldIssue> {
    if booking.end <= booking.start {
        return Err(FieldIssue::new("end", "Must be after `start`."));
    }
    Ok(())
}

fn main() {}
