//! Budgets: `max_tokens` beside `max_bytes`, the token estimate held to its stated margin on a
//! multilingual corpus, and `paged` results that every cut leaves resumable, an item too large
//! for the budget on its own included.

use guardrails::present::estimate_tokens;
use guardrails::{CallOutput, Server, ToolArgs, tool};
use guardrails_tests::testing::object;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The corpus and the counts of three real tokenizers, written by `tokens/reference.cjs`.
const CORPUS: &str = include_str!("tokens/corpus.json");

/// The estimate counts at least this share of the tokens of each tokenizer, on every sample
/// (the margin the docs of `estimate_tokens` state: it never under-counts by more than 10%).
const UNDER_MARGIN: f64 = 0.90;
/// ...and at most this many times as many as the most expensive of them.
const OVER_MARGIN: f64 = 2.6;

#[test]
fn the_estimate_stays_within_its_margin_on_the_multilingual_corpus() {
    let corpus: Value = serde_json::from_str(CORPUS).unwrap();
    let samples = corpus["samples"].as_array().unwrap();
    assert!(samples.len() >= 50, "the corpus is complete");
    let mut failures = Vec::new();
    let mut worst = f64::MAX;
    for sample in samples {
        let name = sample["name"].as_str().unwrap();
        let text = sample["text"].as_str().unwrap();
        let estimate = estimate_tokens(text);
        // The estimate stands for the most expensive of the tokenizers: it is held to their
        // largest count.
        let real = ["cl100k_base", "o200k_base", "claude"]
            .map(|tokenizer| sample[tokenizer].as_u64().unwrap())
            .into_iter()
            .max()
            .unwrap();
        #[expect(clippy::cast_precision_loss, reason = "counts of a few hundred")]
        let ratio = estimate as f64 / real as f64;
        worst = worst.min(ratio);
        if !(UNDER_MARGIN..=OVER_MARGIN).contains(&ratio) {
            failures.push(format!(
                "{name}: estimate {estimate}, real {real} ({ratio:.2})"
            ));
        }
    }
    assert!(failures.is_empty(), "outside the margin: {failures:#?}");
    // What the docs say it measured when it was calibrated.
    assert!(worst >= 0.95, "worst {worst:.3}");
}

#[derive(Debug, Deserialize, ToolArgs)]
struct NoArgs {}

/// A note.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
struct Note {
    id: u32,
    title: String,
    body: String,
}

/// Notes of every size, in several languages; note 9 is far larger than any budget below.
fn notes() -> Vec<Note> {
    let bodies = [
        "Short.",
        "Die Förderung für Wärmepumpen wird im nächsten Jahr fortgesetzt.",
        "政府今天宣布了一项支持中小企业的新计划，包括减税和简化贷款申请程序。",
        "Правительство объявило о новых мерах поддержки малого бизнеса.",
        "Ship it 🚀 — tests pass ✅, lint clean ✨ 👍👍🔥💯",
        "政府は本日、中小企業を支援するための新しい計画を発表しました。",
    ];
    (1..=30)
        .map(|id| Note {
            id,
            title: format!("Note {id}"),
            body: if id == 9 {
                "A very long note, with 検査 and 🙏 in it. ".repeat(120)
            } else {
                bodies[id as usize % bodies.len()].repeat(1 + id as usize % 3)
            },
        })
        .collect()
}

/// Lists notes; a page holds what fits in 600 bytes.
#[tool(read_only, agent_limit = 20, paged, max_bytes = 600)]
fn notes_by_bytes(_args: NoArgs) -> Vec<Note> {
    notes()
}

/// Lists notes; a page holds what fits in 400 tokens.
#[tool(read_only, agent_limit = 20, paged, max_tokens = 400)]
fn notes_by_tokens(_args: NoArgs) -> Vec<Note> {
    notes()
}

/// Lists texts; a page holds what fits in 100 tokens.
#[tool(read_only, agent_limit = 50, paged, max_tokens = 100)]
fn texts_by_tokens(_args: NoArgs) -> Vec<String> {
    let mut texts = vec!["检查发票".repeat(200)];
    texts.extend((1..=12).map(|n| format!("text {n}: Проверить счёт")));
    texts
}

fn server() -> Server<()> {
    Server::new(())
        .tool(notes_by_bytes)
        .tool(notes_by_tokens)
        .tool(texts_by_tokens)
}

