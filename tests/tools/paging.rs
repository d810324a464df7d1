//! `#[tool(agent_limit = N, paged)]`: continuation that writes itself. Walking the pages yields
//! every item exactly once; a cursor that was edited, made up, given for other arguments or that
//! went stale is a validation issue at `cursor`; the handler never sees the paging.

use std::sync::atomic::{AtomicU32, Ordering};

use guardrails::{CallOutput, Server, ToolArgs, tool};
use guardrails_tests::testing::object;
use serde::Deserialize;
use serde_json::{Value, json};

/// The numbers 1 to `count`.
struct Numbers {
    count: AtomicU32,
}

/// Arguments of `list_numbers`.
#[derive(Debug, Deserialize, ToolArgs)]
struct ListNumbers {
    /// Only multiples of this.
    #[guard(range(min = 1, max = 10))]
    every: Option<u32>,
}

/// Lists numbers, smallest first.
#[tool(read_only, agent_limit = 7, paged)]
fn list_numbers(state: &Numbers, args: ListNumbers) -> Vec<u32> {
    let every = args.every.unwrap_or(1);
    (1..=state.count.load(Ordering::Relaxed))
        .filter(|n| n % every == 0)
        .collect()
}

fn server(count: u32) -> Server<Numbers> {
    Server::new(Numbers {
        count: AtomicU32::new(count),
    })
    .tool(list_numbers)
}

async fn call(server: &Server<Numbers>, args: Value) -> CallOutput {
    server.call("list_numbers", object(args)).await.unwrap()
}

/// Follows `next_cursor` from the first page to the last, returning every item seen.
async fn walk(server: &Server<Numbers>, filters: Value) -> Vec<u64> {
    let mut seen = Vec::new();
    let mut args = filters.clone();
    for _ in 0..1_000 {
        let out = call(server, args.clone()).await;
        assert!(!out.is_error, "{}", out.text[0]);
        let page = out.structured.unwrap();
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 7);
        seen.extend(items.iter().map(|i| i.as_u64().unwrap()));
        match page.get("next_cursor") {
            Some(cursor) => {
                assert_eq!(
                    out.text.len(),
                    2,
                    "a teaching block follows a page with more"
                );
                args = filters.clone();
                args["cursor"] = cursor.clone();
            }
            None => return seen,
        }
    }
    panic!("the pages never ended");
}

#[tokio::test]
async fn walking_all_pages_yields_every_item_exactly_once() {
    for count in [0, 1, 6, 7, 8, 14, 15, 100] {
        let server = server(count);
        for every in [None, Some(1u32), Some(3), Some(7)] {
            let filters = every.map_or_else(|| json!({}), |e| json!({"every": e}));
            let expected: Vec<u64> = (1..=u64::from(count))
                .filter(|n| n % u64::from(every.unwrap_or(1)) == 0)
                .collect();
            assert_eq!(
                walk(&server, filters).await,
                expected,
                "count {count}, every {every:?}"
            );
        }
    }
}

