//! The traits the derives implement: [`ToolArgs`] for argument structs, [`ToolEnum`] for enums
//! of allowed names.

use serde_json::{Map, Value};

use super::context::Cx;
use super::info::{ArgsInfo, Kind};
use super::repair::Repair;
use super::report::Report;

/// Arguments of a tool: a struct whose fields are checked strictly, in one pass, before a
/// handler ever sees them. Implemented by `#[derive(ToolArgs)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool's arguments type",
    label = "not a struct that derives `ToolArgs`",
    note = "a tool's arguments are a struct with named fields that derives `ToolArgs`",
    note = "an enum with data that derives `ToolArgs` is read as a field: hold it in a struct, as a field (`action: Action`) or flattened into it (`#[serde(flatten)] action: Action`)"
)]
pub trait ToolArgs: Sized {
    /// What the derive knows about the type.
    fn info() -> &'static ArgsInfo;

    /// Checks the fields of an object into the typed value, recording every issue in `cx`.
    /// Returns `None` when any issue was found. Generated; call [`ToolArgs::validate`] instead.
    #[doc(hidden)]
    fn validate_fields(object: Map<String, Value>, cx: &mut Cx) -> Option<Self>;

    /// The arguments as serde alone reads them, when the type implements `Deserialize`:
    /// what audit mode runs a call with when it does not validate. Generated.
    #[doc(hidden)]
    #[must_use]
    fn from_value_unchecked(arguments: Value) -> Option<Self> {
        let _ = arguments;
        None
    }

    /// The JSON Schema (draft 2020-12) of the arguments, computed once.
    fn schema() -> &'static schemars::Schema;

    /// A complete example of the arguments, computed once, built from the declared guards and
    /// the explicit examples (`#[guard(example = ..)]` on fields and on the struct).
    ///
    /// The derive proves it passes every rule it can see. A rule it cannot see (a field's
    /// `custom` check, a struct-level `check`) is proven by [`ToolArgs::checked_example`], which
    /// validates it; rejections show only an example that passes, and
    /// [`Server::tool`](crate::Server::tool) refuses a tool whose example does not.
    fn example() -> &'static Value;

    /// The example when it passes the type's own validator, every rule included: `custom`
    /// checks, struct-level checks and nested types' rules; else the report of what rejects it.
    /// Derived types validate it once and keep the answer.
    ///
    /// # Errors
    /// The report of the example, when a rule rejects it: give an explicit example that
    /// passes (`#[guard(example = ..)]` on the field or on the struct).
    fn checked_example() -> Result<&'static Value, Report> {
        match example_rejection::<Self>() {
            None => Ok(Self::example()),
            Some(report) => Err(report),
        }
    }

    /// Checks the arguments of a call (the object an MCP client sends) and builds the typed
    /// value, or reports every issue found.
    ///
    /// # Errors
    /// A [`Report`] of every issue when the arguments are not valid.
    fn validate(arguments: Map<String, Value>) -> Result<Self, Report> {
        Self::validate_in(arguments, Cx::new())
    }

    /// Like [`ToolArgs::validate`], in a context of your choice: [`Cx::withholding_values`]
    /// echoes no value the caller sent.
    ///
    /// ```
    /// use guardrails::ToolArgs;
    /// use guardrails::validation::Cx;
    ///
    /// #[derive(serde::Deserialize, ToolArgs)]
    /// struct Login {
    ///     #[guard(length(min = 3))]
    ///     user: String,
    /// }
    ///
    /// let call = serde_json::json!({"user": "al"});
    /// let report = Login::validate_in(call.as_object().unwrap().clone(), Cx::withholding_values())
    ///     .err()
    ///     .unwrap();
    /// let issue = report.at("user").unwrap();
    /// assert_eq!(issue.received.as_deref(), Some("(withheld: a string of 2 characters)"));
    /// ```
    ///
    /// # Errors
    /// A [`Report`] of every issue when the arguments are not valid.
    fn validate_in(arguments: Map<String, Value>, mut cx: Cx) -> Result<Self, Report> {
        cx.set_root(Self::info());
        match Self::validate_fields(arguments, &mut cx) {
            Some(value) if cx.issue_count() == 0 => Ok(value),
            _ => Err(cx.into_report()),
        }
    }

    /// Like [`ToolArgs::validate_in`], returning the repairs the context made too: with
    /// [`Cx::repairing`] on, a number, a boolean, an array or an object sent as a string where
    /// the field's type leaves one reading of it is read as that value, and noted. The
    /// repaired arguments are checked like any others.
    ///
    /// ```
    /// use guardrails::ToolArgs;
    /// use guardrails::validation::Cx;
    ///
    /// #[derive(serde::Deserialize, ToolArgs)]
    /// struct ListTasks {
    ///     #[guard(range(min = 1, max = 100))]
    ///     limit: u32,
    /// }
    ///
    /// let call = serde_json::json!({"limit": "25"});
    /// let (read, repairs) =
    ///     ListTasks::validate_repairing(call.as_object().unwrap().clone(), Cx::new().repairing(true));
    /// assert_eq!(read.unwrap().limit, 25);
    /// assert_eq!(repairs[0].message(), "`limit` was the string \"25\": read as 25; send numbers unquoted.");
    ///
    /// // Repaired, a value still meets its field's guards.
    /// let call = serde_json::json!({"limit": "250"});
    /// let (read, _) =
    ///     ListTasks::validate_repairing(call.as_object().unwrap().clone(), Cx::new().repairing(true));
    /// assert!(read.is_err());
    /// ```
    ///
    /// # Errors
    /// A [`Report`] of every issue when the arguments are not valid, repaired or not.
    fn validate_repairing(
        arguments: Map<String, Value>,
        mut cx: Cx,
    ) -> (Result<Self, Report>, Vec<Repair>) {
        cx.set_root(Self::info());
        let read = Self::validate_fields(arguments, &mut cx);
        // A clean call builds no report.
        if cx.issue_count() == 0
            && let Some(value) = read
        {
            return (Ok(value), cx.take_repairs());
        }
        let (report, repairs) = cx.finish();
        (Err(report), repairs)
    }

    /// Like [`ToolArgs::validate`], for any JSON value: anything but an object is an issue.
    ///
    /// # Errors
    /// A [`Report`] of every issue when the value is not valid arguments.
    fn validate_value(arguments: Value) -> Result<Self, Report> {
        match arguments {
            Value::Object(map) => Self::validate(map),
            other => {
                let mut cx = Cx::new();
                cx.type_mismatch(&Kind::Object(Self::info()), &other);
                Err(cx.into_report())
            }
        }
    }
}

/// An enum of unit variants accepted as one of its (serde) names. Implemented by
/// `#[derive(ToolEnum)]`.
pub trait ToolEnum: Sized + 'static {
    /// The names of the variants on the wire, in declaration order.
    const VARIANTS: &'static [&'static str];

    /// The name of this variant on the wire.
    fn as_str(&self) -> &'static str;
}

/// The report of a type's own example, validated with every rule, those the derive cannot see
/// (`custom` and struct-level checks) included; `None` when it passes. Used by generated code,
/// once per type.
#[must_use]
pub fn example_rejection<T: ToolArgs>() -> Option<Report> {
    T::validate_value(T::example().clone()).err()
}
