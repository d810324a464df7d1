//! Handlers fail with the errors users have at hand: `?` on an `io::Error` or an
//! `anyhow::Error` gives an `INTERNAL` error that keeps the error's text to itself, unless the
//! handler shows it on purpose.

use guardrails::{Server, ToolArgs, ToolError, tool};
use serde::Deserialize;
use serde_json::json;

/// Arguments of the tools below.
#[derive(Deserialize, ToolArgs)]
struct Read {
    /// A path.
    path: String,
}

/// Reads a file.
#[tool]
fn read_io(args: Read) -> Result<String, std::io::Error> {
    std::fs::read_to_string(&args.path)
}

/// Reads a file, with `?` into a `ToolError`.
#[tool]
fn read_question_mark(args: Read) -> Result<String, ToolError> {
    Ok(std::fs::read_to_string(&args.path)?)
}

/// Reads a file, with anyhow.
#[tool]
async fn read_anyhow(args: Read) -> anyhow::Result<String> {
    tokio::task::yield_now().await;
    let text = std::fs::read_to_string(&args.path)?;
    anyhow::ensure!(!text.is_empty(), "{} is empty", args.path);
    Ok(text)
}

/// Fails with a `ToolError` carried by anyhow.
#[tool]
fn carried(args: Read) -> anyhow::Result<String> {
    Err(ToolError::not_found(format!("No file {}.", args.path)).into())
}

/// Shows the error on purpose.
#[tool]
fn shown(args: Read) -> Result<String, ToolError> {
    std::fs::read_to_string(&args.path).map_err(ToolError::internal_showing)
}

const SECRET_PATH: &str = "/nonexistent/secret-dir/key.pem";

async fn text_of(server: &Server<()>, tool: &str) -> String {
    let output = server
        .call(tool, json!({ "path": SECRET_PATH }))
        .await
        .unwrap();
    assert!(output.is_error, "{tool}: {:?}", output.text);
    output.text.join("\n")
}

#[tokio::test]
async fn converted_errors_are_internal_and_keep_their_text_to_themselves() {
    let server = Server::new(())
        .tool(read_io)
        .tool(read_question_mark)
        .tool(read_anyhow)
        .tool(carried)
        .tool(shown);
    for tool in ["read_io", "read_question_mark"] {
        let text = text_of(&server, tool).await;
        assert!(text.contains(r#"code="INTERNAL""#), "{text}");
        assert!(
            text.contains("input/output error (entity not found)"),
            "{text}"
        );
        assert!(!text.contains("secret"), "{text}");
    }
    let text = text_of(&server, "read_anyhow").await;
    assert!(text.contains(r#"code="INTERNAL""#), "{text}");
    assert!(text.contains("failed unexpectedly"), "{text}");
    assert!(!text.contains("secret"), "{text}");

    let text = text_of(&server, "carried").await;
    assert!(text.contains(r#"code="NOT_FOUND""#), "{text}");
    assert!(text.contains("No file"), "{text}");

    let text = text_of(&server, "shown").await;
    assert!(text.contains(r#"code="INTERNAL""#), "{text}");
    assert!(
        text.contains("The tool failed: No such file or directory"),
        "{text}"
    );
}
