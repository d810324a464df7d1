//! Serving over a line stream (stdin/stdout), with every line answered.
//!
//! rmcp reads one JSON-RPC message per line and deliberately ignores a line that is not JSON at
//! all (answering garbage can start an error storm with a peer that echoes it back). JSON-RPC
//! 2.0 says such a line gets a parse error (-32700), and a client that sent a lone surrogate,
//! invalid UTF-8 or a number out of range would otherwise wait forever. The error carries no
//! id, as rmcp writes every error whose request id could not be read: MCP (since 2025-11-25)
//! omits the id where bare JSON-RPC writes `null`. So the
//! line stream passes through [`CheckedLines`] on its way to rmcp: a line that does not parse
//! as JSON is taken out and answered -32700; every other line reaches rmcp unchanged, and rmcp
//! answers it. A parse error is a valid JSON-RPC response, so a peer that echoes it back sends
//! valid JSON, and no storm starts.

use std::borrow::Cow;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use rmcp::RoleServer;
use rmcp::model::{ErrorCode, ErrorData, ServerJsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, ServerInitializeError, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;

use crate::server::Server;
use crate::text::cut;

/// How a stdio session ended without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The client connected, and later closed the stream.
    Served,
    /// The client closed the stream before the MCP handshake: nothing was served.
    ClosedBeforeHandshake,
}

impl<S: Send + Sync + 'static> Server<S> {
    /// Serves over stdin/stdout until the client disconnects. Nothing else may write to stdout
    /// meanwhile: it is the protocol channel (log to stderr).
    ///
    /// Every line gets an answer: rmcp answers the messages, and a line that is not JSON gets
    /// a JSON-RPC parse error (-32700, without id, as MCP writes an error that answers no
    /// readable request).
    ///
    /// A client that closes stdin before the MCP handshake has ended the session before it
    /// began (a probe, or Ctrl-D in a terminal): that is not a failure of the server, so this
    /// returns `Ok(())` after one line on stderr, and a `main` that returns the result exits
    /// with status 0.
    ///
    /// # Errors
    /// When the handshake fails otherwise (the first message is not `initialize`, stdout is
    /// closed) or the serving task ends abnormally; the error's message is one line.
    pub async fn serve_stdio(self) -> io::Result<()> {
        let (stdin, stdout) = rmcp::transport::stdio();
        let name = self.identity.name.clone();
        if self.serve_lines_until_end(stdin, stdout).await? == Ending::ClosedBeforeHandshake {
            eprintln!(
                "{}: the client closed stdin before the MCP handshake; nothing was served",
                crate::text::plain(&name)
            );
        }
        Ok(())
    }

    /// Serves over any line stream (a pipe, a Unix socket, `tokio::io::duplex` in tests), as
    /// [`Server::serve_stdio`] does over stdin/stdout, but silently.
    ///
    /// # Errors
    /// As [`Server::serve_stdio`].
    pub async fn serve_lines<R, W>(self, read: R, write: W) -> io::Result<()>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_lines_until_end(read, write).await.map(drop)
    }

    async fn serve_lines_until_end<R, W>(self, read: R, write: W) -> io::Result<Ending>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        use rmcp::ServiceExt as _;
        let (errors, answers) = mpsc::unbounded_channel();
        let transport = Answering {
            inner: AsyncRwTransport::new(CheckedLines::new(read, errors), write),
            answers,
        };
        let running = match self.serve(transport).await {
            Ok(running) => running,
            Err(ServerInitializeError::ConnectionClosed(_)) => {
                return Ok(Ending::ClosedBeforeHandshake);
            }
            Err(error) => return Err(io::Error::other(one_line(&error))),
        };
        running
            .waiting()
            .await
            .map_err(|error| io::Error::other(one_line(&error)))?;
        Ok(Ending::Served)
    }
}

/// An error's message on one bounded line: some of rmcp's quote the client's message whole.
fn one_line(error: &dyn std::fmt::Display) -> String {
    let text = error.to_string();
    crate::text::plain(&cut(&text, 200)).into_owned()
}

/// rmcp's line transport, and the answers to the lines [`CheckedLines`] took out, sent between
/// rmcp's messages.
struct Answering<R: AsyncRead + Unpin, W: AsyncWrite> {
    inner: AsyncRwTransport<RoleServer, CheckedLines<R>, W>,
    answers: mpsc::UnboundedReceiver<ErrorData>,
}

