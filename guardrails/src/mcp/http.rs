//! Streamable HTTP on hyper alone. The MCP endpoint is a single route, so a router
//! framework would add crates and nothing else; the path check below is all the routing
//! needed.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Empty, combinators::BoxBody};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, ToSocketAddrs};

use crate::server::Server;

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
