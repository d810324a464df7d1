//! The built-in profiles: a base set shared by every agent, and the stricter sets of observation
//! and decision agents.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use super::error::PolicyError;
use super::rule::Rule;
use super::set::{Policy, PolicyBuilder};

/// A built-in policy.
///
/// The profiles are written for agents that write analysis and decision documents (reports,
/// recommendations, plans): text where an invented figure or an unsourced claim misleads the
/// reader. They are not meant for business text such as invoices, receipts or notices, where
/// "A late fee of $25 applies" is a fact: `base` would block its dollar amount. Give such text
/// a policy of its own ([`Policy::builder`], or a TOML file with
/// [`Policy::from_toml_str`](super::Policy::from_toml_str)) with the rules it needs.
///
/// | profile | for | adds to `base` |
/// |---|---|---|
/// | `base` | every agent | — |
/// | `observation` | agents that analyse a problem: facts only, every claim sourced | `no_speculation`, `mandatory_source`; source and inference tags become critical |
/// | `decision` | agents that propose solutions: controlled estimation, no guarantees | `conservative_estimates`, `no_guarantees`, `roi_language`, `timeline_justification` |
///
/// The `base` rules:
///
/// | rule | severity | what it catches |
/// |---|---|---|
/// | `untagged_dollar_amount` | critical | a dollar amount not followed by `[AI estimation …]` or `[Source: …]` |
/// | `untagged_percentage` | critical | a percentage not followed by `[AI estimation …]` or `[Source: …]` |
/// | `unsourced_quote` | critical | a quotation not followed by `[Source: …]` |
/// | `empty_source` | critical | a `[Source: ]` tag that names nothing |
/// | `roi_figure`, `annual_savings_figure`, `cost_figure` | critical | "ROI of 40%", "saves $50,000 annually", "costs $9,000" not followed by a tag; the approved qualitative wording as fix |
/// | `percentage_reduction`, `multiplier_improvement`, `percentage_faster` | critical | "40% reduction", "3x improvement", "25% faster" not followed by a tag; the approved qualitative wording as fix |
/// | `guaranteed_results` | warning | "guaranteed results" |
/// | `overconfident_language` | warning | will, guaranteed, definitely, certainly |
/// | `missing_estimation_tag` | warning | estimate, approximately, around, roughly without `[AI estimation …]` later in the sentence |
/// | `vague_source` | warning | `[Source: various]`, `[Source: internal]` and the like |
/// | `document_claim_tag` | warning | "according to …" without `[Source: …]` later in the sentence |
/// | `inference_tag` | warning | therefore, thus, hence … without `[Inference: …]` |
/// | `assumption_tag` | warning | assuming, presumably … without `[Assumption: …]` |
/// | `uncertain_tag` | warning | unclear, unverified … without `[Uncertain: …]` |
///
/// Every figure rule follows one principle: a figure is forbidden unless an estimation or source
/// tag follows it (`[AI estimation …]` or `[Source: …]`, whitespace between them allowed).
/// "A 40% reduction [AI estimation based on pilot volumes]" and "$120,000 [Source: budget.md]"
/// pass; "a 40% reduction" and "$120,000" do not. The tag follows the figure's phrase:
/// "saves $50,000 annually [AI estimation …]" satisfies `annual_savings_figure`, while its
/// `$50,000`, followed by "annually", still needs `untagged_dollar_amount`'s tag; write
/// "saves $50,000 [AI estimation …] annually". Where several rules apply to one text, each
/// is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// The rules every agent follows.
    Base,
    /// Extra strict, for agents that analyse: no speculation, every claim sourced.
    Observation,
    /// For agents that propose: controlled estimation, no guarantees.
    Decision,
}

impl Profile {
    /// Every built-in profile.
    pub const ALL: [Profile; 3] = [Profile::Base, Profile::Observation, Profile::Decision];

    /// The name of the profile: `base`, `observation` or `decision` (its `Display`).
    #[must_use]
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Profile::Base => "base",
            Profile::Observation => "observation",
            Profile::Decision => "decision",
        }
    }

    /// The profile's policy, compiled on first use and kept for the life of the process
    /// (`.clone()` it for a `Policy` of your own: the compiled rules stay shared).
    #[must_use]
    pub fn policy(self) -> &'static Policy {
        static COMPILED: [OnceLock<Policy>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let slot = match self {
            Profile::Base => &COMPILED[0],
            Profile::Observation => &COMPILED[1],
            Profile::Decision => &COMPILED[2],
        };
        slot.get_or_init(|| compile_builtin(self))
    }

    /// The profile's rules in a builder.
    pub(crate) fn builder(self) -> PolicyBuilder {
        match self {
            Profile::Base => base(),
            Profile::Observation => observation(base()),
            Profile::Decision => decision(base()),
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = PolicyError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|profile| profile.name() == name)
            .ok_or_else(|| PolicyError::UnknownProfile {
                name: name.to_owned(),
            })
    }
}

