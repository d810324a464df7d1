//! The rmcp adapter (feature `rmcp`, on by default): guarded tools served by the official MCP
//! SDK. No protocol code lives here; this module only maps between the pipeline and rmcp.
//!
//! Two ways in:
//!
//! - [`Server`]: a ready `ServerHandler` from a state and a list of tools, with helpers to serve
//!   it over stdio or Streamable HTTP.
//! - [`route`] / [`GuardedRoutes`]: guarded tools as routes of an rmcp `ToolRouter`, next to
//!   native rmcp `#[tool]` methods.
//!
//! What the client sees: invalid arguments, handler errors and panics are tool results with
//! `isError: true` (MCP 2025-11-25: the model must be able to read them); an unknown tool is a
//! JSON-RPC error -32602; an unknown method is -32601, as rmcp answers by default.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ResultType, ServerCapabilities, ServerConfig, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

use crate::render::{RenderFormat, RenderOptions};
use crate::tool::{CallOutput, Tool, ToolSpec};
use crate::validation::cut;

/// The MCP definition of a tool: name, title, description, annotations, `inputSchema` from its
/// arguments type and `outputSchema` when its output type provides one.
#[must_use]
pub fn definition(spec: &ToolSpec) -> rmcp::model::Tool {
    let input: JsonObject = spec.input_schema().as_object().cloned().unwrap_or_default();
    let mut tool = rmcp::model::Tool::new(spec.name(), spec.description(), Arc::new(input));
    if let Some(title) = spec.title() {
        tool = tool.with_title(title);
    }
    let hints = spec.annotations();
    if !hints.is_empty() || spec.title().is_some() {
        tool = tool.with_annotations(ToolAnnotations::from_raw(
            spec.title().map(str::to_owned),
            hints.read_only,
            hints.destructive,
            hints.idempotent,
            hints.open_world,
        ));
    }
    if let Some(schema) = spec.output_schema() {
        tool = tool.with_raw_output_schema(Arc::new(schema.clone()));
    }
    tool
}

/// The MCP result of a call's output.
#[must_use]
pub fn call_result(output: CallOutput) -> CallToolResult {
    let content = output.text.into_iter().map(ContentBlock::text).collect();
    let mut result = if output.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = output.structured;
    result
}

/// The JSON-RPC error for a call to a tool that does not exist (-32602).
fn unknown_tool(name: &str, known: &[&str]) -> ErrorData {
    // The name comes from the caller: cut it before echoing it.
    let name = cut(name, 64, false);
    ErrorData::invalid_params(
        format!("unknown tool: {name}"),
        Some(json!({ "tool": name, "available": known })),
    )
}

/// A guarded tool as a route of an rmcp `ToolRouter<S>`, rendering errors as XML tags.
///
/// ```ignore
/// let router = Self::tool_router() + ToolRouter::new().with_route(guardrails::mcp::route(create_task));
/// ```
pub fn route<S, T>(tool: T) -> ToolRoute<S>
where
    S: Send + Sync + 'static,
    T: Tool<S>,
{
    route_with(tool, RenderOptions::default())
}

/// Like [`route`], with the given render options.
pub fn route_with<S, T>(tool: T, options: RenderOptions) -> ToolRoute<S>
where
    S: Send + Sync + 'static,
    T: Tool<S>,
{
    let definition = definition(tool.spec());
    let shared = Arc::new((tool, options));
    ToolRoute::new_dyn(definition, move |ctx: ToolCallContext<'_, S>| {
        let shared = Arc::clone(&shared);
        Box::pin(async move {
            let (tool, options) = &*shared;
            let arguments = ctx.arguments.unwrap_or_default();
            let output = tool.call(ctx.service, arguments, options).await;
            Ok(call_result(output).into())
        })
    })
}

