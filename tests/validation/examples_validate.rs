//! Every argument type's example validates against its own validator, and against its own
//! schema.

use guardrails::ToolArgs;
use guardrails_tests::fixtures::{self, CreateUser, Everything, PlaceOrder};

#[test]
fn every_example_validates() {
    for (name, example, result) in fixtures::all_examples() {
        assert!(
            result.is_ok(),
            "{name}: example {example} is rejected: {:?}",
            result.err()
        );
    }
}

fn schema_accepts<T: ToolArgs>() {
    let schema = serde_json::to_value(T::schema()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles");
    let example = T::example();
    let errors: Vec<String> = validator
        .iter_errors(example)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{}: {example} fails its schema: {errors:?}",
        std::any::type_name::<T>()
    );
}

#[test]
fn every_example_passes_its_schema() {
    schema_accepts::<CreateUser>();
    schema_accepts::<PlaceOrder>();
    schema_accepts::<Everything>();
    schema_accepts::<guardrails_tests::task_tracker::ListTasks>();
    schema_accepts::<guardrails_tests::task_tracker::CreateTask>();
    schema_accepts::<guardrails_tests::task_tracker::UpdateTask>();
    schema_accepts::<guardrails_tests::task_tracker::DeleteTask>();
    schema_accepts::<guardrails_tests::task_tracker::TaskReport>();
    schema_accepts::<guardrails_tests::task_tracker::ExportTasks>();
}

#[test]
fn explicit_examples_are_used() {
    assert_eq!(CreateUser::example()["username"], "john_doe");
}
