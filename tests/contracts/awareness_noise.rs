//! Contract awareness tells a rejected call only what can explain its issues: the changes of
//! the arguments it sent wrong, missed or misspelt. A typo on an argument that did not change
//! gets no block, and a block stays short whatever changed.
//!
//! The tools are the task tracker's `create_task` in two releases: `v1` took an `owner` and an
//! optional `due`; `v2` renamed `owner` to `assignee`, made `due` required and added a
//! `description`, a `priority`, a `status` and `labels`.

use guardrails::contract::{AwarenessConfig, KnownGood, ServerContract};
use guardrails::{GuardConfig, RenderFormat, Server, ToolArgs, ToolEnum, tool};
use serde::Deserialize;
use serde_json::{Value, json};

mod v1 {
    use super::{Deserialize, ToolArgs, tool};

    /// Arguments of `create_task`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(super) struct CreateTask {
        /// Short title.
        #[guard(length(min = 3, max = 120))]
        pub(super) title: String,
        /// Who owns and works on it.
        #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$", example = "ada")]
        pub(super) owner: String,
        /// Due date.
        #[guard(format = "date")]
        pub(super) due: Option<String>,
        /// Priority from 1 (highest) to 5.
        #[guard(range(min = 1, max = 5))]
        pub(super) priority: Option<u8>,
    }

    /// Creates a task.
    #[tool(idempotent = false)]
    pub(super) fn create_task(args: CreateTask) -> String {
        let _ = (args.owner, args.due, args.priority);
        args.title
    }
}

mod v2 {
    use super::{Deserialize, ToolArgs, ToolEnum, tool};

    /// The state of a task.
    #[derive(Debug, Clone, Copy, Deserialize, ToolEnum)]
    #[serde(rename_all = "snake_case")]
    pub(super) enum Status {
        Todo,
        InProgress,
        Done,
    }

    /// Arguments of `create_task`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(super) struct CreateTask {
        /// Short title.
        #[guard(length(min = 3, max = 120))]
        pub(super) title: String,
        /// Longer description. Held to the decision policy: no invented figures.
        #[guard(length(max = 2000), policy = "decision")]
        pub(super) description: Option<String>,
        /// Who works on it (a lowercase handle such as `ada`).
        #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$", example = "ada")]
        pub(super) assignee: String,
        /// Due date.
        #[guard(format = "date")]
        pub(super) due: String,
        /// Priority from 1 (highest) to 5.
        #[guard(range(min = 1, max = 5))]
        pub(super) priority: Option<u8>,
        /// Initial status.
        pub(super) status: Option<Status>,
        /// Labels, each distinct.
        #[serde(default)]
        #[guard(length(max = 10), unique)]
        pub(super) labels: Vec<String>,
    }

    /// Creates a task; the creator (the assignee) owns it.
    #[tool(idempotent = false, destructive = false)]
    pub(super) fn create_task(args: CreateTask) -> String {
        let _ = (args.description, args.status, args.labels, args.priority);
        format!("{} for {} by {}", args.title, args.assignee, args.due)
    }
}

fn known_good() -> KnownGood {
    let v1 = ServerContract::from_specs([guardrails::Tool::<()>::spec(&v1::create_task)]);
    KnownGood::from_lockfile_str(&v1.to_lockfile()).unwrap()
}

fn tracker(config: AwarenessConfig) -> Server<()> {
    Server::new(()).tool(v2::create_task).config(
        GuardConfig::new()
            .known_good(known_good())
            .contract_awareness(config),
    )
}

async fn rejected(server: &Server<()>, args: Value) -> String {
    let out = server.call("create_task", args).await.unwrap();
    assert!(out.is_error, "{:?}", out.text);
    out.text[0].clone()
}

fn block(text: &str) -> &str {
    let start = text.find("<contract_awareness>").expect("a block");
    let end = text.find("</contract_awareness>").expect("a closed block");
    &text[start..end + "</contract_awareness>".len()]
}

