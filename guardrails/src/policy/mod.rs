//! Output policy: structural constraints on the text an agent writes.
//!
//! A [`Policy`] is a set of [`Rule`]s, each with a [`RuleSeverity`]:
//!
//! - **critical** violations block delivery ([`Status::Blocked`]);
//! - **warnings** hold the text until they are corrected or acknowledged ([`Status::Pending`]);
//! - **advisories** only suggest ([`Status::Approved`] still).
//!
//! Rules forbid patterns (with an approved alternative and an optional automatic fix), forbid
//! them unless a tag follows (`$50,000` without `[AI estimation …]`), require a tag after a kind
//! of content, require a pattern somewhere in the text, or forbid whole words. Checking a text
//! gives a [`Verdict`] that lists every violation with its rule, severity, the text found, its
//! byte span, line and column, the approved alternative and the fix. [`Policy::fix`] applies
//! the fixes and checks the corrected text again.
//!
//! All rules are checked together in one pass over the text, with automata that run in time
//! linear in its length whatever the text and the patterns: hostile text cannot slow a check
//! down more than its length does.
//!
//! Policies are built in Rust ([`Policy::builder`]), read from TOML files that people who do not
//! write Rust can edit ([`Policy::from_toml_file`]), or taken from the built-in [`Profile`]s:
//! `base`, `observation` (no speculation, every claim sourced) and `decision` (controlled
//! estimation, no guarantees). They compose by rule name: see [`Policy`].
//!
//! ```
//! use guardrails::policy::{Profile, Status};
//!
//! let policy = Profile::Decision.policy();
//! let verdict = policy.check("This will save $50,000 annually.");
//! assert_eq!(verdict.status, Status::Blocked);
//! let first = &verdict.violations[0];
//! assert_eq!(first.rule, "overconfident_language");
//! assert_eq!(first.found.as_ref().map(|found| found.column), Some(6));
//!
//! let fixed = policy.fix("Strong results [AI estimation based on pilots]. It costs $9,000.");
//! assert_eq!(
//!     fixed.text,
//!     "Strong results [AI estimation based on pilots]. It requires a moderate investment \
//!      [AI estimation based on project scope]."
//! );
//! assert_eq!(fixed.after.status, Status::Approved);
//! assert_eq!(
//!     fixed.changes[0].to_string(),
//!     r#"line 1, column 52: "costs $9,000" → "requires a moderate investment [AI estimation based on project scope]" (cost_figure)"#
//! );
//! ```
#![deny(missing_docs)]

mod engine;
mod error;
mod file;
mod fix;
mod prefilter;
mod profiles;
mod report;
mod rule;
mod set;
mod verdict;

pub use error::{PolicyError, Problem};
pub use fix::{Change, FixOutcome};
pub use profiles::Profile;
pub use report::RenderLimits;
pub use rule::{Rule, RuleSeverity};
pub use set::{Policy, PolicyBuilder};
pub use verdict::{Occurrence, Status, Verdict, Violation};

/// The code of the tool error that withholds an output its output policy blocked (see
/// [`OutputCheck`](crate::OutputCheck)).
pub(crate) const OUTPUT_POLICY_CODE: &str = "OUTPUT_POLICY";
