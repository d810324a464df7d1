use guardrails::{FieldIssue, ToolArgs};

#[derive(serde::Deserialize, ToolArgs)]
#[serde(tag = "kind")]
enum Repeat {
    #[guard(check = until_after_from)]
    Daily {
        #[guard(example = 1)]
        from: u16,
        #[guard(example = 2)]
        until: u16,
    },
}

fn until_after_from(repeat: &Repeat) -> Result<(), FieldIssue> {
    let Repeat::Daily { from, until } = repeat;
    if until <= from {
        return Err(FieldIssue::new("until", "Must be after `from`."));
    }
    Ok(())
}

fn main() {}