/// Follows `next_cursor` from the first page to the last: every page, checked against the
/// tool's advertised output schema.
async fn walk(server: &Server<()>, tool: &str) -> Vec<CallOutput> {
    let schema = Value::Object(server.spec(tool).unwrap().output_schema().unwrap().clone());
    let mut pages = Vec::new();
    let mut args = json!({});
    for _ in 0..200 {
        let out = server.call(tool, object(args.clone())).await.unwrap();
        assert!(!out.is_error, "{tool}: {}", out.text[0]);
        let page = out.structured.clone().unwrap();
        assert!(
            jsonschema::is_valid(&schema, &page),
            "{tool}: {page} breaks {schema}"
        );
        let next = page.get("next_cursor").cloned();
        pages.push(out);
        match next {
            Some(cursor) => args = json!({"cursor": cursor}),
            None => return pages,
        }
    }
    panic!("{tool}: the pages never ended");
}

fn items(pages: &[CallOutput]) -> Vec<Value> {
    pages
        .iter()
        .flat_map(|out| {
            out.structured.as_ref().unwrap()["items"]
                .as_array()
                .unwrap()
                .clone()
        })
        .collect()
}

/// The ids of the notes of `pages`, and the one note shown cut.
fn note_ids(pages: &[CallOutput]) -> (Vec<u64>, Vec<Value>) {
    let ids = items(pages)
        .iter()
        .map(|n| n["id"].as_u64().unwrap())
        .collect();
    let cut = pages
        .iter()
        .filter_map(|out| out.structured.as_ref())
        .filter(|page| page.get("item_cut") == Some(&json!(true)))
        .map(|page| page["items"][0].clone())
        .collect();
    (ids, cut)
}

#[tokio::test]
async fn byte_capped_pages_yield_every_item_once_even_past_an_oversized_one() {
    let server = server();
    let pages = walk(&server, "notes_by_bytes").await;
    let (ids, cut) = note_ids(&pages);
    assert_eq!(ids, (1..=30).collect::<Vec<u64>>());
    assert!(
        pages.len() > 3,
        "the cap made several pages: {}",
        pages.len()
    );
    for out in &pages {
        assert!(out.text[0].len() <= 600, "{}", out.text[0]);
    }
    // Note 9 is shown alone, cut: same id and title, its body shortened and ending in "…".
    assert_eq!(cut.len(), 1);
    let whole = &notes()[8];
    assert_eq!(
        (cut[0]["id"].as_u64(), cut[0]["title"].as_str()),
        (Some(9), Some("Note 9"))
    );
    let body = cut[0]["body"].as_str().unwrap();
    assert!(
        body.ends_with('…') && body.len() < whole.body.len(),
        "{body}"
    );
    assert!(whole.body.starts_with(body.trim_end_matches('…')));
}

