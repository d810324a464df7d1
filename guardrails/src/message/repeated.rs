//! The answer to an invalid call seen again: the caller's own call corrected, the fields at
//! fault, and what to do now.

use serde_json::Value;

use crate::text::json_text;
use crate::validation::correction::Corrected;

/// The label of the example beside a corrected call.
pub(crate) const EXAMPLE_LABEL: &str = "an example of a valid call, not your values";

/// A repeated invalid call, as its escalation says it: the caller's own call corrected first
/// (see [`correction`](crate::validation::correction)), with the fields only the caller can
/// fill in, then the fields at fault and what to do. The tool's example is shown, labelled as
/// one, only where something is left to fill in or the call is not repeated: a complete
/// corrected call needs no other. No issue is explained again: the model has read the full
/// coaching.
pub(crate) struct RepeatedCall<'a> {
    pub(crate) tool: &'a str,
    /// Each issue's path as sent and code.
    pub(crate) fields: &'a [(String, &'a str)],
    /// How many times the call was seen.
    pub(crate) times: u32,
    /// The caller's call, corrected; `None` when its arguments were not kept.
    pub(crate) corrected: Option<&'a Corrected>,
    /// The corrected call as JSON text, when it is repeated.
    pub(crate) call: Option<String>,
    /// The tool's example, when it is shown.
    pub(crate) example: Option<&'a Value>,
    /// What to do now.
    pub(crate) directive: String,
}

impl<'a> RepeatedCall<'a> {
    /// The call of `tool` seen `times` times, faulted at `fields`; `stop` when the loop breaker
    /// asks the model to stop; `example` is the tool's (`null` for none).
    pub(crate) fn new(
        tool: &'a str,
        fields: &'a [(String, &'a str)],
        times: u32,
        stop: bool,
        corrected: Option<&'a Corrected>,
        example: &'a Value,
    ) -> Self {
        let call = corrected.and_then(|c| c.call_text(tool));
        let show_example = !example.is_null() && corrected.is_none_or(|c| !c.is_complete());
        let directive = if stop {
            format!(
                "Stop. Do not call {tool} again with these arguments: the same invalid call was rejected {times} times. Ask the user how to proceed."
            )
        } else {
            let send = match corrected {
                Some(c) if c.is_complete() => {
                    "Send the corrected call above as it is: it keeps every value you sent that was right."
                }
                Some(c) if c.withheld().is_some() => {
                    "Send your call again with the changes listed, and a value of your own for each field to fill in."
                }
                Some(_) => {
                    "Send the corrected call above, each <fill in: …> replaced by a value of your own; change nothing else."
                }
                None => "Fix the fields listed above; do not send the same call again.",
            };
            format!("This exact call was rejected before for the same reasons. {send}")
        };
        Self {
            tool,
            fields,
            times,
            corrected,
            call,
            example: show_example.then_some(example),
            directive,
        }
    }

    /// The example as a call, in JSON text.
    pub(crate) fn example_call(&self) -> Option<String> {
        self.example
            .map(|example| json_text(&serde_json::json!({"name": self.tool, "arguments": example})))
    }

    /// The fields at fault, in one line: `path (code), …`.
    pub(crate) fn faults(&self) -> String {
        let faults: Vec<String> = self
            .fields
            .iter()
            .map(|(field, code)| format!("{field} ({code})"))
            .collect();
        faults.join(", ")
    }
}
