//! `guardrails proxy [OPTIONS] -- COMMAND [ARGS…]`: the guard of `guard_router` in front of an
//! MCP server written in any language.
//!
//! The upstream runs as a child process and is reached as an rmcp client over its stdio; the
//! proxy serves the same tools over its own stdio with rmcp's server. Each upstream tool
//! becomes a route of an rmcp `ToolRouter` whose call forwards to the upstream, and the router
//! is guarded by [`RouterGuard`] from the tools' `inputSchema`s alone, exactly as a native rmcp
//! tool is: strict schema advertised, every problem in one coaching message with a valid
//! example, the `_meta` report, agent limits and byte caps, audit mode, the loop breaker and
//! telemetry. What the guard does not concern passes through both ways: prompts, resources,
//! completions, notifications, `_meta`, progress (under the client's token), logging, and the
//! upstream's sampling, elicitation and roots requests, which go to the client; the upstream
//! is told the client's capabilities (see [`Proxy::adopt_client`]).
//!
//! The wire is rmcp's on both sides; this module holds no protocol code.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock, Weak};
use std::time::Duration;

use guardrails::contract::{
    Awareness, AwarenessConfig, Contract, Delta, KnownGood, ServerContract,
};
use guardrails::mcp::{GuardError, ResultLimits, RouterGuard, call_result};
use guardrails::message::{ContractNotice, Failure as CallFailure};
use guardrails::message::{DELIVERED_WITH_CARE, PolicyAdvice};
use guardrails::policy::{Policy, RuleSeverity, check_text, load_policy};
use guardrails::profile::SchemaProfile;
use guardrails::{
    CallOutput, ErrorCode, IgnoreKeys, OutputCheck, OutputVerdict, RenderFormat, RenderOptions,
    RepairPolicy, ToolError,
};
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities,
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    Implementation, InitializeRequestParams, InitializeResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse,
    ResourceUpdatedNotificationParam, ResultType, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, Tool, ToolsCapability, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::Value;
use tracing_subscriber::prelude::*;

use crate::{Failure, Outcome};

/// Arguments of `guardrails proxy`.
#[derive(Debug, clap::Args)]
pub(crate) struct ProxyArgs {
    /// Let every call through, and log on stderr each call the guard would have refused (with
    /// the tool's name and each issue's path and code, never a value); the advertised schemas
    /// stay the upstream's own.
    #[arg(long)]
    audit: bool,
    /// Read settings from FILE, a TOML file: `repair = "on"` and `ignore_keys = ["_*"]` (as
    /// the flags of those names), and a `[tools.NAME]` table per tool: `agent_limit`,
    /// `max_bytes`, `max_tokens` (numbers), `result_policy = "FILE"` and
    /// `policies = { FIELD = "FILE" }`, policy files relative to FILE. A flag on the command line
    /// for the same tool and setting wins over the file.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Read a value whose meaning is not in doubt as meant, and tell the model so: a number,
    /// a boolean, an array or an object sent as a string where the tool's schema expects that
    /// one type (`"25"` for 25). The result carries one line per repair and the receipts in
    /// its `_meta` (`dev.guardrails/repairs`). `on` spares the tools annotated destructive;
    /// `including-destructive` does not. Off unless given (`--repair` alone is `on`).
    #[arg(long, value_enum, value_name = "WHICH", num_args = 0..=1, default_missing_value = "on")]
    repair: Option<Repair>,
    /// Drop KEY from every call's arguments before they are checked, when the tool does not
    /// declare it: keys a client adds on its own. `PREFIX*` drops every key that starts with
    /// PREFIX (repeatable). A key neither declared nor dropped is still refused and named.
    #[arg(long = "ignore-keys", value_name = "KEY|PREFIX*")]
    ignore_keys: Vec<String>,
    /// What an `integer` of a tool's schema takes: `schema`, every whole number, written as a
    /// float too (`5.0`, `1e2`, `-0.0`), as JSON Schema counts them and as servers in Python
    /// (pydantic) and JavaScript (zod) read them; or `serde`, only a number written without a
    /// fraction or an exponent, as a server written in Rust reads it (`5.0` is refused with
    /// "send 5").
    #[arg(long, value_enum, value_name = "READING", default_value_t = Integers::Schema)]
    integers: Integers,
    /// Show at most N items of TOOL's list results (repeatable).
    #[arg(long = "agent-limit", value_name = "TOOL=N", value_parser = tool_number)]
    agent_limits: Vec<(String, usize)>,
    /// Cut the text of TOOL's results to N bytes (repeatable).
    #[arg(long = "max-bytes", value_name = "TOOL=N", value_parser = tool_number)]
    max_bytes: Vec<(String, usize)>,
    /// Cut TOOL's results to N tokens, as the library estimates them (repeatable).
    #[arg(long = "max-tokens", value_name = "TOOL=N", value_parser = tool_number)]
    max_tokens: Vec<(String, usize)>,
    /// Check the text an agent writes into TOOL's argument FIELD (a string, or a list of
    /// strings) against the output policy in FILE (TOML, as `guardrails check --policy` reads)
    /// before it reaches the server: a call whose text breaks a critical or a warning rule is
    /// answered with a tool error naming each rule (repeatable).
    #[arg(long = "policy", value_name = "TOOL.FIELD=FILE", value_parser = field_policy)]
    policies: Vec<(String, String, PathBuf)>,
    /// Check the text of TOOL's successful results against the output policy in FILE, as a
    /// derived tool's `#[tool(policy = ..)]` does: a critical rule broken withholds the result
    /// behind a tool error, a warning is delivered with the policy's verdict after it
    /// (repeatable).
    #[arg(long = "result-policy", value_name = "TOOL=FILE", value_parser = tool_file)]
    result_policies: Vec<(String, PathBuf)>,
    /// The format of coaching messages and tool errors.
    #[arg(long, value_enum, default_value_t = Format::Xml)]
    format: Format,
    /// The form of JSON Schema the tools' schemas are advertised in: `portable` (the forms
    /// every known consumer reads), `strict` (the schema calls are checked against), `openai`
    /// (every property required, `null` read as left out), `gemini` or `anthropic`. Calls are
    /// checked against the strict schema whatever the profile. `guardrails lint` says which
    /// consumer refuses what.
    #[arg(long, value_name = "PROFILE", default_value_t = SchemaProfile::Portable)]
    schema_profile: SchemaProfile,
    /// Seconds the upstream has to answer a call before the call fails with a TIMEOUT tool
    /// error.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = seconds)]
    call_timeout: f64,
    /// Seconds the upstream has to start: to answer `initialize` and list its tools. Kept apart
    /// from --call-timeout, so that a short call timeout does not fail a slow start (an
    /// interpreter loading its packages on a busy machine).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = seconds)]
    start_timeout: f64,
    /// The lockfile of the upstream's contracts (names, titles, descriptions, annotations,
    /// input and output schemas). When FILE exists, the upstream's tools are compared with it
    /// at start and whenever its tool list changes: each change is logged with its severity
    /// (BREAKING, RISKY, SAFE, COSMETIC), and a tool that changed (or is new) is treated by
    /// --on-change. When FILE does not exist, the upstream's contracts are recorded in it.
    /// FILE is never rewritten unless --update-lock says so. `guardrails diff` reads it.
    #[arg(long, value_name = "FILE")]
    lock: Option<PathBuf>,
    /// Compare with the lockfile, which must exist (what --lock does with a file that exists).
    #[arg(long, requires = "lock", conflicts_with = "update_lock")]
    check: bool,
    /// Record the upstream's contracts in the lockfile at start, replacing what it held: the
    /// changes are approved.
    #[arg(long, requires = "lock")]
    update_lock: bool,
    /// What a tool whose contract changed since the lockfile becomes: hidden from the client,
    /// refused with a tool error that says what changed (listed with its approved title and
    /// description: the new text never reaches the model), or served, its rejected calls told
    /// the changes that explain them.
    #[arg(long, value_enum, default_value_t = OnChange::Refuse, requires = "lock")]
    on_change: OnChange,
    /// Serve Streamable HTTP at `http://ADDR/mcp` instead of stdio, with the library's hardened
    /// server (bounded connections, requests and sessions; foreign `Origin`s refused). Bind a
    /// loopback address: the proxy has no authentication of its own.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Reach an upstream that serves Streamable HTTP at URL (plain `http://`) instead of
    /// starting a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    upstream_url: Option<String>,
    /// The upstream server: a command and its arguments, after `--`.
    #[arg(
        last = true,
        required_unless_present = "upstream_url",
        value_name = "COMMAND"
    )]
    command: Vec<OsString>,
}

