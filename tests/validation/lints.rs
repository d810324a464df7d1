//! Generated code stays lint-clean and hygienic: it compiles under `deny(warnings)` and with the
//! prelude's names shadowed by hostile local items.

#![deny(warnings, unused_qualifications, unreachable_pub, missing_docs)]
#![allow(dead_code, reason = "the types only need to compile")]

mod shadowing {
    #![allow(non_camel_case_types, reason = "shadowing the prelude on purpose")]

    use guardrails::{ToolArgs, ToolEnum};

    struct Result;
    struct Ok;
    struct Err;
    struct Option;
    struct Some;
    struct None;
    struct String;
    struct Vec;
    struct Box;
    struct Default;
    struct Clone;
    struct bool;
    struct str;
    struct usize;
    // Unit structs that a generated binding of the same name would match instead of binding.
    struct report;
    struct schema;

    /// An enum next to the shadowed names.
    #[derive(ToolEnum)]
    pub(crate) enum Mode {
        /// Fast.
        Fast,
        /// Safe.
        Safe,
    }

    /// A nested struct.
    #[derive(ToolArgs)]
    pub(crate) struct Inner {
        /// A value.
        #[guard(range(min = 1, max = 9))]
        pub(crate) value: u8,
    }

    /// Arguments next to the shadowed names.
    #[derive(ToolArgs)]
    pub(crate) struct Args {
        /// A name.
        #[guard(length(min = 1, max = 8), pattern = "^[a-z]+$")]
        pub(crate) name: std::string::String,
        /// Optional tags.
        #[guard(unique)]
        pub(crate) tags: core::option::Option<std::vec::Vec<std::string::String>>,
        /// A mode.
        pub(crate) mode: Mode,
        /// Nested values.
        pub(crate) inner: std::vec::Vec<Inner>,
        /// Defaulted.
        #[serde(default)]
        pub(crate) flag: core::primitive::bool,
        /// Text under a built-in output policy.
        #[guard(policy = "base")]
        pub(crate) summary: core::option::Option<std::string::String>,
        /// Text under a policy of this crate.
        #[guard(policy = house_rules)]
        pub(crate) notes: std::vec::Vec<std::string::String>,
        /// Acknowledges policy warnings.
        #[serde(default)]
        #[guard(acknowledges_policy)]
        pub(crate) acknowledge: core::primitive::bool,
    }

    /// Arguments with a rule across fields, an alias and the struct's own example, next to the
    /// shadowed names.
    #[derive(ToolArgs)]
    #[guard(check = ordered, example = r#"{"low": 1, "high": 2}"#)]
    #[guard(check(apart, fields(low, high)))]
    pub(crate) struct Bounds {
        /// The low end.
        #[serde(alias = "min")]
        pub(crate) low: u8,
        /// The high end.
        pub(crate) high: u8,
    }

    fn ordered(bounds: &Bounds) -> core::result::Result<(), guardrails::FieldIssue> {
        if bounds.low < bounds.high {
            return core::result::Result::Ok(());
        }
        core::result::Result::Err(guardrails::FieldIssue::new("high", "Must be above `low`."))
    }

    fn apart(low: u8, high: u8) -> core::result::Result<(), guardrails::FieldIssue> {
        if high.abs_diff(low) < 100 {
            return core::result::Result::Ok(());
        }
        core::result::Result::Err(guardrails::FieldIssue::new("high", "Too far from `low`."))
    }

    /// An enum with data next to the shadowed names: struct, newtype and unit variants.
    #[derive(ToolArgs)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    pub(crate) enum Step {
        /// Waits.
        #[guard(check = short_wait, check(noted, fields(seconds, note)))]
        Wait {
            /// Seconds.
            #[guard(range(min = 1, max = 60), example = 5)]
            seconds: u8,
            /// A note.
            note: core::option::Option<std::string::String>,
        },
        /// Runs the inner values.
        Run(Inner),
        /// Stops.
        Stop,
    }

    fn short_wait(step: &Step) -> core::result::Result<(), guardrails::FieldIssue> {
        match step {
            Step::Wait { seconds, .. } if *seconds > 50 => {
                core::result::Result::Err(guardrails::FieldIssue::new("seconds", "Too long."))
            }
            _ => core::result::Result::Ok(()),
        }
    }

    fn noted(
        seconds: u8,
        note: core::option::Option<&core::primitive::str>,
    ) -> core::result::Result<(), guardrails::FieldIssue> {
        if seconds > 30 && note.is_none() {
            return core::result::Result::Err(guardrails::FieldIssue::new("note", "Say why."));
        }
        core::result::Result::Ok(())
    }

    /// The same, untagged, holding the enum above.
    #[derive(ToolArgs)]
    #[serde(untagged)]
    pub(crate) enum Either {
        /// One step.
        One {
            /// The step.
            step: Step,
        },
        /// Many steps.
        Many {
            /// The steps.
            steps: std::vec::Vec<Step>,
        },
    }

    /// Arguments holding enums with data, and a struct and an enum flattened.
    #[derive(ToolArgs)]
    pub(crate) struct Agenda {
        /// What to do.
        pub(crate) plan: Either,
        /// What to do next.
        pub(crate) next: core::option::Option<Step>,
        /// The inner values, beside.
        #[serde(flatten)]
        pub(crate) inner: Inner,
        /// A step, beside.
        #[serde(flatten)]
        pub(crate) now: Step,
    }

    fn house_rules() -> &'static guardrails::policy::Policy {
        static POLICY: std::sync::LazyLock<guardrails::policy::Policy> =
            std::sync::LazyLock::new(|| guardrails::policy::Profile::Decision.policy().clone());
        &POLICY
    }
}

#[test]
fn shadowed_names_do_not_leak_into_generated_code() {
    use guardrails::ToolArgs;
    let args = shadowing::Args::validate_value(serde_json::json!({
        "name": "abc", "mode": "Safe", "inner": [{"value": 3}], "notes": [],
        "acknowledge": true
    }));
    assert!(args.is_ok(), "{:?}", args.err());
}

#[test]
fn struct_checks_and_aliases_compile_next_to_shadowed_names() {
    use guardrails::ToolArgs;
    assert!(shadowing::Bounds::validate_value(serde_json::json!({"min": 1, "high": 2})).is_ok());
    let report = shadowing::Bounds::validate_value(serde_json::json!({"low": 3, "high": 2}));
    assert_eq!(
        report.err().map(|r| r.issues()[0].path.clone()).as_deref(),
        Some("high")
    );
    assert!(shadowing::Bounds::checked_example().is_ok());
}

#[test]
fn enums_with_data_compile_clean_next_to_shadowed_names() {
    use guardrails::ToolArgs;
    let plan = shadowing::Agenda::validate_value(serde_json::json!({
        "plan": {"steps": [{"kind": "wait", "seconds": 3}, {"kind": "run", "value": 2}, {"kind": "stop"}]},
        "next": null,
        "value": 4,
        "kind": "stop",
    }));
    assert!(plan.is_ok(), "{:?}", plan.err());
}
