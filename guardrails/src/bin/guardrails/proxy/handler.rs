//! The proxy as the client's server: rmcp's `ServerHandler`, which guards tool calls and relays
//! everything else to the upstream.

use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    GetTaskParams, GetTaskResult, Implementation, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams,
    ReadResourceResponse, ResultType, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    Tool, ToolsCapability, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, ServiceError};
use rmcp::{ErrorData, RoleClient, RoleServer, ServerHandler};
use serde_json::Value;

use super::capabilities::{asks_nothing, relay_tasks_extension};
use super::{MAX_NAME_CHARS, MAX_PROBLEM_CHARS, Proxy, cut};

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

impl Proxy {
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

impl ServerHandler for Proxy {
    fn get_info(&self) -> ServerConfig {
        let info = self.0.upstream.info();
        let mut capabilities = ServerCapabilities::default();
        let mut implementation = Implementation::new("guardrails-proxy", env!("CARGO_PKG_VERSION"));
        let mut instructions = None;
        if let Some(info) = info {
            // What the proxy forwards: tools (guarded), prompts, resources, completions,
            // logging and tasks; other extensions are not relayed.
            capabilities.prompts.clone_from(&info.capabilities.prompts);
            capabilities
                .resources
                .clone_from(&info.capabilities.resources);
            capabilities
                .completions
                .clone_from(&info.capabilities.completions);
            capabilities.logging.clone_from(&info.capabilities.logging);
            relay_tasks_extension(
                info.capabilities.extensions.as_ref(),
                &mut capabilities.extensions,
            );
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
        if !self.0.upstream.is_running()
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

    /// The upstream's task as it is now, its result checked as its tool's when it is done.
    /// Another client's task, like one the proxy does not know, is an unknown task.
    async fn get_task(
        &self,
        mut request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        request.meta = self.own_task_meta(&context, &request.task_id)?;
        let mut result = self
            .relay("tasks/get", async |peer| peer.get_task(request).await)
            .await?;
        result.task = self.checked_task(result.task);
        if result.task.task.status.is_terminal() {
            self.task_ended(&result.task.task.task_id);
        }
        Ok(result)
    }

    async fn update_task(
        &self,
        mut request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        request.meta = self.own_task_meta(&context, &request.task_id)?;
        self.relay("tasks/update", async |peer| peer.update_task(request).await)
            .await
    }

    async fn cancel_task(
        &self,
        mut request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        request.meta = self.own_task_meta(&context, &request.task_id)?;
        self.relay("tasks/cancel", async |peer| peer.cancel_task(request).await)
            .await
    }
}

/// A result relayed from an upstream, marked complete when the upstream did not say.
///
/// An upstream that speaks a revision before 2026-07-28 writes no `resultType`, which a
/// client of that revision requires; rmcp strips it again for a client of an older one.
pub(super) trait Completed {
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