/// What an `integer` of a tool's schema takes (`--integers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Integers {
    /// Every whole number, as JSON Schema counts them.
    Schema,
    /// Only numbers written without a fraction or an exponent, as serde reads integers.
    Serde,
}

/// Which tools' calls are repaired (`--repair`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Repair {
    /// None.
    Off,
    /// Those of every tool not annotated destructive.
    On,
    /// Those of every tool.
    IncludingDestructive,
}

impl From<Repair> for RepairPolicy {
    fn from(repair: Repair) -> Self {
        match repair {
            Repair::Off => Self::Off,
            Repair::On => Self::On,
            Repair::IncludingDestructive => Self::IncludingDestructive,
        }
    }
}

/// The keys `--ignore-keys` names: `PREFIX*` for a prefix, any other for a name.
fn ignored_keys(specs: &[String]) -> IgnoreKeys {
    specs.iter().fold(IgnoreKeys::new(), |keys, spec| {
        match spec.strip_suffix('*') {
            Some(prefix) => keys.prefix(prefix.to_owned()),
            None => keys.name(spec.clone()),
        }
    })
}

/// What a tool whose contract changed since the lockfile becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OnChange {
    /// Not listed, and calls to it are calls to an unknown tool.
    Hide,
    /// Listed, and every call answered with a `CONTRACT_CHANGED` tool error naming the changes.
    Refuse,
    /// Served and guarded; a rejected call carries the changes that can explain it.
    Aware,
}

/// The most characters of a name sent by the client (a tool's, a method's) that the proxy
/// repeats.
const MAX_NAME_CHARS: usize = 100;

/// The most tool names an unknown tool's error lists.
const MAX_NAMES_SHOWN: usize = 30;

/// Why the params of `method`, a method of MCP, cannot be read (rmcp hands such a request
/// over as a custom one); `None` for a method MCP does not define.
fn malformed(method: &str, params: Option<&Value>) -> Option<String> {
    fn reason<T: serde::de::DeserializeOwned>(params: Option<&Value>) -> String {
        let params = params.cloned().unwrap_or(Value::Null);
        match serde_json::from_value::<T>(params) {
            Ok(_) => "they do not match the method".to_owned(),
            Err(error) => cut(&error.to_string(), MAX_PROBLEM_CHARS),
        }
    }
    let why = match method {
        "tools/call" => reason::<CallToolRequestParams>(params),
        "prompts/get" => reason::<GetPromptRequestParams>(params),
        "resources/read" => reason::<ReadResourceRequestParams>(params),
        "resources/subscribe" | "resources/unsubscribe" => reason::<SubscribeRequestParams>(params),
        "completion/complete" => reason::<CompleteRequestParams>(params),
        "initialize" => reason::<InitializeRequestParams>(params),
        "tools/list"
        | "prompts/list"
        | "resources/list"
        | "resources/templates/list"
        | "logging/setLevel"
        | "ping"
        | "server/discover"
        | "subscriptions/listen"
        | "tasks/get"
        | "tasks/update"
        | "tasks/cancel"
        | "tasks/list" => "they are not what the method takes".to_owned(),
        _ => return None,
    };
    Some(format!("Invalid params of `{method}`: {why}"))
}

/// What the model is shown in place of a title or a description that changed since the
/// lockfile, under `--on-change refuse`.
const WITHHELD: &str = "(withheld until the change is approved)";

/// Whether the change at `path` is of text the model reads: a title or a description.
fn is_text(path: &str) -> bool {
    matches!(path.rsplit('.').next(), Some("description" | "title"))
}

/// `tool` as a tool refused for a change is listed: with the title and description of the
/// lockfile (none for a tool the lockfile does not hold), and its schemas without any
/// `title` or `description`, so that no text that awaits review reaches the model.
fn approved_text(mut tool: Tool, approved: Option<&Contract>) -> Tool {
    tool.description = Some(
        approved
            .map(|contract| contract.description.clone())
            .unwrap_or_default()
            .into(),
    );
    tool.title = approved.and_then(|contract| contract.title.clone());
    if let Some(annotations) = &mut tool.annotations {
        annotations.title = None;
    }
    let mut input = (*tool.input_schema).clone();
    strip_text(&mut input);
    tool.input_schema = Arc::new(input);
    if let Some(output) = &tool.output_schema {
        let mut output = (**output).clone();
        strip_text(&mut output);
        tool.output_schema = Some(Arc::new(output));
    }
    tool
}

/// Removes every `title` and `description` string of a schema, at any depth.
fn strip_text(schema: &mut JsonObject) {
    schema.retain(|key, value| !((key == "title" || key == "description") && value.is_string()));
    for value in schema.values_mut() {
        strip_value(value);
    }
}

fn strip_value(value: &mut Value) {
    match value {
        Value::Object(object) => strip_text(object),
        Value::Array(items) => items.iter_mut().for_each(strip_value),
        _ => {}
    }
}

/// The `_meta` keys of a request that describe the connection rather than the call: rmcp
/// writes its own for the upstream's connection.
const CONNECTION_META_KEYS: [&str; 3] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
];

/// The most characters of a schema violation of an upstream's result that the client is told.
const MAX_PROBLEM_CHARS: usize = 200;

/// The format of the messages the proxy writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Compact XML-style tags.
    Xml,
    /// Markdown.
    Markdown,
    /// A JSON object.
    Json,
}

impl From<Format> for RenderFormat {
    fn from(format: Format) -> Self {
        match format {
            Format::Xml => RenderFormat::Xml,
            Format::Markdown => RenderFormat::Markdown,
            Format::Json => RenderFormat::Json,
        }
    }
}

/// `TOOL=N`.
fn tool_number(text: &str) -> Result<(String, usize), String> {
    let (tool, number) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("expected TOOL=N, got `{text}`"))?;
    let number = number
        .parse()
        .map_err(|_| format!("expected a whole number after `=`, got `{number}`"))?;
    if tool.is_empty() {
        return Err(format!("expected a tool name before `=`, got `{text}`"));
    }
    Ok((tool.to_owned(), number))
}

/// `text`, at most `max` characters, with `…` where it was cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// `TOOL=FILE`.
fn tool_file(text: &str) -> Result<(String, PathBuf), String> {
    match text.split_once('=') {
        Some((tool, file)) if !tool.is_empty() && !file.is_empty() => {
            Ok((tool.to_owned(), PathBuf::from(file)))
        }
        _ => Err(format!("expected TOOL=FILE, got `{text}`")),
    }
}

/// `TOOL.FIELD=FILE`; the tool's name is what comes before the last dot of the left side.
fn field_policy(text: &str) -> Result<(String, String, PathBuf), String> {
    let (target, file) = text
        .split_once('=')
        .ok_or_else(|| format!("expected TOOL.FIELD=FILE, got `{text}`"))?;
    let (tool, field) = target
        .rsplit_once('.')
        .filter(|(tool, field)| !tool.is_empty() && !field.is_empty())
        .ok_or_else(|| format!("expected TOOL.FIELD before `=`, got `{target}`"))?;
    if file.is_empty() {
        return Err(format!("expected a policy file after `=`, got `{text}`"));
    }
    Ok((tool.to_owned(), field.to_owned(), PathBuf::from(file)))
}

/// A positive number of seconds.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 && seconds < 1e9 => Ok(seconds),
        _ => Err(format!(
            "expected a positive number of seconds, got `{text}`"
        )),
    }
}

pub(crate) fn run(args: ProxyArgs) -> Result<Outcome, Failure> {
    // Log lines go to stderr: stdout is the protocol's. Warnings (the audit log among them),
    // what the proxy does, and what rmcp says of the lines of the upstream it cannot read (at
    // debug level: a line that is not JSON is dropped).
    let filter = tracing_subscriber::filter::filter_fn(|meta| {
        *meta.level() <= tracing::Level::WARN
            || (meta.target() == module_path!() && *meta.level() <= tracing::Level::INFO)
            || (meta.target().starts_with("rmcp::transport")
                && *meta.level() <= tracing::Level::DEBUG)
    });
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .with_filter(filter),
        )
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(args))
}

