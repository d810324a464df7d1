//! Audit mode on native rmcp servers: nothing is refused, every call the guard would refuse is
//! logged through `tracing` with its tool, paths and codes and none of the caller's values.

#![expect(
    clippy::unused_self,
    reason = "tools are methods on `&self`, as rmcp's examples write them"
)]

use std::fmt::Write as _;
use std::sync::{Mutex, PoisonError};

use guardrails::GuardConfig;
use guardrails::mcp::RouterGuard;
use guardrails_tests::client::{call, connect, text};
use guardrails_tests::notes_server::Notes;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Every event of target `guardrails::audit`, its fields written `name=value`.
static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct AuditLog;

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, "{}={value} ", field.name());
    }
}

impl Subscriber for AuditLog {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == "guardrails::audit"
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(format!("{} ", event.metadata().level()));
        event.record(&mut fields);
        LOG.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(fields.0);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// The lines logged so far that name `tool`.
fn logged(tool: &str) -> Vec<String> {
    let _ = tracing::subscriber::set_global_default(AuditLog);
    let needle = format!("tool={tool} ");
    LOG.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter(|line| line.contains(&needle))
        .cloned()
        .collect()
}

fn deserialize_i32_from_string_or_int<'de, D>(deserializer: D) -> Result<i32, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::Deserialize;
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum StringOrInt {
        Int(i32),
        Str(String),
    }
    match StringOrInt::deserialize(deserializer)? {
        StringOrInt::Int(n) => Ok(n),
        StringOrInt::Str(s) => s.parse::<i32>().map_err(serde::de::Error::custom),
    }
}

/// rmcp's counter's analysis arguments: a `deserialize_with` more lenient than the schema.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Goal {
    #[serde(deserialize_with = "deserialize_i32_from_string_or_int")]
    goal: i32,
}

#[derive(Clone)]
struct Counter;

#[guardrails::guarded(guard = RouterGuard::new().config(GuardConfig::new().audit(true)))]
#[tool_router]
impl Counter {
    #[tool(description = "Sets a goal")]
    fn set_goal(&self, Parameters(Goal { goal }): Parameters<Goal>) -> String {
        format!("goal {goal}")
    }
}

#[tool_handler]
impl ServerHandler for Counter {}

#[tokio::test]
async fn a_call_the_guard_would_refuse_reaches_the_tool_and_is_logged() {
    let _ = logged("");
    let audited = RouterGuard::new()
        .config(GuardConfig::new().audit(true))
        .guard(Notes::tool_router());
    let client = connect(Notes::with_router(10, audited)).await;
    let plain = connect(Notes::new(10)).await;
    let args =
        json!({"title": "Buy milk", "tag": "home", "priority": "low", "titel": "secret-value"});
    let a = client
        .call_tool(call("create_note", args.clone()))
        .await
        .unwrap();
    let b = plain.call_tool(call("create_note", args)).await.unwrap();
    assert_ne!(a.is_error, Some(true), "{}", text(&a, 0));
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let lines = logged("create_note");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    assert!(line.starts_with("WARN "), "{line}");
    assert!(line.contains("issues=1 "), "{line}");
    assert!(line.contains(r#"codes="titel:unknown_field""#), "{line}");
    assert!(!line.contains("secret-value"), "{line}");
    // A valid call is not logged; a call serde refuses too reaches rmcp's own error.
    client
        .call_tool(call(
            "create_note",
            json!({"title": "a", "tag": "b", "priority": "low"}),
        ))
        .await
        .unwrap();
    assert_eq!(logged("create_note").len(), 1);
    let a = client
        .call_tool(call("create_note", json!({"title": "a"})))
        .await;
    let b = plain
        .call_tool(call("create_note", json!({"title": "a"})))
        .await;
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    let lines = logged("create_note");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].contains("tag:missing"), "{lines:?}");
    assert!(lines[1].contains("priority:missing"), "{lines:?}");
    // The client sees the tool's own schema.
    let tools = client.list_all_tools().await.unwrap();
    let native = plain.list_all_tools().await.unwrap();
    let find = |list: &[rmcp::model::Tool]| {
        list.iter()
            .find(|t| t.name == "create_note")
            .unwrap()
            .input_schema
            .clone()
    };
    assert_eq!(find(&tools), find(&native));
    client.cancel().await.unwrap();
    plain.cancel().await.unwrap();
}

#[tokio::test]
async fn a_lenient_deserialize_with_shows_in_the_audit_log() {
    let _ = logged("");
    let client = connect(Counter).await;
    let result = client
        .call_tool(call("set_goal", json!({"goal": "42"})))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text(&result, 0));
    assert_eq!(text(&result, 0), "goal 42");
    let lines = logged("set_goal");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains(r#"codes="goal:type""#), "{lines:?}");
    assert!(!lines[0].contains("42"), "{lines:?}");
    client.cancel().await.unwrap();
}

/// Behaviours of serde that a JSON Schema cannot say: an alias, `#[serde(other)]`, a set that
/// drops duplicates.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Shade {
    Light,
    Dark,
    #[serde(other)]
    Unknown,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Style {
    #[serde(alias = "colour")]
    color: String,
    shade: Shade,
    tags: std::collections::BTreeSet<String>,
}

