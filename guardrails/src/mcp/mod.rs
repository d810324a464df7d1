//! The rmcp adapter (feature `rmcp`, on by default): guarded tools served by the official MCP
//! SDK. No protocol code lives here; this module only maps between the pipeline and rmcp, and
//! it is the only module that knows rmcp.
//!
//! Ways in:
//!
//! - [`#[guarded]`](macro@crate::guarded) above rmcp's `#[tool_router]`: an existing rmcp
//!   server's native `#[tool]` methods guarded by one line, whichever way the server serves its
//!   router (`Self::tool_router()` itself returns it guarded): strict input schemas checked
//!   before the handler runs, coaching messages, limits on results, or
//!   [audit mode](crate::GuardConfig::audit). Nothing else of the server changes.
//! - [`guard_router`] / [`RouterGuard`]: the same guard on any `ToolRouter` you build.
//! - [`Server`]: implements rmcp's `ServerHandler`, and is served over stdio
//!   ([`Server::serve_stdio`]) or Streamable HTTP ([`Server::serve_http`], feature `http`).
//! - In an existing rmcp server, `#[guardrails::tool]` on a `&self` method of the impl that
//!   rmcp's `#[tool_router]` reads: the router rmcp builds holds the guarded tool next to the
//!   native `#[rmcp::tool]` methods, and rmcp's plain `#[tool_handler]` serves both. Nothing
//!   else to wire; see [`tool`](macro@crate::tool#in-an-existing-rmcp-server).
//! - [`GuardedRoutes`]: free-function tools (those a [`Server`] also serves) as routes of an
//!   rmcp `ToolRouter`. The router that holds them must be the one the handler
//!   serves from: store it in the server and name it in `#[tool_handler(router = …)]`, as
//!   [`GuardedRoutes`] shows.
//!
//! Guarding a router yourself: keep it in a field, guarded once, and point `#[tool_handler]`
//! at it (or let [`#[guarded]`](macro@crate::guarded) do it for every shape of server).
//!
//! ```
//! use guardrails::mcp::{ResultLimits, RouterGuard, guard_router};
//! use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
//! use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Search {
//!     query: String,
//!     /// Only results in this language.
//!     language: Option<String>,
//! }
//!
//! #[derive(Clone)]
//! struct Docs {
//!     tool_router: ToolRouter<Self>,
//! }
//!
//! #[tool_router]
//! impl Docs {
//!     #[tool(description = "Searches the docs; one result per line")]
//!     fn search(&self, Parameters(args): Parameters<Search>) -> String {
//!         format!("results for {}", args.query)
//!     }
//! }
//!
//! #[tool_handler(router = self.tool_router)]
//! impl ServerHandler for Docs {}
//!
//! // Every tool guarded, messages as XML-style tags:
//! let docs = Docs { tool_router: guard_router(Docs::tool_router()) };
//! let schema = &docs.tool_router.map["search"].attr.input_schema;
//! assert_eq!(schema["additionalProperties"], false);
//!
//! // Or with a format and limits on a tool's result:
//! let docs = Docs {
//!     tool_router: RouterGuard::new()
//!         .config(guardrails::GuardConfig::new().format(guardrails::RenderFormat::Markdown))
//!         .tool("search", ResultLimits::new().max_bytes(4_096))
//!         .guard(Docs::tool_router()),
//! };
//! # let _ = docs;
//! ```
//!
//! What the client sees: invalid arguments, handler errors and panics are tool results with
//! `isError: true` (MCP 2025-11-25: the model must be able to read them); an unknown tool is a
//! JSON-RPC error -32602, and so is a request whose params do not fit its method; an unknown
//! method is -32601, its name echoed cut and escaped. Over stdio, a line that is not JSON is
//! answered -32700 (without id, as MCP writes errors that answer no readable request).

mod guard;
#[cfg(feature = "http")]
mod http;
mod stdio;

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    CustomRequest, CustomResult, ErrorCode, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ResultType, ServerCapabilities, ServerConfig,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::call::{Served, Tool};
use crate::profile::SchemaProfile;
use crate::render::RenderOptions;
use crate::server::{Server, UnknownTool};
use crate::text::cut;
use crate::tool::{CallOutput, CallSettings, ToolSpec};

/// The most characters of an unknown method's name that an error echoes back.
const MAX_METHOD_CHARS: usize = 64;

#[doc(hidden)]
pub use crate::call::reading::reads;
pub use guard::{GuardError, ResultLimits, RouterGuard, guard_router};
#[doc(hidden)]
pub use guard::{guarded_router, with_readers};
#[cfg(feature = "http")]
pub use http::{HttpConfig, ServeHttp, serve_http};

