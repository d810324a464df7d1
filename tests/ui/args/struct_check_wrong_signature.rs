use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
#[guard(check = end_after_start, example = r#"{"start": 1, "end": 2}"#)]
struct Booking {
    start: u8,
    end: u8,
}

fn end_after_start(booking: &Booking) -> Result<(), String> {
    if booking.end <= booking.start {
        return Err("end before start".into());
    }
    Ok(())
}

fn main() {}
