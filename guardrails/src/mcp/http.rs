//! Streamable HTTP on hyper alone. The MCP endpoint is a single route, so a router
//! framework would add crates and nothing else; the path check below is all the routing
//! needed.
//!
//! rmcp owns the protocol: sessions, the `Host` and `Origin` checks, the body limit and the
//! messages. What rmcp leaves to the server that runs its service is here, each part bounded
//! by a field of [`HttpConfig`]: the accept loop (which survives accept errors such as running
//! out of descriptors), connections (a cap, `TCP_NODELAY`, a header read timeout), request
//! bodies (a size and a time limit), requests parsed and handled at once, and sessions (a cap,
//! a deadline for the first use after `initialize`, one answer per request id).

pub(crate) mod caller;
mod sessions;
mod shares;

use std::cell::Cell;
use std::convert::Infallible;
use std::fmt;
use std::future::IntoFuture;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, Limited, combinators::BoxBody};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::server::Server;

use sessions::BoundedSessions;

/// The path of the MCP endpoint.
pub(crate) const MCP_PATH: &str = "/mcp";

/// The limits and checks of the Streamable HTTP server ([`Server::serve_http`], [`serve_http`]).
///
/// Every limit has a default fit for a server on a developer's machine or a small
/// deployment; the method that sets it says what a client gets when it is reached.
///
/// ```
/// use std::time::Duration;
/// use guardrails::mcp::HttpConfig;
///
/// let config = HttpConfig::default()
///     .with_max_sessions(256)
///     .with_header_read_timeout(Duration::from_secs(5))
///     .with_allowed_origins(["https://app.example.com"]);
/// # let _ = config;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpConfig {
    /// Connections served at once. Past it the server stops accepting: new connections wait
    /// in the operating system's accept queue until one closes (they are not refused). Keep
    /// it below the process's descriptor limit (`ulimit -n`).
    pub(crate) max_connections: usize,
    /// How long a client has to send a request's headers, and how long a kept-alive
    /// connection may stay idle between requests. Past it the connection is closed.
    pub(crate) header_read_timeout: Duration,
    /// How long a client has to send a request's body once its headers are in. Past it the
    /// request is answered `408 Request Timeout`.
    pub(crate) body_read_timeout: Duration,
    /// The largest request body, in bytes. A larger one is answered `413 Payload Too Large`.
    /// Parsing JSON takes many times the size of the text, so this also bounds the memory of
    /// one request.
    pub(crate) max_body_bytes: usize,
    /// `POST` requests in flight at once: from parsing their body to the end of their
    /// response, so both the memory of parsing (this times [`HttpConfig::max_body_bytes`]
    /// times the cost of JSON) and the calls running at once are bounded. Others wait for a
    /// slot, their body already read and counted in [`HttpConfig::max_body_bytes_in_flight`],
    /// for at most [`HttpConfig::in_flight_wait_timeout`].
    pub(crate) max_in_flight_requests: usize,
    /// How long a request may wait for room among [`HttpConfig::max_body_bytes_in_flight`],
    /// and then how long for an in-flight slot. Past either, the request is answered `503
    /// Service Unavailable` with `Retry-After` and a JSON-RPC error that carries its id (read
    /// aside when the body, not yet read, is of at most 64 KiB; `null` for a larger one).
    pub(crate) in_flight_wait_timeout: Duration,
    /// Bytes of request bodies in memory at once, across requests. A request takes room for
    /// its body before reading a byte of it (its `Content-Length`, or
    /// [`HttpConfig::max_body_bytes`] for a chunked body until it is read), and holds it until
    /// its response ends; a request that does not fit waits with its body unread, in the
    /// client's socket. So the memory of reading, parsing and handling bodies is bounded
    /// whatever their number (a body of many small JSON values takes about twelve times its
    /// size once parsed), beside what each connection buffers (hyper's read buffer, 8 KiB to
    /// start) and at most 1 MiB of small bodies read aside to answer a refusal with its id. A
    /// body larger than this bound waits for the whole of it, and then runs alone.
    pub(crate) max_body_bytes_in_flight: usize,
    /// `POST` requests in flight at once from one client (see [`HttpConfig::with_caller`]
    /// for how clients are told apart): its fair share of
    /// [`HttpConfig::max_in_flight_requests`]. A request past it is answered at once `429 Too
    /// Many Requests` with `Retry-After` and a JSON-RPC error (-32000) that carries its id,
    /// so that one client cannot take every slot while the others wait. Default: as many as
    /// [`HttpConfig::DEFAULT_MAX_IN_FLIGHT_REQUESTS`], so that a load balancer or a proxy in
    /// front, which every request comes through, is not held to a share: lower it where
    /// clients that do not trust each other reach the server directly or are told apart.
    pub(crate) max_in_flight_per_client: usize,
    /// Sessions open at once (clients of MCP revisions before 2026-07-28; the revision
    /// 2026-07-28 has no sessions). An `initialize` past it evicts a session idle for
    /// [`HttpConfig::session_eviction_idle_time`], or, when none is, is answered `503 Service
    /// Unavailable` with `Retry-After: 5` and a JSON-RPC error (code -32000) that carries the
    /// request's id.
    pub(crate) max_sessions: usize,
    /// Sessions one client may hold open at once: its fair share of
    /// [`HttpConfig::max_sessions`]. A client at its share that opens another closes its own
    /// session idle the longest (idle for [`HttpConfig::session_eviction_idle_time`]), or is
    /// answered `429 Too Many Requests`: it never evicts another client's session. When the
    /// table is full, a client under its share evicts an idle session of the client that holds
    /// the most. Default: a quarter of [`HttpConfig::DEFAULT_MAX_SESSIONS`] (256); behind a
    /// proxy, tell clients apart ([`HttpConfig::with_caller`]) or raise it.
    pub(crate) max_sessions_per_client: usize,
    /// How long a session must have been idle (no request in flight, nothing received) to be
    /// evicted when all [`HttpConfig::max_sessions`] are taken: a new `initialize` then closes
    /// the session idle the longest rather than being refused, so a client that opens
    /// sessions and leaves them holds the table this long, not the whole
    /// [`HttpConfig::session_idle_timeout`]. An evicted session's id is answered `404 Not
    /// Found`, which tells its client to start a new session. `Duration::MAX` never evicts.
    pub(crate) session_eviction_idle_time: Duration,
    /// How long a new session may stay unused after its `initialize`: a session whose client
    /// sends nothing more within this time (not even `notifications/initialized`) is closed,
    /// and its id is answered `404 Not Found` as any closed session's is.
    pub(crate) session_init_timeout: Duration,
    /// How long a session may stay idle before it is closed (rmcp's keep-alive).
    pub(crate) session_idle_timeout: Duration,
    /// The `Origin`s a request may come from (browsers send it; other clients send none, and
    /// a request without `Origin` is always accepted). Entries are `scheme://host[:port]`,
    /// `:*` for any port. `None` accepts any origin. A request from another origin is
    /// answered `403 Forbidden`. Default: `http://localhost:*`, `http://127.0.0.1:*`,
    /// `http://[::1]:*` and the same with `https`.
    pub(crate) allowed_origins: Option<Vec<String>>,
    /// The `Host`s a request may name (the defence against DNS rebinding), as `host` or
    /// `host:port`. Empty accepts any host. Another host is answered `403 Forbidden`.
    /// Default: `localhost`, `127.0.0.1`, `::1`.
    pub(crate) allowed_hosts: Vec<String>,
    /// The application's hook that names who sends a request ([`HttpConfig::with_caller`]).
    caller: Option<caller::CallerHook>,
}