fn compile_builtin(profile: Profile) -> Policy {
    match profile.builder().build() {
        Ok(policy) => policy,
        // The built-in rules are constants, and a test builds every profile.
        Err(error) => unreachable!("built-in profile `{profile}` does not compile: {error}"),
    }
}

/// A number as written in prose: `50`, `50,000`, `1.5`.
const NUMBER: &str = r"\d[\d,]*(?:\.\d+)?";
/// The tag of an estimate.
const ESTIMATION_TAG: &str = r"\[AI estimation";
/// The tags that make a figure acceptable: an estimate's, or a source's.
const ESTIMATION_OR_SOURCE_TAG: &str = r"\[(?:AI estimation|Source:)";
/// Up to the end of the sentence, then a tag: "… roughly 40 users [AI estimation: …]".
fn later_in_sentence(tag: &str) -> String {
    format!(r"[^.!?\n\[]*{tag}")
}

fn base() -> PolicyBuilder {
    let builder = Policy::builder()
        .critical(
            Rule::forbidden(
                "untagged_dollar_amount",
                format!(r"\${NUMBER}(?:\s?(?:[kKmM]|thousand|million|billion)\b)?"),
            )
            .unless_followed_by(ESTIMATION_OR_SOURCE_TAG)
            .message("A dollar amount must be tagged as an estimate or with its source.")
            .alternative("The amount followed by [AI estimation based on …] or [Source: …], or qualitative language: \"Substantial investment [AI estimation: enterprise scope]\"")
            .fix("substantial investment [AI estimation: enterprise scope]"),
        )
        .critical(
            Rule::forbidden(
                "untagged_percentage",
                format!(r"\b{NUMBER}\s?%(?:\s+(?:reduction|improvement|increase|decrease|growth|faster|slower|savings?))?"),
            )
            .unless_followed_by(ESTIMATION_OR_SOURCE_TAG)
            .message("A percentage must state its methodology or source.")
            .alternative("Conservative language with an [AI estimation based on …] or [Source: …] tag"),
        )
        .critical(
            Rule::forbidden("unsourced_quote", "\"[^\"\\n]+\"|\u{201c}[^\u{201d}\\n]+\u{201d}")
                .unless_followed_by(r"\[Source:\s*[^\]\s][^\]\n]*\]")
                .message("A quotation must be attributed to the document it comes from.")
                .alternative("Add [Source: filename.md] right after the quotation"),
        )
        .critical(
            Rule::forbidden("empty_source", r"\[Source:\s*\]")
                .message("A source tag must name the document.")
                .alternative("[Source: filename.md]"),
        );

    base_warnings(approved_language(builder))
}

/// The approved-language tables: each forbidden phrasing of a figure with its approved wording.
fn approved_language(mut builder: PolicyBuilder) -> PolicyBuilder {
    let figures = [
        (
            "roi_figure",
            format!(r"(?i)\bROI of\s+{NUMBER}\s?%"),
            "strong ROI potential [AI estimation based on efficiency gains]",
        ),
        (
            "annual_savings_figure",
            format!(
                r"(?i)\bsaves?\s+\${NUMBER}(?:\s+(?:annually|per year|a year|each year|every year))?"
            ),
            "delivers significant annual value [AI estimation based on operational improvement]",
        ),
        (
            "cost_figure",
            format!(r"(?i)\bcosts?\s+\${NUMBER}"),
            "requires a moderate investment [AI estimation based on project scope]",
        ),
        (
            "percentage_reduction",
            format!(r"(?i)\b{NUMBER}\s?%\s+reduction\b"),
            "substantial reduction [AI estimation]",
        ),
        (
            "multiplier_improvement",
            format!(r"(?i)\b{NUMBER}\s?x\s+improvement\b"),
            "significant improvement potential",
        ),
        (
            "percentage_faster",
            format!(r"(?i)\b{NUMBER}\s?%\s+faster\b"),
            "notable performance enhancement",
        ),
    ];
    for (name, pattern, approved) in figures {
        builder = builder.critical(
            Rule::forbidden(name, pattern)
                .unless_followed_by(ESTIMATION_OR_SOURCE_TAG)
                .message("A specific figure in this phrasing must be tagged with its methodology or source.")
                .alternative(format!(
                    "Tag the figure with [AI estimation based on …] or [Source: …], or use the approved wording: {}",
                    capitalized(approved)
                ))
                .fix(approved),
        );
    }
    builder
}

