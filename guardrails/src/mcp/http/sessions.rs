//! rmcp's in-memory sessions, bounded: a cap on how many are open, the idle ones evicted when
//! all are taken, a deadline for a new session's first use, and one answer for every request
//! of a session.

use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use futures_util::stream::{self, Stream, StreamExt as _};
use rmcp::model::{ClientJsonRpcMessage, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::text::cut;

/// The response stream of one request, as rmcp's service takes it.
type Responses = Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync + 'static>>;

/// The most characters of a duplicate request id that its error echoes.
const MAX_ECHOED_ID_CHARS: usize = 64;

/// rmcp's [`LocalSessionManager`], bounded:
///
/// - at most `max` sessions are open; when all are taken, another `initialize` closes the
///   session idle the longest if it has been idle (no request in flight, nothing received) for
///   at least the eviction time ([`BoundedSessions::with_idle_eviction`]), and otherwise fails
///   with [`SessionLimitError::Full`] (which
///   [`Server::serve_http_with`](crate::Server::serve_http_with) answers `503 Service
///   Unavailable`). So a client that opens sessions and leaves them holds the table for the
///   eviction time, not for rmcp's idle timeout; its evicted sessions are answered `404 Not
///   Found`, which tells a client to start a new one;
/// - a session that its client does not use within `init_timeout` of its `initialize` (not
///   even with `notifications/initialized`) is closed;
/// - a request whose id is already in flight in the same session is answered a JSON-RPC
///   error -32600 at once: rmcp routes responses by request id, so of two requests with one
///   id only one would ever be answered.
pub struct BoundedSessions {
    inner: Arc<Inner>,
    evict_idle_after: Duration,
}

struct Inner {
    local: LocalSessionManager,
    slots: Arc<Semaphore>,
    max: usize,
    init_timeout: Duration,
    live: Mutex<HashMap<SessionId, Live>>,
}

/// What is known of an open session.
struct Live {
    /// Its place among the `max`, given back when it closes.
    _slot: OwnedSemaphorePermit,
    /// Whether its client sent anything after `initialize`.
    used: bool,
    /// The ids of its requests not yet answered.
    in_flight: HashSet<RequestId>,
    /// When its client last sent something, or its last response ended.
    last_active: Instant,
}

impl Inner {
    fn live(&self) -> MutexGuard<'_, HashMap<SessionId, Live>> {
        // The map stays consistent whatever panicked while it was held: each operation on it
        // is one insert, update or removal.
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Notes that the client of `id` used its session.
    fn mark_used(&self, id: &SessionId) {
        if let Some(live) = self.live().get_mut(id) {
            live.used = true;
            live.last_active = Instant::now();
        }
    }

    /// Takes out of the table the session idle the longest, if it has been idle for at least
    /// `idle` with no request in flight. Its slot is given back when the returned entry drops.
    fn take_idlest(&self, idle: Duration) -> Option<(SessionId, Live)> {
        let now = Instant::now();
        let mut live = self.live();
        let idlest = live
            .iter()
            .filter(|(_, session)| session.in_flight.is_empty())
            .filter(|(_, session)| now.saturating_duration_since(session.last_active) >= idle)
            .min_by_key(|(_, session)| session.last_active)
            .map(|(id, _)| id.clone())?;
        live.remove_entry(&idlest)
    }

    async fn close(&self, id: &SessionId) -> Result<(), LocalSessionManagerError> {
        let closed = self.local.close_session(id).await;
        self.live().remove(id);
        closed
    }
}

impl std::fmt::Debug for BoundedSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundedSessions")
            .field("open", &self.open())
            .field("max", &self.inner.max)
            .field("init_timeout", &self.inner.init_timeout)
            .field("evict_idle_after", &self.evict_idle_after)
            .finish_non_exhaustive()
    }
}

impl BoundedSessions {
    /// Bounds `local` to `max` sessions, each closed when unused `init_timeout` after its
    /// `initialize`; when all are taken, one idle for
    /// [`HttpConfig::DEFAULT_SESSION_EVICTION_IDLE_TIME`](super::HttpConfig::DEFAULT_SESSION_EVICTION_IDLE_TIME)
    /// makes room for a new one.
    #[must_use]
    pub fn new(local: LocalSessionManager, max: usize, init_timeout: Duration) -> Self {
        Self {
            inner: Arc::new(Inner {
                local,
                slots: Arc::new(Semaphore::new(max)),
                max,
                init_timeout,
                live: Mutex::new(HashMap::new()),
            }),
            evict_idle_after: super::HttpConfig::DEFAULT_SESSION_EVICTION_IDLE_TIME,
        }
    }

