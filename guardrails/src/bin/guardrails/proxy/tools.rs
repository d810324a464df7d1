//! The upstream's tool list: listed, guarded, and served as a router of guarded routes.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError};

use guardrails::contract::Contract;
use guardrails::mcp::{GuardError, RouterGuard};
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::Tool;
use serde_json::Value;

use super::Proxy;
use super::call::forward;
use super::lock::approved_text;
use super::options::OnChange;

impl Proxy {
    /// Lists the upstream's tools (starting it when it is not running) and guards them.
    pub(super) async fn refresh(&self) -> Result<(), String> {
        let peer = self.0.upstream.peer().await?;
        let tools = tokio::time::timeout(self.0.settings.start_timeout, peer.list_all_tools())
            .await
            .map_err(|_| "the upstream did not list its tools in time".to_owned())?
            .map_err(|error| format!("the upstream could not list its tools: {error}"))?;
        self.install(tools);
        Ok(())
    }

    /// Guards `tools` and serves them from now on.
    fn install(&self, tools: Vec<Tool>) {
        let mut outputs = HashMap::new();
        for tool in &tools {
            let Some(schema) = &tool.output_schema else {
                continue;
            };
            match jsonschema::validator_for(&Value::Object((**schema).clone())) {
                Ok(validator) => {
                    outputs.insert(tool.name.to_string(), Arc::new(validator));
                }
                Err(error) => {
                    tracing::warn!(tool = %tool.name, %error, "the tool's output schema does not compile: its results are not checked");
                }
            }
        }
        *self
            .0
            .outputs
            .write()
            .unwrap_or_else(PoisonError::into_inner) = outputs;
        self.0
            .listed
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .clone_from(&tools);
        let router = self.guard(tools);
        *self
            .0
            .router
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(router);
    }

    /// The guarded router of `tools`. A tool whose schema the guard cannot compile (a
    /// reference to another document, an invalid keyword) is served unguarded, with a warning,
    /// rather than hidden: the upstream checks its own calls still.
    fn guard(&self, tools: Vec<Tool>) -> ToolRouter<Self> {
        let settings = &self.0.settings;
        let mut router = ToolRouter::new();
        // Tools refused for a change of contract: listed, never forwarded, not guarded.
        let mut unguarded = ToolRouter::new();
        if let Some((approved, _)) = &settings.approved {
            for name in approved.contracts().tools().keys() {
                if !tools.iter().any(|tool| tool.name == name.as_str()) {
                    tracing::warn!(
                        tool = name,
                        "BREAKING: the tool was removed since the lockfile"
                    );
                }
            }
        }
        for tool in tools {
            if let Some((approved, on_change)) = &settings.approved {
                let current = Contract::from_definition(&tool);
                let deltas = approved.deltas(&current);
                for delta in &deltas {
                    tracing::warn!(
                        tool = %tool.name,
                        severity = delta.severity.to_string().as_str(),
                        path = delta.path,
                        "the contract changed since the lockfile: {}",
                        delta.description
                    );
                }
                if !deltas.is_empty() {
                    match on_change {
                        OnChange::Hide => continue,
                        OnChange::Refuse => {
                            let refusal = Arc::new(self.refusal(&current, deltas));
                            let approved = approved.contracts().tools().get(tool.name.as_ref());
                            unguarded.add_route(ToolRoute::new_dyn(
                                approved_text(tool, approved),
                                move |_: ToolCallContext<'_, Self>| {
                                    let result = (*refusal).clone();
                                    Box::pin(std::future::ready(Ok(result.into())))
                                },
                            ));
                            continue;
                        }
                        OnChange::Aware => {}
                    }
                }
            }
            router.add_route(ToolRoute::new_dyn(
                tool,
                |ctx: ToolCallContext<'_, Self>| Box::pin(forward(ctx)),
            ));
        }
        loop {
            let mut guards = settings.guards.clone();
            if let Some((approved, OnChange::Aware)) = &settings.approved {
                guards = guards.known_good(approved.clone());
            }
            let mut guard = RouterGuard::new().config(guards);
            if settings.schema_integers {
                guard = guard.schema_integers();
            }
            for (name, limits) in &settings.limits {
                if router.has_route(name) {
                    guard = guard.tool(name.clone(), *limits);
                }
            }
            match guard.try_guard(router.clone()) {
                Ok(mut guarded) => {
                    guarded.merge(unguarded);
                    return guarded;
                }
                Err(GuardError::Schema { tool, source }) if router.has_route(&tool) => {
                    tracing::warn!(tool, %source, "the tool's input schema cannot be checked: served unguarded");
                    if let Some(route) = router.map.get(tool.as_str()).cloned() {
                        unguarded.add_route(route);
                    }
                    router.remove_route(&tool);
                }
                Err(error) => {
                    tracing::warn!(%error, "the upstream's tools cannot be guarded: served unguarded");
                    router.merge(unguarded);
                    return router;
                }
            }
        }
    }

    /// The upstream's tools as it last listed them.
    pub(super) fn listed(&self) -> Vec<Tool> {
        self.0
            .listed
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