fn base_warnings(builder: PolicyBuilder) -> PolicyBuilder {
    builder
        .warning(
            Rule::forbidden("guaranteed_results", r"(?i)\bguaranteed\s+results\b")
                .message("Results cannot be guaranteed.")
                .alternative("Expected improvement based on …")
                .fix("expected improvement"),
        )
        .warning(
            Rule::forbidden_words(
                "overconfident_language",
                ["will", "guaranteed", "definitely", "certainly"],
            )
            .message("Overconfident language hides uncertainty.")
            .alternative("'may', 'potential' or 'expected'"),
        )
        .warning(
            Rule::forbidden_words(
                "missing_estimation_tag",
                ["estimate", "estimated", "approximately", "around", "roughly"],
            )
            .unless_followed_by(later_in_sentence(ESTIMATION_TAG))
            .message("An estimate must say that it is one, and on what it is based.")
            .alternative("Add [AI estimation based on …] before the end of the sentence"),
        )
        .warning(
            Rule::forbidden(
                "vague_source",
                r"(?i)\[Source:\s*(?:various|internal|online|internet|the internet|web|documents?|research|studies|n/?a|tbd|unknown)\s*\]",
            )
            .message("A source must be specific enough to be traced.")
            .alternative("Name the exact file: [Source: filename.md]"),
        )
        .warning(
            Rule::mandatory_tag(
                "document_claim_tag",
                r"(?i)\b(?:according to|as stated in|as reported in|the (?:report|document|file|study) (?:states|says|shows|finds))\b",
                later_in_sentence(r"\[Source:"),
            )
            .message("A claim taken from a document must name the document.")
            .alternative("Add [Source: filename.md] before the end of the sentence"),
        )
        .warning(
            Rule::mandatory_tag(
                "inference_tag",
                r"(?i)\b(?:therefore|thus|hence|it follows that|we infer|we conclude)\b",
                later_in_sentence(r"\[Inference:"),
            )
            .message("An inference must be marked as one.")
            .alternative("Add [Inference: …] before the end of the sentence"),
        )
        .warning(
            Rule::mandatory_tag(
                "assumption_tag",
                r"(?i)\b(?:assuming|we assume|presumably)\b",
                later_in_sentence(r"\[Assumption:"),
            )
            .message("An assumption must be marked as one.")
            .alternative("Add [Assumption: …] before the end of the sentence"),
        )
        .warning(
            Rule::mandatory_tag(
                "uncertain_tag",
                r"(?i)\b(?:unclear|unverified|unconfirmed|to be confirmed)\b",
                later_in_sentence(r"\[Uncertain:"),
            )
            .message("Uncertain information must be marked as such.")
            .alternative("Add [Uncertain: requires validation] before the end of the sentence"),
        )
}

fn observation(base: PolicyBuilder) -> PolicyBuilder {
    base.critical(
        Rule::forbidden_words("no_speculation", ["suggests", "implies", "indicates", "likely"])
            .message("Observation agents report facts only.")
            .alternative("State what the source says, with [Source: …]; leave interpretation to later stages"),
    )
    .critical(
        Rule::required("mandatory_source", r"\[Source: [^\]]+\]")
            .message("Every claim must have source attribution.")
            .alternative("Attribute claims with [Source: filename.md]"),
    )
    .critical(
        Rule::mandatory_tag(
            "document_claim_tag",
            r"(?i)\b(?:according to|as stated in|as reported in|the (?:report|document|file|study) (?:states|says|shows|finds))\b",
            later_in_sentence(r"\[Source:"),
        )
        .message("All claims must reference source files.")
        .alternative("Add [Source: filename.md] before the end of the sentence"),
    )
    .critical(
        Rule::mandatory_tag(
            "inference_tag",
            r"(?i)\b(?:therefore|thus|hence|it follows that|we infer|we conclude)\b",
            later_in_sentence(r"\[Inference:"),
        )
        .message("Facts and inferences must be kept apart: mark the inference.")
        .alternative("Add [Inference: …] before the end of the sentence"),
    )
}

fn decision(base: PolicyBuilder) -> PolicyBuilder {
    base.warning(
        Rule::required("conservative_estimates", r"\[AI estimation based on")
            .message("Estimates must include methodology.")
            .alternative("Tag estimates with [AI estimation based on …]"),
    )
    .critical(
        Rule::forbidden_words(
            "no_guarantees",
            ["guaranteed", "will definitely", "certain to"],
        )
        .message("Use potential-based language.")
        .alternative("'potential', 'expected', 'projected'"),
    )
    .advisory(
        Rule::forbidden("roi_language", r"\bROI\b")
            .unless_followed_by(r"(?i)(?:potential|projection|projected)\b")
            .message("ROI projections read best in conservative language.")
            .alternative("\"ROI potential\" or \"projected ROI\""),
    )
    .advisory(
        Rule::forbidden(
            "timeline_justification",
            r"(?i)\b\d+\s+(?:days?|weeks?|months?|years?)\b",
        )
        .unless_followed_by(r"(?i)[^.!?\n]*\b(?:because|given|due to|complexity|scope)\b")
        .message("A timeline estimate should say what complexity it rests on.")
        .alternative("Add the justification: \"6 weeks, given the integration scope\""),
    )
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}
