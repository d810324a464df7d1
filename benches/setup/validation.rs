//! The validation benchmarks' inputs and baselines: a valid and a 5-issue call of the `NewTask`
//! fixture, a create-user call with a hallucinated key and four other problems, the `jsonschema`
//! validators of their advertised schemas, and each side's invalid path.

use guardrails::__private::Format;
use guardrails::RenderOptions;
use guardrails::ToolArgs;
use guardrails::render::render_report;
use guardrails_tests::create_user::CreateUser;
use guardrails_tests::fixtures::NewTask;
use serde_json::{Value, json};

/// A valid call: every guard passes.
pub(crate) fn valid() -> Value {
    json!({
        "title": "Write the quarterly report",
        "assignee": "jane_doe",
        "status": "in_progress",
        "due": "2026-12-01",
        "priority": 2,
        "labels": ["finance", "q4", "report"]
    })
}

/// A call with five problems, one per guarded field but `labels`.
pub(crate) fn invalid() -> Value {
    json!({
        "title": "ab",
        "assignee": "Jane Doe",
        "status": "started",
        "due": "2026-13-01",
        "priority": 9,
        "labels": ["finance"]
    })
}

/// The baseline a user would otherwise reach for: `jsonschema` over the schema `NewTask`
/// advertises, formats checked. Panics unless both sides agree on [`valid`] and [`invalid`].
pub(crate) fn jsonschema_validator() -> jsonschema::Validator {
    let schema = serde_json::to_value(NewTask::schema()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    assert!(NewTask::validate_value(valid()).is_ok());
    assert!(validator.is_valid(&valid()));
    assert_eq!(NewTask::validate_value(invalid()).unwrap_err().len(), 5);
    assert_eq!(validator.iter_errors(&invalid()).count(), 5);
    validator
}

/// The pattern of `NewTask::assignee`, compiled as the derive compiles it.
static ASSIGNEE: guardrails::__private::Pattern =
    guardrails::__private::Pattern::new("^[a-z][a-z0-9_]{2,31}$");

/// The floor of the valid path: serde builds the typed value, then the six guards are checked
/// on it by hand, through the routines guardrails checks them with (the field's pattern,
/// compiled as the derive compiles it, the date format) and nothing around them: no path, no report, no per-field
/// dispatch. No guarded validator that builds the value at serde's speed can be faster.
pub(crate) fn serde_then_guards(input: Value) -> NewTask {
    let task: NewTask = serde_json::from_value(input).unwrap();
    // The byte length decides a title's length in characters unless it is near a bound.
    let bytes = task.title.len();
    assert!(
        (bytes <= 120 && bytes.div_ceil(4) >= 3) || (3..=120).contains(&task.title.chars().count())
    );
    assert!(ASSIGNEE.is_match(&task.assignee));
    assert!(Format::Date.is_valid(&task.due));
    assert!((1..=5).contains(&task.priority));
    assert!(task.labels.len() <= 10);
    assert!((1..task.labels.len()).all(|i| !task.labels[..i].contains(&task.labels[i])));
    task
}

/// The invalid path of guardrails: the report rendered as the model sees it.
pub(crate) fn rendered_report(input: Value, options: &RenderOptions) -> String {
    let report = NewTask::validate_value(input).unwrap_err();
    render_report(
        "create_task",
        &report,
        NewTask::info(),
        NewTask::example(),
        options,
    )
}

/// A create-user call with the mistake a model makes most, a key the tool does not have, and
/// four other problems: a username too short, an email without `@`, an age under the minimum and
/// a role not in the list.
pub(crate) fn unknown_key() -> Value {
    json!({
        "username": "jd",
        "email": "jane.example.com",
        "age": 15,
        "role": "superuser",
        "tags": ["new"],
        "nickname": "Jane"
    })
}

/// The `jsonschema` validator of the schema `CreateUser` advertises, formats checked. Panics
/// unless both sides find the five problems of [`unknown_key`].
pub(crate) fn create_user_validator() -> jsonschema::Validator {
    let schema = serde_json::to_value(CreateUser::schema()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    assert_eq!(
        CreateUser::validate_value(unknown_key()).unwrap_err().len(),
        5
    );
    assert_eq!(validator.iter_errors(&unknown_key()).count(), 5);
    validator
}

/// The invalid create-user call through guardrails: the report rendered as the model sees it.
pub(crate) fn rendered_create_user_report(input: Value, options: &RenderOptions) -> String {
    let report = CreateUser::validate_value(input).unwrap_err();
    render_report(
        "create-user",
        &report,
        CreateUser::info(),
        CreateUser::example(),
        options,
    )
}

/// The least a `jsonschema` user does with errors: where each one is.
pub(crate) fn jsonschema_instance_paths(
    validator: &jsonschema::Validator,
    input: &Value,
) -> Vec<String> {
    validator
        .iter_errors(input)
        .map(|error| error.instance_path().to_string())
        .collect()
}

/// The invalid path of `jsonschema`: every error's message.
pub(crate) fn jsonschema_messages(validator: &jsonschema::Validator, input: &Value) -> Vec<String> {
    validator
        .iter_errors(input)
        .map(|error| error.to_string())
        .collect()
}
