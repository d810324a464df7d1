//! The check of a derived tool: the validator its arguments type derives.

use std::marker::PhantomData;

use serde_json::{Map, Value};

use super::{Check, Checked, Refused};
use crate::tool::leniency::RepairPolicy;
use crate::tool::run::audit_log;
use crate::tool::spec::ToolSpec;
use crate::validation::{ArgsInfo, Cx, Report, ToolArgs};

/// The check of the tool `spec`, whose arguments type is `A`.
pub(crate) struct Derived<A> {
    spec: &'static ToolSpec,
    args: PhantomData<fn() -> A>,
}

impl<A> Derived<A> {
    pub(crate) const fn of(spec: &'static ToolSpec) -> Self {
        Self {
            spec,
            args: PhantomData,
        }
    }
}

impl<A: ToolArgs> Check for Derived<A> {
    type Args = A;
    const CONSUMES: bool = true;

    fn name(&self) -> &str {
        self.spec.name()
    }

    fn info(&self) -> &'static ArgsInfo {
        A::info()
    }

    fn example(&self) -> &Value {
        self.spec.example()
    }

    fn declares(&self, key: &str) -> bool {
        A::info()
            .fields
            .iter()
            .any(|field| !field.skipped && field.name == key)
    }

    fn ignores(&self) -> (&[&'static str], &[&'static str]) {
        self.spec.ignored_keys()
    }

    fn repairs(&self, policy: RepairPolicy) -> bool {
        self.spec
            .repair()
            .unwrap_or(policy)
            .applies(self.spec.annotations().destructive == Some(true))
    }

    fn check(&self, arguments: Map<String, Value>, echo: bool, repair: bool) -> Checked<A> {
        let cx = if echo {
            Cx::new()
        } else {
            Cx::withholding_values()
        };
        let (result, repairs) = A::validate_repairing(arguments, cx.repairing(repair));
        Checked {
            result: result.map_err(|report| Refused {
                report,
                arguments: None,
            }),
            repairs,
        }
    }

    fn let_through(
        &self,
        arguments: Map<String, Value>,
        report: &Report,
        audit: bool,
    ) -> Result<A, Map<String, Value>> {
        if !audit {
            return Err(arguments);
        }
        // Audited, the call runs when serde reads it into the arguments type.
        // Read from a copy: a call serde does not read either keeps its arguments for the
        // corrected call.
        let unchecked = A::from_value_unchecked(Value::Object(arguments.clone()));
        audit_log(self.spec.name(), report, unchecked.is_some());
        unchecked.ok_or(arguments)
    }
}
