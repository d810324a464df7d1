//! rmcp's in-memory sessions, bounded: a cap on how many are open and on how many one client
//! holds, the idle ones evicted when all are taken, a deadline for a new session's first use,
//! and one answer for every request of a session.

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

use super::shares::{Share, Shares};
use crate::operate::CallerKey;
use crate::text::cut;

/// The response stream of one request, as rmcp's service takes it.
type Responses = Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync + 'static>>;

/// The most characters of a duplicate request id that its error echoes.
const MAX_ECHOED_ID_CHARS: usize = 64;

/// rmcp's [`LocalSessionManager`], bounded:
///
/// - at most `max` sessions are open; when all are taken, another `initialize` closes a
///   session idle (no request in flight, nothing received) for at least the eviction time
///   ([`BoundedSessions::with_idle_eviction`]), of the client that holds the most sessions,
///   the one idle the longest among them; when none is idle, it fails with
///   [`SessionLimitError::Full`] (which
///   [`Server::serve_http`](crate::Server::serve_http) answers `503 Service
///   Unavailable`). So a client that opens sessions and leaves them holds the table for the
///   eviction time, not for rmcp's idle timeout; its evicted sessions are answered `404 Not
///   Found`, which tells a client to start a new one;
/// - a client (as [`HttpConfig::with_caller`](super::HttpConfig::with_caller) tells them
///   apart) holds at most its share of the sessions
///   ([`BoundedSessions::with_max_per_client`]): at its share, an `initialize` closes its own
///   session idle the longest, or fails with [`SessionLimitError::OverShare`] (answered `429
///   Too Many Requests`); it never evicts another client's session;
/// - a session that its client does not use within `init_timeout` of its `initialize` (not
///   even with `notifications/initialized`) is closed;
/// - a request whose id is already in flight in the same session is answered a JSON-RPC
///   error -32600 at once: rmcp routes responses by request id, so of two requests with one
///   id only one would ever be answered.
pub(crate) struct BoundedSessions {
    inner: Arc<Inner>,
    evict_idle_after: Duration,
    shares: Arc<Shares>,
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
    /// The client that opened it, when the server told who that was.
    owner: Option<CallerKey>,
    /// Its place in its client's share, given back when it closes.
    _share: Option<Share>,
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

    /// Takes out of the table a session idle for at least `idle` with no request in flight:
    /// of `owner` when given, the one idle the longest; otherwise of the client that holds the
    /// most sessions (`held` says how many), the one idle the longest among them. Its slot and
    /// its share are given back when the returned entry drops.
    fn take_idle(
        &self,
        idle: Duration,
        owner: Option<CallerKey>,
        held: impl Fn(&CallerKey) -> usize,
    ) -> Option<(SessionId, Live)> {
        let now = Instant::now();
        let mut live = self.live();
        let victim = live
            .iter()
            .filter(|(_, session)| session.in_flight.is_empty())
            .filter(|(_, session)| now.saturating_duration_since(session.last_active) >= idle)
            .filter(|(_, session)| owner.is_none() || session.owner == owner)
            .max_by_key(|(_, session)| {
                let holds = session.owner.as_ref().map_or(0, &held);
                (holds, std::cmp::Reverse(session.last_active))
            })
            .map(|(id, _)| id.clone())?;
        live.remove_entry(&victim)
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
            .field("max_per_client", &self.shares.max())
            .finish_non_exhaustive()
    }
}

impl BoundedSessions {
    /// Bounds `local` to `max` sessions, each closed when unused `init_timeout` after its
    /// `initialize`; when all are taken, one idle for 30 seconds (the default of
    /// [`HttpConfig::with_session_eviction_idle_time`](super::HttpConfig::with_session_eviction_idle_time))
    /// makes room for a new one.
    #[must_use]
    pub(crate) fn new(local: LocalSessionManager, max: usize, init_timeout: Duration) -> Self {
        Self {
            inner: Arc::new(Inner {
                local,
                slots: Arc::new(Semaphore::new(max)),
                max,
                init_timeout,
                live: Mutex::new(HashMap::new()),
            }),
            evict_idle_after: super::HttpConfig::DEFAULT_SESSION_EVICTION_IDLE_TIME,
            shares: Shares::new(max),
        }
    }

    /// At most `max` sessions open at once for one client (at least 1; by default, all of
    /// them). A client is told apart only when the server read who sends each request, as
    /// [`Server::serve_http`](crate::Server::serve_http) does.
    #[must_use]
    pub(crate) fn with_max_per_client(mut self, max: usize) -> Self {
        self.shares = Shares::new(max);
        self
    }