impl HttpConfig {
    /// The default of [`HttpConfig::max_connections`].
    pub(crate) const DEFAULT_MAX_CONNECTIONS: usize = 512;
    /// The default of [`HttpConfig::header_read_timeout`].
    pub(crate) const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default of [`HttpConfig::body_read_timeout`].
    pub(crate) const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default of [`HttpConfig::max_body_bytes`]: 1 MiB.
    pub(crate) const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
    /// The default of [`HttpConfig::max_in_flight_requests`].
    pub(crate) const DEFAULT_MAX_IN_FLIGHT_REQUESTS: usize = 64;
    /// The default of [`HttpConfig::in_flight_wait_timeout`].
    pub(crate) const DEFAULT_IN_FLIGHT_WAIT_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default of [`HttpConfig::max_body_bytes_in_flight`]: 16 MiB, sixteen bodies of the
    /// largest default size, or thousands of ordinary calls.
    pub(crate) const DEFAULT_MAX_BODY_BYTES_IN_FLIGHT: usize = 16 * 1024 * 1024;
    /// The default of [`HttpConfig::max_sessions`].
    pub(crate) const DEFAULT_MAX_SESSIONS: usize = 1024;
    /// The default of [`HttpConfig::session_eviction_idle_time`]: 30 seconds, the time a
    /// model takes to think between two calls many times over.
    pub(crate) const DEFAULT_SESSION_EVICTION_IDLE_TIME: Duration = Duration::from_secs(30);
    /// The default of [`HttpConfig::session_init_timeout`].
    pub(crate) const DEFAULT_SESSION_INIT_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default of [`HttpConfig::session_idle_timeout`]: rmcp's, five minutes.
    pub(crate) const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = SessionConfig::DEFAULT_KEEP_ALIVE;

    /// Connections served at once. Past it the server stops accepting: new connections wait
    /// in the operating system's accept queue until one closes (they are not refused). Keep
    /// it below the process's descriptor limit (`ulimit -n`).
    ///
    /// At least 1. Default: 512.
    #[must_use]
    pub fn with_max_connections(mut self, max: usize) -> Self {
        self.max_connections = max.max(1);
        self
    }

    /// How long a client has to send a request's headers, and how long a kept-alive
    /// connection may stay idle between requests. Past it the connection is closed.
    ///
    /// Default: 10 seconds.
    #[must_use]
    pub fn with_header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a client has to send a request's body once its headers are in. Past it the
    /// request is answered `408 Request Timeout`.
    ///
    /// Default: 30 seconds.
    #[must_use]
    pub fn with_body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// The largest request body, in bytes. A larger one is answered `413 Payload Too Large`.
    /// Parsing JSON takes many times the size of the text, so this also bounds the memory of
    /// one request.
    ///
    /// Default: 1 MiB.
    #[must_use]
    pub fn with_max_body_bytes(mut self, max: usize) -> Self {
        self.max_body_bytes = max;
        self
    }

    /// `POST` requests in flight at once from one client (see [`HttpConfig::with_caller`]
    /// for how clients are told apart): its fair share of
    /// [`HttpConfig::with_max_in_flight_requests`]. A request past it is answered at once `429 Too
    /// Many Requests` with `Retry-After` and a JSON-RPC error (-32000) that carries its id,
    /// so that one client cannot take every slot while the others wait. Default: as many as
    /// the default of [`HttpConfig::with_max_in_flight_requests`] (64), so that a load balancer or a proxy in
    /// front, which every request comes through, is not held to a share: lower it where
    /// clients that do not trust each other reach the server directly or are told apart.
    ///
    /// At least 1.
    #[must_use]
    pub fn with_max_in_flight_per_client(mut self, max: usize) -> Self {
        self.max_in_flight_per_client = max.max(1);
        self
    }

    /// Sessions one client may hold open at once: its fair share of
    /// [`HttpConfig::with_max_sessions`]. A client at its share that opens another closes its own
    /// session idle the longest (idle for [`HttpConfig::with_session_eviction_idle_time`]), or is
    /// answered `429 Too Many Requests`: it never evicts another client's session. When the
    /// table is full, a client under its share evicts an idle session of the client that holds
    /// the most. Default: a quarter of the default of [`HttpConfig::with_max_sessions`] (256); behind a
    /// proxy, tell clients apart ([`HttpConfig::with_caller`]) or raise it.
    ///
    /// At least 1.
    #[must_use]
    pub fn with_max_sessions_per_client(mut self, max: usize) -> Self {
        self.max_sessions_per_client = max.max(1);
        self
    }