/// How the proxy guards and reaches its upstream, as the command line set it.
struct Settings {
    command: Vec<OsString>,
    url: Option<String>,
    /// How long a call may take.
    timeout: Duration,
    /// How long the upstream may take to start and list its tools.
    start_timeout: Duration,
    render: RenderOptions,
    audit: bool,
    /// Which calls are repaired.
    repair: RepairPolicy,
    /// Whether a whole number written as a float is an integer.
    schema_integers: bool,
    /// The keys dropped from every call's arguments.
    ignore_keys: IgnoreKeys,
    /// The form the tools' schemas are advertised in.
    profile: SchemaProfile,
    limits: BTreeMap<String, ResultLimits>,
    /// The approved contracts, and what a tool that changed since becomes (`--check`).
    approved: Option<(KnownGood, OnChange)>,
    /// The output policies on tools' text arguments: tool, field, policy.
    policies: Vec<(String, String, Policy)>,
    /// The output policies on tools' results, by tool.
    result_policies: BTreeMap<String, Policy>,
    /// The client capabilities the upstream is started with at launch, before a client has
    /// said what it has: none, or with a lockfile every capability the proxy relays, so that
    /// the lockfile holds every tool the upstream can list.
    probe: ClientCapabilities,
}

/// What the proxy relays of a client's capabilities: sampling, elicitation and roots. Tasks
/// and extensions are not relayed, so the upstream is not told of them.
fn relayed_capabilities(declared: &ClientCapabilities) -> ClientCapabilities {
    let mut relayed = ClientCapabilities::default();
    relayed.sampling.clone_from(&declared.sampling);
    relayed.elicitation.clone_from(&declared.elicitation);
    relayed.roots.clone_from(&declared.roots);
    relayed
}

/// Whether the client of `context` speaks a revision in which a server asks a client nothing
/// (2026-07-28 and later).
fn asks_nothing(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|version| {
        version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
    })
}

/// Every client capability the proxy relays.
fn every_relayed_capability() -> ClientCapabilities {
    let mut every = ClientCapabilities::default();
    every.sampling = Some(rmcp::model::SamplingCapability::default());
    let mut elicitation = rmcp::model::ElicitationCapability::default();
    elicitation.form = Some(rmcp::model::FormElicitationCapability::default());
    elicitation.url = Some(rmcp::model::UrlElicitationCapability::default());
    every.elicitation = Some(elicitation);
    let mut roots = rmcp::model::RootsCapabilities::default();
    roots.list_changed = Some(true);
    every.roots = Some(roots);
    every
}

/// The per-tool settings of `--config FILE`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    /// `--repair`.
    repair: Option<Repair>,
    /// `--ignore-keys`, each.
    #[serde(default)]
    ignore_keys: Vec<String>,
    #[serde(default)]
    tools: BTreeMap<String, ToolConfig>,
}

/// One tool's table in `--config FILE`: what the flags of the same names set.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolConfig {
    agent_limit: Option<usize>,
    max_bytes: Option<usize>,
    max_tokens: Option<usize>,
    result_policy: Option<PathBuf>,
    #[serde(default)]
    policies: BTreeMap<String, PathBuf>,
}

impl ProxyArgs {
    /// Adds the settings of `--config FILE` to those of the command line, which win where both
    /// set the same thing: the file's come first, and a later setting replaces an earlier one.
    fn merge_config(&mut self) -> Result<(), Failure> {
        let Some(path) = &self.config else {
            return Ok(());
        };
        let shown = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|error| Failure(format!("cannot read {shown}: {error}")))?;
        let config: ConfigFile =
            toml::from_str(&text).map_err(|error| Failure(format!("{shown}: {error}")))?;
        // Policy files are named relative to the configuration file.
        let base = path
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        if self.repair.is_none() {
            self.repair = config.repair;
        }
        prepend(&mut self.ignore_keys, config.ignore_keys);
        let (mut agent_limits, mut max_bytes, mut max_tokens) =
            (Vec::new(), Vec::new(), Vec::new());
        let (mut result_policies, mut policies) = (Vec::new(), Vec::new());
        for (tool, settings) in config.tools {
            if let Some(max) = settings.agent_limit {
                agent_limits.push((tool.clone(), max));
            }
            if let Some(max) = settings.max_bytes {
                max_bytes.push((tool.clone(), max));
            }
            if let Some(max) = settings.max_tokens {
                max_tokens.push((tool.clone(), max));
            }
            if let Some(file) = settings.result_policy {
                result_policies.push((tool.clone(), base.join(file)));
            }
            for (field, file) in settings.policies {
                // A policy on the same field from the command line replaces the file's.
                let named = self
                    .policies
                    .iter()
                    .any(|(t, f, _)| *t == tool && *f == field);
                if !named {
                    policies.push((tool.clone(), field, base.join(file)));
                }
            }
        }
        prepend(&mut self.agent_limits, agent_limits);
        prepend(&mut self.max_bytes, max_bytes);
        prepend(&mut self.max_tokens, max_tokens);
        prepend(&mut self.result_policies, result_policies);
        prepend(&mut self.policies, policies);
        Ok(())
    }
}

/// `items` put before the entries of `list`.
fn prepend<T>(list: &mut Vec<T>, mut items: Vec<T>) {
    items.append(list);
    *list = items;
}

async fn serve(mut args: ProxyArgs) -> Result<Outcome, Failure> {
    args.merge_config()?;
    let mut limits: BTreeMap<String, ResultLimits> = BTreeMap::new();
    for (tool, max) in &args.agent_limits {
        let entry = limits.entry(tool.clone()).or_default();
        *entry = entry.agent_limit(*max);
    }
    for (tool, max) in &args.max_bytes {
        let entry = limits.entry(tool.clone()).or_default();
        *entry = entry.max_bytes(*max);
    }
    for (tool, max) in &args.max_tokens {
        let entry = limits.entry(tool.clone()).or_default();
        *entry = entry.max_tokens(*max);
    }
    let mut settings = Settings {
        command: args.command.clone(),
        url: args.upstream_url.clone(),
        timeout: Duration::from_secs_f64(args.call_timeout),
        start_timeout: Duration::from_secs_f64(args.start_timeout),
        render: RenderOptions::from(RenderFormat::from(args.format)),
        audit: args.audit,
        repair: args.repair.map_or(RepairPolicy::Off, RepairPolicy::from),
        schema_integers: args.integers == Integers::Schema,
        ignore_keys: ignored_keys(&args.ignore_keys),
        profile: args.schema_profile,
        limits,
        approved: None,
        policies: Vec::new(),
        result_policies: BTreeMap::new(),
        probe: if args.lock.is_some() {
            every_relayed_capability()
        } else {
            ClientCapabilities::default()
        },
    };
    for (tool, path) in &args.result_policies {
        let policy = load_policy(None, Some(path))
            .map_err(|error| Failure(format!("{}: {error}", path.display())))?;
        settings.result_policies.insert(tool.clone(), policy);
    }
    for (tool, field, path) in &args.policies {
        let policy = load_policy(None, Some(path))
            .map_err(|error| Failure(format!("{}: {error}", path.display())))?;
        settings
            .policies
            .push((tool.clone(), field.clone(), policy));
    }
    // A lockfile that exists is checked, unless it is to be rewritten; one that does not is
    // recorded (and --check asks for one that exists).
    let record = match &args.lock {
        Some(path) if args.update_lock || (!args.check && !path.exists()) => Some(path),
        Some(path) => {
            let contracts = ServerContract::read_lockfile(path)?;
            settings.approved = Some((KnownGood::from_contracts(contracts), args.on_change));
            None
        }
        None => None,
    };
    let proxy = Proxy::new(settings);
    // The upstream is started before the proxy serves, so that a command that does not start
    // is an error at once rather than a failure of the first call.
    proxy.refresh().await.map_err(Failure)?;
    if let Some(path) = record {
        let contracts: ServerContract = proxy
            .listed()
            .iter()
            .map(Contract::from_definition)
            .collect();
        contracts.write_lockfile(path)?;
        tracing::info!(path = %path.display(), tools = contracts.tools().len(), "the upstream's contracts are written");
    }
    for tool in proxy.0.settings.limits.keys() {
        if proxy.router().get(tool).is_none() {
            tracing::warn!(tool, "limits set for a tool the upstream does not list");
        }
    }
    if let Some(addr) = &args.http {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|error| Failure(format!("cannot listen on {addr}: {error}")))?;
        let local = listener.local_addr()?;
        tracing::info!("serving Streamable HTTP at http://{local}/mcp");
        guardrails::mcp::serve_http(proxy.clone(), listener).await?;
    } else {
        let running = proxy
            .clone()
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|error| Failure(format!("serving over stdio: {error}")))?;
        let _ = running.waiting().await;
    }
    proxy.0.upstream.stop().await;
    Ok(Outcome::Passed)
}

