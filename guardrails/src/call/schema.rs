//! The check of a native tool: its arguments against its JSON Schema, made strict.

use serde_json::{Map, Value};

use super::reading::{ArgsReader, taken_as_sent};
use super::{Check, Checked, Refused};
use crate::tool::leniency::RepairPolicy;
use crate::tool::run::{audit_log, issue_codes};
use crate::validation::{ArgsInfo, Repair, Report, SchemaArgs};

/// The check of one native tool.
pub(crate) struct SchemaCheck {
    pub(crate) name: String,
    pub(crate) args: SchemaArgs,
    /// The example shown in rejections; `null` when none could be built and proven, and then
    /// rejections show none.
    pub(crate) example: Value,
    /// Whether the tool is annotated destructive (a repair policy may spare it).
    pub(crate) destructive: bool,
    /// The tool's own reading of its arguments, when it is known (see
    /// [`reading`](super::reading)).
    pub(crate) reader: Option<ArgsReader>,
}

impl SchemaCheck {
    pub(crate) fn new(name: String, args: SchemaArgs) -> Self {
        Self {
            example: args.example().cloned().unwrap_or(Value::Null),
            name,
            args,
            destructive: false,
            reader: None,
        }
    }
}

impl Check for SchemaCheck {
    type Args = Map<String, Value>;
    const CONSUMES: bool = false;

    fn name(&self) -> &str {
        &self.name
    }

    fn info(&self) -> &'static ArgsInfo {
        &ArgsInfo::UNDECLARED
    }

    fn example(&self) -> &Value {
        &self.example
    }

    fn declares(&self, key: &str) -> bool {
        self.args
            .schema()
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|declared| declared.contains_key(key))
    }

    fn repairs(&self, policy: RepairPolicy) -> bool {
        policy.applies(self.destructive)
    }

    fn check(
        &self,
        arguments: Map<String, Value>,
        echo: bool,
        repair: bool,
    ) -> Checked<Self::Args> {
        let value = Value::Object(arguments);
        if self.args.is_valid(&value) {
            return Checked {
                result: Ok(into_map(value)),
                repairs: Vec::new(),
            };
        }
        self.refused(value, echo, repair)
    }

    fn let_through(
        &self,
        arguments: Map<String, Value>,
        report: &Report,
        audit: bool,
    ) -> Result<Self::Args, Map<String, Value>> {
        if audit {
            // The tool reads its arguments itself: audited, every call reaches it.
            audit_log(&self.name, report, true);
            return Ok(arguments);
        }
        // Refused by the schema, a call may still be one the tool's own type reads: asked
        // only now, so that a valid call pays nothing for it.
        let Some(read) = self.reader else {
            return Err(arguments);
        };
        let value = Value::Object(arguments);
        let grounds = self.args.grounds(&value);
        let arguments = into_map(value);
        if taken_as_sent(read, &arguments, &grounds) {
            taken_log(&self.name, report);
            Ok(arguments)
        } else {
            Err(arguments)
        }
    }
}

impl SchemaCheck {
    /// [`Check::check`] of `value`, which the schema refuses as sent: repaired when `repair`
    /// and checked again, else its report. Out of the valid call's way.
    #[cold]
    fn refused(&self, value: Value, echo: bool, repair: bool) -> Checked<Map<String, Value>> {
        // Repaired only once found wrong, then checked again: a call that needs no repair
        // pays nothing for it, and a repaired one is reported on as repaired.
        let repaired = if repair {
            self.args.repair(&value)
        } else {
            None
        };
        let (value, checked, repairs) = match repaired {
            Some((fixed, mut made)) => {
                if !echo {
                    withhold(&mut made);
                }
                let checked = self.args.check(&fixed);
                (fixed, checked, made)
            }
            None => {
                let report = self.args.report(&value);
                (value, Err(report), Vec::new())
            }
        };
        let arguments = into_map(value);
        Checked {
            result: match checked {
                Ok(()) => Ok(arguments),
                Err(report) => Err(Refused {
                    report,
                    arguments: Some(arguments),
                }),
            },
            repairs,
        }
    }
}

/// The object `value` is (the arguments are one before and after a repair).
fn into_map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Logs a call the schema refused and the tool's own type reads, let through: its tool and the
/// path and code of each issue the schema found, never a value (target `guardrails::audit`).
fn taken_log(tool: &str, report: &Report) {
    tracing::warn!(
        target: "guardrails::audit",
        tool,
        issues = report.issues().len() + report.omitted(),
        codes = ?issue_codes(report),
        let_through = true,
        read_by = "the tool's own type",
        "a call the schema refuses and the tool's own type reads",
    );
}

/// Receipts that show no value: what a server that echoes none says of each.
fn withhold(repairs: &mut [Repair]) {
    for repair in repairs {
        "(withheld)".clone_into(&mut repair.sent);
        "(withheld)".clone_into(&mut repair.read_as);
    }
}
