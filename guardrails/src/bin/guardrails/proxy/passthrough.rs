//! What the upstream asks of its client and tells it, relayed to the proxy's client: sampling,
//! elicitation, roots, logging, progress, list changes and the status of tasks.

use std::sync::{Arc, PoisonError, Weak};
use std::time::Duration;

use rmcp::model::{Implementation, ProgressNotificationParam, ResourceUpdatedNotificationParam};
use rmcp::service::{NotificationContext, Peer, RequestContext, ServiceError};
use rmcp::{ClientHandler, ErrorData, RoleClient, RoleServer};

use super::{Inner, Proxy};

impl Proxy {
    pub(super) fn remember_client(&self, peer: &Peer<RoleServer>) {
        if self
            .0
            .client
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
        {
            return;
        }
        let mut client = self
            .0
            .client
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if client.is_none() {
            *client = Some(peer.clone());
        }
    }

    pub(super) fn client(&self) -> Option<Peer<RoleServer>> {
        self.0
            .client
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Where the upstream's progress on one call goes: the client's token and the client, and
/// how many of its notifications are being relayed right now.
#[derive(Clone)]
pub(super) struct ProgressTarget {
    token: rmcp::model::ProgressToken,
    client: Peer<RoleServer>,
    relaying: Arc<Relaying>,
}

/// The progress notifications of one call being relayed, and a wake-up when none is.
#[derive(Default)]
struct Relaying {
    count: std::sync::atomic::AtomicUsize,
    idle: tokio::sync::Notify,
}

/// While it lives, the upstream's progress on `upstream` reaches the client under `client`.
pub(super) struct ProgressRoute {
    proxy: Proxy,
    upstream: rmcp::model::ProgressToken,
    relaying: Arc<Relaying>,
    /// Whether the route outlives the call (its task's), to be removed by the task table.
    kept: bool,
}

impl ProgressRoute {
    pub(super) fn new(
        proxy: &Proxy,
        upstream: rmcp::model::ProgressToken,
        token: rmcp::model::ProgressToken,
        client: Peer<RoleServer>,
    ) -> Self {
        let relaying = Arc::new(Relaying::default());
        proxy
            .0
            .progress
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                upstream.clone(),
                ProgressTarget {
                    token,
                    client,
                    relaying: Arc::clone(&relaying),
                },
            );
        Self {
            proxy: proxy.clone(),
            upstream,
            relaying,
            kept: false,
        }
    }

    /// Keeps the route after the call was answered, for the task it was answered with: the
    /// upstream's token, by which [`Proxy::forget_progress`] removes it when the task ends.
    pub(super) fn keep(mut self) -> rmcp::model::ProgressToken {
        self.kept = true;
        self.upstream.clone()
    }

    /// Waits, once the upstream has answered the call, for the progress it sent before its
    /// answer to reach the client first: rmcp hands each notification to a task of its own,
    /// which may not have run yet when the answer arrives. Bounded, so that a stuck client
    /// never holds the answer for long.
    pub(super) async fn settle(&self) {
        use std::sync::atomic::Ordering;
        let wait = async {
            // The tasks of notifications read before the answer were spawned before it: let
            // them start.
            for _ in 0..4 {
                tokio::task::yield_now().await;
            }
            loop {
                let idle = self.relaying.idle.notified();
                if self.relaying.count.load(Ordering::Acquire) == 0 {
                    break;
                }
                idle.await;
            }
        };
        let _ = tokio::time::timeout(Duration::from_millis(200), wait).await;
    }
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        if !self.kept {
            self.proxy.forget_progress(&self.upstream);
        }
    }
}

impl Proxy {
    /// Stops relaying the upstream's progress under its token `upstream`.
    pub(super) fn forget_progress(&self, upstream: &rmcp::model::ProgressToken) {
        self.0
            .progress
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(upstream);
    }
}

/// The proxy as the upstream's client: its notifications reach the proxy's client.
pub(super) struct UpstreamClient {
    pub(super) proxy: Weak<Inner>,
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

    /// The upstream's news of a task, with its result checked as `tasks/get`'s is, to the
    /// client whose task it is; news of a task the proxy does not know (another's than a
    /// client's, or forgotten) goes nowhere.
    async fn on_task_status(
        &self,
        mut params: rmcp::model::TaskStatusNotificationParams,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(proxy) = self.proxy() else { return };
        let Some(client) = proxy.client_of(&params.task.task.task_id).await else {
            return;
        };
        params.task = proxy.checked_task(params.task);
        if params.task.task.status.is_terminal() {
            proxy.task_ended(&params.task.task.task_id);
        }
        let notification = rmcp::model::ServerNotification::TaskStatusNotification(
            rmcp::model::TaskStatusNotification::new(params),
        );
        let _ = client.send_notification(notification).await;
    }

    async fn on_progress(
        &self,
        mut params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(proxy) = self.proxy() else { return };
        // Progress of a call the client made, under the client's token; any other is the
        // proxy's own business (the client has no token for it).
        let Some(target) = proxy
            .0
            .progress
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&params.progress_token)
            .cloned()
        else {
            return;
        };
        let relaying = &target.relaying;
        relaying
            .count
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        params.progress_token = target.token;
        // Sent (written to the client's transport) before the call's answer is released.
        let _ = target.client.notify_progress(params).await;
        if relaying
            .count
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel)
            == 1
        {
            relaying.idle.notify_waiters();
        }
    }
}