/// The proxy: rmcp's `ServerHandler` towards the client, rmcp's client towards the upstream.
#[derive(Clone)]
pub(crate) struct Proxy(Arc<Inner>);

struct Inner {
    settings: Settings,
    upstream: Upstream,
    /// The guarded routes of the upstream's tools, rebuilt when its tool list changes.
    router: RwLock<Arc<ToolRouter<Proxy>>>,
    /// The upstream's tools as it last listed them.
    listed: RwLock<Vec<Tool>>,
    /// The `outputSchema`s of the upstream's tools, compiled: a structured result is checked
    /// against its tool's before it reaches the client.
    outputs: RwLock<HashMap<String, Arc<jsonschema::Validator>>>,
    /// The client, once it has sent a request: where the upstream's notifications go.
    client: RwLock<Option<Peer<RoleServer>>>,
    /// The capabilities the upstream is told its client has: at launch, those of the probe
    /// (`Settings::probe`); from the first client's first request on, that client's.
    capabilities: RwLock<ClientCapabilities>,
    /// Whether the first client's capabilities were adopted; held while the upstream restarts
    /// with them, so that the client's requests wait for the upstream that serves it.
    adopted: tokio::sync::Mutex<bool>,
    /// The client's progress token of each call in flight, and the client that made it, by
    /// the upstream's token.
    progress:
        RwLock<HashMap<rmcp::model::ProgressToken, (rmcp::model::ProgressToken, Peer<RoleServer>)>>,
}

impl Proxy {
    fn new(settings: Settings) -> Self {
        let probe = settings.probe.clone();
        Self(Arc::new_cyclic(|weak: &Weak<Inner>| Inner {
            upstream: Upstream {
                proxy: weak.clone(),
                command: settings.command.clone(),
                url: settings.url.clone(),
                timeout: settings.start_timeout,
                state: tokio::sync::Mutex::new(None),
                info: RwLock::new(None),
            },
            settings,
            router: RwLock::new(Arc::new(ToolRouter::new())),
            listed: RwLock::new(Vec::new()),
            outputs: RwLock::new(HashMap::new()),
            client: RwLock::new(None),
            capabilities: RwLock::new(probe),
            adopted: tokio::sync::Mutex::new(false),
            progress: RwLock::new(HashMap::new()),
        }))
    }

