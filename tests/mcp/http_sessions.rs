//! The session table of the Streamable HTTP server, on a paused clock: when every session is
//! taken, a new one evicts the session idle the longest, never one in use, so that a client
//! that opens sessions and leaves them cannot hold the table for the whole idle timeout.

use std::time::Duration;

use guardrails::mcp::{BoundedSessions, SessionLimitError};
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, InitializedNotification};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// A table of `max` sessions, evicting those idle 30 s; unused sessions are not closed early
/// here (the init deadline is an hour), so that only eviction frees a place.
fn table(max: usize) -> BoundedSessions {
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
    let sessions = table(2);
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
    let sessions = table(2);
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