#[tokio::test]
async fn token_budgeted_pages_yield_every_item_once_within_the_budget() {
    let server = server();
    let pages = walk(&server, "notes_by_tokens").await;
    let (ids, cut) = note_ids(&pages);
    assert_eq!(ids, (1..=30).collect::<Vec<u64>>());
    assert_eq!(cut.len(), 1);
    assert_eq!(cut[0]["id"], 9);
    for out in &pages {
        assert!(estimate_tokens(&out.text[0]) <= 400, "{}", out.text[0]);
    }
    // A page cut by the budget says so, and how to go on.
    let first = &pages[0];
    let teaching = &first.text[1];
    assert!(teaching.contains("token budget"), "{teaching}");
    assert!(
        teaching.contains(r#"call notes_by_tokens again with the same arguments and "cursor""#),
        "{teaching}"
    );
    // The whole list would not fit: the budget, not the agent limit, made the pages.
    assert!(
        pages[0].structured.as_ref().unwrap()["shown"]
            .as_u64()
            .unwrap()
            < 20
    );
}

#[tokio::test]
async fn an_item_larger_than_the_budget_is_shown_cut_and_marked_with_the_cursor_after_it() {
    let server = server();
    let out = server
        .call("texts_by_tokens", object(json!({})))
        .await
        .unwrap();
    assert!(!out.is_error, "{}", out.text[0]);
    let page = out.structured.as_ref().unwrap();
    assert_eq!(page["shown"], 1);
    assert_eq!(page["item_cut"], true);
    let text = page["items"][0].as_str().unwrap();
    assert!(
        text.starts_with("检查发票") && text.ends_with('…'),
        "{text}"
    );
    assert!(estimate_tokens(&out.text[0]) <= 100, "{}", out.text[0]);
    let teaching = &out.text[1];
    assert!(
        teaching
            .contains("Item 1 is larger than this tool's token budget on its own: it is shown cut"),
        "{teaching}"
    );
    // The cursor resumes after it: the next page starts with the second text.
    let next = server
        .call(
            "texts_by_tokens",
            object(json!({"cursor": page["next_cursor"]})),
        )
        .await
        .unwrap();
    let second = next.structured.unwrap();
    assert_eq!(second["items"][0], "text 1: Проверить счёт");
    assert_eq!(second.get("item_cut"), None);
    let all = items(&walk(&server, "texts_by_tokens").await);
    assert_eq!(all.len(), 13);
    assert_eq!(all[12], "text 12: Проверить счёт");
}

#[test]
fn the_budget_is_part_of_the_contract() {
    let contract = guardrails_tests::testing::entry(&notes_by_tokens.spec().contract());
    assert_eq!(contract["max_tokens"], 400);
    assert_eq!(contract.get("max_bytes"), None);
    let contract = guardrails_tests::testing::entry(&notes_by_bytes.spec().contract());
    assert_eq!(contract.get("max_tokens"), None);
}

/// Texts of any sizes and scripts, for the property below.
struct Texts(Vec<String>);

/// Lists the texts; a page holds what fits in 300 bytes.
#[tool(read_only, agent_limit = 7, paged, max_bytes = 300)]
fn texts_within_bytes(state: &Texts, _args: NoArgs) -> Vec<String> {
    state.0.clone()
}

/// Lists the texts; a page holds what fits in 80 tokens.
#[tool(read_only, agent_limit = 7, paged, max_tokens = 80)]
fn texts_within_tokens(state: &Texts, _args: NoArgs) -> Vec<String> {
    state.0.clone()
}

mod property {
    use super::*;
    use proptest::prelude::*;

    fn texts() -> impl Strategy<Value = Vec<String>> {
        let text = prop_oneof![
            "[a-z ]{0,40}",
            "\\PC{0,60}",
            "[检查发票🙏Проверить ]{0,300}",
            "[a-zA-Z0-9+/]{100,600}",
        ];
        prop::collection::vec(text, 0..30)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever cuts the pages (the agent limit, the byte cap, the token budget, an item
        /// too large on its own), walking them yields every item once, in order: whole, or,
        /// alone on its page and marked, a head of it ending in "…"; and every page keeps
        /// within its budget.
        #[test]
        fn walking_the_pages_yields_every_item_once_whatever_cut_them(texts in texts()) {
            let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let server = Server::new(Texts(texts.clone()))
                .tool(texts_within_bytes)
                .tool(texts_within_tokens);
            for tool in ["texts_within_bytes", "texts_within_tokens"] {
                let mut seen: Vec<(String, bool)> = Vec::new();
                let mut args = json!({});
                for _ in 0..=texts.len() {
                    let out = rt.block_on(server.call(tool, object(args.clone()))).unwrap();
                    prop_assert!(!out.is_error, "{}", out.text[0]);
                    if tool == "texts_within_bytes" {
                        prop_assert!(out.text[0].len() <= 300, "{}", out.text[0]);
                    } else {
                        prop_assert!(estimate_tokens(&out.text[0]) <= 80, "{}", out.text[0]);
                    }
                    let page = out.structured.unwrap();
                    let cut = page.get("item_cut") == Some(&json!(true));
                    let items = page["items"].as_array().unwrap();
                    prop_assert!(!cut || items.len() == 1);
                    seen.extend(items.iter().map(|i| (i.as_str().unwrap().to_owned(), cut)));
                    match page.get("next_cursor") {
                        Some(cursor) => args = json!({"cursor": cursor}),
                        None => break,
                    }
                }
                prop_assert_eq!(seen.len(), texts.len(), "{}: {:?}", tool, seen);
                for ((shown, cut), text) in seen.iter().zip(&texts) {
                    if *cut {
                        let head = shown.strip_suffix('…').unwrap();
                        prop_assert!(text.starts_with(head) && head.len() < text.len());
                    } else {
                        prop_assert_eq!(shown, text);
                    }
                }
            }
        }
    }
}
