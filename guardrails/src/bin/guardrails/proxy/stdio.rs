//! The proxy's own stdin and stdout, read and written by tokio's reactor where they are pipes
//! or sockets.
//!
//! `tokio::io::stdin` and `stdout` (what `rmcp::transport::stdio` returns) run each read and
//! write on a thread of tokio's blocking pool, and hand the bytes over to the runtime: two
//! more threads to wake per message, on the path of every call. The client that starts the
//! proxy gives it a pipe (Python, rmcp) or a socket (Node) on either side, which the reactor
//! polls like the upstream's pipes; anything else (a terminal, a file) keeps tokio's stdio.
//! The descriptors are duplicated, and the duplicates put in non-blocking mode, which the
//! originals share: nothing else in the process reads stdin or writes stdout.

use std::fs::File;
use std::os::fd::{AsFd as _, OwnedFd};
use std::os::unix::fs::FileTypeExt as _;

use tokio::io::{AsyncRead, AsyncWrite};

/// stdin, as the runtime reads it best. Called within the runtime.
pub(super) fn input() -> Box<dyn AsyncRead + Send + Unpin> {
    match duplicate(std::io::stdin().as_fd().try_clone_to_owned()) {
        Some(Polled::Pipe(fd)) => match tokio::net::unix::pipe::Receiver::from_owned_fd(fd) {
            Ok(pipe) => return Box::new(pipe),
            Err(error) => tracing::debug!(%error, "stdin is read from tokio's blocking pool"),
        },
        Some(Polled::Socket(socket)) => match tokio::net::UnixStream::from_std(socket) {
            Ok(socket) => return Box::new(socket),
            Err(error) => tracing::debug!(%error, "stdin is read from tokio's blocking pool"),
        },
        None => {}
    }
    Box::new(tokio::io::stdin())
}

/// stdout, as the runtime writes it best. Called within the runtime.
pub(super) fn output() -> Box<dyn AsyncWrite + Send + Unpin> {
    match duplicate(std::io::stdout().as_fd().try_clone_to_owned()) {
        Some(Polled::Pipe(fd)) => match tokio::net::unix::pipe::Sender::from_owned_fd(fd) {
            Ok(pipe) => return Box::new(pipe),
            Err(error) => tracing::debug!(%error, "stdout is written from tokio's blocking pool"),
        },
        Some(Polled::Socket(socket)) => match tokio::net::UnixStream::from_std(socket) {
            Ok(socket) => return Box::new(socket),
            Err(error) => tracing::debug!(%error, "stdout is written from tokio's blocking pool"),
        },
        None => {}
    }
    Box::new(tokio::io::stdout())
}

/// A duplicated descriptor the reactor can poll.
enum Polled {
    Pipe(OwnedFd),
    Socket(std::os::unix::net::UnixStream),
}

/// What `fd` is, when the reactor can poll it; `None` for a terminal, a file, or a descriptor
/// that cannot be duplicated or put in non-blocking mode.
fn duplicate(fd: std::io::Result<OwnedFd>) -> Option<Polled> {
    let file = File::from(fd.ok()?);
    let kind = file.metadata().ok()?.file_type();
    if kind.is_fifo() {
        return Some(Polled::Pipe(file.into()));
    }
    if kind.is_socket() {
        let socket = std::os::unix::net::UnixStream::from(OwnedFd::from(file));
        socket.set_nonblocking(true).ok()?;
        return Some(Polled::Socket(socket));
    }
    None
}