#[derive(Clone)]
struct Styles;

#[guardrails::guarded(guard = RouterGuard::new().config(GuardConfig::new().audit(true)))]
#[tool_router]
impl Styles {
    #[tool(description = "Describes a style")]
    fn style(&self, Parameters(style): Parameters<Style>) -> String {
        format!("{} {:?} {}", style.color, style.shade, style.tags.len())
    }
}

#[tool_handler]
impl ServerHandler for Styles {}

#[tokio::test]
async fn aliases_other_variants_and_set_duplicates_show_in_the_audit_log() {
    let _ = logged("");
    let client = connect(Styles).await;
    let result = client
        .call_tool(call(
            "style",
            json!({"colour": "red", "shade": "dim", "tags": ["a", "a"]}),
        ))
        .await
        .unwrap();
    assert_eq!(text(&result, 0), "red Unknown 1");
    let lines = logged("style");
    assert_eq!(lines.len(), 1, "{lines:?}");
    for code in [
        "colour:unknown_field",
        "color:missing",
        "shade:enum",
        "tags:not_unique",
    ] {
        assert!(lines[0].contains(code), "{code} not in {lines:?}");
    }
    client.cancel().await.unwrap();
}

/// The same tool guarded, not audited: the calls its type reads reach it all the same, and the
/// audit log counts each.
#[derive(Clone)]
struct EnforcedStyles;

#[guardrails::guarded]
#[tool_router]
impl EnforcedStyles {
    #[tool(name = "enforced_style", description = "Describes a style")]
    fn style(&self, Parameters(style): Parameters<Style>) -> String {
        format!("{} {:?} {}", style.color, style.shade, style.tags.len())
    }
}

#[tool_handler]
impl ServerHandler for EnforcedStyles {}

#[tokio::test]
async fn a_call_the_tool_reads_is_let_through_and_logged() {
    let _ = logged("");
    let client = connect(EnforcedStyles).await;
    let result = client
        .call_tool(call(
            "enforced_style",
            json!({"colour": "blue", "shade": "dim", "tags": ["a", "a"]}),
        ))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text(&result, 0));
    assert_eq!(text(&result, 0), "blue Unknown 1");
    let lines = logged("enforced_style");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    assert!(line.starts_with("WARN "), "{line}");
    assert!(line.contains("let_through=true "), "{line}");
    assert!(line.contains("read_by=the tool's own type "), "{line}");
    assert!(line.contains("colour:unknown_field"), "{line}");
    assert!(!line.contains("blue"), "{line}");
    // A key serde drops is refused, and not logged as let through.
    let result = client
        .call_tool(call(
            "enforced_style",
            json!({"color": "red", "shade": "dark", "tags": [], "shadow": true}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result, 0).contains(r#"<field name="shadow" code="unknown_field">"#));
    assert_eq!(logged("enforced_style").len(), 1);
    client.cancel().await.unwrap();
}

/// A `#[tool]` server in audit mode.
mod derived {
    use guardrails::{Server, ToolArgs, tool};

    #[derive(serde::Deserialize, ToolArgs)]
    pub(super) struct Greet {
        #[guard(length(min = 3))]
        pub(super) name: String,
    }

    /// Greets someone.
    #[tool]
    pub(super) fn greet(args: Greet) -> String {
        format!("Hello, {}!", args.name)
    }

    pub(super) fn server(audit: bool) -> Server<()> {
        Server::new(())
            .config(guardrails::GuardConfig::new().audit(audit))
            .tool(greet)
    }
}

#[tokio::test]
async fn a_tool_server_in_audit_mode_runs_what_serde_reads_and_logs_it() {
    let _ = logged("");
    let audited = derived::server(true);
    let enforcing = derived::server(false);
    let short = json!({"name": "Al", "extra": "secret-value"});
    assert!(
        enforcing
            .call("greet", short.clone())
            .await
            .unwrap()
            .is_error
    );
    let output = audited.call("greet", short).await.unwrap();
    assert!(!output.is_error, "{:?}", output.text);
    assert_eq!(output.text, ["Hello, Al!"]);
    let lines = logged("greet");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains(r#"codes="name:too_short, extra:unknown_field""#)
            || lines[0].contains(r#"codes="extra:unknown_field, name:too_short""#),
        "{lines:?}"
    );
    assert!(lines[0].contains("let_through=true"), "{lines:?}");
    assert!(!lines[0].contains("secret-value"), "{lines:?}");
    // What serde refuses too is refused, coached, and logged as such.
    let missing = audited.call("greet", json!({})).await.unwrap();
    assert!(missing.is_error);
    assert!(missing.text[0].contains("missing"), "{:?}", missing.text);
    let lines = logged("greet");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].contains("let_through=false"), "{lines:?}");
    // An enforcing server logs nothing.
    let _ = enforcing.call("greet", json!({"name": "Al"})).await;
    assert_eq!(logged("greet").len(), 2);
}