    /// Names who sends each request, for the requests the hook can name: `name` reads the
    /// request's method, URI, headers and extensions and returns a name (a tenant, an API
    /// key's owner, a user your gateway verified) or `None`.
    ///
    /// Who calls decides whose rate limits, loop-breaker memory and repair counts a call
    /// counts against, and whose fair share of sessions and in-flight requests a request
    /// takes. It is, in order:
    ///
    /// 1. the name the hook returns;
    /// 2. the credentials of the `Authorization` header (a bearer token), hashed: the server
    ///    verifies no token and reads no claim from one, so a client can only ever spend the
    ///    budget of a token it holds;
    /// 3. for the limits and the loop breaker, the session (revisions before 2026-07-28),
    ///    else the connection: two clients of revision 2026-07-28, which carry no session,
    ///    are two callers. For the fair shares, the client's IP address.
    ///
    /// Names, tokens and session ids are kept only as SHA-256 digests, the same on every
    /// node. Behind a proxy every connection comes from
    /// the proxy: name callers by a header the proxy sets, or by their credentials. To count
    /// all clients as one, name them all the same.
    ///
    /// ```
    /// use guardrails::mcp::HttpConfig;
    ///
    /// let config = HttpConfig::default().with_caller(|request| {
    ///     let key = request.headers.get("x-api-key")?.to_str().ok()?;
    ///     Some(format!("api-key:{key}"))
    /// });
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn with_caller(
        mut self,
        name: impl Fn(&http::request::Parts) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.caller = Some(caller::CallerHook(Arc::new(name)));
        self
    }

    /// `POST` requests in flight at once: from parsing their body to the end of their
    /// response, so both the memory of parsing (this times [`HttpConfig::with_max_body_bytes`]
    /// times the cost of JSON) and the calls running at once are bounded. Others wait for a
    /// slot, their body already read and counted in [`HttpConfig::with_max_body_bytes_in_flight`],
    /// for at most [`HttpConfig::with_in_flight_wait_timeout`].
    ///
    /// At least 1. Default: 64.
    #[must_use]
    pub fn with_max_in_flight_requests(mut self, max: usize) -> Self {
        self.max_in_flight_requests = max.max(1);
        self
    }

    /// How long a request may wait for room among [`HttpConfig::with_max_body_bytes_in_flight`],
    /// and then how long for an in-flight slot. Past either, the request is answered `503
    /// Service Unavailable` with `Retry-After` and a JSON-RPC error that carries its id (read
    /// aside when the body, not yet read, is of at most 64 KiB; `null` for a larger one).
    ///
    /// Default: 30 seconds.
    #[must_use]
    pub fn with_in_flight_wait_timeout(mut self, timeout: Duration) -> Self {
        self.in_flight_wait_timeout = timeout;
        self
    }

    /// Bytes of request bodies in memory at once, across requests. A request takes room for
    /// its body before reading a byte of it (its `Content-Length`, or
    /// [`HttpConfig::with_max_body_bytes`] for a chunked body until it is read), and holds it until
    /// its response ends; a request that does not fit waits with its body unread, in the
    /// client's socket. So the memory of reading, parsing and handling bodies is bounded
    /// whatever their number (a body of many small JSON values takes about twelve times its
    /// size once parsed), beside what each connection buffers (hyper's read buffer, 8 KiB to
    /// start) and at most 1 MiB of small bodies read aside to answer a refusal with its id. A
    /// body larger than this bound waits for the whole of it, and then runs alone.
    ///
    /// At least 1. Default: 16 MiB, sixteen bodies of the largest default size, or thousands of ordinary calls.
    #[must_use]
    pub fn with_max_body_bytes_in_flight(mut self, max: usize) -> Self {
        self.max_body_bytes_in_flight = max.max(1);
        self
    }

    /// Sessions open at once (clients of MCP revisions before 2026-07-28; the revision
    /// 2026-07-28 has no sessions). An `initialize` past it evicts a session idle for
    /// [`HttpConfig::with_session_eviction_idle_time`], or, when none is, is answered `503 Service
    /// Unavailable` with `Retry-After: 5` and a JSON-RPC error (code -32000) that carries the
    /// request's id.
    ///
    /// Default: 1024.
    #[must_use]
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// How long a session must have been idle (no request in flight, nothing received) to be
    /// evicted when all [`HttpConfig::with_max_sessions`] are taken: a new `initialize` then closes
    /// the session idle the longest rather than being refused, so a client that opens
    /// sessions and leaves them holds the table this long, not the whole
    /// [`HttpConfig::with_session_idle_timeout`]. An evicted session's id is answered `404 Not
    /// Found`, which tells its client to start a new session. `Duration::MAX` never evicts.
    ///
    /// Default: 30 seconds, the time a model takes to think between two calls many times over.
    #[must_use]
    pub fn with_session_eviction_idle_time(mut self, idle: Duration) -> Self {
        self.session_eviction_idle_time = idle;
        self
    }

    /// How long a new session may stay unused after its `initialize`: a session whose client
    /// sends nothing more within this time (not even `notifications/initialized`) is closed,
    /// and its id is answered `404 Not Found` as any closed session's is.
    ///
    /// Default: 10 seconds.
    #[must_use]
    pub fn with_session_init_timeout(mut self, timeout: Duration) -> Self {
        self.session_init_timeout = timeout;
        self
    }

    /// How long a session may stay idle before it is closed (rmcp's keep-alive).
    ///
    /// Default: rmcp's, five minutes.
    #[must_use]
    pub fn with_session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Accepts requests from these origins only (and requests without `Origin`).
    ///
    /// The `Origin`s a request may come from (browsers send it; other clients send none, and
    /// a request without `Origin` is always accepted). Entries are `scheme://host[:port]`,
    /// `:*` for any port. [`HttpConfig::with_any_origin`] accepts any origin. A request from another origin is
    /// answered `403 Forbidden`. Default: `http://localhost:*`, `http://127.0.0.1:*`,
    /// `http://[::1]:*` and the same with `https`.
    #[must_use]
    pub fn with_allowed_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// Accepts requests from any origin: for a server behind a proxy that checks `Origin`
    /// itself. Browsers on other sites can then call the server's tools.
    #[must_use]
    pub fn with_any_origin(mut self) -> Self {
        self.allowed_origins = None;
        self
    }

    /// Accepts requests naming these hosts only.
    ///
    /// The `Host`s a request may name (the defence against DNS rebinding), as `host` or
    /// `host:port`. [`HttpConfig::with_any_host`] accepts any host. Another host is answered `403 Forbidden`.
    /// Default: `localhost`, `127.0.0.1`, `::1`.
    #[must_use]
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Accepts requests naming any host: for a public deployment behind a proxy.
    #[must_use]
    pub fn with_any_host(mut self) -> Self {
        self.allowed_hosts.clear();
        self
    }

    /// The configuration of rmcp's service: the checks and limits rmcp enforces itself.
    fn rmcp_config(&self) -> StreamableHttpServerConfig {
        let config =
            StreamableHttpServerConfig::default().with_max_request_body_bytes(self.max_body_bytes);
        let config = if self.allowed_hosts.is_empty() {
            config.disable_allowed_hosts()
        } else {
            config.with_allowed_hosts(self.allowed_hosts.iter().cloned())
        };
        match &self.allowed_origins {
            Some(origins) => config
                .with_allowed_origins(origins.iter().cloned())
                .enforce_origin_validation(),
            None => config.disable_allowed_origins(),
        }
    }