    /// When all sessions are taken, a new one evicts the session idle the longest if it has
    /// been idle for at least `idle` (`Duration::MAX`: never evict).
    #[must_use]
    pub(crate) fn with_idle_eviction(mut self, idle: Duration) -> Self {
        self.evict_idle_after = idle;
        self
    }

    /// How many sessions are open.
    #[must_use]
    pub(crate) fn open(&self) -> usize {
        self.inner.live().len()
    }
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum SessionLimitError {
    /// All sessions are taken.
    #[error("the server has its maximum of {max} sessions")]
    Full {
        /// The limit.
        max: usize,
    },
    /// The client holds its share of the sessions, none of them idle.
    #[error("a client may hold at most {max} sessions")]
    OverShare {
        /// The share.
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
        let owner = super::SESSION_OWNER.try_with(|owner| *owner).ok().flatten();
        let (slot, share) = match self.slot(owner).await {
            Ok(taken) => taken,
            Err(refusal) => {
                let _ = super::SESSION_REFUSED.try_with(|refused| refused.set(Some(refusal)));
                return Err(match refusal {
                    super::Refusal::Full => SessionLimitError::Full {
                        max: self.inner.max,
                    },
                    super::Refusal::OverShare => SessionLimitError::OverShare {
                        max: self.shares.max(),
                    },
                });
            }
        };
        let (id, transport) = self.inner.local.create_session().await?;
        self.inner.live().insert(
            id.clone(),
            Live {
                _slot: slot,
                used: false,
                in_flight: HashSet::new(),
                last_active: Instant::now(),
                owner,
                _share: share,
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
    /// A place for a new session of `owner`, and its unit of the owner's share: a free one,
    /// or the place of an idle session closed for it (the owner's own when it holds its
    /// share, else one of the client that holds the most).
    async fn slot(
        &self,
        owner: Option<CallerKey>,
    ) -> Result<(OwnedSemaphorePermit, Option<Share>), super::Refusal> {
        let share = match owner {
            None => None,
            Some(owner) => match self.shares.try_take(owner) {
                Some(share) => Some(share),
                None => {
                    // At its share: only its own idle session makes room.
                    let (victim, entry) = self
                        .inner
                        .take_idle(self.evict_idle_after, Some(owner), |_| 0)
                        .ok_or(super::Refusal::OverShare)?;
                    self.evict(&victim, entry).await;
                    Some(
                        self.shares
                            .try_take(owner)
                            .ok_or(super::Refusal::OverShare)?,
                    )
                }
            },
        };
        if let Ok(slot) = Arc::clone(&self.inner.slots).try_acquire_owned() {
            return Ok((slot, share));
        }
        // Taken out of the table first, so that two new sessions never evict the same one.
        let (victim, entry) = self
            .inner
            .take_idle(self.evict_idle_after, None, |owner| self.shares.held(owner))
            .ok_or(super::Refusal::Full)?;
        self.evict(&victim, entry).await;
        let slot = Arc::clone(&self.inner.slots)
            .try_acquire_owned()
            .map_err(|_| super::Refusal::Full)?;
        Ok((slot, share))
    }

    /// Closes the session `victim`, already out of the table, to make room.
    async fn evict(&self, victim: &SessionId, entry: Live) {
        tracing::debug!(session = %victim, "closing an idle session to make room");
        let _ = self.inner.local.close_session(victim).await;
        drop(entry);
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

#[cfg(test)]
mod tests {
    use rmcp::model::{ClientNotification, InitializedNotification};

    use super::*;
    use crate::operate::CallerKind;

    fn client(name: &str) -> CallerKey {
        CallerKey::of(CallerKind::Named, name.as_bytes())
    }

    /// A table of `max` sessions, `share` per client, evicting those idle 30 s.
    fn table(max: usize, share: usize) -> BoundedSessions {
        BoundedSessions::new(
            LocalSessionManager::default(),
            max,
            Duration::from_secs(3600),
        )
        .with_idle_eviction(Duration::from_secs(30))
        .with_max_per_client(share)
    }

    /// A session opened for `owner`, or why not.
    async fn open(sessions: &BoundedSessions, owner: CallerKey) -> Result<SessionId, String> {
        super::super::SESSION_OWNER
            .scope(Some(owner), sessions.create_session())
            .await
            .map(|(id, _transport)| id)
            .map_err(|e| e.to_string())
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_at_its_share_recycles_its_own_sessions_and_never_evicts_another_s() {
        let sessions = table(4, 2);
        let (hog, other) = (client("hog"), client("other"));
        let theirs = open(&sessions, other).await.unwrap();
        let first = open(&sessions, hog).await.unwrap();
        tokio::time::advance(Duration::from_secs(1)).await;
        let second = open(&sessions, hog).await.unwrap();
        // At its share, with none of its own idle: refused, though the table has room.
        let refused = open(&sessions, hog).await.unwrap_err();
        assert_eq!(refused, "a client may hold at most 2 sessions");
        // Everyone idle 40 s or more: the hog's third session closes its own idlest, not
        // `theirs`, idle longer still.
        tokio::time::advance(Duration::from_secs(40)).await;
        let third = open(&sessions, hog).await.unwrap();
        assert!(sessions.has_session(&theirs).await.unwrap());
        assert!(
            !sessions.has_session(&first).await.unwrap(),
            "its own idlest"
        );
        assert!(sessions.has_session(&second).await.unwrap());
        assert!(sessions.has_session(&third).await.unwrap());
        assert_eq!(sessions.open(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_table_evicts_an_idle_session_of_the_client_holding_the_most() {
        let sessions = table(3, 2);
        let (hog, other, newcomer) = (client("hog"), client("other"), client("newcomer"));
        // `theirs` is the idlest of all, but its client holds one session; the hog holds two.
        let theirs = open(&sessions, other).await.unwrap();
        tokio::time::advance(Duration::from_secs(5)).await;
        let hogged = [
            open(&sessions, hog).await.unwrap(),
            open(&sessions, hog).await.unwrap(),
        ];
        tokio::time::advance(Duration::from_secs(40)).await;
        let _new = open(&sessions, newcomer).await.unwrap();
        assert!(sessions.has_session(&theirs).await.unwrap(), "kept");
        let evicted = [
            sessions.has_session(&hogged[0]).await.unwrap(),
            sessions.has_session(&hogged[1]).await.unwrap(),
        ];
        assert_eq!(
            evicted.iter().filter(|kept| !**kept).count(),
            1,
            "one of the hog's"
        );
    }

    /// A table of `max` sessions, evicting those idle 30 s; unused sessions are not closed
    /// early here (the init deadline is an hour), so that only eviction frees a place.
    fn table_of(max: usize) -> BoundedSessions {
        BoundedSessions::new(
            LocalSessionManager::default(),
            max,
            Duration::from_secs(3600),
        )
        .with_idle_eviction(Duration::from_secs(30))
    }

    fn initialized() -> ClientJsonRpcMessage {
        ClientJsonRpcMessage::notification(ClientNotification::InitializedNotification(
            InitializedNotification::default(),
        ))
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_table_evicts_the_session_idle_the_longest() {
        let sessions = table_of(2);
        let (oldest, _t1) = sessions.create_session().await.unwrap();
        tokio::time::advance(Duration::from_secs(10)).await;
        let (newer, _t2) = sessions.create_session().await.unwrap();

        // At 25 s, the oldest has been idle 25 s: not long enough, and the table is full.
        tokio::time::advance(Duration::from_secs(15)).await;
        let refused = sessions.create_session().await.err();
        assert!(
            matches!(refused, Some(SessionLimitError::Full { max: 2 })),
            "{refused:?}"
        );

        // At 35 s, the oldest has been idle 35 s and the newer 25 s: the oldest makes room.
        tokio::time::advance(Duration::from_secs(10)).await;
        let (third, _t3) = sessions.create_session().await.unwrap();
        assert!(!sessions.has_session(&oldest).await.unwrap(), "evicted");
        assert!(sessions.has_session(&newer).await.unwrap());
        assert!(sessions.has_session(&third).await.unwrap());
        assert_eq!(sessions.open(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_its_client_keeps_using_is_not_evicted() {
        let sessions = table_of(2);
        let (used, _t1) = sessions.create_session().await.unwrap();
        let (left, _t2) = sessions.create_session().await.unwrap();
        // The client of `used` sends something every 20 s; the other sends nothing.
        for _ in 0..3 {
            tokio::time::advance(Duration::from_secs(20)).await;
            // No service runs on these sessions' transports, so rmcp fails to deliver the
            // message; the table has seen the client use its session all the same.
            let _ = sessions.accept_message(&used, initialized()).await;
        }
        let (_new, _t3) = sessions.create_session().await.unwrap();
        assert!(sessions.has_session(&used).await.unwrap(), "in use: kept");
        assert!(!sessions.has_session(&left).await.unwrap(), "left: evicted");

        // Once both are recent, the table is full again.
        let refused = sessions.create_session().await.err();
        assert!(
            matches!(refused, Some(SessionLimitError::Full { .. })),
            "{refused:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn eviction_can_be_turned_off() {
        let sessions =
            BoundedSessions::new(LocalSessionManager::default(), 1, Duration::from_secs(3600))
                .with_idle_eviction(Duration::MAX);
        let (first, _t1) = sessions.create_session().await.unwrap();
        tokio::time::advance(Duration::from_secs(3000)).await;
        assert!(sessions.create_session().await.is_err());
        assert!(sessions.has_session(&first).await.unwrap());
    }
}
