//! Guarding the native tools of an rmcp `ToolRouter`: [`guard_router`] and [`RouterGuard`].

use std::collections::BTreeMap;
use std::future::ready;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use serde_json::Value;

use crate::message::{
    ByteCut, Filter, Rejection, Truncated, TruncationNotice, paging_name, refine_advice_with,
};
use crate::render::RenderOptions;
use crate::text::{head_bytes, json_text};
use crate::tool::CallOutput;
use crate::tool::presenter::keep_within;
use crate::validation::{ArgsInfo, SchemaArgs, SchemaError, SchemaOptions};

/// Guards every tool of an rmcp `ToolRouter`, rendering messages as XML-style tags: the
/// router, with each tool's `inputSchema` made strict and its arguments checked against it
/// before the handler runs. The same as `RouterGuard::new().guard(router)`; see
/// [`RouterGuard`] for the render format and limits on results.
///
/// Build the guarded router once and clone it (its routes are shared): the validators are
/// compiled here.
///
/// # Panics
/// When a tool's input schema does not compile (a reference to another document, an invalid
/// keyword): a server that cannot check a tool's arguments does not start.
#[must_use]
pub fn guard_router<S: Send + Sync + 'static>(router: ToolRouter<S>) -> ToolRouter<S> {
    RouterGuard::new().guard(router)
}

/// Limits on the result of one native tool: an agent limit on a list and a byte cap on the
/// whole payload.
///
/// ```
/// use guardrails::mcp::ResultLimits;
///
/// let limits = ResultLimits::new().agent_limit(50).max_bytes(16 * 1024);
/// assert_eq!(limits.agent_limit, Some(50));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResultLimits {
    /// The most items of a list result that reach the model.
    pub agent_limit: Option<usize>,
    /// The most bytes of text that reach the model.
    pub max_bytes: Option<usize>,
}

impl ResultLimits {
    /// No limit.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            agent_limit: None,
            max_bytes: None,
        }
    }

    /// Shows at most `max` items of a list result (at least one).
    #[must_use]
    pub const fn agent_limit(mut self, max: usize) -> Self {
        self.agent_limit = Some(if max == 0 { 1 } else { max });
        self
    }

    /// Cuts the text of a result to `max` bytes.
    #[must_use]
    pub const fn max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = Some(max);
        self
    }

    const fn is_none(&self) -> bool {
        self.agent_limit.is_none() && self.max_bytes.is_none()
    }
}

/// How [`guard_router`] guards a router: the format of its messages and the limits on the
/// results of some of its tools.
///
/// Every tool of the router is guarded:
///
/// - its advertised `inputSchema` is made strict ([`strict_schema`](crate::validation::strict_schema):
///   every object that says nothing of other keys closed where serde closes it, at the object
///   and not in the branches of a flattened or tagged enum, local `$ref`s inlined, integer
///   formats made bounds), and a call's arguments are checked against it before the handler
///   runs; string `format`s are annotations unless [`assert_formats`](Self::assert_formats)
///   is set;
/// - a call that does not validate gets every issue in one tool result with `isError: true`,
///   rendered as the derived tools' are: each issue's path, code, what was sent, what is
///   expected, how to fix it, a did-you-mean for unknown keys and mistyped tags, the issues
///   of the variant a tag names at their paths, a valid example built from the schema and
///   checked against it (none rather than one that does not validate), and the recovery
///   directive;
/// - a valid call reaches the tool unchanged, and its result comes back unchanged unless a
///   limit of [`tool`](Self::tool) cuts it;
/// - everything else (an unknown tool, a protocol error) is left to rmcp.
///
/// An agent limit cuts a list result: a structured result that is an object with one array
/// (what rmcp's `Json<T>` returns for a struct with one list), or a text result that is a JSON
/// array. Past the limit only the first items are kept, and a teaching block says how many of
/// how many are shown and which of the tool's optional parameters narrow the next call, with
/// the values they accept, read from its schema. A byte cap keeps the items that fit, or cuts a
/// text at a character boundary, and says so.
///
/// A complete server is in the [module docs](crate::mcp). Limits name tools of the router:
///
/// ```
/// use guardrails::mcp::{ResultLimits, RouterGuard};
/// use guardrails::RenderFormat;
/// # use rmcp::handler::server::router::tool::ToolRouter;
/// # struct Server;
/// # let router: ToolRouter<Server> = ToolRouter::new();
///
/// let guard = RouterGuard::new()
///     .render(RenderFormat::Markdown)
///     .tool("search", ResultLimits::new().agent_limit(20).max_bytes(8 * 1024));
/// // This router has no `search` tool.
/// let error = guard.try_guard(router).unwrap_err();
/// assert!(error.to_string().contains("`search`, which is not a tool of the router"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct RouterGuard {
    render: RenderOptions,
    limits: BTreeMap<String, ResultLimits>,
    schema: SchemaOptions,
}