    /// When all sessions are taken, a new one evicts the session idle the longest if it has
    /// been idle for at least `idle` (`Duration::MAX`: never evict).
    #[must_use]
    pub fn with_idle_eviction(mut self, idle: Duration) -> Self {
        self.evict_idle_after = idle;
        self
    }

    /// How many sessions are open.
    #[must_use]
    pub fn open(&self) -> usize {
        self.inner.live().len()
    }
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionLimitError {
    /// All sessions are taken.
    #[error("the server has its maximum of {max} sessions")]
    Full {
        /// The limit.
        max: usize,
    },
    /// rmcp's session manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

/// Takes a request id off its session's in-flight set when its response stream ends.
struct InFlight {
    inner: Weak<Inner>,
    session: SessionId,
    request: RequestId,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade()
            && let Some(live) = inner.live().get_mut(&self.session)
        {
            live.in_flight.remove(&self.request);
            live.last_active = Instant::now();
        }
    }
}

impl SessionManager for BoundedSessions {
    type Error = SessionLimitError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let Some(slot) = self.slot().await else {
            let _ = super::SESSION_REFUSED.try_with(|refused| refused.set(true));
            return Err(SessionLimitError::Full {
                max: self.inner.max,
            });
        };
        let (id, transport) = self.inner.local.create_session().await?;
        self.inner.live().insert(
            id.clone(),
            Live {
                _slot: slot,
                used: false,
                in_flight: HashSet::new(),
                last_active: Instant::now(),
            },
        );
        // A session whose client never comes back would hold its slot for the whole idle
        // timeout: close it early.
        let inner = Arc::downgrade(&self.inner);
        let watched = id.clone();
        let deadline = self.inner.init_timeout;
        tokio::spawn(async move {
            tokio::time::sleep(deadline).await;
            let Some(inner) = inner.upgrade() else {
                return;
            };
            let unused = inner.live().get(&watched).is_some_and(|live| !live.used);
            if unused {
                tracing::debug!(session = %watched, "closing a session unused since its initialize");
                let _ = inner.close(&watched).await;
            }
        });
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.local.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.local.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        Ok(self.inner.close(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.stream_of(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.mark_used(id);
        Ok(self.inner.local.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.mark_used(id);
        Ok(self.inner.local.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.mark_used(id);
        Ok(self.inner.local.resume(id, last_event_id).await?)
    }
}

impl BoundedSessions {
    /// A place for a new session: a free one, or the place of the session idle the longest,
    /// closed for it.
    async fn slot(&self) -> Option<OwnedSemaphorePermit> {
        if let Ok(slot) = Arc::clone(&self.inner.slots).try_acquire_owned() {
            return Some(slot);
        }
        // Taken out of the table first, so that two new sessions never evict the same one.
        let (victim, entry) = self.inner.take_idlest(self.evict_idle_after)?;
        tracing::debug!(session = %victim, "closing the session idle the longest to make room");
        let _ = self.inner.local.close_session(&victim).await;
        drop(entry);
        Arc::clone(&self.inner.slots).try_acquire_owned().ok()
    }

    /// The response stream of a message of session `id`, unless the message is a request
    /// whose id is already in flight there.
    async fn stream_of(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<Responses, SessionLimitError> {
        let mut guard = None;
        if let ClientJsonRpcMessage::Request(request) = &message {
            let mut live = self.inner.live();
            if let Some(session) = live.get_mut(id) {
                session.used = true;
                session.last_active = Instant::now();
                if !session.in_flight.insert(request.id.clone()) {
                    let answer = duplicate(request.id.clone());
                    return Ok(Box::pin(stream::once(async move { answer })));
                }
                guard = Some(InFlight {
                    inner: Arc::downgrade(&self.inner),
                    session: id.clone(),
                    request: request.id.clone(),
                });
            }
        }
        let responses = self.inner.local.create_stream(id, message).await?;
        // The guard lives as long as the response stream: the id is free again once the
        // response was sent or the client went away.
        Ok(Box::pin(responses.map(move |message| {
            let _ = &guard;
            message
        })))
    }
}

/// The answer to a request whose id is already in flight in its session.
fn duplicate(id: RequestId) -> ServerSseMessage {
    let shown = id.to_string();
    let error = ErrorData::invalid_request(
        format!(
            "request id {} is already in flight in this session: give each request its own id",
            cut(&shown, MAX_ECHOED_ID_CHARS)
        ),
        None,
    );
    ServerSseMessage::from_message(ServerJsonRpcMessage::error(error, Some(id)))
}