/// Adds guarded tools to an rmcp `ToolRouter`, next to its native `#[tool]` methods.
///
/// ```ignore
/// use guardrails::mcp::GuardedRoutes as _;
/// let router = Self::tool_router().with_guarded(create_task).with_guarded(list_tasks);
/// ```
pub trait GuardedRoutes<S> {
    /// Adds `tool`, replacing a route of the same name.
    #[must_use]
    fn with_guarded<T: Tool<S>>(self, tool: T) -> Self;
}

impl<S: Send + Sync + 'static> GuardedRoutes<S> for ToolRouter<S> {
    fn with_guarded<T: Tool<S>>(mut self, tool: T) -> Self {
        self.add_route(route(tool));
        self
    }
}

/// The name, version and texts a server announces in `initialize`.
#[derive(Debug, Clone)]
struct Identity {
    name: String,
    version: String,
    title: Option<String>,
    instructions: Option<String>,
}

/// A registered tool: the tool and its MCP definition, built once.
struct Entry<S> {
    tool: Arc<dyn Tool<S>>,
    definition: rmcp::model::Tool,
    /// Contract awareness: set only when the tool changed since the known-good lockfile.
    contract: Option<crate::contract::Awareness>,
}

impl<S> Clone for Entry<S> {
    fn clone(&self) -> Self {
        Self {
            tool: Arc::clone(&self.tool),
            definition: self.definition.clone(),
            contract: self.contract.clone(),
        }
    }
}

struct ToolSet<S> {
    entries: Vec<Entry<S>>,
    by_name: HashMap<&'static str, usize>,
}

impl<S> Clone for ToolSet<S> {
    fn clone(&self) -> Self {
        Self {
            entries: self.entries.clone(),
            by_name: self.by_name.clone(),
        }
    }
}

/// An MCP server of guarded tools on a shared state: an rmcp `ServerHandler`, ready to serve.
///
/// Cloning is cheap (the state and the tools are shared), which is what the HTTP transport does
/// for each session.
///
/// ```ignore
/// Server::new(AppState::seeded())
///     .name(env!("CARGO_PKG_NAME"))
///     .version(env!("CARGO_PKG_VERSION"))
///     .tool(create_task)
///     .tool(list_tasks)
///     .serve_stdio()
///     .await?;
/// ```
pub struct Server<S> {
    state: Arc<S>,
    tools: Arc<ToolSet<S>>,
    identity: Arc<Identity>,
    options: RenderOptions,
    /// The contracts clients were calibrated on, and which deltas errors carry.
    known_good: (
        Option<crate::contract::KnownGood>,
        crate::contract::AwarenessConfig,
    ),
}

impl<S> Clone for Server<S> {
    fn clone(&self) -> Self {
        Self {
            state: Arc::clone(&self.state),
            tools: Arc::clone(&self.tools),
            identity: Arc::clone(&self.identity),
            options: self.options.clone(),
            known_good: self.known_good.clone(),
        }
    }
}

