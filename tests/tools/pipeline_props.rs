//! Universal claims of the pipeline, over arbitrary arguments: no input makes it panic, the
//! handler runs exactly for the calls that validate, and every rejection is a bounded error.

use guardrails_tests::pipeline_server;
use proptest::prelude::*;
use serde_json::{Map, Value};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[a-z]{0,30}".prop_map(Value::from),
        ".{0,200}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    let key = prop_oneof![
        Just("title".to_owned()),
        Just("assignee".to_owned()),
        Just("status".to_owned()),
        Just("offset".to_owned()),
        Just("id".to_owned()),
        ".{1,20}",
    ];
    let value = prop_oneof![
        json_value(),
        Just(Value::from("Write docs")),
        Just(Value::from("ada")),
        Just(Value::from("done")),
        Just(Value::from(3)),
    ];
    prop::collection::btree_map(key, value, 0..5).prop_map(|m| m.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_input_panics_and_only_valid_calls_run(
        tool in prop::sample::select(vec!["create_task", "list_tasks", "get_task", "fragile"]),
        args in arguments(),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let server = pipeline_server::server(20);
        let out = rt.block_on(server.call(tool, args)).unwrap();
        let ran = server.state().calls();
        if out.is_error && out.text[0].starts_with("<validation_error") {
            prop_assert_eq!(ran, 0);
            prop_assert!(out.text[0].len() < 16 * 1024, "{} bytes", out.text[0].len());
        } else {
            prop_assert_eq!(ran, 1);
        }
    }
}