#[tokio::test]
async fn the_teaching_block_says_how_to_ask_for_the_next_page() {
    let server = server(20);
    let out = call(&server, json!({"every": 1})).await;
    let page = out.structured.as_ref().unwrap();
    assert_eq!(
        (page["shown"].as_u64(), page["total"].as_u64()),
        (Some(7), Some(20))
    );
    let cursor = page["next_cursor"].as_str().unwrap();
    let teaching = &out.text[1];
    assert!(
        teaching.contains("items 1 to 7 of 20 are shown"),
        "{teaching}"
    );
    assert!(
        teaching.contains(&format!(
            r#"call list_numbers again with the same arguments and "cursor": "{cursor}""#
        )),
        "{teaching}"
    );
    assert!(teaching.contains(r#"<filter name="every">"#), "{teaching}");
    let second = call(&server, json!({"every": 1, "cursor": cursor})).await;
    assert!(
        second.text[1].contains("items 8 to 14 of 20 are shown"),
        "{}",
        second.text[1]
    );
}

#[tokio::test]
async fn the_cursor_is_in_the_schema_and_the_handler_never_sees_it() {
    let spec = list_numbers.spec();
    let schema = serde_json::to_value(spec.input_schema()).unwrap();
    assert_eq!(
        schema["properties"]["cursor"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(schema["additionalProperties"], false);
    // The arguments type denies unknown fields: a cursor that reached it would be one.
    let server = server(20);
    let first = call(&server, json!({})).await;
    let cursor = first.structured.unwrap()["next_cursor"].clone();
    let second = call(&server, json!({"cursor": cursor})).await;
    assert!(!second.is_error, "{}", second.text[0]);
    assert_eq!(second.structured.unwrap()["items"][0], 8);
}

#[tokio::test]
async fn a_tampered_cursor_is_rejected_with_a_clear_message() {
    // The same invalid call is sent twice: the loop breaker would answer the second shorter.
    let server = server(20).config(
        guardrails::GuardConfig::new().loop_breaker(guardrails::operate::LoopBreaker::off()),
    );
    let first = call(&server, json!({})).await;
    let cursor = first.structured.unwrap()["next_cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut tampered = cursor.into_bytes();
    tampered[3] = if tampered[3] == b'f' { b'e' } else { b'f' };
    let tampered = String::from_utf8(tampered).unwrap();
    for bad in [json!(tampered), json!("page-2"), json!(14)] {
        let out = call(&server, json!({"cursor": bad})).await;
        assert!(out.is_error);
        let text = &out.text[0];
        assert!(text.contains(r#"<field name="cursor" code="#), "{text}");
        assert!(
            text.contains("leave `cursor` out to start from the first page"),
            "{text}"
        );
        // The fix is a sentence with one period.
        assert!(!text.contains(".."), "{text}");
    }
    let out = call(&server, json!({"cursor": tampered})).await;
    assert!(
        out.text[0].contains("Not a cursor this tool gave: it was changed or made up."),
        "{}",
        out.text[0]
    );
}

#[tokio::test]
async fn a_cursor_with_changed_filters_is_rejected() {
    let server = server(40);
    let first = call(&server, json!({"every": 2})).await;
    let cursor = first.structured.unwrap()["next_cursor"].clone();
    let out = call(&server, json!({"every": 3, "cursor": cursor})).await;
    assert!(out.is_error);
    assert!(
        out.text[0].contains(r#"<field name="cursor" code="cursor">This cursor was given for a call with other arguments"#),
        "{}",
        out.text[0]
    );
    // Other issues of the same call are reported with it.
    let both = call(&server, json!({"every": 30, "cursor": "nope"})).await;
    assert!(both.text[0].contains(r#"issues="2""#), "{}", both.text[0]);
}

#[tokio::test]
async fn a_stale_cursor_is_rejected() {
    let server = server(30);
    let mut args = json!({});
    for _ in 0..3 {
        let page = call(&server, args.clone()).await.structured.unwrap();
        args = json!({"cursor": page["next_cursor"]});
    }
    // The cursor points at item 22; the results shrink to 10.
    server.state().count.store(10, Ordering::Relaxed);
    let out = call(&server, args).await;
    assert!(out.is_error);
    assert!(
        out.text[0]
            .contains("This cursor is stale: it starts at item 22 and the results now hold 10."),
        "{}",
        out.text[0]
    );
}

/// Arguments of `list_words`.
#[derive(Debug, Deserialize, ToolArgs)]
struct ListWords {
    /// Only words starting with this letter.
    #[guard(length(equal = 1))]
    initial: Option<String>,
}

/// Lists long words; a page holds what fits in 512 bytes.
#[tool(
    read_only,
    agent_limit = 50,
    paged,
    max_bytes = 512,
    hint = "Narrow by `initial`."
)]
fn list_words(state: &Numbers, args: ListWords) -> Vec<String> {
    (1..=state.count.load(Ordering::Relaxed))
        .map(|n| {
            format!(
                "{}-word-number-{n:04}-{}",
                if n % 2 == 0 { "a" } else { "b" },
                "x".repeat(40)
            )
        })
        .filter(|w| args.initial.as_deref().is_none_or(|i| w.starts_with(i)))
        .collect()
}

#[tokio::test]
async fn pages_cut_by_the_byte_cap_still_yield_every_item_once() {
    let server = Server::new(Numbers {
        count: AtomicU32::new(45),
    })
    .tool(list_words);
    for filters in [json!({}), json!({"initial": "a"})] {
        let mut seen = Vec::new();
        let mut args = filters.clone();
        let mut pages = 0;
        loop {
            let out = server
                .call("list_words", object(args.clone()))
                .await
                .unwrap();
            assert!(!out.is_error, "{}", out.text[0]);
            assert!(out.text[0].len() <= 512, "{}", out.text[0].len());
            pages += 1;
            let page = out.structured.unwrap();
            seen.extend(page["items"].as_array().unwrap().iter().cloned());
            let Some(cursor) = page.get("next_cursor") else {
                break;
            };
            assert!(out.text[1].contains("size cap"), "{}", out.text[1]);
            assert!(
                out.text[1].contains("Narrow by `initial`."),
                "{}",
                out.text[1]
            );
            args = filters.clone();
            args["cursor"] = cursor.clone();
        }
        let initial = filters.get("initial").and_then(Value::as_str).unwrap_or("");
        let expected: Vec<Value> = (1..=45u32)
            .map(|n| {
                format!(
                    "{}-word-number-{n:04}-{}",
                    if n % 2 == 0 { "a" } else { "b" },
                    "x".repeat(40)
                )
            })
            .filter(|w| w.starts_with(initial))
            .map(Value::from)
            .collect();
        assert!(pages > 2, "the byte cap made several pages: {pages}");
        assert_eq!(seen, expected);
    }
}

/// A client that adds its own key to every call, with a new value each time, walks the pages of
/// a server that ignores such keys: the cursor is bound to the call without them.
#[tokio::test]
async fn a_cursor_survives_a_client_key_the_server_ignores() {
    let server = server(20).config(
        guardrails::GuardConfig::new().ignore_keys(guardrails::IgnoreKeys::new().prefix("_")),
    );
    let mut seen = Vec::new();
    let mut args = json!({"_request": 0});
    for round in 1..=10 {
        let out = call(&server, args.clone()).await;
        assert!(!out.is_error, "{}", out.text[0]);
        let page = out.structured.unwrap();
        seen.extend(
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap()),
        );
        let Some(cursor) = page.get("next_cursor") else {
            break;
        };
        args = json!({"_request": round, "cursor": cursor});
    }
    assert_eq!(seen, (1..=20).collect::<Vec<u64>>());
}
