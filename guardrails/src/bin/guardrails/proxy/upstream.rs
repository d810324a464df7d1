//! The upstream server: a child process (or a Streamable HTTP endpoint) reached with rmcp's
//! client, started on demand and again after it stops.

use std::ffi::OsString;
use std::sync::{Arc, PoisonError, RwLock, Weak};
use std::time::Duration;

use guardrails::{ErrorCode, ToolError};
use rmcp::service::{Peer, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt as _};

use super::passthrough::UpstreamClient;
use super::{Inner, Proxy};

impl Proxy {
    /// The upstream's peer, or the reason it cannot be reached.
    pub(super) async fn upstream(&self) -> Result<Peer<RoleClient>, String> {
        self.0.upstream.peer().await
    }
}

/// The upstream server: a child process, started on demand and again after it stops.
pub(super) struct Upstream {
    pub(super) proxy: Weak<Inner>,
    pub(super) command: Vec<OsString>,
    /// The URL of an upstream that serves Streamable HTTP, reached instead of a command.
    pub(super) url: Option<String>,
    /// How long the upstream may take to answer `initialize`.
    pub(super) timeout: Duration,
    pub(super) state: tokio::sync::Mutex<Option<RunningService<RoleClient, UpstreamClient>>>,
    /// The peer of the running upstream, read by every call without waiting on `state`,
    /// which is taken only to start or stop it.
    pub(super) running: RwLock<Option<Peer<RoleClient>>>,
    /// What the upstream said of itself when it last started.
    pub(super) info: RwLock<Option<Arc<rmcp::model::ServerPeerInfo>>>,
}

impl Upstream {
    /// The peer of the running upstream, when its connection is open.
    fn running(&self) -> Option<Peer<RoleClient>> {
        self.running
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|peer| !peer.is_transport_closed())
            .cloned()
    }

    /// Whether the child process is running and its connection open.
    pub(super) fn is_running(&self) -> bool {
        self.running().is_some()
    }

    /// The upstream's peer, starting the process when it is not running.
    pub(super) async fn peer(&self) -> Result<Peer<RoleClient>, String> {
        if let Some(peer) = self.running() {
            return Ok(peer);
        }
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
        *self.running.write().unwrap_or_else(PoisonError::into_inner) = Some(peer.clone());
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
    pub(super) fn info(&self) -> Option<Arc<rmcp::model::ServerPeerInfo>> {
        self.info
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(super) async fn stop(&self) {
        let mut state = self.state.lock().await;
        self.running
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(mut service) = state.take() {
            let _ = service.close().await;
        }
    }
}

/// The tool error of a call the upstream failed other than with a protocol error.
pub(super) fn upstream_failed(tool: &str, error: &ServiceError) -> ToolError {
    tracing::warn!(tool, %error, "the upstream failed the call");
    ToolError::new(
        ErrorCode::Unavailable,
        format!("The server behind this tool failed: {error}"),
    )
    .recovery("Call the tool again; the server is restarted if it stopped.")
}
