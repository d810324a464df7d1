//! A server of guarded tools on a shared state: the registry, the one entry point of every
//! call, and the known-good contracts that make errors of changed tools self-healing. No
//! transport lives here: [`Server::call`] runs a call in process, and the rmcp adapter
//! ([`crate::mcp`], feature `rmcp`) serves the same server over stdio or Streamable HTTP.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::call::{GuardConfig, Served, Tool, Who};
use crate::contract::{Contract, ContractSource, ServerContract};
use crate::operate::{Caller, Operations, ToolFacts, ToolTelemetry};
use crate::profile::SchemaProfile;
use crate::text::cut;
use crate::tool::{CallOutput, CallSettings, ToolSpec};

/// The most characters of an unknown tool's name that an error echoes back.
const MAX_TOOL_NAME_CHARS: usize = 64;

/// The name, version and texts a server announces when a client connects.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) instructions: Option<String>,
}

/// A registered tool and how its calls are answered.
pub(crate) struct Entry<S> {
    pub(crate) tool: Arc<dyn Tool<S>>,
    /// The server's render options and, when the tool changed since the known-good lockfile,
    /// its contract awareness.
    pub(crate) settings: CallSettings,
    /// The tool's name and the keys of its metrics, built once.
    pub(crate) telemetry: Arc<ToolTelemetry>,
}

impl<S> Clone for Entry<S> {
    fn clone(&self) -> Self {
        Self {
            tool: Arc::clone(&self.tool),
            settings: self.settings.clone(),
            telemetry: Arc::clone(&self.telemetry),
        }
    }
}

pub(crate) struct ToolSet<S> {
    pub(crate) entries: Vec<Entry<S>>,
    pub(crate) by_name: HashMap<&'static str, usize>,
}

impl<S> Clone for ToolSet<S> {
    fn clone(&self) -> Self {
        Self {
            entries: self.entries.clone(),
            by_name: self.by_name.clone(),
        }
    }
}

/// A call to a tool that no server tool has the name of.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool: {name}")]
#[non_exhaustive]
pub struct UnknownTool {
    /// The name called, cut to a bounded length (it comes from the caller).
    pub name: String,
    /// The names of the server's tools.
    pub available: Vec<&'static str>,
}

/// A server of guarded tools on a shared state.
///
/// Cloning is cheap (the state and the tools are shared), which is what the HTTP transport does
/// for each session.
///
/// ```no_run
/// # use guardrails::{Server, ToolArgs, tool};
/// # #[derive(serde::Deserialize, ToolArgs)] struct Ping {}
/// # /// Replies.
/// # #[tool] fn ping(_args: Ping) -> String { "pong".into() }
/// # struct AppState;
/// # impl AppState { fn seeded() -> Self { AppState } }
/// # async fn serve() -> std::io::Result<()> {
/// Server::new(AppState::seeded())
///     .name(env!("CARGO_PKG_NAME"))
///     .version(env!("CARGO_PKG_VERSION"))
///     .tool(ping)
///     .serve_stdio()
///     .await
/// # }
/// ```
pub struct Server<S> {
    pub(crate) state: Arc<S>,
    pub(crate) tools: Arc<ToolSet<S>>,
    pub(crate) identity: Arc<Identity>,
    /// The guardrails of every call: rendering, audit, repair, ignored keys, the loop breaker,
    /// rate limits, known-good contracts, the schema profile, the state store.
    config: GuardConfig,
    /// Whether structured results are checked against their output schema.
    check_outputs: bool,
    /// The clients (by the start of their name, lowercase) served another schema profile
    /// than the configuration's.
    profiles_by_client: Arc<Vec<(String, SchemaProfile)>>,
    /// The loop breaker's memory, the rate limits' state and the rejections waiting for
    /// their repair, shared by the clones that serve each session.
    operations: Arc<Operations>,
}

impl<S> Clone for Server<S> {
    fn clone(&self) -> Self {
        Self {
            state: Arc::clone(&self.state),
            tools: Arc::clone(&self.tools),
            identity: Arc::clone(&self.identity),
            config: self.config.clone(),
            check_outputs: self.check_outputs,
            profiles_by_client: Arc::clone(&self.profiles_by_client),
            operations: Arc::clone(&self.operations),
        }
    }
}

