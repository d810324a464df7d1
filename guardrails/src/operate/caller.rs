//! Who calls: the key under which the rate limits, the loop breaker and the repair count keep
//! their state.
//!
//! A key is 128 bits of SHA-256 over what names the caller, tagged with its kind, so that no
//! bearer token, session id or name an application gives is kept in memory or sent to a shared
//! store as it was sent, and so that the same caller has the same key on every node of a
//! deployment. What names a connection (its peer address, a stdio peer) is salted with a
//! secret of the process as well: two nodes never take their own connections for one caller.

// Without a transport (no `rmcp` feature), nothing names a caller: every call is the process's.
#![cfg_attr(all(not(feature = "rmcp"), not(test)), expect(dead_code))]

use sha2::{Digest as _, Sha256};

/// Who calls, as a digest; see the module's documentation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct CallerKey([u8; 16]);

impl std::fmt::Debug for CallerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CallerKey({})", self.hex())
    }
}

/// Who calls, as far as the transport and the application say; `None` for a call made in
/// process ([`Server::call`](crate::Server::call)), counted per process.
pub(crate) type Caller = Option<CallerKey>;

/// What names a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallerKind {
    /// A name the application gave (the HTTP server's caller hook).
    Named,
    /// The `Authorization` bearer token of an HTTP request.
    Bearer,
    /// A Streamable HTTP session id (revisions before 2026-07-28).
    Session,
    /// A connection of this process: an HTTP client's address and port, a stdio peer.
    Connection,
}

impl CallerKind {
    fn tag(self) -> &'static [u8] {
        match self {
            Self::Named => b"guardrails/caller/named",
            Self::Bearer => b"guardrails/caller/bearer",
            Self::Session => b"guardrails/caller/session",
            Self::Connection => b"guardrails/caller/connection",
        }
    }
}

/// The secret of this process that salts the keys of its connections.
fn process_salt() -> &'static [u8; 16] {
    static SALT: std::sync::LazyLock<[u8; 16]> = std::sync::LazyLock::new(|| {
        use std::hash::BuildHasher as _;
        let state = foldhash::quality::RandomState::default();
        let mut salt = [0; 16];
        salt[..8].copy_from_slice(&state.hash_one(1_u8).to_le_bytes());
        salt[8..].copy_from_slice(&state.hash_one(2_u8).to_le_bytes());
        salt
    });
    &SALT
}

impl CallerKey {
    /// The key of the caller `kind` names with `name`.
    pub(crate) fn of(kind: CallerKind, name: &[u8]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(kind.tag());
        hasher.update([0]);
        if kind == CallerKind::Connection {
            hasher.update(process_salt());
        }
        hasher.update(name);
        let digest = hasher.finalize();
        let mut key = [0; 16];
        key.copy_from_slice(&digest[..16]);
        Self(key)
    }

    /// The key's bytes, as the loop breaker digests them.
    pub(crate) fn bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// The key in hexadecimal, as a shared store names it.
    pub(crate) fn hex(&self) -> String {
        use std::fmt::Write as _;
        self.0.iter().fold(String::with_capacity(32), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_kinds_and_names_apart_and_connections_are_salted() {
        let bearer = CallerKey::of(CallerKind::Bearer, b"token-a");
        assert_eq!(bearer, CallerKey::of(CallerKind::Bearer, b"token-a"));
        assert_ne!(bearer, CallerKey::of(CallerKind::Bearer, b"token-b"));
        assert_ne!(bearer, CallerKey::of(CallerKind::Named, b"token-a"));
        assert_ne!(bearer, CallerKey::of(CallerKind::Session, b"token-a"));
        // The same on every node: no salt in a bearer's key.
        let mut plain = Sha256::new();
        plain.update(b"guardrails/caller/bearer\x00token-a");
        assert_eq!(bearer.bytes()[..], plain.finalize()[..16]);
        // A connection's key is salted with the process's secret.
        let mut unsalted = Sha256::new();
        unsalted.update(b"guardrails/caller/connection\x00127.0.0.1:4000");
        assert_ne!(
            CallerKey::of(CallerKind::Connection, b"127.0.0.1:4000").bytes()[..],
            unsalted.finalize()[..16]
        );
        assert_eq!(bearer.hex().len(), 32);
        assert!(bearer.hex().bytes().all(|b| b.is_ascii_hexdigit()));
    }
}