    /// rmcp's in-memory sessions with this configuration's limits.
    fn sessions(&self) -> BoundedSessions {
        let mut session_config = SessionConfig::default();
        session_config.keep_alive = Some(self.session_idle_timeout);
        let mut local = LocalSessionManager::default();
        local.session_config = session_config;
        BoundedSessions::new(local, self.max_sessions, self.session_init_timeout)
            .with_idle_eviction(self.session_eviction_idle_time)
            .with_max_per_client(self.max_sessions_per_client)
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        let loopback = ["localhost", "127.0.0.1", "[::1]"];
        Self {
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            header_read_timeout: Self::DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: Self::DEFAULT_BODY_READ_TIMEOUT,
            max_body_bytes: Self::DEFAULT_MAX_BODY_BYTES,
            max_in_flight_requests: Self::DEFAULT_MAX_IN_FLIGHT_REQUESTS,
            in_flight_wait_timeout: Self::DEFAULT_IN_FLIGHT_WAIT_TIMEOUT,
            max_body_bytes_in_flight: Self::DEFAULT_MAX_BODY_BYTES_IN_FLIGHT,
            max_in_flight_per_client: Self::DEFAULT_MAX_IN_FLIGHT_REQUESTS,
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
            max_sessions_per_client: Self::DEFAULT_MAX_SESSIONS / 4,
            session_eviction_idle_time: Self::DEFAULT_SESSION_EVICTION_IDLE_TIME,
            session_init_timeout: Self::DEFAULT_SESSION_INIT_TIMEOUT,
            session_idle_timeout: Self::DEFAULT_SESSION_IDLE_TIMEOUT,
            allowed_origins: Some(
                ["http", "https"]
                    .iter()
                    .flat_map(|scheme| loopback.map(|host| format!("{scheme}://{host}:*")))
                    .collect(),
            ),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            caller: None,
        }
    }
}

type HttpResponse = http::Response<BoxBody<Bytes, Infallible>>;

/// What every connection of one server shares.
struct Shared<H: ServerHandler + Clone> {
    service: StreamableHttpService<H, BoundedSessions>,
    in_flight: Arc<Semaphore>,
    /// The in-flight requests of each client.
    shares: Arc<shares::Shares>,
    body_bytes: BodyBudget,
    config: HttpConfig,
}

impl<S: Send + Sync + 'static> Server<S> {
    /// Serves Streamable HTTP at `http://{at}/mcp`, `at` an address to bind (a `&str` or
    /// `String` such as `"127.0.0.1:8080"`, a [`SocketAddr`], an `(IpAddr, u16)`) or a
    /// [`TcpListener`] already bound (e.g. to port 0 in tests), with the default
    /// [`HttpConfig`] unless [`ServeHttp::config`] sets one. Bind a loopback address
    /// (`127.0.0.1:8080`): the server has no authentication of its own.
    ///
    /// ```no_run
    /// use guardrails::Server;
    /// use guardrails::mcp::HttpConfig;
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// Server::new(()).serve_http("127.0.0.1:8080").await?;
    ///
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let config = HttpConfig::default().with_max_sessions(256);
    /// Server::new(()).serve_http(listener).config(config).await
    /// # }
    /// ```
    ///
    /// The returned [`ServeHttp`] is awaited (or passed to `tokio::spawn` with
    /// [`IntoFuture::into_future`]). Its output is an error when the address cannot be bound;
    /// once bound, the server runs until its task is dropped: accept errors (such as running
    /// out of descriptors) are logged and waited out.
    pub fn serve_http(self, at: impl Into<Listen>) -> ServeHttp<Self> {
        ServeHttp::new(self, at.into())
    }
}

/// Where a server listens: an address to bind (`"127.0.0.1:8080"`, a [`SocketAddr`], an
/// `(IpAddr, u16)`) or a [`TcpListener`] already bound. Built by `From` for each; never named
/// by the caller, who passes one of those.
#[derive(Debug)]
pub struct Listen(Place);

#[derive(Debug)]
enum Place {
    Bound(TcpListener),
    Host(String),
    Socket(SocketAddr),
}

impl From<TcpListener> for Listen {
    fn from(listener: TcpListener) -> Self {
        Self(Place::Bound(listener))
    }
}

impl From<&str> for Listen {
    fn from(addr: &str) -> Self {
        Self(Place::Host(addr.to_owned()))
    }
}

impl From<String> for Listen {
    fn from(addr: String) -> Self {
        Self(Place::Host(addr))
    }
}

impl From<SocketAddr> for Listen {
    fn from(addr: SocketAddr) -> Self {
        Self(Place::Socket(addr))
    }
}

impl<I: Into<IpAddr>> From<(I, u16)> for Listen {
    fn from((ip, port): (I, u16)) -> Self {
        Self(Place::Socket(SocketAddr::new(ip.into(), port)))
    }
}

impl Listen {
    async fn bind(self) -> io::Result<TcpListener> {
        match self.0 {
            Place::Bound(listener) => Ok(listener),
            Place::Host(addr) => TcpListener::bind(addr).await,
            Place::Socket(addr) => TcpListener::bind(addr).await,
        }
    }
}

/// A Streamable HTTP server waiting to be awaited: [`Server::serve_http`] for a server of
/// derived tools, [`serve_http`] for any rmcp handler (a router guarded by
/// [`RouterGuard`](super::RouterGuard) among them). [`ServeHttp::config`] sets its limits.
#[must_use = "the server does nothing until it is awaited"]
pub struct ServeHttp<H> {
    handler: H,
    at: Listen,
    config: HttpConfig,
}

impl<H> fmt::Debug for ServeHttp<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeHttp")
            .field("at", &self.at)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<H> ServeHttp<H> {
    fn new(handler: H, at: Listen) -> Self {
        Self {
            handler,
            at,
            config: HttpConfig::default(),
        }
    }

    /// Serves with the limits and checks of `config` instead of the defaults.
    pub fn config(mut self, config: HttpConfig) -> Self {
        self.config = config;
        self
    }
}

