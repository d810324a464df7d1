use guardrails::{FieldIssue, ToolArgs};

#[derive(serde::Deserialize, ToolArgs)]
#[guard(check(titled, fields(title)), example = r#"{"title": "abc"}"#)]
struct Task {
    title: String,
}

fn titled(title: u8) -> Result<(), FieldIssue> {
    if title == 0 {
        return Err(FieldIssue::new("title", "Empty."));
    }
    Ok(())
}

fn main() {}
