//! Who calls over Streamable HTTP, read once per request by the server and kept in the
//! request's extensions, where rmcp hands them to the handler.
//!
//! Two keys, for two uses:
//!
//! - the **caller**, whose rate limits, loop memory and repairs are its own: the name the
//!   application's hook gives ([`HttpConfig::with_caller`](super::HttpConfig::with_caller)),
//!   else the credentials of the `Authorization` header (hashed), else the session
//!   (revisions before 2026-07-28), else the connection. So two clients of revision
//!   2026-07-28, which carry no session, are two callers even without credentials;
//! - the **owner** of sessions and in-flight requests, whose fair share the server keeps: the
//!   hook's name, else the credentials, else the client's IP address, because a client that
//!   wants more than its share opens more connections and more sessions at will.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use crate::operate::{Caller, CallerKey, CallerKind};

/// The application's hook that names the caller of a request.
pub(crate) type NameCaller = dyn Fn(&http::request::Parts) -> Option<String> + Send + Sync;

/// [`NameCaller`] in [`HttpConfig`](super::HttpConfig): compared by address, shown by
/// presence.
#[derive(Clone)]
pub(crate) struct CallerHook(pub(crate) Arc<NameCaller>);

impl std::fmt::Debug for CallerHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerHook(..)")
    }
}

impl PartialEq for CallerHook {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CallerHook {}

/// Who sent a request, as the server read it: kept in the request's extensions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HttpCaller {
    /// The caller of its calls.
    pub(crate) caller: CallerKey,
    /// The owner of its sessions and in-flight requests.
    pub(crate) owner: CallerKey,
}

impl HttpCaller {
    /// Reads who sent the request of `parts`, over a connection from `peer`.
    pub(crate) fn read(
        parts: &http::request::Parts,
        peer: SocketAddr,
        hook: Option<&CallerHook>,
    ) -> Self {
        let named = hook
            .and_then(|hook| (hook.0)(parts))
            .map(|name| CallerKey::of(CallerKind::Named, name.as_bytes()));
        let named = named.or_else(|| credentials(&parts.headers));
        let caller = named
            .or_else(|| session(&parts.headers))
            .unwrap_or_else(|| CallerKey::of(CallerKind::Connection, peer.to_string().as_bytes()));
        let owner = named.unwrap_or_else(|| {
            let ip = match peer.ip() {
                IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
                v4 @ IpAddr::V4(_) => v4,
            };
            CallerKey::of(CallerKind::Connection, ip.to_string().as_bytes())
        });
        Self { caller, owner }
    }
}

/// The key of the credentials of an `Authorization` header (a bearer token, or any other
/// scheme's), hashed; `None` without one.
fn credentials(headers: &http::HeaderMap) -> Option<CallerKey> {
    let value = headers.get(http::header::AUTHORIZATION)?.as_bytes();
    let value = value.trim_ascii();
    (!value.is_empty()).then(|| CallerKey::of(CallerKind::Bearer, value))
}

/// The key of the session a request names.
fn session(headers: &http::HeaderMap) -> Option<CallerKey> {
    headers
        .get("mcp-session-id")
        .map(|id| CallerKey::of(CallerKind::Session, id.as_bytes()))
}

/// The caller of a request rmcp handed to a handler: as the server read it, or, for a
/// service mounted in another server ([`Server::http_service`](crate::Server::http_service)),
/// the credentials, else the session.
pub(crate) fn caller_of_request(parts: &http::request::Parts) -> Caller {
    if let Some(read) = parts.extensions.get::<HttpCaller>() {
        return Some(read.caller);
    }
    credentials(&parts.headers).or_else(|| session(&parts.headers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(headers: &[(&str, &str)]) -> http::request::Parts {
        let mut request = http::Request::post("/mcp");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.body(()).unwrap().into_parts().0
    }

    const PEER: &str = "127.0.0.1:40000";

    #[test]
    fn the_hook_then_the_credentials_then_the_session_then_the_connection() {
        let peer: SocketAddr = PEER.parse().unwrap();
        let other: SocketAddr = "127.0.0.1:40001".parse().unwrap();
        let bare = parts(&[]);
        let a = HttpCaller::read(&bare, peer, None);
        let b = HttpCaller::read(&bare, other, None);
        assert_ne!(a.caller, b.caller, "two connections are two callers");
        assert_eq!(a.owner, b.owner, "of one address: one owner");

        let token = parts(&[("authorization", "Bearer t-1"), ("mcp-session-id", "s")]);
        let with_token = HttpCaller::read(&token, peer, None);
        assert_eq!(
            with_token.caller,
            HttpCaller::read(&token, other, None).caller,
            "the same credentials on any connection are one caller"
        );
        assert_eq!(with_token.caller, with_token.owner);
        let other_token = parts(&[("authorization", "Bearer t-2")]);
        assert_ne!(
            HttpCaller::read(&other_token, peer, None).caller,
            with_token.caller
        );

        let session = parts(&[("mcp-session-id", "s")]);
        let in_session = HttpCaller::read(&session, peer, None);
        assert_eq!(
            in_session.caller,
            HttpCaller::read(&session, other, None).caller
        );
        assert_eq!(
            in_session.owner, a.owner,
            "a session's owner is its address"
        );

        let hook = CallerHook(Arc::new(|parts: &http::request::Parts| {
            parts
                .headers
                .get("x-tenant")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        }));
        let tenant = parts(&[("x-tenant", "acme"), ("authorization", "Bearer t-1")]);
        let named = HttpCaller::read(&tenant, peer, Some(&hook));
        assert_eq!(named.caller, CallerKey::of(CallerKind::Named, b"acme"));
        assert_eq!(named.owner, named.caller);
        // A hook that names no one leaves the credentials to decide.
        assert_eq!(
            HttpCaller::read(&token, peer, Some(&hook)).caller,
            with_token.caller
        );
    }

    #[test]
    fn a_service_mounted_elsewhere_reads_the_credentials_then_the_session() {
        assert_eq!(caller_of_request(&parts(&[])), None);
        assert_eq!(
            caller_of_request(&parts(&[("mcp-session-id", "s")])),
            Some(CallerKey::of(CallerKind::Session, b"s"))
        );
        assert_eq!(
            caller_of_request(&parts(&[
                ("authorization", " Bearer x "),
                ("mcp-session-id", "s")
            ])),
            Some(CallerKey::of(CallerKind::Bearer, b"Bearer x"))
        );
        let mut read = parts(&[("authorization", "Bearer x")]);
        let peer: SocketAddr = PEER.parse().unwrap();
        let by_server = HttpCaller::read(&parts(&[]), peer, None);
        read.extensions.insert(by_server);
        assert_eq!(caller_of_request(&read), Some(by_server.caller));
    }
}
