//! The client capabilities the upstream is told of: those the proxy relays of its client's;
//! and the `_meta` of a request as it is relayed, without the keys of the connection.

use std::sync::PoisonError;

use rmcp::RoleServer;
use rmcp::model::{ClientCapabilities, ExtensionCapabilities, TASKS_EXTENSION_ID};
use rmcp::service::RequestContext;

use super::Proxy;

/// What the proxy relays of a client's capabilities: sampling, elicitation and roots (unless
/// the client cannot be asked anything, `inline`), and the tasks extension. Other extensions are
/// not relayed, so the upstream is not told of them.
///
/// With `shared` (several clients, `--http`), the tasks extension is relayed whoever declares
/// it: the proxy follows a task itself for a client that has none.
fn relayed_capabilities(
    declared: &ClientCapabilities,
    inline: bool,
    shared: bool,
) -> ClientCapabilities {
    let mut relayed = if shared {
        tasks_only()
    } else {
        ClientCapabilities::default()
    };
    if !inline {
        relayed.sampling.clone_from(&declared.sampling);
        relayed.elicitation.clone_from(&declared.elicitation);
        relayed.roots.clone_from(&declared.roots);
    }
    // A task asks its client nothing directly: its requests for input are read in `tasks/get`
    // and answered with `tasks/update`, which the proxy relays on every revision.
    relay_tasks_extension(declared.extensions.as_ref(), &mut relayed.extensions);
    relayed
}

/// Copies the tasks extension, when `from` declares it, into `to`: the one extension the
/// proxy relays, from the client to the upstream and from the upstream to the client alike.
pub(super) fn relay_tasks_extension(
    from: Option<&ExtensionCapabilities>,
    to: &mut Option<ExtensionCapabilities>,
) {
    if let Some(tasks) = from.and_then(|extensions| extensions.get(TASKS_EXTENSION_ID)) {
        to.get_or_insert_with(Default::default)
            .insert(TASKS_EXTENSION_ID.to_owned(), tasks.clone());
    }
}

/// Whether the client of `context` speaks a revision in which a server asks a client nothing
/// (2026-07-28 and later).
pub(super) fn asks_nothing(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|version| {
        version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
    })
}

/// The capabilities of a client that has the tasks extension and nothing else.
pub(super) fn tasks_only() -> ClientCapabilities {
    let mut tasks = ClientCapabilities::default();
    tasks
        .extensions
        .get_or_insert_with(Default::default)
        .insert(
            TASKS_EXTENSION_ID.to_owned(),
            rmcp::model::JsonObject::new(),
        );
    tasks
}

/// Every client capability the proxy relays.
pub(super) fn every_relayed_capability() -> ClientCapabilities {
    let mut every = tasks_only();
    every.sampling = Some(rmcp::model::SamplingCapability::default());
    let mut elicitation = rmcp::model::ElicitationCapability::default();
    elicitation.form = Some(rmcp::model::FormElicitationCapability::default());
    elicitation.url = Some(rmcp::model::UrlElicitationCapability::default());
    every.elicitation = Some(elicitation);
    let mut roots = rmcp::model::RootsCapabilities::default();
    roots.list_changed = Some(true);
    every.roots = Some(roots);
    every
}

impl Proxy {
    /// The capabilities the upstream is told its client has.
    pub(super) fn upstream_capabilities(&self) -> ClientCapabilities {
        self.0
            .capabilities
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Takes the capabilities of the first client that declares them (in `initialize`, or in
    /// the `_meta` of its first request on 2026-07-28) as the upstream's client's: what the
    /// proxy relays (sampling, elicitation, roots, tasks) and nothing else. An upstream
    /// started with others is started again with these before the request is served, so
    /// that the tools it lists are those it lists to this client.
    ///
    /// A client of 2026-07-28 or later cannot be asked anything by a server (`inline`): the
    /// revision replaces those requests with results that ask for input, which the proxy
    /// does not translate, so the upstream is told of its tasks only, of no sampling,
    /// elicitation or roots.
    ///
    /// Behind `--http` the upstream serves every client of the proxy, and is told of tasks
    /// whatever the first client declares: a client that has none never sees a task, as the
    /// proxy follows it to its end and answers the plain call (see [`Proxy::follow`]).
    pub(super) async fn adopt_client(&self, declared: Option<&ClientCapabilities>, inline: bool) {
        use std::sync::atomic::Ordering;
        if self.0.settled.load(Ordering::Acquire) {
            return;
        }
        let mut adopted = self.0.adopted.lock().await;
        if *adopted {
            return;
        }
        let Some(declared) = declared else { return };
        *adopted = true;
        let relayed = relayed_capabilities(declared, inline, self.0.settings.shared);
        if relayed == self.upstream_capabilities() {
            self.0.settled.store(true, Ordering::Release);
            return;
        }
        *self
            .0
            .capabilities
            .write()
            .unwrap_or_else(PoisonError::into_inner) = relayed;
        tracing::info!("the upstream is started again with the client's capabilities");
        self.0.upstream.stop().await;
        if let Err(reason) = self.refresh().await {
            tracing::warn!(reason, "the upstream could not be restarted");
        }
        self.0.settled.store(true, Ordering::Release);
    }
}

/// The `_meta` keys of a request that describe the connection rather than the call: rmcp
/// writes its own for the upstream's connection.
const CONNECTION_META_KEYS: [&str; 3] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
];

/// The `_meta` of a client's request as it goes to the upstream: all of it but the keys of the
/// connection itself (revision, client info, capabilities), which rmcp writes for the
/// upstream's connection; `None` when nothing is left.
pub(super) fn relayed_meta(
    meta: &rmcp::model::RequestMetaObject,
) -> Option<rmcp::model::RequestMetaObject> {
    let mut meta = meta.clone();
    meta.retain(|key, _| !CONNECTION_META_KEYS.contains(&key.as_str()));
    (!meta.is_empty()).then_some(meta)
}
