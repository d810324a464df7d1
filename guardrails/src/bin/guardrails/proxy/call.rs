//! A tool call that passed the guard: forwarded to the upstream, its result checked on the
//! way back.

use std::fmt::Write as _;
use std::sync::PoisonError;

use guardrails::__private::mcp_call_result as call_result;
use guardrails::{CallOutput, ErrorCode, ToolError};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult};
use rmcp::service::{Peer, ServiceError};
use rmcp::{ErrorData, RoleClient};

use super::capabilities::relayed_meta;
use super::handler::Completed as _;
use super::passthrough::ProgressRoute;
use super::tasks::{NewTask, Unfollowed};
use super::upstream::upstream_failed;
use super::{MAX_NAME_CHARS, MAX_NAMES_SHOWN, MAX_PROBLEM_CHARS, Proxy, cut};

impl Proxy {
    /// `result` when it keeps the promise of its tool's `outputSchema` (a successful result
    /// has `structuredContent` that validates), else the tool error that says it does not.
    pub(super) fn check_output(
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

    /// `result` of `tool` as the client may see it: checked against the tool's
    /// `outputSchema` and held to its result policy, else the tool error that says why not.
    pub(super) fn checked_result(
        &self,
        tool: &str,
        result: CallToolResult,
    ) -> Result<CallToolResult, ToolError> {
        self.check_output(tool, result)
            .and_then(|result| self.police_result(tool, result))
    }

    /// The tool error of a call the upstream did not answer within the call timeout.
    pub(super) fn timeout_error(&self) -> ToolError {
        let timeout = self.0.settings.timeout;
        ToolError::new(
            ErrorCode::Timeout,
            format!(
                "The server behind this tool did not answer within {} s.",
                timeout.as_secs_f64()
            ),
        )
        .recovery("Call the tool again with a smaller request, or later.")
    }

    /// The tool error of a call to a tool the proxy does not serve (not listed upstream, or
    /// hidden for a change of contract): the tools there are, and the likeliest meant.
    pub(super) fn unknown_tool(&self, name: &str, router: &ToolRouter<Self>) -> CallToolResult {
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
    pub(super) fn tool_error(&self, tool: &str, error: &ToolError) -> CallToolResult {
        call_result(CallOutput::tool_error(tool, error, &self.0.settings.render))
    }
}

/// A call that passed the guard (or an audited one): forwarded to the upstream, its result
/// returned as it came. A failure to reach the upstream is a tool error the model can read.
pub(super) async fn forward(
    ctx: ToolCallContext<'_, Proxy>,
) -> Result<CallToolResponse, ErrorData> {
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
    params.meta = relayed_meta(&ctx.request_context.meta);
    if let Some(error) = proxy.policy_refusal(&name, params.arguments.as_ref()) {
        return Ok(proxy.tool_error(&name, &error).into());
    }
    let cancelled = ctx.request_context.ct.clone();
    let timeout = proxy.0.settings.timeout;
    let deadline = tokio::time::Instant::now() + timeout;
    // Whose call it is: a task it is answered with is this client's alone, and a client that
    // did not declare tasks never sees one.
    let owner = proxy.owner_of(&ctx.request_context);
    let has_tasks = ctx
        .request_context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks());
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
    let progress = client_token.map(|token| {
        let client = ctx.request_context.peer.clone();
        ProgressRoute::new(proxy, handle.progress_token.clone(), token, client)
    });
    let call = tokio::time::timeout_at(deadline, handle.await_response());
    let outcome = tokio::select! {
        outcome = call => outcome.map(|answer| answer.and_then(call_response)),
        () = cancelled.cancelled() => {
            cancel_upstream(&peer, id, "the client cancelled the call").await;
            return Err(ErrorData::internal_error("the call was cancelled", None));
        }
    };
    if outcome.is_err() {
        cancel_upstream(&peer, id, "the call timed out").await;
    } else if let Some(route) = &progress {
        route.settle().await;
    }
    let error = match outcome {
        Ok(Ok(CallToolResponse::Complete(result))) => match proxy.checked_result(&name, result) {
            Ok(result) => return Ok(CallToolResponse::Complete(result.completed())),
            Err(error) => error,
        },
        Ok(Ok(CallToolResponse::Task(created))) if !has_tasks => {
            // A client without tasks cannot read one: the proxy follows it, and answers the
            // plain call with its result.
            let followed = proxy
                .follow(&peer, created, &name, cancelled.cancelled(), deadline)
                .await;
            return followed_answer(proxy, &name, followed, progress.as_ref()).await;
        }
        Ok(Ok(CallToolResponse::Task(created))) => {
            // Its result comes later, through `tasks/get`: checked then as this tool's. The
            // upstream's progress on the call goes on reaching the client while the task runs.
            let task = NewTask {
                tool: &name,
                owner,
                client: Some(ctx.request_context.peer.clone()),
                progress: progress.map(ProgressRoute::keep),
            };
            proxy.remember_task(&created.task.task_id, task);
            return Ok(CallToolResponse::Task(created));
        }
        Ok(Ok(response)) => return Ok(response.completed()),
        Ok(Err(ServiceError::McpError(error))) => return Err(error),
        Ok(Err(error)) => upstream_failed(&name, &error),
        Err(_) => {
            tracing::warn!(tool = %name, seconds = timeout.as_secs_f64(), "the upstream did not answer the call in time");
            proxy.timeout_error()
        }
    };
    Ok(proxy.tool_error(&name, &error).into())
}

/// The answer to the call of `tool` by a client without tasks, from the task the proxy
/// followed for it, once the upstream's progress on it has reached the client.
async fn followed_answer(
    proxy: &Proxy,
    tool: &str,
    followed: Result<CallToolResult, Unfollowed>,
    progress: Option<&ProgressRoute>,
) -> Result<CallToolResponse, ErrorData> {
    if let Some(route) = progress {
        route.settle().await;
    }
    match followed {
        Ok(result) => Ok(CallToolResponse::Complete(result.completed())),
        Err(Unfollowed::Cancelled) => {
            Err(ErrorData::internal_error("the call was cancelled", None))
        }
        Err(Unfollowed::Error(error)) => Err(error),
        Err(Unfollowed::Tool(error)) => Ok(proxy.tool_error(tool, &error).into()),
    }
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