/// The MCP definition of a tool: name, title, description, annotations, `inputSchema` from its
/// arguments type and `outputSchema` when its output type provides one, both in the portable
/// [`SchemaProfile`].
#[must_use]
pub(crate) fn definition(spec: &ToolSpec) -> rmcp::model::Tool {
    definition_in(spec, SchemaProfile::Portable)
}

/// The MCP definition of a tool, its schemas advertised in `profile`. Each schema is rewritten
/// once per type and profile, however often the tools are listed.
#[must_use]
pub(crate) fn definition_in(spec: &ToolSpec, profile: SchemaProfile) -> rmcp::model::Tool {
    let input = advertised(spec.input_schema().as_object(), profile, true);
    let mut tool = rmcp::model::Tool::new(spec.name(), spec.description(), input);
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
        tool = tool.with_raw_output_schema(advertised(Some(schema), profile.for_output(), false));
    }
    tool
}

/// The schemas derived tools advertise, one shared copy of each per profile (keyed by the
/// address of the static it is read from), and the addresses of the input schemas' copies.
#[derive(Default)]
struct DerivedSchemas {
    by_static: std::collections::HashMap<(usize, SchemaProfile), Arc<JsonObject>>,
    copies: std::collections::HashSet<usize>,
}

static DERIVED_SCHEMAS: std::sync::LazyLock<std::sync::Mutex<DerivedSchemas>> =
    std::sync::LazyLock::new(Default::default);

/// A derived tool's schema (`input` for its `inputSchema`, which a router guard knows a
/// derived tool's route by) in `profile`, rewritten once: rmcp's default handler rebuilds its
/// router on every request.
fn advertised(
    schema: Option<&'static JsonObject>,
    profile: SchemaProfile,
    input: bool,
) -> Arc<JsonObject> {
    static EMPTY: std::sync::LazyLock<JsonObject> = std::sync::LazyLock::new(JsonObject::new);
    let schema = schema.unwrap_or(&EMPTY);
    let mut schemas = DERIVED_SCHEMAS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let key = (std::ptr::from_ref(schema) as usize, profile);
    if let Some(copy) = schemas.by_static.get(&key) {
        return Arc::clone(copy);
    }
    let copy = Arc::new(profile.advertise(schema));
    if input {
        schemas.copies.insert(Arc::as_ptr(&copy) as usize);
    }
    schemas.by_static.insert(key, Arc::clone(&copy));
    copy
}

/// Whether `schema` is the `inputSchema` of a derived tool's route, whose calls its own
/// pipeline checks. The copies live as long as the process, so an address is never reused.
pub(crate) fn is_derived_schema(schema: &Arc<JsonObject>) -> bool {
    DERIVED_SCHEMAS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .copies
        .contains(&(Arc::as_ptr(schema) as usize))
}

/// The MCP result of a call's output.
#[must_use]
pub(crate) fn call_result(output: CallOutput) -> CallToolResult {
    let content = output.text.into_iter().map(ContentBlock::text).collect();
    let mut result = if output.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = output.structured;
    if output.report.is_some() || output.failure.is_some() || output.repairs.is_some() {
        let mut meta = rmcp::model::MetaObject::new();
        if let Some(repairs) = output.repairs {
            meta.insert(REPAIRS_META_KEY.to_owned(), repairs);
        }
        if let Some(report) = output.report {
            meta.insert(REPORT_META_KEY.to_owned(), report);
        }
        if let Some(failure) = output.failure {
            meta.insert(crate::operate::FAILURE_META_KEY.to_owned(), failure);
        }
        result.meta = Some(meta);
    }
    result
}

/// The key of the `_meta` entry where an error result carries its structured report (see
/// [`CallOutput::report`]): the issues with their paths, codes, what was expected and how to
/// fix each, and the valid example; or the tool error's code, message, recovery and details.
///
/// Why `_meta` and not `structuredContent`: the specification (revision 2026-07-28) says
/// `structuredContent` conforms to the tool's `outputSchema` when there is one, and makes no
/// exception for `isError` results, so a report there would break any client that validates
/// every structured result; the official Python SDK skips that validation on errors, but not
/// every client has to. `_meta` is the protocol's place for data beside a result: no client
/// validates it against anything, and the SDKs pass it through (`CallToolResult.meta` in the
/// Python SDK). The key is prefixed as the specification asks of keys that are not MCP's own.
pub(crate) const REPORT_META_KEY: &str = "dev.guardrails/report";

