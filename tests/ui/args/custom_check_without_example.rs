use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Booking {
    #[guard(custom = not_on_sunday)]
    day: String,
}

fn not_on_sunday(day: &String) -> Result<(), String> {
    if day == "sunday" {
        return Err("Closed on Sundays.".to_owned());
    }
    Ok(())
}

fn main() {}
