//! The advice of an output policy on a delivered output follows the server's format: a Markdown
//! or JSON server no longer receives XML tags (the XML form is unchanged).

use guardrails::policy::Profile;
use guardrails::{GuardConfig, RenderFormat, Server, ToolArgs, tool};
use serde::Deserialize;
use serde_json::{Map, Value};

/// No arguments.
#[derive(Debug, Deserialize, ToolArgs)]
struct Report {}

/// A report whose wording the decision profile warns about, without blocking it.
#[tool(read_only, policy = Profile::Decision)]
fn report(_args: Report) -> String {
    "Roughly two weeks of work remain.".to_owned()
}

async fn advice(format: RenderFormat) -> String {
    let server = Server::new(())
        .config(GuardConfig::new().format(format))
        .tool(report);
    let output = server
        .call("report", Map::new())
        .await
        .expect("a known tool");
    assert!(!output.is_error, "warnings deliver the output: {output:?}");
    assert_eq!(output.text[0], "Roughly two weeks of work remain.");
    assert_eq!(
        output.text.len(),
        2,
        "the advice follows the data: {output:?}"
    );
    output.text[1].clone()
}

#[tokio::test]
async fn xml_servers_get_the_output_policy_element() {
    let text = advice(RenderFormat::Xml).await;
    assert!(text.starts_with("<output_policy verdict="), "{text}");
    assert!(text.contains("was delivered"), "{text}");
}

#[tokio::test]
async fn markdown_servers_get_markdown() {
    let text = advice(RenderFormat::Markdown).await;
    assert!(!text.contains('<'), "no tags in Markdown: {text}");
    assert!(text.starts_with("⚠️ Output policy: "), "{text}");
    assert!(text.contains("was delivered"), "{text}");
    insta::assert_snapshot!(text);
}

#[tokio::test]
async fn json_servers_get_json() {
    let text = advice(RenderFormat::Json).await;
    let value: Value = serde_json::from_str(&text).expect("the advice is JSON");
    let policy = &value["outputPolicy"];
    assert_eq!(policy["critical"], 0);
    assert!(
        policy["violations"]
            .as_array()
            .is_some_and(|v| !v.is_empty())
    );
    assert!(
        policy["recovery"]
            .as_str()
            .is_some_and(|r| r.contains("was delivered"))
    );
    insta::assert_json_snapshot!(value);
}