impl<S: 'static> std::fmt::Debug for Server<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self
            .tools
            .entries
            .iter()
            .map(|e| e.tool.spec().name())
            .collect();
        f.debug_struct("Server")
            .field("identity", &self.identity)
            .field("tools", &names)
            .field("options", &self.options)
            .finish_non_exhaustive()
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
            options: RenderOptions::default(),
            known_good: (None, crate::contract::AwarenessConfig::default()),
        }
    }

    /// Adds a tool.
    ///
    /// # Panics
    /// When a tool of the same name was added before: two tools cannot share a name, and
    /// finding out at startup beats serving the wrong one.
    #[must_use]
    pub fn tool<T: Tool<S>>(mut self, tool: T) -> Self {
        let spec = tool.spec();
        let set = Arc::make_mut(&mut self.tools);
        assert!(
            !set.by_name.contains_key(spec.name()),
            "two tools are named `{}`",
            spec.name()
        );
        set.by_name.insert(spec.name(), set.entries.len());
        set.entries.push(Entry {
            definition: definition(spec),
            tool: Arc::new(tool),
            contract: self
                .known_good
                .0
                .as_ref()
                .and_then(|k| k.awareness(spec, &self.known_good.1)),
        });
        self
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

    /// Sets the instructions given to clients on `initialize`.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.identity).instructions = Some(instructions.into());
        self
    }

    /// Sets the format of error messages and teaching blocks (XML-style tags by default).
    #[must_use]
    pub fn format(mut self, format: RenderFormat) -> Self {
        self.options.format = format;
        self
    }

    /// Sets every render option.
    #[must_use]
    pub fn render_options(mut self, options: RenderOptions) -> Self {
        self.options = options;
        self
    }

    /// The shared state.
    #[must_use]
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The definitions of the tools, in the order they were added.
    pub fn definitions(&self) -> impl Iterator<Item = &rmcp::model::Tool> {
        self.tools.entries.iter().map(|e| &e.definition)
    }

    /// Calls a tool in-process, without a transport: the same pipeline a client's call runs.
    ///
    /// # Errors
    /// The JSON-RPC error a client would receive when no tool has this name.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallOutput, ErrorData> {
        let Some(&index) = self.tools.by_name.get(name) else {
            return Err(self.unknown(name));
        };
        let entry = &self.tools.entries[index];
        let output = match &entry.contract {
            None => entry.tool.call(&self.state, arguments, &self.options).await,
            Some(contract) => {
                let options = self.options.clone().with_contract(Some(contract.clone()));
                entry.tool.call(&self.state, arguments, &options).await
            }
        };
        Ok(output)
    }

    fn unknown(&self, name: &str) -> ErrorData {
        let known: Vec<&str> = self
            .tools
            .entries
            .iter()
            .map(|e| e.tool.spec().name())
            .collect();
        unknown_tool(name, &known)
    }
}

/// Contract awareness (see [`crate::contract`]).
impl<S: Send + Sync + 'static> Server<S> {
    /// Gives the contracts clients were last calibrated on, usually a lockfile embedded with
    /// `include_str!`. Each tool is diffed against them once, here and for tools added later;
    /// the errors of a tool that changed carry a `<contract_awareness>` block, other tools'
    /// errors stay as they are.
    ///
    /// ```ignore
    /// let known_good = KnownGood::from_lockfile_str(include_str!("../guardrails.lock"))?;
    /// let server = Server::new(state).tool(create_user).known_good(known_good);
    /// ```
    #[must_use]
    pub fn known_good(self, known_good: crate::contract::KnownGood) -> Self {
        let config = self.known_good.1;
        self.with_known_good(Some(known_good), config)
    }

    /// Sets which deltas errors carry (default: BREAKING and RISKY, at most 5, validation
    /// errors only). Takes effect with [`Server::known_good`], given before or after.
    #[must_use]
    pub fn contract_awareness(mut self, config: crate::contract::AwarenessConfig) -> Self {
        let known_good = self.known_good.0.take();
        self.with_known_good(known_good, config)
    }

    fn with_known_good(
        mut self,
        known_good: Option<crate::contract::KnownGood>,
        config: crate::contract::AwarenessConfig,
    ) -> Self {
        let set = Arc::make_mut(&mut self.tools);
        for entry in &mut set.entries {
            entry.contract = known_good
                .as_ref()
                .and_then(|k| k.awareness(entry.tool.spec(), &config));
        }
        self.known_good = (known_good, config);
        self
    }

    /// The specs of the tools, in the order they were added (for
    /// [`assert_lockfile`](crate::contract::assert_lockfile)).
    pub fn specs(&self) -> impl Iterator<Item = &'static ToolSpec> + '_ {
        self.tools.entries.iter().map(|e| e.tool.spec())
    }
}