impl<R, W> Transport<RoleServer> for Answering<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let Self { inner, answers } = self;
        loop {
            tokio::select! {
                // An answer first: its line came before the lines rmcp is reading now.
                biased;
                Some(error) = answers.recv() => {
                    // rmcp's receive is cancel-safe: a line half read stays buffered.
                    if inner.send(ServerJsonRpcMessage::error(error, None)).await.is_err() {
                        return None;
                    }
                }
                message = inner.receive() => {
                    if message.is_none() {
                        // The stream ended: answer the lines taken out before the end.
                        while let Ok(error) = answers.try_recv() {
                            let _ = inner.send(ServerJsonRpcMessage::error(error, None)).await;
                        }
                    }
                    return message;
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// A line stream that lets through only the lines that parse as JSON, and sends a parse error
/// for each of the others.
pub(crate) struct CheckedLines<R> {
    inner: R,
    errors: mpsc::UnboundedSender<ErrorData>,
    /// Bytes read and not yet judged: the start of a line.
    pending: Vec<u8>,
    /// Judged lines not yet read out, and where reading them out has reached.
    ready: Vec<u8>,
    ready_at: usize,
    /// Set while the rest of a line too long to judge is skipped.
    skipping: bool,
    max_line: usize,
    at_end: bool,
}

impl<R> CheckedLines<R> {
    pub(crate) fn new(inner: R, errors: mpsc::UnboundedSender<ErrorData>) -> Self {
        Self {
            inner,
            errors,
            pending: Vec::new(),
            ready: Vec::new(),
            ready_at: 0,
            skipping: false,
            max_line: DEFAULT_MAX_LINE_LENGTH,
            at_end: false,
        }
    }

    /// Judges the complete lines of `pending`; a partial last line stays there.
    fn judge_lines(&mut self) {
        let mut start = 0;
        while let Some(offset) = self.pending[start..].iter().position(|&b| b == b'\n') {
            let end = start + offset + 1;
            if self.skipping {
                self.skipping = false;
            } else if end - start > self.max_line {
                let _ = self.errors.send(self.too_long());
            } else {
                let line = &self.pending[start..end];
                match parse_error(line) {
                    None => self.ready.extend_from_slice(line),
                    Some(error) => {
                        let _ = self.errors.send(error);
                    }
                }
            }
            start = end;
        }
        self.pending.drain(..start);
        if self.pending.len() > self.max_line {
            // No newline within the limit: the line is refused unread, and its rest skipped.
            self.pending.clear();
            if !self.skipping {
                self.skipping = true;
                let _ = self.errors.send(self.too_long());
            }
        }
    }

    /// The answer to a line longer than rmcp reads.
    fn too_long(&self) -> ErrorData {
        ErrorData::invalid_request(
            format!(
                "a message may have at most {} bytes; this one was not read",
                self.max_line
            ),
            None,
        )
    }

    /// Judges what is left when the stream ends: a last line without its newline.
    fn judge_rest(&mut self) {
        if !self.skipping && !self.pending.is_empty() {
            let mut line = std::mem::take(&mut self.pending);
            line.push(b'\n');
            match parse_error(&line) {
                None => self.ready.extend_from_slice(&line),
                Some(error) => {
                    let _ = self.errors.send(error);
                }
            }
        }
        self.pending.clear();
    }
}

/// The parse error of a line that is not JSON; `None` for a line rmcp should read (JSON, or
/// blank, which rmcp skips).
fn parse_error(line: &[u8]) -> Option<ErrorData> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // rmcp skips a byte-order mark, and so must the judge.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    // A `Value` reads every string and number whole, as rmcp's message types do: a lone
    // surrogate, invalid UTF-8 or 1e400 fails here exactly as it fails there.
    let error = serde_json::from_slice::<serde_json::Value>(line).err()?;
    Some(ErrorData::new(
        ErrorCode::PARSE_ERROR,
        Cow::Owned(format!(
            "Parse error: the message is not valid JSON ({error})"
        )),
        None,
    ))
}

impl<R: AsyncRead + Unpin> AsyncRead for CheckedLines<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.ready_at < this.ready.len() {
                let n = buf.remaining().min(this.ready.len() - this.ready_at);
                buf.put_slice(&this.ready[this.ready_at..this.ready_at + n]);
                this.ready_at += n;
                if this.ready_at == this.ready.len() {
                    this.ready.clear();
                    this.ready_at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.at_end {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                this.at_end = true;
                this.judge_rest();
            } else {
                this.pending.extend_from_slice(read.filled());
                this.judge_lines();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(input: &[u8]) -> (Vec<u8>, Vec<ErrorData>) {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut lines = CheckedLines::new(input, tx);
        lines.max_line = 64;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut out = Vec::new();
        runtime
            .block_on(tokio::io::AsyncReadExt::read_to_end(&mut lines, &mut out))
            .unwrap();
        drop(lines);
        let mut errors = Vec::new();
        while let Ok(error) = rx.try_recv() {
            errors.push(error);
        }
        (out, errors)
    }

    #[test]
    fn json_lines_pass_unchanged_others_get_parse_errors() {
        let input = b"{\"a\":1}\r\nnot json\n\n[1,2]\n{\"s\":\"\\ud800\"}\n1e400\n\xff\xfe\n{\"tail\":true}";
        let (out, errors) = judged(input);
        assert_eq!(out, b"{\"a\":1}\r\n\n[1,2]\n{\"tail\":true}\n");
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(errors.iter().all(|e| e.code == ErrorCode::PARSE_ERROR));
    }

    #[test]
    fn an_overlong_line_is_refused_and_skipped_to_its_end() {
        let mut input = vec![b'x'; 200];
        input.extend_from_slice(b"\n{\"ok\":1}\n");
        let (out, errors) = judged(&input);
        assert_eq!(out, b"{\"ok\":1}\n");
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].code, ErrorCode::INVALID_REQUEST);
    }
}