impl<S: 'static> fmt::Debug for Server<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.specs().map(ToolSpec::name).collect();
        f.debug_struct("Server")
            .field("identity", &self.identity)
            .field("tools", &names)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<S: 'static> Server<S> {
    /// The specs of the tools, in the order they were added (for
    /// [`assert_lockfile`](crate::contract::assert_lockfile)).
    pub fn specs(&self) -> impl Iterator<Item = &'static ToolSpec> + '_ {
        self.tools.entries.iter().map(|e| e.tool.spec())
    }
}

impl<S: Send + Sync + 'static> Server<S> {
    /// A server with no tools on `state`. It announces itself as `guardrails-server`; set your
    /// own name and version with [`Server::name`] and [`Server::version`].
    pub fn new(state: S) -> Self {
        Self::from_arc(Arc::new(state))
    }

    /// Like [`Server::new`], for a state that is already shared.
    pub fn from_arc(state: Arc<S>) -> Self {
        Self {
            state,
            tools: Arc::new(ToolSet {
                entries: Vec::new(),
                by_name: HashMap::new(),
            }),
            identity: Arc::new(Identity {
                name: "guardrails-server".to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                title: None,
                instructions: None,
            }),
            config: GuardConfig::default(),
            check_outputs: cfg!(debug_assertions),
            profiles_by_client: Arc::default(),
            operations: Arc::default(),
        }
        .operate()
    }

    /// Adds a tool.
    ///
    /// Clients list the tools (`tools/list`) in the order they were added, the same on every
    /// call: the order is the author's (put the tools a model should consider first first),
    /// and a client that caches or compares the list sees no change that is not one.
    ///
    /// # Panics
    /// When a tool of the same name was added before: two tools cannot share a name, and
    /// finding out at startup beats serving the wrong one. When the tool's own example fails
    /// its validation (a `custom` or struct-level `check` rejects it, see
    /// [`ToolArgs::checked_example`](crate::ToolArgs::checked_example)): every rejection would
    /// tell the model to start from a call that is rejected again. The message names the tool
    /// and each issue; give an explicit example that passes (`#[guard(example = ..)]` on the
    /// field, or on the struct).
    #[must_use]
    pub fn tool<T: Tool<S>>(mut self, tool: T) -> Self {
        let spec = tool.spec();
        if let Some(report) = spec.example_rejection() {
            panic!("{}", example_refusal(spec, &report));
        }
        let settings = self.settings_of(spec);
        let set = Arc::make_mut(&mut self.tools);
        assert!(
            !set.by_name.contains_key(spec.name()),
            "two tools are named `{}`",
            spec.name()
        );
        set.by_name.insert(spec.name(), set.entries.len());
        set.entries.push(Entry {
            tool: Arc::new(tool),
            settings,
            telemetry: Arc::new(ToolTelemetry::new(spec.name())),
        });
        self.operate()
    }

    /// Sets the name announced to clients.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.identity).name = name.into();
        self
    }

    /// Sets the version announced to clients.
    #[must_use]
    pub fn version(mut self, version: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.identity).version = version.into();
        self
    }

    /// Sets the human-readable title announced to clients.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.identity).title = Some(title.into());
        self
    }

    /// Sets the instructions given to clients when they connect.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.identity).instructions = Some(instructions.into());
        self
    }

    /// The shared state.
    #[must_use]
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The names of the tools, in the order they were added.
    pub(crate) fn tool_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.specs().map(ToolSpec::name)
    }

    /// The spec of the tool named `name`.
    #[must_use]
    pub fn spec(&self, name: &str) -> Option<&'static ToolSpec> {
        let &index = self.tools.by_name.get(name)?;
        Some(self.tools.entries[index].tool.spec())
    }

    /// Calls a tool in process, without a transport: the same pipeline a client's call runs.
    ///
    /// The arguments are any JSON value: a `json!({…})` as it is, or the map of a transport.
    /// An object is validated as the tool's arguments; `null` stands for no arguments, as an
    /// absent `arguments` does in MCP; anything else is rejected like any invalid arguments
    /// (an `isError` result that says an object is expected), never a panic.
    ///
    /// ```
    /// # use guardrails::{Server, ToolArgs, tool};
    /// #[derive(serde::Deserialize, ToolArgs)]
    /// struct Greet {
    ///     name: String,
    /// }
    ///
    /// /// Greets someone.
    /// #[tool]
    /// fn greet(args: Greet) -> String {
    ///     format!("Hello, {}!", args.name)
    /// }
    ///
    /// # fn main() -> Result<(), guardrails::UnknownTool> {
    /// # let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # runtime.block_on(async {
    /// let server = Server::new(()).tool(greet);
    /// let output = server.call("greet", serde_json::json!({"name": "Ada"})).await?;
    /// assert_eq!(output.text, ["Hello, Ada!"]);
    /// let rejected = server.call("greet", serde_json::json!(["Ada"])).await?;
    /// assert!(rejected.is_error);
    /// # Ok(()) })
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`UnknownTool`] when no tool has this name (a transport answers it as an invalid-params
    /// error).
    pub async fn call(
        &self,
        name: &str,
        arguments: impl Into<Value>,
    ) -> Result<CallOutput, UnknownTool> {
        self.call_from(name, arguments.into(), None, None).await
    }

    /// [`Server::call`] by `caller`, as far as the transport says who calls: the loop breaker
    /// remembers rejected calls per caller, and repairs are counted per caller. `reading`:
    /// the portable schema a call of a client served the openai profile is read against.
    pub(crate) async fn call_from(
        &self,
        name: &str,
        arguments: Value,
        caller: Caller,
        reading: Option<&Map<String, Value>>,
    ) -> Result<CallOutput, UnknownTool> {
        let Some(&index) = self.tools.by_name.get(name) else {
            return Err(self.unknown(name));
        };
        let entry = &self.tools.entries[index];
        let spec = entry.tool.spec();
        let hints = spec.annotations();
        let facts = ToolFacts {
            telemetry: &entry.telemetry,
            schema: spec.input_schema().as_value(),
            example: spec.example(),
            repeatable: hints.idempotent == Some(true) || hints.read_only == Some(true),
            format: self.config.render.format,
            echo_values: entry.settings.render.echo_values,
        };
        let served = Served::operated(&entry.settings, &self.operations, facts, Who::Known(caller))
            .read_against(reading);
        Ok(entry.tool.call(&self.state, arguments, &served).await)
    }

    pub(crate) fn unknown(&self, name: &str) -> UnknownTool {
        UnknownTool {
            name: cut(name, MAX_TOOL_NAME_CHARS).into_owned(),
            available: self.tool_names().collect(),
        }
    }

    /// Checks every structured result against the tool's advertised output schema (the MCP
    /// specification says a server MUST return results that conform to it): a result that
    /// does not becomes an `INTERNAL` tool error naming the path where it breaks the schema,
    /// so that the tool's tests fail rather than a client that validates results.
    ///
    /// On by default in debug builds, and so in tests; off by default in release builds, where
    /// it then costs nothing. Each tool's validator is compiled once. A result cut by the
    /// agent limit or the byte cap is checked too: the envelope `{"items", "shown", "total"}`
    /// is what the schema describes.
    ///
    /// ```
    /// let server = guardrails::Server::new(()).check_output_schemas(true);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn check_output_schemas(mut self, on: bool) -> Self {
        self.check_outputs = on;
        self.refresh()
    }

    /// Advertises the tools' schemas in `profile` to the clients whose name (the `clientInfo`
    /// they give when they connect) starts with `client_name`, compared without case; the
    /// first match of several wins. A client that gives no name gets the server's profile.
    /// Under [`SchemaProfile::OpenAi`], a `null` such a client sends for an optional property
    /// that does not accept `null` is read as the property left out.
    ///
    /// ```
    /// use guardrails::profile::SchemaProfile;
    ///
    /// let server = guardrails::Server::new(())
    ///     .schema_profile_for_client("gemini-cli", SchemaProfile::Gemini);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn schema_profile_for_client(
        mut self,
        client_name: impl Into<String>,
        profile: SchemaProfile,
    ) -> Self {
        Arc::make_mut(&mut self.profiles_by_client)
            .push((client_name.into().to_lowercase(), profile));
        self
    }

    #[cfg(feature = "rmcp")]
    /// Whether some client may be served a profile under which calls are read (`null` as left
    /// out): a valid call of any other server pays nothing for profiles.
    pub(crate) fn may_read_openai_calls(&self) -> bool {
        self.config.profile.null_is_absent()
            || self
                .profiles_by_client
                .iter()
                .any(|(_, p)| p.null_is_absent())
    }

    #[cfg(feature = "rmcp")]
    /// The profile the tools are advertised in to a client of this name.
    pub(crate) fn profile_for(&self, client_name: Option<&str>) -> SchemaProfile {
        let Some(name) = client_name else {
            return self.config.profile;
        };
        self.profiles_by_client
            .iter()
            .find(|(prefix, _)| {
                name.len() >= prefix.len()
                    && name.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
            })
            .map_or(self.config.profile, |(_, profile)| *profile)
    }

    /// Sets the guardrails of every call: the format of messages, audit mode, repairs, ignored
    /// keys, the loop breaker, rate limits, known-good contracts, the schema profile and the
    /// state store, all in one [`GuardConfig`] (see its methods for what each does), the
    /// configuration a [`RouterGuard`](crate::mcp::RouterGuard) and the proxy take too. A
    /// second call replaces the first. Forgets the state kept so far (the loop breaker's
    /// memory, the rate limits' counts).
    ///
    /// ```
    /// use guardrails::{GuardConfig, RepairPolicy, Server};
    ///
    /// let server = Server::new(()).config(GuardConfig::new().repair(RepairPolicy::On));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn config(mut self, config: GuardConfig) -> Self {
        self.config = config;
        self.operate().refresh()
    }

    /// Builds the operations layer anew from the tools and the settings: memory and limits
    /// start empty.
    fn operate(mut self) -> Self {
        let per_tool = self
            .specs()
            .filter_map(|spec| Some((spec.name(), spec.rate_limit()?)));
        self.operations = Arc::new(self.config.operations(per_tool));
        self
    }

    /// How the calls of the tool `spec` are answered under the current options.
    fn settings_of(&self, spec: &ToolSpec) -> CallSettings {
        let contract = self
            .config
            .known_good
            .as_ref()
            .and_then(|k| k.awareness(&Contract::from_spec(spec), &self.config.awareness));
        self.config
            .settings(self.config.render.clone(), contract, self.check_outputs)
    }

    /// Rebuilds every tool's settings after the options or the known-good contracts changed.
    fn refresh(mut self) -> Self {
        let settings: Vec<CallSettings> = self
            .tools
            .entries
            .iter()
            .map(|e| self.settings_of(e.tool.spec()))
            .collect();
        let set = Arc::make_mut(&mut self.tools);
        for (entry, settings) in set.entries.iter_mut().zip(settings) {
            entry.settings = settings;
        }
        self
    }
}

/// Why a server refuses the tool `spec`, whose own example `report` rejects.
fn example_refusal(spec: &ToolSpec, report: &crate::validation::Report) -> String {
    let example = serde_json::to_string(spec.built_example()).unwrap_or_default();
    let mut out = format!(
        "the example of tool `{}` fails its own validation, so every rejection would show a call that is rejected again: {}",
        spec.name(),
        cut(&example, 400)
    );
    for issue in report.issues() {
        let at = if issue.path.is_empty() {
            "(arguments)"
        } else {
            &issue.path
        };
        let _ = write!(out, "\n  {at}: {}", issue.message);
    }
    out.push_str("\ngive an explicit example that passes: `#[guard(example = ..)]` on the field, or on the struct with the fields it sets as a JSON object");
    out
}

impl<S: 'static> ContractSource for Server<S> {
    fn server_contract(&self) -> ServerContract {
        ServerContract::from_specs(self.specs()).with_schema_profile(self.config.profile)
    }
}