impl<H: ServerHandler + Clone + Send + Sync + 'static> IntoFuture for ServeHttp<H> {
    type Output = io::Result<()>;
    type IntoFuture = futures_util::future::BoxFuture<'static, io::Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let listener = self.at.bind().await?;
            let service = service_of(self.handler, &self.config);
            serve_service(service, listener, self.config).await
        })
    }
}

/// Serves any rmcp `handler` over Streamable HTTP at `http://{at}/mcp` (`at` as
/// [`Server::serve_http`] takes it: an address or a bound [`TcpListener`]), with the limits and
/// checks of [`Server::serve_http`]: a native rmcp server whose router a
/// [`RouterGuard`](super::RouterGuard) guards gets the same hardened server as a server of
/// derived tools. Each session gets a clone of `handler`.
///
/// ```no_run
/// # #[derive(Clone)] struct Notes;
/// # impl rmcp::ServerHandler for Notes {}
/// # async fn run() -> std::io::Result<()> {
/// guardrails::mcp::serve_http(Notes, "127.0.0.1:8080").await
/// # }
/// ```
pub fn serve_http<H>(handler: H, at: impl Into<Listen>) -> ServeHttp<H>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    ServeHttp::new(handler, at.into())
}

/// rmcp's Streamable HTTP service of `handler` (a clone per session), with the checks of
/// `config` that rmcp enforces and bounded sessions.
fn service_of<H>(handler: H, config: &HttpConfig) -> StreamableHttpService<H, BoundedSessions>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(config.sessions()),
        config.rmcp_config(),
    )
}

/// Serves `service` on `listener` with the limits of `config`.
async fn serve_service<H>(
    service: StreamableHttpService<H, BoundedSessions>,
    listener: TcpListener,
    config: HttpConfig,
) -> io::Result<()>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    serve_shared(shared(service, config), listener).await
}

/// What the connections of a server of `service` under `config` share.
fn shared<H>(
    service: StreamableHttpService<H, BoundedSessions>,
    config: HttpConfig,
) -> Arc<Shared<H>>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    Arc::new(Shared {
        service,
        in_flight: Arc::new(Semaphore::new(config.max_in_flight_requests.max(1))),
        shares: shares::Shares::new(config.max_in_flight_per_client),
        body_bytes: BodyBudget::new(config.max_body_bytes_in_flight),
        config,
    })
}

/// The accept loop of a server.
async fn serve_shared<H>(shared: Arc<Shared<H>>, listener: TcpListener) -> io::Result<()>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let connections = Arc::new(Semaphore::new(shared.config.max_connections.max(1)));
    let mut backoff = AcceptBackoff::default();
    loop {
        // A slot first: at the cap, connections wait in the accept queue, where they cost
        // the process no descriptor.
        let Ok(slot) = Arc::clone(&connections).acquire_owned().await else {
            unreachable!("the semaphore is never closed");
        };
        match accept(&listener).await {
            Ok(stream) => {
                backoff.reset();
                tokio::spawn(serve_connection(stream, slot, Arc::clone(&shared)));
            }
            Err(error) if is_peer_error(&error) => {}
            Err(error) => {
                let wait = backoff.next();
                tracing::error!(%error, retry_in = ?wait, "accepting a connection failed");
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// Accepts one connection, set up for request-response traffic: with `TCP_NODELAY`, so that
/// a small response is not held back by Nagle's algorithm waiting for the client's delayed
/// acknowledgement (a 40 ms floor on every call).
async fn accept(listener: &TcpListener) -> io::Result<TcpStream> {
    let (stream, _) = listener.accept().await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// Errors of one connection that the peer caused (it gave up before it was accepted): the
/// next accept may well succeed at once.
fn is_peer_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
    )
}

/// How long to wait after an accept error (no descriptor left, no buffer space): from 5 ms,
/// doubling up to a second, as Go's HTTP server does, so that a lasting shortage costs a
/// log line a second rather than a busy loop.
#[derive(Debug, Default)]
struct AcceptBackoff {
    last: Option<Duration>,
}

impl AcceptBackoff {
    const FIRST: Duration = Duration::from_millis(5);
    const MAX: Duration = Duration::from_secs(1);

    fn next(&mut self) -> Duration {
        let wait = self
            .last
            .map_or(Self::FIRST, |last| (last * 2).min(Self::MAX));
        self.last = Some(wait);
        wait
    }

    fn reset(&mut self) {
        self.last = None;
    }
}

async fn serve_connection<H: ServerHandler + Clone + Send + Sync + 'static>(
    stream: TcpStream,
    slot: OwnedSemaphorePermit,
    shared: Arc<Shared<H>>,
) {
    let header_read_timeout = shared.config.header_read_timeout;
    // Without its peer's address (the socket closed already), a connection is its own client.
    let peer = stream
        .peer_addr()
        .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0)));
    let handler = hyper::service::service_fn(move |request| {
        let shared = Arc::clone(&shared);
        async move { Ok::<_, Infallible>(serve_request(&shared, request, peer).await) }
    });
    // A connection that fails affects only its own client.
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .serve_connection(TokioIo::new(stream), handler)
        .await;
    drop(slot);
}

tokio::task_local! {
    /// Set by [`BoundedSessions`] when it refuses a session, so that the request is answered
    /// 503 (all are taken) or 429 (its client holds its share) rather than rmcp's 500 for a
    /// failed session creation.
    static SESSION_REFUSED: Cell<Option<Refusal>>;
    /// The client of the request being handled, whose share a new session takes.
    static SESSION_OWNER: Option<crate::operate::CallerKey>;
}

/// Why a request was refused for want of room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// The server has no room left.
    Full,
    /// The client holds its share.
    OverShare,
}