    fn router(&self) -> Arc<ToolRouter<Self>> {
        Arc::clone(&self.0.router.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Lists the upstream's tools (starting it when it is not running) and guards them.
    async fn refresh(&self) -> Result<(), String> {
        let peer = self.0.upstream.peer().await?;
        let tools = tokio::time::timeout(self.0.settings.start_timeout, peer.list_all_tools())
            .await
            .map_err(|_| "the upstream did not list its tools in time".to_owned())?
            .map_err(|error| format!("the upstream could not list its tools: {error}"))?;
        self.install(tools);
        Ok(())
    }

    /// Guards `tools` and serves them from now on.
    fn install(&self, tools: Vec<Tool>) {
        let mut outputs = HashMap::new();
        for tool in &tools {
            let Some(schema) = &tool.output_schema else {
                continue;
            };
            match jsonschema::validator_for(&Value::Object((**schema).clone())) {
                Ok(validator) => {
                    outputs.insert(tool.name.to_string(), Arc::new(validator));
                }
                Err(error) => {
                    tracing::warn!(tool = %tool.name, %error, "the tool's output schema does not compile: its results are not checked");
                }
            }
        }
        *self
            .0
            .outputs
            .write()
            .unwrap_or_else(PoisonError::into_inner) = outputs;
        self.0
            .listed
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .clone_from(&tools);
        let router = self.guard(tools);
        *self
            .0
            .router
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(router);
    }

    /// The guarded router of `tools`. A tool whose schema the guard cannot compile (a
    /// reference to another document, an invalid keyword) is served unguarded, with a warning,
    /// rather than hidden: the upstream checks its own calls still.
    fn guard(&self, tools: Vec<Tool>) -> ToolRouter<Self> {
        let settings = &self.0.settings;
        let mut router = ToolRouter::new();
        // Tools refused for a change of contract: listed, never forwarded, not guarded.
        let mut unguarded = ToolRouter::new();
        if let Some((approved, _)) = &settings.approved {
            for name in approved.contracts().tools().keys() {
                if !tools.iter().any(|tool| tool.name == name.as_str()) {
                    tracing::warn!(
                        tool = name,
                        "BREAKING: the tool was removed since the lockfile"
                    );
                }
            }
        }
        for tool in tools {
            if let Some((approved, on_change)) = &settings.approved {
                let current = Contract::from_definition(&tool);
                let deltas = approved.deltas(&current);
                for delta in &deltas {
                    tracing::warn!(
                        tool = %tool.name,
                        severity = delta.severity.as_str(),
                        path = delta.path,
                        "the contract changed since the lockfile: {}",
                        delta.description
                    );
                }
                if !deltas.is_empty() {
                    match on_change {
                        OnChange::Hide => continue,
                        OnChange::Refuse => {
                            let refusal = Arc::new(self.refusal(&current, deltas));
                            let approved = approved.contracts().tools().get(tool.name.as_ref());
                            unguarded.add_route(ToolRoute::new_dyn(
                                approved_text(tool, approved),
                                move |_: ToolCallContext<'_, Self>| {
                                    let result = (*refusal).clone();
                                    Box::pin(std::future::ready(Ok(result.into())))
                                },
                            ));
                            continue;
                        }
                        OnChange::Aware => {}
                    }
                }
            }
            router.add_route(ToolRoute::new_dyn(
                tool,
                |ctx: ToolCallContext<'_, Self>| Box::pin(forward(ctx)),
            ));
        }
        loop {
            let mut guard = RouterGuard::new()
                .render_options(settings.render.clone())
                .schema_profile(settings.profile)
                .repair(settings.repair)
                .ignore_keys(settings.ignore_keys.clone());
            if let Some((approved, OnChange::Aware)) = &settings.approved {
                guard = guard.known_good(approved.clone());
            }
            if settings.audit {
                guard = guard.audit(true);
            }
            if settings.schema_integers {
                guard = guard.schema_integers();
            }
            for (name, limits) in &settings.limits {
                if router.has_route(name) {
                    guard = guard.tool(name.clone(), *limits);
                }
            }
            match guard.try_guard(router.clone()) {
                Ok(mut guarded) => {
                    guarded.merge(unguarded);
                    return guarded;
                }
                Err(GuardError::Schema { tool, source }) if router.has_route(&tool) => {
                    tracing::warn!(tool, %source, "the tool's input schema cannot be checked: served unguarded");
                    if let Some(route) = router.map.get(tool.as_str()).cloned() {
                        unguarded.add_route(route);
                    }
                    router.remove_route(&tool);
                }
                Err(error) => {
                    tracing::warn!(%error, "the upstream's tools cannot be guarded: served unguarded");
                    router.merge(unguarded);
                    return router;
                }
            }
        }
    }

    /// The answer to every call of a tool whose contract changed since the lockfile: a
    /// `CONTRACT_CHANGED` tool error with a `<contract_awareness>` block of every change, the
    /// new text of a title or a description withheld (it is what awaits review).
    fn refusal(&self, current: &Contract, mut deltas: Vec<Delta>) -> CallToolResult {
        for delta in &mut deltas {
            if is_text(&delta.path) && delta.after.is_some() {
                delta.after = Some(Value::from(WITHHELD));
            }
        }
        let config = AwarenessConfig::default().with_all_severities(true);
        let awareness = Awareness::new(current, deltas, &config);
        let error = ToolError::custom(
            "CONTRACT_CHANGED",
            "This tool's description or schema changed since it was approved, so it is not called.",
        )
        .recovery(
            "Do not call this tool. Tell the user that its contract changed since the lockfile \
             and needs their review; use the other tools meanwhile.",
        );
        let notice = awareness.as_ref().map(|awareness| {
            ContractNotice::new(awareness, &awareness.relevance(&JsonObject::new()))
        });
        let failure = CallFailure::new(&current.name, &error).with_contract(notice);
        call_result(CallOutput::failure(&failure, &self.0.settings.render))
    }

    /// `result` when it keeps the promise of its tool's `outputSchema` (a successful result
    /// has `structuredContent` that validates), else the tool error that says it does not.
    fn check_output(
        &self,
        tool: &str,
        result: CallToolResult,
    ) -> Result<CallToolResult, ToolError> {
        if result.is_error == Some(true) {
            return Ok(result);
        }
        let Some(validator) = self
            .0
            .outputs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
            .cloned()
        else {
            return Ok(result);
        };
        let problem = match &result.structured_content {
            None => "it has no structuredContent".to_owned(),
            Some(structured) => match validator.validate(structured) {
                Ok(()) => return Ok(result),
                Err(error) => cut(
                    &format!("at `{}`: {error}", error.instance_path()),
                    MAX_PROBLEM_CHARS,
                ),
            },
        };
        tracing::warn!(
            tool,
            problem,
            "the upstream's result does not match the tool's output schema"
        );
        Err(ToolError::new(
            ErrorCode::Internal,
            format!("The server behind this tool returned a result that does not match the tool's outputSchema: {problem}."),
        )
        .recovery("Do not rely on this tool's result; tell the user the server returned a malformed result."))
    }

    /// The upstream's tools as it last listed them.
    fn listed(&self) -> Vec<Tool> {
        self.0
            .listed
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The capabilities the upstream is told its client has.
    fn upstream_capabilities(&self) -> ClientCapabilities {
        self.0
            .capabilities
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Takes the capabilities of the first client that declares them (in `initialize`, or in
    /// the `_meta` of its first request on 2026-07-28) as the upstream's client's: what the
    /// proxy relays (sampling, elicitation, roots) and nothing else. An upstream started with
    /// others is started again with these before the request is served, so that the tools
    /// it lists are those it lists to this client.
    ///
    /// A client of 2026-07-28 or later cannot be asked anything by a server (`inline`): the
    /// revision replaces those requests with results that ask for input, which the proxy
    /// does not translate, so the upstream is told of no sampling, elicitation or roots.
    async fn adopt_client(&self, declared: Option<&ClientCapabilities>, inline: bool) {
        let mut adopted = self.0.adopted.lock().await;
        if *adopted {
            return;
        }
        let Some(declared) = declared else { return };
        *adopted = true;
        let relayed = if inline {
            ClientCapabilities::default()
        } else {
            relayed_capabilities(declared)
        };
        if relayed == self.upstream_capabilities() {
            return;
        }
        *self
            .0
            .capabilities
            .write()
            .unwrap_or_else(PoisonError::into_inner) = relayed;
        tracing::info!("the upstream is started again with the client's capabilities");
        self.0.upstream.stop().await;
        if let Err(reason) = self.refresh().await {
            tracing::warn!(reason, "the upstream could not be restarted");
        }
    }

    fn remember_client(&self, peer: &Peer<RoleServer>) {
        let mut client = self
            .0
            .client
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if client.is_none() {
            *client = Some(peer.clone());
        }
    }

    fn client(&self) -> Option<Peer<RoleServer>> {
        self.0
            .client
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The refusal of a call whose text breaks an output policy on one of `tool`'s fields: each
    /// critical violation, and each warning (the proxy has no acknowledgement to wait for), with
    /// the rule's alternative where it has one. `None` lets the call through.
    fn policy_refusal(
        &self,
        tool: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
    ) -> Option<ToolError> {
        let mut found = Vec::new();
        for (_, field, policy) in self.0.settings.policies.iter().filter(|(t, ..)| t == tool) {
            let texts: Vec<(String, &str)> = match arguments.and_then(|a| a.get(field)) {
                Some(Value::String(text)) => vec![(field.clone(), text.as_str())],
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| Some((format!("{field}[{i}]"), item.as_str()?)))
                    .collect(),
                _ => Vec::new(),
            };
            for (path, text) in texts {
                let verdict = check_text(policy, text);
                for violation in verdict
                    .violations_of(RuleSeverity::Critical)
                    .chain(verdict.violations_of(RuleSeverity::Warning))
                {
                    let mut line = format!(
                        "`{path}`: {} ({})",
                        cut(&violation.message, MAX_PROBLEM_CHARS),
                        cut(&violation.rule, MAX_PROBLEM_CHARS)
                    );
                    if let Some(alternative) = &violation.alternative {
                        let _ = write!(
                            line,
                            "; write instead: {}",
                            cut(alternative, MAX_PROBLEM_CHARS)
                        );
                    }
                    found.push(line);
                }
            }
        }
        if found.is_empty() {
            return None;
        }
        tracing::info!(
            tool,
            violations = found.len(),
            "a call held back by an output policy"
        );
        Some(
            ToolError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "The text of this call breaks the output policy: {}.",
                    found.join("; ")
                ),
            )
            .recovery(
                "Rewrite the text named above to follow each rule, then call the tool again.",
            ),
        )
    }

    /// A successful result of `tool` checked against its output policy, as the presenter of a
    /// derived tool checks one: delivered, delivered with advice after it, or withheld behind the
    /// policy's tool error. The text checked is the result's first text block.
    fn police_result(
        &self,
        tool: &str,
        mut result: CallToolResult,
    ) -> Result<CallToolResult, ToolError> {
        let Some(policy) = self.0.settings.result_policies.get(tool) else {
            return Ok(result);
        };
        if result.is_error == Some(true) {
            return Ok(result);
        }
        let Some(text) = result
            .content
            .iter()
            .find_map(|block| block.as_text().map(|text| text.text.clone()))
        else {
            return Ok(result);
        };
        match OutputCheck::check(policy, tool, &text) {
            OutputVerdict::Advise(advice) => {
                result.content.push(rmcp::model::ContentBlock::text(advice));
            }
            OutputVerdict::Flagged(verdict) => {
                let advice = PolicyAdvice::new(&verdict, DELIVERED_WITH_CARE);
                let rendered = guardrails::render::policy_advice(&advice, &self.0.settings.render);
                result
                    .content
                    .push(rmcp::model::ContentBlock::text(rendered));
            }
            OutputVerdict::Block(error) => {
                tracing::info!(tool, "a result withheld by its output policy");
                return Err(error);
            }
            _ => {}
        }
        Ok(result)
    }

    /// The tool error of a call to a tool the proxy does not serve (not listed upstream, or
    /// hidden for a change of contract): the tools there are, and the likeliest meant.
    fn unknown_tool(&self, name: &str, router: &ToolRouter<Self>) -> CallToolResult {
        let name = cut(name, MAX_NAME_CHARS);
        let mut names: Vec<String> = router
            .list_all()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect();
        names.sort();
        let closest = names
            .iter()
            .map(|known| (strsim::jaro_winkler(&name, known), known))
            .filter(|(score, _)| *score >= 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, known)| known.clone());
        let message = match &closest {
            Some(known) => format!("There is no tool named `{name}`. Did you mean `{known}`?"),
            None => format!("There is no tool named `{name}`."),
        };
        let shown: Vec<&str> = names
            .iter()
            .take(MAX_NAMES_SHOWN)
            .map(String::as_str)
            .collect();
        let mut recovery = format!("Call one of the tools there are: {}", shown.join(", "));
        if names.len() > shown.len() {
            let _ = write!(
                recovery,
                " and {} more (list the tools)",
                names.len() - shown.len()
            );
        }
        recovery.push('.');
        tracing::info!(tool = %name, "a call to a tool the proxy does not serve");
        let error = ToolError::new(ErrorCode::NotFound, message).recovery(recovery);
        self.tool_error(&name, &error)
    }

    /// The rendered tool error of `tool`, as a tool result with `isError: true`.
    fn tool_error(&self, tool: &str, error: &ToolError) -> CallToolResult {
        call_result(CallOutput::tool_error(tool, error, &self.0.settings.render))
    }

    /// The upstream's peer, or the reason it cannot be reached.
    async fn upstream(&self) -> Result<Peer<RoleClient>, String> {
        self.0.upstream.peer().await
    }

    /// Runs `request` on the upstream within the call timeout; a protocol error of the
    /// upstream's passes through, any other failure is an internal error naming it.
    async fn relay<T, F>(&self, what: &str, request: F) -> Result<T, ErrorData>
    where
        F: AsyncFnOnce(Peer<RoleClient>) -> Result<T, ServiceError>,
    {
        let peer = self.upstream().await.map_err(|reason| {
            tracing::warn!(what, reason, "upstream unavailable");
            ErrorData::internal_error(
                format!("the upstream server is unavailable: {reason}"),
                None,
            )
        })?;
        match tokio::time::timeout(self.0.settings.timeout, request(peer)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(ServiceError::McpError(error))) => Err(error),
            Ok(Err(error)) => {
                tracing::warn!(what, %error, "the upstream failed");
                Err(ErrorData::internal_error(
                    format!("the upstream server failed: {error}"),
                    None,
                ))
            }
            Err(_) => {
                tracing::warn!(what, "the upstream did not answer in time");
                Err(ErrorData::internal_error(
                    format!(
                        "the upstream server did not answer within {} s",
                        self.0.settings.timeout.as_secs_f64()
                    ),
                    None,
                ))
            }
        }
    }
}

