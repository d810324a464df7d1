//! What a call produced, before a transport turns it into its own result type.

use std::time::Duration;

use serde_json::Value;

use crate::contract::Awareness;
use crate::message::{ContractNotice, RepairNotice};
use crate::message::{Failure, Rejection, ToolError};
use crate::render::RenderOptions;
use crate::validation::correction::Findings;
use crate::validation::{Repair, RepairKind};

/// What a call produced, before a transport turns it into its own result type.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallOutput {
    /// Text blocks, in order: the data (or the rendered error), then any teaching block.
    pub text: Vec<String>,
    /// The structured result, when the output is a JSON object.
    pub structured: Option<Value>,
    /// Whether the call failed (MCP `isError`).
    pub is_error: bool,
    /// The structured report of a rejected or failed call, beside the text the model reads:
    /// the object the JSON format renders (`{"error": {"type": "validation", "issues": […], …}}`
    /// or `{"error": {"type": "tool_error", "code", …}}`). The rmcp adapter puts it in the
    /// result's `_meta`, under the key `dev.guardrails/report`, never in
    /// `structuredContent`, which must conform to the tool's output schema.
    pub report: Option<Value>,
    /// The classification of a rejected or failed call, a model can act on and an operator
    /// can correlate (`class`, `code`, `retryable`, `retryNotBefore`, `correlationId`,
    /// `agentGuidance`), set by the server that ran the call; the rmcp adapter puts it in the
    /// result's `_meta` under the key `dev.guardrails/failure`.
    pub failure: Option<Value>,
    /// The receipts of the repairs made to the call's arguments (see
    /// [`RepairPolicy`](crate::RepairPolicy)), each `{"field", "kind", "sent", "readAs",
    /// "message"}`; the rmcp adapter puts them in the result's `_meta` under
    /// the key `dev.guardrails/repairs`.
    pub repairs: Option<Value>,
    /// What telemetry, the loop breaker and the failure classification read of an error:
    /// never shown to a client.
    pub(crate) signal: Signal,
    /// What the declared leniency did to the arguments, for telemetry: never shown.
    pub(crate) leniency: Leniency,
}

/// What the declared leniency did to a call's arguments: the path and kind of each repair,
/// and how many keys were dropped.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Leniency {
    pub(crate) repairs: Vec<(String, RepairKind)>,
    pub(crate) ignored: usize,
}

/// The path and kind of each of `repairs`, as telemetry counts them.
pub(crate) fn repaired_fields(repairs: &[Repair]) -> Vec<(String, RepairKind)> {
    if repairs.is_empty() {
        return Vec::new();
    }
    repairs
        .iter()
        .map(|repair| (repair.path.clone(), repair.kind))
        .collect()
}

/// What went wrong in a call, for the operations layer ([`crate::operate`]): each issue's path
/// as found (it may hold a key the caller sent, so it is turned into a declared path before
/// it leaves the process), code and what the corrected call of a repeat needs, or the tool
/// error's code and retry delay.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum Signal {
    /// A success, or an output made outside the pipeline.
    #[default]
    None,
    /// The arguments were rejected.
    Rejected(Box<Findings>),
    /// A rate limit refused the call before the handler ran.
    Limited {
        /// How long to wait before calling again.
        retry_after: Duration,
    },
    /// The handler failed.
    Failed {
        /// The tool error's code.
        code: crate::message::tool_error::ErrorCode,
        /// How long the tool asked to wait before calling again.
        retry_after: Option<Duration>,
    },
}

impl CallOutput {
    /// A successful output of text blocks.
    #[must_use]
    pub fn text(text: Vec<String>) -> Self {
        Self {
            text,
            structured: None,
            is_error: false,
            report: None,
            failure: None,
            repairs: None,
            leniency: Leniency::default(),
            signal: Signal::None,
        }
    }

    /// The rendered failure of a call.
    #[must_use]
    pub(crate) fn failure(failure: &Failure<'_>, options: &RenderOptions) -> Self {
        Self {
            text: vec![crate::render::failure(failure, options)],
            structured: None,
            is_error: failure.error.is_error(),
            report: Some(crate::render::failure_report(failure)),
            failure: None,
            repairs: None,
            leniency: Leniency::default(),
            signal: Signal::Failed {
                code: failure.error.code().clone(),
                retry_after: failure.error.retry_delay(),
            },
        }
    }

    /// The rendered rejection of a call, with its structured report.
    #[must_use]
    pub(crate) fn rejection(rejection: &Rejection<'_>, options: &RenderOptions) -> Self {
        Self {
            text: vec![crate::render::rejection(rejection, options)],
            structured: None,
            is_error: true,
            report: Some(crate::render::rejection_report(rejection, options)),
            failure: None,
            repairs: None,
            leniency: Leniency::default(),
            signal: Signal::Rejected(Box::new(Findings::of(rejection.report))),
        }
    }

    /// Keeps `arguments`, the arguments of a rejected call as they were checked, for the
    /// corrected call should the same call come again; nothing for another output.
    pub(crate) fn keep_arguments(&mut self, arguments: Value) {
        if let Signal::Rejected(findings) = &mut self.signal {
            findings.keep_sent(arguments);
        }
    }

    /// This output, with the receipts of `repairs` made to the arguments of a call of `tool`
    /// (a text block, one line per repair, and `_meta`) and what telemetry counts of them and
    /// of the `ignored` keys.
    pub(crate) fn leniency(
        mut self,
        tool: &str,
        repairs: &[Repair],
        ignored: usize,
        options: &RenderOptions,
    ) -> Self {
        self.leniency.ignored = ignored;
        if repairs.is_empty() {
            return self;
        }
        if let Signal::Rejected(findings) = &mut self.signal {
            findings.repaired(repairs);
        }
        self.text.push(crate::render::repairs(
            &RepairNotice::new(tool, repairs),
            options,
        ));
        self.repairs = Some(crate::render::repairs_value(repairs));
        self.leniency.repairs = repaired_fields(repairs);
        self
    }

    /// The rendered `error` of tool `tool`.
    #[must_use]
    pub fn tool_error(tool: &str, error: &ToolError, options: &RenderOptions) -> Self {
        Self::failure(&Failure::new(tool, error), options)
    }

    /// The rendered `error` of tool `tool`, with the changes of the tool's contract that may
    /// explain it (see [`Awareness::new`](crate::contract::Awareness::new)), as a
    /// server answers a call the changes concern.
    #[must_use]
    pub fn tool_error_with_contract(
        tool: &str,
        error: &ToolError,
        contract: &Awareness,
        options: &RenderOptions,
    ) -> Self {
        let notice = ContractNotice::new(contract, &contract.relevance(&serde_json::Map::new()));
        Self::failure(
            &Failure::new(tool, error).with_contract(Some(notice)),
            options,
        )
    }
}