async fn serve_request<H: ServerHandler + Clone + Send + Sync + 'static>(
    shared: &Shared<H>,
    request: http::Request<hyper::body::Incoming>,
    peer: SocketAddr,
) -> HttpResponse {
    if request.uri().path() != MCP_PATH {
        return plain(http::StatusCode::NOT_FOUND, "Not Found");
    }
    let (mut parts, body) = request.into_parts();
    // Who sends the request, read once: rmcp hands the extensions to the handler.
    let client = caller::HttpCaller::read(&parts, peer, shared.config.caller.as_ref());
    parts.extensions.insert(client);
    let (body, room, read) = match room_and_body(shared, body).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    // A `GET` opens a stream that lasts as long as the session: it takes no slot, and gives
    // its room back once rmcp has its request. A `POST` holds its room and takes a slot.
    let (hold, room) = if parts.method == http::Method::POST {
        // A client over its share is answered at once: it is the one to slow down.
        let Some(share) = shared.shares.try_take(client.owner) else {
            return over_share(
                &format!(
                    "a client may have at most {} requests in flight",
                    shared.config.max_in_flight_per_client
                ),
                &body,
            );
        };
        let slot = tokio::time::timeout(
            shared.config.in_flight_wait_timeout,
            Arc::clone(&shared.in_flight).acquire_owned(),
        )
        .await;
        match slot {
            Ok(Ok(slot)) => (
                Some(Held {
                    _room: room,
                    _read: read,
                    _slot: slot,
                    _share: share,
                }),
                None,
            ),
            Ok(Err(_)) => unreachable!("the semaphore is never closed"),
            Err(_) => {
                return busy(&busy_in_flight(&shared.config), request_id(&body).as_ref());
            }
        }
    } else {
        (None, Some((room, read)))
    };
    let is_json = is_json_content(&parts.headers);
    let is_post = parts.method == http::Method::POST;
    // A handle on the body (a count, not a copy) to answer in JSON-RPC if rmcp refuses it.
    let kept = body.clone();
    let request = http::Request::from_parts(parts, Full::new(body));
    let (response, refused) = SESSION_REFUSED
        .scope(
            Cell::new(None),
            SESSION_OWNER.scope(Some(client.owner), async {
                let response = shared.service.handle(request).await;
                (response, SESSION_REFUSED.with(Cell::get))
            }),
        )
        .await;
    drop(room);
    match refused {
        Some(Refusal::Full) => {
            return busy(
                &format!(
                    "the server has its maximum of {} sessions",
                    shared.config.max_sessions
                ),
                request_id(&kept).as_ref(),
            );
        }
        Some(Refusal::OverShare) => {
            return over_share(
                &format!(
                    "a client may hold at most {} sessions; close one (DELETE) or reuse it",
                    shared.config.max_sessions_per_client
                ),
                &kept,
            );
        }
        None => {}
    }
    // rmcp answers a JSON body it cannot read as a message with a bare `415`, which no
    // JSON-RPC client can show: answer it as JSON-RPC does.
    if is_post && is_json && response.status() == http::StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return unreadable(&kept);
    }
    // The slot and the room are held until the response is sent: for a call, until its
    // result.
    match hold {
        Some(hold) => response.map(|body| HoldSlot { body, _hold: hold }.boxed()),
        None => response,
    }
}

/// Takes room for a request's body, then reads it: the body, the room it holds and its bytes
/// as counted, or the answer to a request refused.
async fn room_and_body<H: ServerHandler + Clone + Send + Sync + 'static>(
    shared: &Shared<H>,
    body: hyper::body::Incoming,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>, ReadBytes), HttpResponse> {
    // Room for the body is taken before a byte of it is read, so that bodies waiting for room
    // stay in the client's socket, not in memory: what the server holds of request bodies is
    // bounded by the budget (plus hyper's read buffer of each connection).
    let expected = expected_body_len(&body, shared.config.max_body_bytes);
    let Some(expected) = expected else {
        return Err(too_large(&shared.config));
    };
    let room = tokio::time::timeout(
        shared.config.in_flight_wait_timeout,
        shared.body_bytes.room_for(expected),
    )
    .await;
    let Ok(mut room) = room else {
        // The body is not read: answered with the request's id when a small body can be read
        // aside, else with `null`.
        let id = shared
            .body_bytes
            .id_aside(body, expected, &shared.config)
            .await;
        return Err(busy(&busy_in_flight(&shared.config), id.as_ref()));
    };
    // Read within a time and a size limit, before a slot is taken: a slow client holds no
    // slot, and a large one is refused before anything is parsed.
    let (body, read) = shared.body_bytes.read(body, &shared.config).await?;
    // A body of unknown length took room for the largest: what it does not use goes back.
    if let Some(room) = room.as_mut()
        && let Some(spare) = room
            .num_permits()
            .checked_sub(shared.body_bytes.permits_for(body.len()))
        && spare > 0
    {
        drop(room.split(spare));
    }
    Ok((body, room, read))
}

/// What a `POST` holds until its response ends: its room among the bytes in flight, its
/// body's bytes as counted, its in-flight slot and its unit of its client's share.
struct Held {
    _room: Option<OwnedSemaphorePermit>,
    _read: ReadBytes,
    _slot: OwnedSemaphorePermit,
    _share: shares::Share,
}

/// The largest body read aside to answer a request refused before its body was read with
/// its JSON-RPC id; a larger one is answered with id `null`.
const MAX_BODY_READ_ASIDE: usize = 64 * 1024;

/// Bytes of bodies read aside at once, across requests: the bound on that overhead.
const BODY_BYTES_READ_ASIDE: usize = 1024 * 1024;

/// The bound on bytes of request bodies in flight: a semaphore of one permit per byte, taken
/// before a body is read and held until its response ends.
struct BodyBudget {
    bytes: Arc<Semaphore>,
    max: usize,
    /// Room for the bodies read aside to answer a refusal with their id.
    aside: Semaphore,
    /// Requests waiting for room now.
    waiting: std::sync::atomic::AtomicUsize,
    /// The server's own count of request bodies' bytes in memory (read, or being read, by
    /// a request that holds room), and the most it has been.
    read: Arc<ReadCount>,
}

/// Bytes of request bodies read and not yet let go, and the most there have been at once.
#[derive(Debug, Default)]
struct ReadCount {
    now: std::sync::atomic::AtomicUsize,
    peak: std::sync::atomic::AtomicUsize,
}

impl ReadCount {
    fn add(&self, n: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        let now = self.now.fetch_add(n, Relaxed) + n;
        self.peak.fetch_max(now, Relaxed);
    }
}

/// A request's share of [`ReadCount`]: its body's bytes, let go when it is dropped.
struct ReadBytes {
    count: Arc<ReadCount>,
    bytes: usize,
}

impl Drop for ReadBytes {
    fn drop(&mut self) {
        self.count
            .now
            .fetch_sub(self.bytes, std::sync::atomic::Ordering::Relaxed);
    }
}