impl<S: Send + Sync + 'static> ServerHandler for Server<S> {
    fn get_info(&self) -> ServerConfig {
        let id = &*self.identity;
        let mut implementation = Implementation::new(id.name.clone(), id.version.clone());
        if let Some(title) = &id.title {
            implementation = implementation.with_title(title.clone());
        }
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(implementation);
        if let Some(instructions) = &id.instructions {
            config = config.with_instructions(instructions.clone());
        }
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // The tool list never changes while serving: newer clients may cache it.
        let cache_hints = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        let mut result = ListToolsResult::with_all_items(self.definitions().cloned().collect());
        result.result_type = Some(ResultType::COMPLETE);
        result.ttl_ms = cache_hints.then_some(0);
        result.cache_scope = cache_hints.then_some(CacheScope::Public);
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        let index = *self.tools.by_name.get(name)?;
        Some(self.tools.entries[index].definition.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name: Cow<'static, str> = request.name;
        let output = self
            .call(&name, request.arguments.unwrap_or_default())
            .await?;
        Ok(call_result(output).into())
    }
}

/// Serving over stdio and Streamable HTTP.
impl<S: Send + Sync + 'static> Server<S> {
    /// Serves over stdin/stdout until the client disconnects. Nothing else may write to stdout
    /// meanwhile: it is the protocol channel (log to stderr).
    ///
    /// # Errors
    /// When the handshake fails or the serving task ends abnormally.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        use rmcp::ServiceExt as _;
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(std::io::Error::other)?;
        running.waiting().await.map_err(std::io::Error::other)?;
        Ok(())
    }
}

#[cfg(feature = "http")]
mod http_transport {
    //! Streamable HTTP on hyper alone. The MCP endpoint is a single route, so a router
    //! framework would add crates and nothing else; the path check below is all the routing
    //! needed.

    use std::convert::Infallible;
    use std::sync::Arc;

    use bytes::Bytes;
    use http_body_util::{BodyExt as _, Empty, combinators::BoxBody};
    use hyper_util::rt::TokioIo;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    use tokio::net::{TcpListener, ToSocketAddrs};

    use super::Server;

    /// The path of the MCP endpoint.
    pub const MCP_PATH: &str = "/mcp";

    impl<S: Send + Sync + 'static> Server<S> {
        /// The Streamable HTTP service of this server (stateful sessions, DNS-rebinding
        /// protection on: only `localhost`, `127.0.0.1` and `::1` are accepted as `Host`).
        #[must_use]
        pub fn http_service(self) -> StreamableHttpService<Self, LocalSessionManager> {
            StreamableHttpService::new(
                move || Ok(self.clone()),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            )
        }

        /// Serves Streamable HTTP at `http://{addr}/mcp` until the listener fails. Bind a
        /// loopback address (`127.0.0.1:8080`): the server has no authentication of its own.
        ///
        /// # Errors
        /// When the address cannot be bound or accepting fails.
        pub async fn serve_http(self, addr: impl ToSocketAddrs) -> std::io::Result<()> {
            let listener = TcpListener::bind(addr).await?;
            self.serve_http_on(listener).await
        }

        /// Like [`Server::serve_http`], on a listener already bound (e.g. to port 0 in tests).
        ///
        /// # Errors
        /// When accepting a connection fails.
        pub async fn serve_http_on(self, listener: TcpListener) -> std::io::Result<()> {
            let service = self.http_service();
            loop {
                let (stream, _) = listener.accept().await?;
                let service = service.clone();
                tokio::spawn(async move {
                    let handler = hyper::service::service_fn(
                        move |request: http::Request<hyper::body::Incoming>| {
                            let service = service.clone();
                            async move {
                                if request.uri().path() == MCP_PATH {
                                    Ok::<_, Infallible>(service.handle(request).await)
                                } else {
                                    Ok(not_found())
                                }
                            }
                        },
                    );
                    // A connection that fails affects only its own client.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), handler)
                        .await;
                });
            }
        }
    }

    fn not_found() -> http::Response<BoxBody<Bytes, Infallible>> {
        let mut response = http::Response::new(Empty::new().boxed());
        *response.status_mut() = http::StatusCode::NOT_FOUND;
        response
    }
}

#[cfg(feature = "http")]
pub use http_transport::MCP_PATH;