impl RouterGuard {
    /// Guards every tool, rendering messages as XML-style tags, without limits.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Renders messages with `options` (a [`RenderFormat`](crate::RenderFormat) converts).
    /// The schema summary is for derived arguments only: a native tool's schema is the
    /// `inputSchema` the client already has, and its rejections go without one.
    #[must_use]
    pub fn render(mut self, options: impl Into<RenderOptions>) -> Self {
        self.render = options.into().with_schema_summary(false);
        self
    }

    /// Refuses a string that breaks its `format` (`date-time`, `uuid`, `email`, …). By default
    /// a format is an annotation, as JSON Schema 2020-12 makes it: the types a native tool
    /// reads its arguments into are often more lenient than the format they advertise (chrono
    /// reads `2024-01-02 03:04:05Z`, uuid reads the simple and `urn:` forms), and the guard
    /// never refuses what the tool accepts. Integer formats (`int32`, `uint8`, …) are always
    /// checked, as the bounds of the type they name.
    #[must_use]
    pub fn assert_formats(mut self) -> Self {
        self.schema = self.schema.assert_formats(true);
        self
    }

    /// Sets the limits on the results of tool `name`.
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>, limits: ResultLimits) -> Self {
        self.limits.insert(name.into(), limits);
        self
    }

    /// The router with every tool guarded.
    ///
    /// # Panics
    /// When a tool's input schema does not compile, or limits were set for a tool the router
    /// does not have; [`try_guard`](Self::try_guard) returns these as errors.
    #[must_use]
    pub fn guard<S: Send + Sync + 'static>(self, router: ToolRouter<S>) -> ToolRouter<S> {
        match self.try_guard(router) {
            Ok(router) => router,
            Err(error) => panic!("{error}"),
        }
    }

    /// The router with every tool guarded.
    ///
    /// # Errors
    /// A tool's input schema does not compile, or limits were set for a tool the router does
    /// not have.
    pub fn try_guard<S: Send + Sync + 'static>(
        self,
        mut router: ToolRouter<S>,
    ) -> Result<ToolRouter<S>, GuardError> {
        if let Some(name) = self
            .limits
            .keys()
            .find(|name| !router.map.contains_key(name.as_str()))
        {
            let mut available: Vec<String> = router.map.keys().map(ToString::to_string).collect();
            available.sort();
            return Err(GuardError::UnknownTool {
                name: name.clone(),
                available,
            });
        }
        for (name, route) in &mut router.map {
            let args = SchemaArgs::with_options(&route.attr.input_schema, self.schema).map_err(
                |source| GuardError::Schema {
                    tool: name.to_string(),
                    source,
                },
            )?;
            route.attr.input_schema = Arc::new(args.schema().clone());
            let guard = Arc::new(NativeTool::new(
                name.to_string(),
                args,
                self.limits.get(name.as_ref()).copied().unwrap_or_default(),
                self.render.clone(),
            ));
            let inner = Arc::clone(&route.call);
            route.call = Arc::new(move |ctx: ToolCallContext<'_, S>| guard.call(&inner, ctx));
        }
        Ok(router)
    }
}

/// Why a router could not be guarded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GuardError {
    /// A tool's input schema does not compile.
    #[error("tool `{tool}`: {source}")]
    Schema {
        /// The tool.
        tool: String,
        /// What is wrong with its schema.
        source: SchemaError,
    },
    /// Limits were set for a tool the router does not have.
    #[error("limits set for `{name}`, which is not a tool of the router (its tools: {})", available.join(", "))]
    UnknownTool {
        /// The name given.
        name: String,
        /// The router's tools.
        available: Vec<String>,
    },
}

/// One guarded native tool: what its calls are checked against and how its results are cut.
struct NativeTool {
    name: String,
    args: SchemaArgs,
    limits: ResultLimits,
    render: RenderOptions,
    /// The example shown in rejections; `null` when none could be built and proven, and then
    /// rejections show none.
    example: Value,
    filters: Vec<Filter>,
    paging: Vec<&'static str>,
}

type Inner<S> = rmcp::handler::server::tool::DynCallToolHandler<S>;
type CallFuture<'a> =
    futures_util::future::BoxFuture<'a, Result<CallToolResponse, rmcp::ErrorData>>;