/// A call that passed the guard (or an audited one): forwarded to the upstream, its result
/// returned as it came. A failure to reach the upstream is a tool error the model can read.
async fn forward(ctx: ToolCallContext<'_, Proxy>) -> Result<CallToolResponse, ErrorData> {
    let proxy = ctx.service;
    let name = ctx.name.clone();
    let mut params = CallToolRequestParams::new(name.clone());
    params.arguments = ctx.arguments;
    params.input_responses = ctx.input_responses;
    params.request_state = ctx.request_state;
    // The call's `_meta` goes along (the progress token among it, so that the upstream's
    // progress reaches the client with the client's token), but for the keys of the
    // connection itself (revision, client info, capabilities), which rmcp writes for the
    // upstream's connection.
    let mut meta = ctx.request_context.meta.clone();
    meta.retain(|key, _| !CONNECTION_META_KEYS.contains(&key.as_str()));
    if !meta.is_empty() {
        params.meta = Some(meta);
    }
    if let Some(error) = proxy.policy_refusal(&name, params.arguments.as_ref()) {
        return Ok(proxy.tool_error(&name, &error).into());
    }
    let cancelled = ctx.request_context.ct.clone();
    let timeout = proxy.0.settings.timeout;
    let peer = match proxy.upstream().await {
        Ok(peer) => peer,
        Err(reason) => {
            tracing::warn!(tool = %name, reason, "upstream unavailable");
            let error = ToolError::new(
                ErrorCode::Unavailable,
                format!("The server behind this tool is unavailable: {reason}"),
            )
            .recovery(
                "Call the tool again later; if it keeps failing, tell the user the server is down.",
            );
            return Ok(proxy.tool_error(&name, &error).into());
        }
    };
    let client_token = ctx.request_context.meta.get_progress_token();
    let request =
        rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params));
    let handle = match peer
        .send_request_with_option(request, rmcp::service::PeerRequestOptions::no_options())
        .await
    {
        Ok(handle) => handle,
        Err(error) => {
            return Ok(proxy
                .tool_error(&name, &upstream_failed(&name, &error))
                .into());
        }
    };
    let id = handle.id.clone();
    // rmcp marks the request with a progress token of its own: the upstream's progress on it
    // is the client's, under the client's token, while the call runs.
    let _progress = client_token.map(|token| {
        let client = ctx.request_context.peer.clone();
        ProgressRoute::new(proxy, handle.progress_token.clone(), token, client)
    });
    let call = tokio::time::timeout(timeout, handle.await_response());
    let outcome = tokio::select! {
        outcome = call => outcome.map(|answer| answer.and_then(call_response)),
        () = cancelled.cancelled() => {
            cancel_upstream(&peer, id, "the client cancelled the call").await;
            return Err(ErrorData::internal_error("the call was cancelled", None));
        }
    };
    if outcome.is_err() {
        cancel_upstream(&peer, id, "the call timed out").await;
    }
    let error = match outcome {
        Ok(Ok(CallToolResponse::Complete(result))) => match proxy
            .check_output(&name, result)
            .and_then(|result| proxy.police_result(&name, result))
        {
            Ok(result) => return Ok(CallToolResponse::Complete(result.completed())),
            Err(error) => error,
        },
        Ok(Ok(response)) => return Ok(response.completed()),
        Ok(Err(ServiceError::McpError(error))) => return Err(error),
        Ok(Err(error)) => upstream_failed(&name, &error),
        Err(_) => {
            tracing::warn!(tool = %name, seconds = timeout.as_secs_f64(), "the upstream did not answer the call in time");
            ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "The server behind this tool did not answer within {} s.",
                    timeout.as_secs_f64()
                ),
            )
            .recovery("Call the tool again with a smaller request, or later.")
        }
    };
    Ok(proxy.tool_error(&name, &error).into())
}

/// The tool error of a call the upstream failed other than with a protocol error.
fn upstream_failed(tool: &str, error: &ServiceError) -> ToolError {
    tracing::warn!(tool, %error, "the upstream failed the call");
    ToolError::new(
        ErrorCode::Unavailable,
        format!("The server behind this tool failed: {error}"),
    )
    .recovery("Call the tool again; the server is restarted if it stopped.")
}

/// Tells the upstream that the call `id` is no longer awaited.
async fn cancel_upstream(peer: &Peer<RoleClient>, id: rmcp::model::RequestId, reason: &str) {
    let params = rmcp::model::CancelledNotificationParam::new(Some(id), Some(reason.to_owned()));
    let _ = peer.notify_cancelled(params).await;
}

/// The answer of the upstream to `tools/call`, read as rmcp's `call_tool_once` reads it: a
/// result, a request for input, a task, or a result without content.
fn call_response(result: rmcp::model::ServerResult) -> Result<CallToolResponse, ServiceError> {
    use rmcp::model::ServerResult;
    match result {
        ServerResult::CallToolResult(result) => Ok(CallToolResponse::Complete(result)),
        ServerResult::InputRequiredResult(result) => Ok(CallToolResponse::InputRequired(result)),
        ServerResult::CreateTaskResult(result) => Ok(CallToolResponse::Task(result)),
        ServerResult::EmptyResult(_) => Ok(CallToolResponse::Complete(CallToolResult::success(
            Vec::new(),
        ))),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// While it lives, the upstream's progress on `upstream` reaches the client under `client`.
struct ProgressRoute {
    proxy: Proxy,
    upstream: rmcp::model::ProgressToken,
}

impl ProgressRoute {
    fn new(
        proxy: &Proxy,
        upstream: rmcp::model::ProgressToken,
        token: rmcp::model::ProgressToken,
        client: Peer<RoleServer>,
    ) -> Self {
        proxy
            .0
            .progress
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(upstream.clone(), (token, client));
        Self {
            proxy: proxy.clone(),
            upstream,
        }
    }
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        self.proxy
            .0
            .progress
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.upstream);
    }
}

