//! The contract benchmarks' servers: the user service's second release without and with
//! contract awareness against the first, and a call that fails validation.

use guardrails::contract::{AwarenessConfig, KnownGood};
use guardrails::{GuardConfig, Server};
use guardrails_tests::testing::object;
use guardrails_tests::user_service::{v1_contracts, v2_server};
use serde_json::{Map, Value, json};

/// The same server without awareness, and with awareness of every severity.
pub(crate) fn servers() -> (Server<()>, Server<()>) {
    let known_good = KnownGood::from_lockfile_str(&v1_contracts().to_lockfile()).expect("lockfile");
    let disabled = v2_server();
    let enabled = v2_server().config(
        GuardConfig::new()
            .known_good(known_good)
            .contract_awareness(AwarenessConfig::default().with_all_severities(true)),
    );
    (disabled, enabled)
}

/// An invalid call (wrong type, unknown key) of `get_user`, the same in both releases.
pub(crate) fn unchanged_tool_call() -> Map<String, Value> {
    object(json!({"id": "seven", "user": 1}))
}