/// The key of the `_meta` entry where a result carries the receipts of the repairs made to the
/// call's arguments (see [`CallOutput::repairs`]): an array of `{"field", "kind", "sent",
/// "readAs", "message"}`, for a client or an operator to see what ran and why.
pub(crate) const REPAIRS_META_KEY: &str = "dev.guardrails/repairs";

impl From<UnknownTool> for ErrorData {
    /// The JSON-RPC error for a call to a tool that does not exist (-32602).
    fn from(unknown: UnknownTool) -> Self {
        let (key, failure) = crate::operate::ProtocolError::UnknownTool.record();
        ErrorData::invalid_params(
            format!("unknown tool: {}", unknown.name),
            Some(json!({ "tool": unknown.name, "available": unknown.available, key: failure })),
        )
    }
}

/// A guarded tool as a route of an rmcp `ToolRouter<S>`, rendering errors as XML tags.
pub(crate) fn route<S, T>(tool: T) -> ToolRoute<S>
where
    S: Send + Sync + 'static,
    T: Tool<S>,
{
    route_with(tool, RenderOptions::default())
}

/// Like [`route`], with the given render options.
pub(crate) fn route_with<S, T>(tool: T, options: RenderOptions) -> ToolRoute<S>
where
    S: Send + Sync + 'static,
    T: Tool<S>,
{
    let definition = definition(tool.spec());
    let shared = Arc::new((tool, CallSettings::new(options)));
    ToolRoute::new_dyn(definition, move |ctx: ToolCallContext<'_, S>| {
        let shared = Arc::clone(&shared);
        Box::pin(async move {
            let (tool, settings) = &*shared;
            let arguments = Value::Object(ctx.arguments.unwrap_or_default());
            let served = Served::detached(settings);
            let output = tool.call(ctx.service, arguments, &served).await;
            Ok(call_result(output).into())
        })
    })
}

/// Adds guarded free-function tools to an rmcp `ToolRouter`, next to its native `#[tool]`
/// methods.
///
/// rmcp's `#[tool_handler]` serves, by default, from a new `Self::tool_router()` on every
/// request, which knows nothing of routes added later: a router built with `with_guarded` must
/// be stored in the server and named in `#[tool_handler(router = self.tool_router)]`, or its
/// guarded tools are neither listed nor callable. Tools written for this server alone are
/// simpler as `#[guardrails::tool]` methods inside the `#[tool_router]` impl (see
/// [`tool`](macro@crate::tool#in-an-existing-rmcp-server)), which need no wiring at all.
///
/// A free-function tool takes its state as `&T`; the server lends it through
/// [`StateRef`](crate::StateRef):
///
/// ```no_run
/// use std::sync::Arc;
///
/// use guardrails::mcp::GuardedRoutes as _;
/// use guardrails::{StateRef, ToolArgs, tool};
/// use rmcp::handler::server::router::tool::ToolRouter;
/// use rmcp::{ServerHandler, tool_handler, tool_router};
///
/// /// The state the guarded tools run on.
/// struct Inventory { skus: Vec<String> }
///
/// #[derive(Clone)]
/// struct Shop {
///     inventory: Arc<Inventory>,
///     // The router the handler serves from: built once, with the guarded tools in it.
///     tool_router: ToolRouter<Self>,
/// }
///
/// impl StateRef<Inventory> for Shop {
///     fn state(&self) -> &Inventory { &self.inventory }
/// }
///
/// /// Arguments of `find_sku`.
/// #[derive(serde::Deserialize, ToolArgs)]
/// struct FindSku {
///     /// Text the SKU starts with.
///     #[guard(length(min = 1, max = 32))]
///     prefix: String,
/// }
///
/// /// Lists the SKUs that start with the prefix.
/// #[tool(read_only)]
/// fn find_sku(inventory: &Inventory, args: FindSku) -> Vec<String> {
///     inventory.skus.iter().filter(|s| s.starts_with(&args.prefix)).cloned().collect()
/// }
///
/// #[tool_router]
/// impl Shop {
///     fn new(inventory: Inventory) -> Self {
///         Self {
///             inventory: Arc::new(inventory),
///             tool_router: Self::tool_router().with_guarded(find_sku),
///         }
///     }
///
///     #[rmcp::tool(description = "Says whether the shop is open")]
///     async fn is_open(&self) -> String {
///         "open".to_owned()
///     }
/// }
///
/// // `router = self.tool_router`: serve from the stored router, which holds `find_sku`.
/// #[tool_handler(router = self.tool_router)]
/// impl ServerHandler for Shop {}
///
/// let shop = Shop::new(Inventory { skus: vec!["SKU-1".into()] });
/// # let _ = shop;
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
        let profile = self.profile_for(client_name(&context).as_deref());
        let mut result = ListToolsResult::with_all_items(
            self.specs()
                .map(|spec| definition_in(spec, profile))
                .collect(),
        );
        result.result_type = Some(ResultType::COMPLETE);
        result.ttl_ms = cache_hints.then_some(0);
        result.cache_scope = cache_hints.then_some(CacheScope::Public);
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.spec(name).map(definition)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(unreadable_request(&request.method))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name: Cow<'static, str> = request.name;
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        // Only a server that serves some client the openai profile reads the client's name.
        let portable = if self.may_read_openai_calls()
            && self
                .profile_for(client_name(&context).as_deref())
                .null_is_absent()
            && let Some(spec) = self.spec(&name)
        {
            Some(advertised(
                spec.input_schema().as_object(),
                SchemaProfile::Portable,
                true,
            ))
        } else {
            None
        };
        let output = self
            .call_from(&name, arguments, caller_of(&context), portable.as_deref())
            .await?;
        Ok(call_result(output).into())
    }
}