impl ServerHandler for Proxy {
    fn get_info(&self) -> ServerConfig {
        let info = self.0.upstream.info();
        let mut capabilities = ServerCapabilities::default();
        let mut implementation = Implementation::new("guardrails-proxy", env!("CARGO_PKG_VERSION"));
        let mut instructions = None;
        if let Some(info) = info {
            // What the proxy forwards: tools (guarded), prompts, resources, completions and
            // logging; tasks and extensions are not relayed.
            capabilities.prompts.clone_from(&info.capabilities.prompts);
            capabilities
                .resources
                .clone_from(&info.capabilities.resources);
            capabilities
                .completions
                .clone_from(&info.capabilities.completions);
            capabilities.logging.clone_from(&info.capabilities.logging);
            if let Some(upstream) = &info.server_info {
                implementation = upstream.clone();
            }
            instructions.clone_from(&info.instructions);
        }
        // The tool list follows the upstream's, and changes when its changes.
        let mut tools = ToolsCapability::default();
        tools.list_changed = Some(true);
        capabilities.tools = Some(tools);
        let mut config = ServerConfig::new(capabilities).with_server_info(implementation);
        if let Some(instructions) = instructions {
            config = config.with_instructions(instructions);
        }
        config
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.remember_client(&context.peer);
        self.adopt_client(Some(&request.capabilities), false).await;
        self.negotiate_initialize(&request)
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::DiscoverResult, ErrorData> {
        self.adopt_client(
            context.client_capabilities().as_ref(),
            asks_nothing(&context),
        )
        .await;
        Ok(rmcp::model::DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    #[expect(
        deprecated,
        reason = "logging is relayed for the revisions that have it"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.remember_client(&context.peer);
        let request =
            rmcp::model::ClientRequest::SetLevelRequest(rmcp::model::SetLevelRequest::new(request));
        self.relay("logging/setLevel", async |peer| {
            match peer.send_request(request).await? {
                rmcp::model::ServerResult::EmptyResult(_) => Ok(()),
                _ => Err(ServiceError::UnexpectedResponse),
            }
        })
        .await
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        if let Ok(peer) = self.upstream().await {
            let notification = rmcp::model::ClientNotification::RootsListChangedNotification(
                rmcp::model::RootsListChangedNotification::default(),
            );
            let _ = peer.send_notification(notification).await;
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.remember_client(&context.peer);
        self.adopt_client(
            context.client_capabilities().as_ref(),
            asks_nothing(&context),
        )
        .await;
        let mut result = ListToolsResult::with_all_items(self.router().list_all());
        result.result_type = Some(ResultType::COMPLETE);
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.router().get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.remember_client(&context.peer);
        self.adopt_client(
            context.client_capabilities().as_ref(),
            asks_nothing(&context),
        )
        .await;
        // An upstream that stopped is started again, and its tools listed afresh: a restart
        // may bring other tools.
        if !self.0.upstream.is_running().await
            && let Err(reason) = self.refresh().await
        {
            tracing::warn!(reason, "the upstream could not be restarted");
        }
        let router = self.router();
        if router.get(&request.name).is_none() {
            return Ok(self.unknown_tool(&request.name, &router).into());
        }
        router
            .call(ToolCallContext::new(self, request, context))
            .await
    }

    /// A request rmcp did not read: a method of MCP whose params are malformed is answered
    /// -32602 with what is wrong, and any other method is the upstream's to answer.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        if let Some(reason) = malformed(&request.method, request.params.as_ref()) {
            return Err(ErrorData::invalid_params(reason, None));
        }
        let what = cut(&request.method, MAX_NAME_CHARS);
        let request = rmcp::model::ClientRequest::CustomRequest(request);
        self.relay(&what, async |peer| {
            match peer.send_request(request).await? {
                rmcp::model::ServerResult::CustomResult(result) => Ok(result),
                other => serde_json::to_value(other)
                    .map(rmcp::model::CustomResult)
                    .map_err(|_| ServiceError::UnexpectedResponse),
            }
        })
        .await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.relay("prompts/list", async |peer| {
            peer.list_prompts(request).await.map(Completed::completed)
        })
        .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.relay("prompts/get", async |peer| {
            peer.get_prompt_once(request)
                .await
                .map(Completed::completed)
        })
        .await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.relay("resources/list", async |peer| {
            peer.list_resources(request).await.map(Completed::completed)
        })
        .await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.relay("resources/templates/list", async |peer| {
            peer.list_resource_templates(request)
                .await
                .map(Completed::completed)
        })
        .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.relay("resources/read", async |peer| {
            peer.read_resource_once(request)
                .await
                .map(Completed::completed)
        })
        .await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.relay("completion/complete", async |peer| {
            peer.complete(request).await.map(Completed::completed)
        })
        .await
    }

    #[expect(
        deprecated,
        reason = "the upstreams of the proxy speak the revisions that have it"
    )]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.remember_client(&context.peer);
        self.relay("resources/subscribe", async |peer| {
            peer.subscribe(request).await
        })
        .await
    }

    #[expect(
        deprecated,
        reason = "the upstreams of the proxy speak the revisions that have it"
    )]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.relay("resources/unsubscribe", async |peer| {
            peer.unsubscribe(request).await
        })
        .await
    }

    async fn on_progress(
        &self,
        _notification: ProgressNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
    }
}

/// A result relayed from an upstream, marked complete when the upstream did not say.
///
/// An upstream that speaks a revision before 2026-07-28 writes no `resultType`, which a
/// client of that revision requires; rmcp strips it again for a client of an older one.
trait Completed {
    fn completed(self) -> Self;
}

macro_rules! completed {
    ($($result:ty),*) => {$(
        impl Completed for $result {
            fn completed(mut self) -> Self {
                self.result_type.get_or_insert(ResultType::COMPLETE);
                self
            }
        }
    )*};
}

completed!(
    CallToolResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    CompleteResult,
    rmcp::model::GetPromptResult,
    rmcp::model::ReadResourceResult
);

impl Completed for CallToolResponse {
    fn completed(self) -> Self {
        match self {
            Self::Complete(result) => Self::Complete(result.completed()),
            other => other,
        }
    }
}

impl Completed for GetPromptResponse {
    fn completed(self) -> Self {
        match self {
            Self::Complete(result) => Self::Complete(result.completed()),
            other => other,
        }
    }
}

impl Completed for ReadResourceResponse {
    fn completed(self) -> Self {
        match self {
            Self::Complete(result) => Self::Complete(result.completed()),
            other => other,
        }
    }
}

/// The upstream server: a child process, started on demand and again after it stops.
struct Upstream {
    proxy: Weak<Inner>,
    command: Vec<OsString>,
    /// The URL of an upstream that serves Streamable HTTP, reached instead of a command.
    url: Option<String>,
    /// How long the upstream may take to answer `initialize`.
    timeout: Duration,
    state: tokio::sync::Mutex<Option<RunningService<RoleClient, UpstreamClient>>>,
    /// What the upstream said of itself when it last started.
    info: RwLock<Option<Arc<rmcp::model::ServerPeerInfo>>>,
}

impl Upstream {
    /// Whether the child process is running and its connection open.
    async fn is_running(&self) -> bool {
        self.state
            .lock()
            .await
            .as_ref()
            .is_some_and(|service| !service.is_closed() && !service.peer().is_transport_closed())
    }

    /// The upstream's peer, starting the process when it is not running.
    async fn peer(&self) -> Result<Peer<RoleClient>, String> {
        let mut state = self.state.lock().await;
        if let Some(service) = &*state {
            if !service.is_closed() && !service.peer().is_transport_closed() {
                return Ok(service.peer().clone());
            }
            tracing::warn!("the upstream server stopped; starting it again");
        }
        let service = self.start().await?;
        let peer = service.peer().clone();
        *self.info.write().unwrap_or_else(PoisonError::into_inner) = peer.peer_info();
        *state = Some(service);
        Ok(peer)
    }

    async fn start(&self) -> Result<RunningService<RoleClient, UpstreamClient>, String> {
        let client = UpstreamClient {
            proxy: self.proxy.clone(),
        };
        if let Some(url) = &self.url {
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            return match tokio::time::timeout(self.timeout, client.serve(transport)).await {
                Ok(Ok(service)) => Ok(service),
                Ok(Err(error)) => Err(format!("{url} did not answer as an MCP server: {error}")),
                Err(_) => Err(format!(
                    "{url} did not answer `initialize` within {} s",
                    self.timeout.as_secs_f64()
                )),
            };
        }
        let (program, args) = self
            .command
            .split_first()
            .ok_or_else(|| "no upstream command".to_owned())?;
        let mut command = tokio::process::Command::new(program);
        // A child that is let go (it did not start in time, or the proxy is leaving) is
        // killed at once: rmcp kills it from a task, which a runtime that is shutting down
        // never runs.
        command.args(args).kill_on_drop(true);
        let shown = program.to_string_lossy().into_owned();
        // The upstream's own log lines go where the proxy's go.
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .map_err(|error| format!("cannot start `{shown}`: {error}"))?;
        match tokio::time::timeout(self.timeout, client.serve(transport)).await {
            Ok(Ok(service)) => Ok(service),
            Ok(Err(error)) => Err(format!("`{shown}` did not start as an MCP server: {error}")),
            Err(_) => Err(format!(
                "`{shown}` did not answer `initialize` within {} s",
                self.timeout.as_secs_f64()
            )),
        }
    }