impl NativeTool {
    fn new(name: String, args: SchemaArgs, limits: ResultLimits, render: RenderOptions) -> Self {
        let mut filters = Vec::new();
        let mut paging = Vec::new();
        for (property, accepts) in args.optional_properties() {
            match paging_name(&property) {
                Some(name) => paging.push(name),
                None => filters.push(Filter {
                    name: property.into(),
                    accepts,
                }),
            }
        }
        Self {
            example: args.example().cloned().unwrap_or(Value::Null),
            name,
            args,
            limits,
            render,
            filters,
            paging,
        }
    }

    /// A call: rejected when its arguments do not validate, else the tool's own call, its
    /// result cut to the limits. Without limits a valid call is the tool's own future.
    fn call<'a, S: Send + Sync + 'static>(
        self: &Arc<Self>,
        inner: &Arc<Inner<S>>,
        mut ctx: ToolCallContext<'a, S>,
    ) -> CallFuture<'a> {
        // A call without arguments is checked as `{}`, and reaches the tool as it came.
        let sent = ctx.arguments.take();
        let was_sent = sent.is_some();
        let value = Value::Object(sent.unwrap_or_default());
        let checked = self.args.check(&value);
        if let (true, Value::Object(arguments)) = (was_sent, value) {
            ctx.arguments = Some(arguments);
        }
        if let Err(report) = checked {
            let rejection =
                Rejection::new(&self.name, &report, &ArgsInfo::UNDECLARED, &self.example);
            let result = super::call_result(CallOutput::rejection(&rejection, &self.render));
            return Box::pin(ready(Ok(result.into())));
        }
        if self.limits.is_none() {
            return inner(ctx);
        }
        let this = Arc::clone(self);
        let future = inner(ctx);
        Box::pin(async move {
            let response = future.await?;
            Ok(match response {
                CallToolResponse::Complete(result) if result.is_error != Some(true) => {
                    CallToolResponse::Complete(this.present(result))
                }
                other => other,
            })
        })
    }

    /// A successful result cut to the limits, with a teaching block when anything was cut.
    fn present(&self, mut result: CallToolResult) -> CallToolResult {
        // A structured object with one list: rmcp's `Json<T>` of a struct holding the items.
        if let Some(structured) = &mut result.structured_content
            && let Some(object) = structured.as_object_mut()
        {
            let mut lists = object.iter_mut().filter(|(_, v)| v.is_array());
            if let (Some((_, Value::Array(items))), None) = (lists.next(), lists.next()) {
                if let Some(notice) = self.cut_items(items) {
                    // The text is the object as cut, written from where it is kept.
                    let text = json_text(structured);
                    result.content = vec![ContentBlock::text(text), ContentBlock::text(notice)];
                }
                return result;
            }
        }
        let Some(first) = result.content.first().and_then(ContentBlock::as_text) else {
            return result;
        };
        let first = &first.text;
        if first.trim_start().starts_with('[')
            && let Ok(Value::Array(mut items)) = serde_json::from_str::<Value>(first)
        {
            if let Some(notice) = self.cut_items(&mut items) {
                result.content[0] = ContentBlock::text(json_text(&Value::Array(items)));
                result.content.insert(1, ContentBlock::text(notice));
            }
            return result;
        }
        if let Some(max) = self.limits.max_bytes
            && first.len() > max
        {
            let notice = crate::render::byte_cut(
                &ByteCut {
                    tool: &self.name,
                    shown: max,
                    total: first.len(),
                    advice: refine_advice_with(&self.filters),
                },
                &self.render,
            );
            let head = head_bytes(first, max).to_owned();
            result.content[0] = ContentBlock::text(head);
            result.content.insert(1, ContentBlock::text(notice));
        }
        result
    }

    /// Cuts `items` to the agent limit and the byte cap; the teaching block when any was cut.
    fn cut_items(&self, items: &mut Vec<Value>) -> Option<String> {
        let total = items.len();
        let limit = self.limits.agent_limit.unwrap_or(usize::MAX);
        items.truncate(limit);
        let by_bytes = self
            .limits
            .max_bytes
            .is_some_and(|max| keep_within(items, 2, max));
        let shown = items.len();
        if shown == total {
            return None;
        }
        let truncated = Truncated {
            tool: &self.name,
            shown,
            total,
            limit: limit.min(total),
            by_bytes,
            args: &ArgsInfo::UNDECLARED,
        };
        let notice = TruncationNotice::with_parameters(
            &truncated,
            self.filters.clone(),
            self.paging.clone(),
        );
        Some(crate::render::truncation(&notice, &self.render))
    }
}