impl BodyBudget {
    fn new(max: usize) -> Self {
        // tokio's semaphores hold at most `usize::MAX >> 3` permits.
        let max = max.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            bytes: Arc::new(Semaphore::new(max)),
            max,
            aside: Semaphore::new(BODY_BYTES_READ_ASIDE),
            waiting: std::sync::atomic::AtomicUsize::new(0),
            read: Arc::default(),
        }
    }

    /// The permits a body of `len` bytes takes: its size, and the whole budget for a body
    /// larger than it (which then runs alone rather than never).
    fn permits_for(&self, len: usize) -> usize {
        len.min(self.max)
    }

    /// Waits for room for a body of `len` bytes; an empty body needs none.
    async fn room_for(&self, len: usize) -> Option<OwnedSemaphorePermit> {
        let permits = u32::try_from(self.permits_for(len)).unwrap_or(u32::MAX);
        if permits == 0 {
            return None;
        }
        if let Ok(room) = Arc::clone(&self.bytes).try_acquire_many_owned(permits) {
            return Some(room);
        }
        self.waiting
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let _waiting = Waiting(&self.waiting);
        let Ok(room) = Arc::clone(&self.bytes).acquire_many_owned(permits).await else {
            unreachable!("the semaphore is never closed");
        };
        Some(room)
    }

    /// Reads a body within the time and size limits of `config`, counting its bytes as
    /// they arrive.
    async fn read(
        &self,
        body: hyper::body::Incoming,
        config: &HttpConfig,
    ) -> Result<(Bytes, ReadBytes), HttpResponse> {
        let mut read = ReadBytes {
            count: Arc::clone(&self.read),
            bytes: 0,
        };
        let counted = body.map_frame(|frame| {
            if let Some(data) = frame.data_ref() {
                read.count.add(data.len());
                read.bytes += data.len();
            }
            frame
        });
        let body = read_body(counted, config).await?;
        Ok((body, read))
    }

    /// The id of a request refused before its body was read, read aside when the body is
    /// small and room for it is left among [`BODY_BYTES_READ_ASIDE`].
    async fn id_aside(
        &self,
        body: hyper::body::Incoming,
        len: usize,
        config: &HttpConfig,
    ) -> Option<rmcp::model::RequestId> {
        if len == 0 || len > MAX_BODY_READ_ASIDE {
            return None;
        }
        let _room = self.aside.try_acquire_many(u32::try_from(len).ok()?).ok()?;
        let config = config.clone().with_max_body_bytes(len);
        let body = read_body(body, &config).await.ok()?;
        request_id(&body)
    }

    /// The bytes free now.
    #[cfg(test)]
    fn free(&self) -> usize {
        self.bytes.available_permits()
    }
}

/// Why a request waited too long for room or a slot.
fn busy_in_flight(config: &HttpConfig) -> String {
    format!(
        "the server has its maximum of {} requests or {} bytes of requests in flight",
        config.max_in_flight_requests, config.max_body_bytes_in_flight
    )
}

/// Counts a request among those waiting for room for as long as it waits.
struct Waiting<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The bytes a request's body will take, as far as the request says: none when it has no
/// body, its `Content-Length`, else (a chunked body) `max_body_bytes`. `None` when it says
/// it is larger than `max_body_bytes`.
fn expected_body_len(body: &hyper::body::Incoming, max_body_bytes: usize) -> Option<usize> {
    use hyper::body::Body as _;
    if body.is_end_stream() {
        return Some(0);
    }
    let hint = body.size_hint();
    if hint.lower() > max_body_bytes as u64 {
        return None;
    }
    Some(
        hint.exact()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(max_body_bytes),
    )
}

/// Whether a request says its body is JSON (`application/json`, parameters aside).
fn is_json_content(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

/// A response body that holds an in-flight slot (and room for its request's body) until it
/// ends or is dropped.
struct HoldSlot {
    body: BoxBody<Bytes, Infallible>,
    _hold: Held,
}

impl hyper::body::Body for HoldSlot {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        std::pin::Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

fn too_large(config: &HttpConfig) -> HttpResponse {
    plain(
        http::StatusCode::PAYLOAD_TOO_LARGE,
        &format!(
            "Payload Too Large: a request body may have at most {} bytes",
            config.max_body_bytes
        ),
    )
}

async fn read_body<B>(body: B, config: &HttpConfig) -> Result<Bytes, HttpResponse>
where
    B: hyper::body::Body<Data = Bytes>,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let collected = tokio::time::timeout(
        config.body_read_timeout,
        Limited::new(body, config.max_body_bytes).collect(),
    )
    .await;
    match collected {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => Err(too_large(config)),
        Ok(Err(_)) => Err(plain(
            http::StatusCode::BAD_REQUEST,
            "Bad Request: the request body could not be read",
        )),
        Err(_) => Err(plain(
            http::StatusCode::REQUEST_TIMEOUT,
            "Request Timeout: the request body did not arrive in time",
        )),
    }
}

/// The answer to a request refused for a lack of capacity: `503 Service Unavailable`, with
/// `Retry-After` and a JSON-RPC error (-32000) that MCP clients can read and match to their
/// request by its id (`null` when it is not known, as JSON-RPC writes an id that could not be
/// read).
fn busy(why: &str, id: Option<&rmcp::model::RequestId>) -> HttpResponse {
    let mut response = json_rpc_error(
        http::StatusCode::SERVICE_UNAVAILABLE,
        id,
        -32000,
        &format!("Service Unavailable: {why}; retry later"),
    );
    response.headers_mut().insert(
        http::header::RETRY_AFTER,
        http::HeaderValue::from(RETRY_AFTER_SECONDS),
    );
    response
}

/// The answer to a request of a client over its fair share: `429 Too Many Requests`, with
/// `Retry-After` and a JSON-RPC error (-32000) that carries the request's id.
fn over_share(why: &str, body: &[u8]) -> HttpResponse {
    let mut response = json_rpc_error(
        http::StatusCode::TOO_MANY_REQUESTS,
        request_id(body).as_ref(),
        -32000,
        &format!("Too Many Requests: {why}; retry later"),
    );
    response.headers_mut().insert(
        http::header::RETRY_AFTER,
        http::HeaderValue::from(RETRY_AFTER_SECONDS),
    );
    response
}

/// The answer to a JSON body that is not a JSON-RPC message: `400 Bad Request` with a parse
/// error (-32700, id `null`) when it is not JSON at all, an invalid request (-32600, with
/// the id when one can be read) when it is JSON of another shape.
fn unreadable(body: &[u8]) -> HttpResponse {
    if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_err() {
        return json_rpc_error(
            http::StatusCode::BAD_REQUEST,
            None,
            -32700,
            "Parse error: the request body is not valid JSON",
        );
    }
    json_rpc_error(
        http::StatusCode::BAD_REQUEST,
        request_id(body).as_ref(),
        -32600,
        "Invalid Request: the request body is not a JSON-RPC request, notification or response \
         of MCP",
    )
}

/// The longest string id an error echoes: JSON-RPC has it echoed exactly, so a longer one is
/// answered with `null` rather than cut.
const MAX_ECHOED_ID_CHARS: usize = 256;

/// The id of the JSON-RPC message in `body`, if it has a readable one. Read only to answer a
/// request that is refused, so the second pass over the body costs nothing on the way of a
/// call that is served.
fn request_id(body: &[u8]) -> Option<rmcp::model::RequestId> {
    #[derive(serde::Deserialize)]
    struct Envelope {
        id: Option<rmcp::model::RequestId>,
    }
    let id = serde_json::from_slice::<Envelope>(body).ok()?.id?;
    match &id {
        rmcp::model::NumberOrString::String(text) if text.chars().count() > MAX_ECHOED_ID_CHARS => {
            None
        }
        _ => Some(id),
    }
}

/// A response whose body is one JSON-RPC error, with the id of the request it answers (always
/// written, `null` when unknown: clients such as the Python SDK read an error without one as
/// no error at all).
fn json_rpc_error(
    status: http::StatusCode,
    id: Option<&rmcp::model::RequestId>,
    code: i32,
    message: &str,
) -> HttpResponse {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    });
    let mut response = http::Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