#[tokio::test]
async fn a_typo_on_an_unchanged_argument_gets_no_block() {
    let server = tracker(AwarenessConfig::default());
    let text = rejected(
        &server,
        json!({"title": "Write docs", "assignee": "ada", "due": "2026-12-01", "priorty": 2}),
    )
    .await;
    assert!(
        text.contains(r#"<field name="priorty" code="unknown_field">"#),
        "{text}"
    );
    assert!(text.contains("Did you mean \"priority\"?"), "{text}");
    assert!(!text.contains("contract_awareness"), "{text}");
    // The same typo on a server without a lockfile renders the very same message.
    let plain = Server::new(()).tool(v2::create_task);
    let alone = rejected(
        &plain,
        json!({"title": "Write docs", "assignee": "ada", "due": "2026-12-01", "priorty": 2}),
    )
    .await;
    assert_eq!(text, alone);
}

#[tokio::test]
async fn a_stale_call_is_told_exactly_the_changes_it_ran_into() {
    let server = tracker(AwarenessConfig::default().with_all_severities(true));
    let text = rejected(
        &server,
        json!({"title": "Ship the release", "owner": "ada"}),
    )
    .await;
    let block = block(&text);
    for path in [
        "create_task.args.owner",
        "create_task.args.assignee",
        "create_task.args.due",
    ] {
        assert!(block.contains(path), "the block names {path}: {block}");
    }
    // Changes the call did not run into stay out, even with every severity admitted: the
    // new optional arguments, the hint the tool now states.
    for unrelated in [
        "args.description",
        "args.labels",
        "args.status",
        "annotations",
    ] {
        assert!(!block.contains(unrelated), "{unrelated} in {block}");
    }
}

#[tokio::test]
async fn a_misspelt_changed_argument_is_explained() {
    let server = tracker(AwarenessConfig::default());
    let text = rejected(
        &server,
        json!({"title": "Write docs", "asignee": "ada", "due": "2026-12-01"}),
    )
    .await;
    let block = block(&text);
    assert!(block.contains("create_task.args.assignee"), "{block}");
    assert!(!block.contains("create_task.args.due"), "{block}");
}

#[tokio::test]
async fn a_block_is_bounded_in_characters() {
    let config = AwarenessConfig::default()
        .with_all_severities(true)
        .with_max_deltas(50)
        .with_max_chars(300);
    let server = tracker(config);
    let text = rejected(&server, json!({"owner": 7, "title": 1})).await;
    let block = block(&text);
    // One delta at least, then only what fits in the characters allowed.
    assert!(block.contains("<delta "), "{block}");
    assert!(block.contains("<more_changes"), "{block}");
    let listed = block.matches("<delta ").count();
    let all = tracker(
        AwarenessConfig::default()
            .with_all_severities(true)
            .with_max_deltas(50),
    );
    let whole = rejected(&all, json!({"owner": 7, "title": 1})).await;
    assert!(listed < self::block(&whole).matches("<delta ").count());
    assert!(block.len() < self::block(&whole).len());

    // The default bound keeps even the stalest call's block short.
    let default = tracker(AwarenessConfig::default().with_all_severities(true));
    let stale = rejected(&default, json!({"owner": 7, "title": 1, "due": 5})).await;
    assert!(self::block(&stale).len() < 2_000, "{}", stale.len());
}

#[tokio::test]
async fn other_formats_follow_the_same_choice() {
    let server = Server::new(()).tool(v2::create_task).config(
        GuardConfig::new()
            .known_good(known_good())
            .format(RenderFormat::Json),
    );
    let typo = rejected(
        &server,
        json!({"title": "Write docs", "assignee": "ada", "due": "2026-12-01", "priorty": 2}),
    )
    .await;
    let value: Value = serde_json::from_str(&typo).unwrap();
    assert!(value["error"].get("contractAwareness").is_none(), "{typo}");
    let stale = rejected(
        &server,
        json!({"title": "Ship the release", "owner": "ada"}),
    )
    .await;
    let value: Value = serde_json::from_str(&stale).unwrap();
    assert_eq!(
        value["error"]["contractAwareness"]["maxSeverity"],
        "BREAKING"
    );
}