/// The name the client gave when it connected (`clientInfo.name`).
fn client_name(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .peer
        .peer_info()
        .map(|info| info.client_info.name.clone())
}

/// Who calls: over Streamable HTTP, the caller the server read from the request (see
/// [`HttpConfig::with_caller`]); over any other transport (stdio), the connection.
pub(crate) fn caller_of(context: &RequestContext<RoleServer>) -> crate::operate::Caller {
    use crate::operate::{CallerKey, CallerKind};
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<::http::request::Parts>() {
        return http::caller::caller_of_request(parts);
    }
    // The peer's information is one allocation per connection, set when it initializes.
    context.peer.peer_info().map(|info| {
        let address = Arc::as_ptr(&info) as usize;
        CallerKey::of(CallerKind::Connection, &address.to_le_bytes())
    })
}

/// The tool definitions.
impl<S: Send + Sync + 'static> Server<S> {
    /// The MCP definitions of the tools, in the order they were added.
    #[must_use]
    pub fn definitions(&self) -> Vec<rmcp::model::Tool> {
        self.specs().map(definition).collect()
    }
}

/// The error of a request that rmcp could not read as any method it knows.
///
/// rmcp reads a request whose params do not fit its method (`tools/call` with `arguments` that
/// is an array, or without `params`) as a custom request of that name, whose default answer is
/// -32601 (method not found). The method exists, its params are wrong: -32602. The name of a
/// method that does not exist is echoed cut and escaped, whatever its length.
fn unreadable_request(method: &str) -> ErrorData {
    use rmcp::model::ConstString;
    use rmcp::model::{
        CallToolRequestMethod, CompleteRequestMethod, GetPromptRequestMethod,
        InitializeResultMethod, ListPromptsRequestMethod, ListResourceTemplatesRequestMethod,
        ListResourcesRequestMethod, ListToolsRequestMethod, PingRequestMethod,
        ReadResourceRequestMethod, SetLevelRequestMethod, SubscribeRequestMethod,
        UnsubscribeRequestMethod,
    };
    const KNOWN: [&str; 12] = [
        InitializeResultMethod::VALUE,
        PingRequestMethod::VALUE,
        ListToolsRequestMethod::VALUE,
        CompleteRequestMethod::VALUE,
        SetLevelRequestMethod::VALUE,
        GetPromptRequestMethod::VALUE,
        ListPromptsRequestMethod::VALUE,
        ListResourcesRequestMethod::VALUE,
        ListResourceTemplatesRequestMethod::VALUE,
        ReadResourceRequestMethod::VALUE,
        SubscribeRequestMethod::VALUE,
        UnsubscribeRequestMethod::VALUE,
    ];
    use crate::operate::ProtocolError;
    let failure = |error: ProtocolError| {
        let (key, failure) = error.record();
        Some(json!({ key: failure }))
    };
    if method == CallToolRequestMethod::VALUE {
        ErrorData::invalid_params(
            "Invalid params for tools/call: `params` must be an object with `name` (a string) \
             and, if given, `arguments` (an object)",
            failure(ProtocolError::InvalidParams),
        )
    } else if KNOWN.contains(&method) {
        ErrorData::invalid_params(
            format!("Invalid params for {method}: they do not have the shape the method requires"),
            failure(ProtocolError::InvalidParams),
        )
    } else {
        ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "Method not found: {}",
                crate::text::plain(&cut(method, MAX_METHOD_CHARS))
            ),
            failure(ProtocolError::MethodNotFound),
        )
    }
}