    /// What the upstream said of itself when it started.
    fn info(&self) -> Option<Arc<rmcp::model::ServerPeerInfo>> {
        self.info
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    async fn stop(&self) {
        if let Some(mut service) = self.state.lock().await.take() {
            let _ = service.close().await;
        }
    }
}

/// The proxy as the upstream's client: its notifications reach the proxy's client.
struct UpstreamClient {
    proxy: Weak<Inner>,
}

impl UpstreamClient {
    fn proxy(&self) -> Option<Proxy> {
        self.proxy.upgrade().map(Proxy)
    }

    fn client(&self) -> Option<Peer<RoleServer>> {
        self.proxy()?.client()
    }
}

impl UpstreamClient {
    /// Sends the upstream's `request` to the client and returns the client's answer; a client
    /// that is not connected, or that cannot be asked, is the error the upstream receives.
    async fn ask_client(
        &self,
        request: rmcp::model::ServerRequest,
    ) -> Result<rmcp::model::ClientResult, ErrorData> {
        let Some(client) = self.client() else {
            return Err(ErrorData::internal_error(
                "no client is connected to the proxy",
                None,
            ));
        };
        match client.send_request(request).await {
            Ok(result) => Ok(result),
            Err(ServiceError::McpError(error)) => Err(error),
            Err(error) => Err(ErrorData::internal_error(
                format!("the client could not be asked: {error}"),
                None,
            )),
        }
    }
}

/// `result` when it is the variant `$variant` of `ClientResult`, else an internal error.
macro_rules! answer {
    ($result:expr, $variant:ident) => {
        match $result? {
            rmcp::model::ClientResult::$variant(result) => Ok(result),
            _ => Err(ErrorData::internal_error(
                "the client answered with another kind of result",
                None,
            )),
        }
    };
}

#[expect(
    deprecated,
    reason = "sampling, roots and logging are relayed for the revisions that have them"
)]
impl ClientHandler for UpstreamClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let capabilities = self
            .proxy()
            .map(|proxy| proxy.upstream_capabilities())
            .unwrap_or_default();
        rmcp::model::ClientConfig::new(
            capabilities,
            Implementation::new("guardrails-proxy", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn ping(&self, _context: RequestContext<RoleClient>) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, ErrorData> {
        let request = rmcp::model::ServerRequest::CreateMessageRequest(
            rmcp::model::CreateMessageRequest::new(params),
        );
        answer!(self.ask_client(request).await, CreateMessageResult).map(|result| *result)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, ErrorData> {
        let request =
            rmcp::model::ServerRequest::ListRootsRequest(rmcp::model::ListRootsRequest::default());
        answer!(self.ask_client(request).await, ListRootsResult)
    }

    async fn create_elicitation(
        &self,
        params: rmcp::model::ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, ErrorData> {
        let request =
            rmcp::model::ServerRequest::ElicitRequest(rmcp::model::ElicitRequest::new(params));
        answer!(self.ask_client(request).await, ElicitResult)
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(client) = self.client() {
            let notification = rmcp::model::ServerNotification::LoggingMessageNotification(
                rmcp::model::LoggingMessageNotification::new(params),
            );
            let _ = client.send_notification(notification).await;
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let Some(proxy) = self.proxy() else { return };
        // Listed from another task: the notification handler must not wait on the upstream.
        tokio::spawn(async move {
            if let Err(reason) = proxy.refresh().await {
                tracing::warn!(reason, "the upstream's new tool list could not be read");
                return;
            }
            if let Some(client) = proxy.client() {
                let _ = client.notify_tool_list_changed().await;
            }
        });
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(client) = self.client() {
            let _ = client.notify_prompt_list_changed().await;
        }
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(client) = self.client() {
            let _ = client.notify_resource_list_changed().await;
        }
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(client) = self.client() {
            let _ = client.notify_resource_updated(params).await;
        }
    }

    async fn on_progress(
        &self,
        mut params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(proxy) = self.proxy() else { return };
        // Progress of a call the client made, under the client's token; any other is the
        // proxy's own business (the client has no token for it).
        let Some((token, client)) = proxy
            .0
            .progress
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&params.progress_token)
            .cloned()
        else {
            return;
        };
        params.progress_token = token;
        let _ = client.notify_progress(params).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_numbers_are_read_from_the_right() {
        assert_eq!(tool_number("search=20"), Ok(("search".to_owned(), 20)));
        assert_eq!(tool_number("a=b=3"), Ok(("a=b".to_owned(), 3)));
        assert!(tool_number("search").is_err());
        assert!(tool_number("=3").is_err());
        assert!(tool_number("search=-1").is_err());
    }

    fn parsed(arguments: &[&str]) -> ProxyArgs {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Command {
            #[command(flatten)]
            proxy: ProxyArgs,
        }
        Command::try_parse_from(std::iter::once("proxy").chain(arguments.iter().copied()))
            .unwrap()
            .proxy
    }

    #[test]
    fn a_config_file_sets_what_the_command_line_does_not() {
        let folder =
            std::env::temp_dir().join(format!("guardrails-proxy-config-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let file = folder.join("proxy.toml");
        std::fs::write(
            &file,
            r#"
repair = "including-destructive"
ignore_keys = ["_*", "trace_id"]

[tools.search]
agent_limit = 50
max_bytes = 2000

[tools.fetch]
max_tokens = 300
result_policy = "results.toml"
policies = { body = "prose.toml", title = "titles.toml" }
"#,
        )
        .unwrap();
        let config = file.to_str().unwrap();
        let mut args = parsed(&[
            "--config",
            config,
            "--agent-limit",
            "search=5",
            "--policy",
            "fetch.title=mine.toml",
            "--ignore-keys",
            "session_id",
            "--",
            "server",
        ]);
        args.merge_config().unwrap();
        assert_eq!(args.repair, Some(Repair::IncludingDestructive));
        assert_eq!(args.ignore_keys, ["_*", "trace_id", "session_id"]);
        let ignored = ignored_keys(&args.ignore_keys);
        assert!(ignored.matches("_client") && ignored.matches("trace_id"));
        assert!(ignored.matches("session_id") && !ignored.matches("trace"));

        // The file's settings come first; a later one replaces an earlier one.
        assert_eq!(
            args.agent_limits,
            [("search".to_owned(), 50), ("search".to_owned(), 5)]
        );
        assert_eq!(args.max_bytes, [("search".to_owned(), 2000)]);
        assert_eq!(args.max_tokens, [("fetch".to_owned(), 300)]);
        assert_eq!(
            args.result_policies,
            [("fetch".to_owned(), folder.join("results.toml"))]
        );
        assert_eq!(
            args.policies,
            [
                (
                    "fetch".to_owned(),
                    "body".to_owned(),
                    folder.join("prose.toml")
                ),
                (
                    "fetch".to_owned(),
                    "title".to_owned(),
                    PathBuf::from("mine.toml")
                ),
            ]
        );

        // The command line's `--repair` wins over the file's; alone it is `on`.
        let mut args = parsed(&["--config", config, "--repair", "--", "server"]);
        args.merge_config().unwrap();
        assert_eq!(args.repair, Some(Repair::On));

        std::fs::write(&file, "[tools.search]\nagent_limt = 5\n").unwrap();
        let error = parsed(&["--config", config, "--", "server"])
            .merge_config()
            .unwrap_err();
        assert!(
            error.0.contains("unknown field `agent_limt`"),
            "{}",
            error.0
        );
        assert!(error.0.contains("agent_limit"), "{}", error.0);

        std::fs::remove_dir_all(&folder).unwrap();
        let error = parsed(&["--config", config, "--", "server"])
            .merge_config()
            .unwrap_err();
        assert!(
            error.0.starts_with(&format!("cannot read {config}")),
            "{}",
            error.0
        );
    }

    #[test]
    fn the_readmes_config_file_reads() {
        let readme = include_str!("../../../../README.md");
        let start = readme
            .find("Per-tool settings for many tools")
            .expect("the README shows a config file");
        let block = readme[start..]
            .split("```toml\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .expect("a TOML block");
        let config: ConfigFile = toml::from_str(block).unwrap();
        assert_eq!(config.tools.len(), 3);
        assert_eq!(config.tools["search_files"].max_tokens, Some(4000));
        assert_eq!(config.tools["write_file"].policies.len(), 1);
    }

    #[test]
    fn seconds_are_positive_and_finite() {
        assert_eq!(seconds("1.5"), Ok(1.5));
        assert!(seconds("0").is_err());
        assert!(seconds("inf").is_err());
        assert!(seconds("NaN").is_err());
    }
}
