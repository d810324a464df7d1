//! Text helpers every message is built with, written once: escaping for XML-style tags, code
//! spans for Markdown, plain text and JSON, bounded cuts and previews of what a caller sent,
//! quoted lists, and did-you-mean suggestions.
//!
//! What a caller sent is never echoed with its control characters, nor with the invisible
//! characters that change what a reader sees around them ([`is_invisible`]: bidirectional
//! controls, zero-width characters): in text they become U+FFFD, in JSON a `\uXXXX` escape.
//!
//! Nothing here knows about tools, reports or formats: it is the ground floor the rest stands on.

#[expect(
    unreachable_pub,
    reason = "the file is shared with the derive, which reads its items by these names"
)]
mod suggest;

#[cfg(test)]
use suggest::THRESHOLD as SUGGESTION_THRESHOLD;
pub(crate) use suggest::{closest, did_you_mean, normalize};

mod cut;
mod escape;
mod write;

pub(crate) use cut::{cut, head, head_bytes, preview, preview_span, preview_text};
pub(crate) use escape::{code_span, escape_xml_attr_into, escape_xml_into, quote_json};
pub use escape::{escape_json_text, is_invisible, plain};
pub(crate) use write::{
    concat, count, json_text, push_count, push_int, push_json_string, push_uint, quoted_list,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_follow_one_rule() {
        assert_eq!(
            did_you_mean("usrname", ["username", "email"]),
            Some("username")
        );
        assert_eq!(did_you_mean("due_date", ["dueDate"]), Some("dueDate"));
        assert_eq!(did_you_mean("zzz", ["username", "email"]), None);
        assert_eq!(did_you_mean(&"a".repeat(500), ["a"]), None);
    }

    #[test]
    fn abbreviations_and_prefixes_are_suggested_short_ones_are_not() {
        let fields = ["quantity", "amount", "description", "sku", "notes"];
        assert_eq!(did_you_mean("qty", fields), Some("quantity"));
        assert_eq!(did_you_mean("amt", fields), Some("amount"));
        assert_eq!(did_you_mean("desc", fields), Some("description"));
        assert_eq!(
            did_you_mean("overconfident", ["overconfident_language", "hedging"]),
            Some("overconfident_language")
        );
        // Two letters abbreviate nothing; letters out of order or from another start neither.
        assert_eq!(did_you_mean("no", fields), None);
        assert_eq!(did_you_mean("ytq", fields), None);
        assert_eq!(did_you_mean("mount", ["amount_due"]), None);
        assert_eq!(did_you_mean("xyz", fields), None);
    }

    /// The suggestion as it was worded before candidates were normalized once and distances
    /// skipped below the threshold: every candidate normalized at every call, every distance
    /// computed.
    fn reference_suggestion<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
        let normalize = |name: &str| -> String {
            name.chars()
                .filter(|c| !matches!(c, '_' | '-' | ' '))
                .flat_map(char::to_lowercase)
                .collect()
        };
        let wanted = normalize(input);
        let mut best: Option<(&'a str, f64)> = None;
        for &candidate in candidates {
            let normalized = normalize(candidate);
            let score = if wanted == normalized {
                1.0
            } else {
                let typo = strsim::normalized_damerau_levenshtein(&wanted, &normalized);
                let (w, c) = (wanted.chars().count(), normalized.chars().count());
                let mut letters = normalized.chars();
                let abbreviation = if w >= 3
                    && w < c
                    && wanted.chars().next() == normalized.chars().next()
                    && wanted.chars().all(|l| letters.any(|x| x == l))
                {
                    #[allow(clippy::cast_precision_loss, reason = "names are short")]
                    let coverage = w as f64 / c as f64;
                    SUGGESTION_THRESHOLD + 0.25 * coverage
                } else {
                    0.0
                };
                typo.max(abbreviation)
            };
            if score >= SUGGESTION_THRESHOLD && best.is_none_or(|(_, s)| score > s) {
                best = Some((candidate, score));
            }
        }
        best.map(|(name, _)| name)
    }

    #[test]
    fn suggestions_agree_with_every_distance_computed() {
        let names = [
            "username",
            "user_name",
            "email",
            "e-mail",
            "age",
            "role",
            "tags",
            "tag",
            "title",
            "assignee",
            "status",
            "due",
            "due_date",
            "dueDate",
            "priority",
            "labels",
            "label",
            "quantity",
            "qty",
            "amount",
            "amt",
            "description",
            "desc",
            "sku",
            "notes",
            "note",
            "nickname",
            "name",
            "names",
            "filter",
            "search",
            "lines",
            "line_items",
            "ship_to",
            "shipTo",
            "currency",
            "deliver_on",
            "delivery",
            "rush",
            "a",
            "ab",
            "abc",
            "abcd",
            "Straße",
            "strasse",
            "ÉCOLE",
            "école",
            "ключ",
            "ключи",
            "",
            "_",
            "x-y z",
            "overconfident_language",
            "hedging",
            "priorty",
            "prioirty",
            "emial",
            "usrname",
        ];
        for input in names {
            for size in 0..=names.len() {
                for start in [0, size / 2] {
                    let candidates = &names[start.min(size)..size];
                    assert_eq!(
                        did_you_mean(input, candidates.iter().copied()),
                        reference_suggestion(input, candidates),
                        "{input:?} among {candidates:?}"
                    );
                }
            }
        }
    }
}
