//! Digests as the lockfile writes them (`sha256:<hex>`): of contracts, of the server, and of a
//! custom policy's rules. Kept apart so that the contract model and the lockfile both use it
//! without depending on each other.

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// The digest of a JSON value's compact bytes, as the lockfile writes digests.
pub(crate) fn sha256_hex(value: &Value) -> String {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    hex(&Sha256::digest(&bytes))
}

pub(crate) fn hex(hash: &[u8]) -> String {
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        let _ = write!(out, "{byte:02x}");
    }
    out
}
