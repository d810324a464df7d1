//! A synchronous handler that blocks does not hold up other calls.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use guardrails::{Server, ToolArgs, tool};
use serde::Deserialize;
use serde_json::Map;

/// The server's state: the slow handler waits on `release`; `started` tells the test it runs.
struct Blocking {
    release: Mutex<mpsc::Receiver<()>>,
    started: Mutex<Option<mpsc::Sender<()>>>,
}

#[derive(Deserialize, ToolArgs)]
struct NoArgs {}

/// Blocks its thread until the test releases it: a handler doing slow synchronous work.
#[tool]
fn slow(state: &Blocking, _args: NoArgs) -> String {
    if let Some(started) = state.started.lock().unwrap().take() {
        let _ = started.send(());
    }
    let _ = state
        .release
        .lock()
        .unwrap()
        .recv_timeout(Duration::from_secs(60));
    "slow done".to_owned()
}

/// Answers at once.
#[tool]
fn fast(_args: NoArgs) -> String {
    "fast done".to_owned()
}

/// One worker thread: without care, a handler blocking it blocks every other call.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_blocked_sync_handler_does_not_delay_a_concurrent_call() {
    let (release, released_rx) = mpsc::channel();
    let (started_tx, started) = mpsc::channel();
    let server = Server::new(Blocking {
        release: Mutex::new(released_rx),
        started: Mutex::new(Some(started_tx)),
    })
    .tool(slow)
    .tool(fast);

    let slow_call = {
        let server = server.clone();
        tokio::spawn(async move { server.call("slow", Map::new()).await })
    };
    started
        .recv_timeout(Duration::from_secs(30))
        .expect("the slow handler starts");

    // Whether the slow handler had been released when the fast call completed. A watchdog
    // releases it in the end, so that a failure is reported rather than a hang.
    let released = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let released = Arc::clone(&released);
        let release = release.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(15));
            released.store(true, Ordering::SeqCst);
            let _ = release.send(());
        })
    };
    let fast_call = {
        let server = server.clone();
        let released = Arc::clone(&released);
        tokio::spawn(async move {
            let output = server.call("fast", Map::new()).await.unwrap();
            (output, released.load(Ordering::SeqCst))
        })
    };
    let (output, slow_was_released) = fast_call.await.unwrap();
    assert_eq!(output.text, ["fast done"]);
    assert!(
        !slow_was_released,
        "the fast call completed only after the slow handler was released"
    );

    released.store(true, Ordering::SeqCst);
    release.send(()).unwrap();
    let output = slow_call.await.unwrap().unwrap();
    assert_eq!(output.text, ["slow done"]);
    drop(watchdog);
}

/// A handler that panics while running off the runtime's worker is still reported as an
/// error, not a crash.
#[tool]
fn panics(_args: NoArgs) -> String {
    panic!("boom")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_panicking_sync_handler_is_still_caught() {
    let server = Server::new(()).tool(panics);
    let output = server.call("panics", Map::new()).await.unwrap();
    assert!(output.is_error);
    assert!(output.text[0].contains("INTERNAL"), "{}", output.text[0]);
}