/// The `Retry-After` of a `503`: long enough for sessions or calls to end, short enough for
/// an interactive client.
const RETRY_AFTER_SECONDS: u32 = 5;

fn plain(status: http::StatusCode, text: &str) -> HttpResponse {
    let mut response = http::Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_errors_back_off_from_5_ms_to_a_second() {
        let mut backoff = AcceptBackoff::default();
        let waits: Vec<Duration> = (0..10).map(|_| backoff.next()).collect();
        assert_eq!(waits[0], Duration::from_millis(5));
        assert_eq!(waits[1], Duration::from_millis(10));
        assert!(waits.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(waits[9], Duration::from_secs(1));
        backoff.reset();
        assert_eq!(backoff.next(), Duration::from_millis(5));
    }

    #[test]
    fn accept_errors_of_the_peer_are_told_from_the_process_s() {
        assert!(is_peer_error(&io::ErrorKind::ConnectionAborted.into()));
        // EMFILE: the process is out of descriptors, which waiting can cure.
        assert!(!is_peer_error(&io::Error::from_raw_os_error(24)));
    }

    #[tokio::test]
    async fn accepted_connections_do_not_wait_for_acknowledgements() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(TcpStream::connect(addr));
        let served = accept(&listener).await.unwrap();
        assert!(served.nodelay().unwrap(), "TCP_NODELAY is set");
        drop(client.await);
    }

    #[tokio::test]
    async fn bodies_in_flight_take_their_size_in_permits_until_dropped() {
        let budget = BodyBudget::new(4 * 1024 * 1024);
        let mib = 1024 * 1024;
        let mut held = Vec::new();
        for taken in 1..=4 {
            held.push(budget.room_for(mib).await);
            assert_eq!(budget.free(), (4 - taken) * mib);
        }
        // A fifth body does not fit until one of the four is answered.
        let fifth = budget.room_for(mib);
        tokio::pin!(fifth);
        assert!(
            futures_util::FutureExt::now_or_never(fifth.as_mut()).is_none(),
            "the fifth waits"
        );
        held.pop();
        let fifth = fifth.await;
        assert!(fifth.is_some());
        assert_eq!(budget.free(), 0);
        drop(held);
        drop(fifth);
        assert_eq!(budget.free(), 4 * mib);
    }

    #[tokio::test]
    async fn a_body_larger_than_the_budget_takes_all_of_it_and_an_empty_one_none() {
        let budget = BodyBudget::new(1000);
        assert_eq!(budget.permits_for(5000), 1000);
        let whole = budget.room_for(5000).await;
        assert_eq!(budget.free(), 0);
        assert!(
            budget.room_for(0).await.is_none(),
            "an empty body waits for nothing"
        );
        drop(whole);
        assert_eq!(budget.free(), 1000);
    }

    /// Sends a `POST` of `body` on a connection of its own and reads the whole response.
    async fn post_raw(addr: SocketAddr, body: String) -> String {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        response
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn bodies_waiting_for_room_are_not_read_and_those_read_stay_within_the_budget() {
        use std::sync::atomic::Ordering::Relaxed;
        const BUDGET: usize = 64 * 1024;
        const CLIENTS: usize = 8;
        let config = HttpConfig::default()
            .with_max_body_bytes_in_flight(BUDGET)
            .with_in_flight_wait_timeout(Duration::from_secs(60));
        let service = service_of(Server::new(()).name("budget"), &config);
        let shared = shared(service, config);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(serve_shared(Arc::clone(&shared), listener));

        // All the room taken: every request waits, its body unread.
        let all = shared.body_bytes.room_for(BUDGET).await;
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping",
            "params": {"_meta": {"padding": "x".repeat(40 * 1024)}}})
        .to_string();
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| tokio::spawn(post_raw(addr, body.clone())))
            .collect();
        let waiting = async {
            while shared.body_bytes.waiting.load(Relaxed) < CLIENTS {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(30), waiting)
            .await
            .expect("every request waits for room");
        assert_eq!(shared.body_bytes.read.now.load(Relaxed), 0, "no body read");

        // Room given back: every request is answered, one 40 KiB body in memory at a time.
        drop(all);
        for client in clients {
            let response = tokio::time::timeout(Duration::from_secs(30), client)
                .await
                .unwrap()
                .unwrap();
            assert!(!response.contains(" 503 "), "{response}");
        }
        let peak = shared.body_bytes.read.peak.load(Relaxed);
        assert!(peak >= body.len(), "bodies were counted: {peak}");
        assert!(peak <= BUDGET, "at most the budget read at once: {peak}");
        assert_eq!(shared.body_bytes.free(), BUDGET);
        server.abort();
    }

    #[test]
    fn the_default_origins_are_the_loopback_ones() {
        let config = HttpConfig::default();
        let origins = config.allowed_origins.as_deref().unwrap();
        assert!(origins.contains(&"http://localhost:*".to_owned()));
        assert!(origins.contains(&"http://[::1]:*".to_owned()));
        assert!(origins.contains(&"https://127.0.0.1:*".to_owned()));
        assert_eq!(origins.len(), 6);
    }
}
