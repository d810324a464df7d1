//! Contracts and self-healing context: what each tool promises, a lockfile that snapshots it,
//! a field-level diff that grades every change, and a `<contract_awareness>` block that tells
//! the model what changed when its call fails.
//!
//! # The pieces
//!
//! - [`Contract`]: one tool's name, title, description, annotations, arguments (type,
//!   requiredness, constraints, argument policy, description, nested fields, array items),
//!   output shape, agent limit, byte cap and output check, assembled from its
//!   [`ToolSpec`](crate::ToolSpec) ([`Contract::from_spec`]); the contract of a tool known only
//!   by its MCP definition (a native rmcp tool, a tool of a server in another language) is read
//!   from its definition ([`Contract::from_definition`]).
//! - [`ServerContract`]: every tool's contract, by name; it reads and writes the lockfile
//!   `guardrails.lock` (canonical JSON, sha256 digests per tool and for the server).
//! - [`diff()`]: the [`Delta`]s between two [`ServerContract`]s; the [`Diff`] displays itself
//!   as a report and serializes to JSON.
//! - [`assert_lockfile`]: a test that fails when the code drifts from the lockfile;
//!   `GUARDRAILS_UPDATE_LOCK=1 cargo test` rewrites it instead.
//! - [`KnownGood`]: the last known-good lockfile, embedded in the binary with `include_str!`;
//!   the server diffs each tool against it once at start-up, and the validation errors of a
//!   changed tool carry a [`<contract_awareness>`](Awareness) block.
//!
//! ```no_run
//! use guardrails::contract::KnownGood;
//! use guardrails::{GuardConfig, Server};
//! # fn my_server() -> Server<()> { Server::new(()) }
//! # const GUARDRAILS_LOCK: &str = "";
//!
//! // tests/contract.rs: the lockfile follows the code, deliberately.
//! #[test]
//! fn contracts_match_the_lockfile() {
//!     guardrails::contract::assert_lockfile(&my_server(), concat!(env!("CARGO_MANIFEST_DIR"), "/guardrails.lock"));
//! }
//!
//! // main.rs: errors explain what changed since the lockfile clients were calibrated on.
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // In a server: `include_str!("../guardrails.lock")`.
//!     let known_good = KnownGood::from_lockfile_str(GUARDRAILS_LOCK)?;
//!     let config = GuardConfig::new().known_good(known_good);
//!     my_server().config(config).serve_stdio().await?;
//!     Ok(())
//! }
//! ```
//!
//! # Severity rules
//!
//! Each change is graded by what it does to a client that was calibrated on the old contract.
//! Argument rules apply at every depth (fields of nested objects, array items, map values).
//!
//! | change | severity | why |
//! |---|---|---|
//! | tool added | SAFE | nothing that worked stops working |
//! | tool removed, or renamed (same contract under a new name) | BREAKING | calls to the old name fail |
//! | optional argument added | SAFE | old calls still validate |
//! | required argument added | BREAKING | old calls miss it |
//! | argument removed | BREAKING | strict validation now rejects it |
//! | optional → required | BREAKING | old calls may miss it |
//! | required → optional | SAFE | |
//! | nullable → not nullable | BREAKING | `null` is rejected |
//! | not nullable → nullable | SAFE | |
//! | type changed | BREAKING | values of the old type are rejected |
//! | integer → number, any type → any | SAFE | every old value is still accepted |
//! | larger `min_length` / `minimum`, smaller `max_length` / `maximum` (a bound becoming exclusive, a bound added) | BREAKING | narrowing |
//! | the inverse (a bound removed) | SAFE | widening |
//! | allowed values removed from an enum, or an enum added | BREAKING | narrowing |
//! | allowed values added only, or the enum removed | SAFE | widening |
//! | allowed values reordered | COSMETIC | same set |
//! | new `pattern` or `format` | BREAKING | narrowing |
//! | `pattern` or `format` changed | BREAKING | two regular expressions cannot be compared for inclusion, so a change is treated as a narrowing |
//! | `pattern` or `format` removed | SAFE | |
//! | `unique` added | BREAKING | repeated items are rejected |
//! | `unique` removed | SAFE | |
//! | `multiple_of` added, or changed to a step that does not divide the old one | BREAKING | |
//! | `multiple_of` removed, or changed to a divisor of the old step | SAFE | every old value is still a multiple |
//! | custom check added | RISKY | it may reject values; what it checks is code |
//! | custom check removed | SAFE | |
//! | struct-level check added (`#[guard(check = f)]` or `check(f, fields(..))`, on the arguments, a nested struct or a variant; recorded by function name) | RISKY | calls that passed may now fail; what it checks is code |
//! | struct-level check removed | SAFE | |
//! | argument policy added (`#[guard(policy = …)]`) | RISKY | it may reject text that passed; what it rejects depends on the text |
//! | argument policy changed (another profile, or a custom policy's rules) | RISKY | two policies cannot be compared for what they accept |
//! | argument policy removed | RISKY | the text enters unchecked, as with an output check removed |
//! | `read_only` or `destructive` flipped | BREAKING | what the tool may do to the world changed |
//! | `idempotent` or `open_world` flipped | RISKY | retries and trust change |
//! | a hint set to what clients assume when it is unset | COSMETIC | MCP defaults: read-only false, destructive true, idempotent false, open-world true |
//! | agent limit or byte cap removed or lowered | RISKY | results flood the context, or show less |
//! | agent limit or byte cap added or raised | SAFE | |
//! | output check (policy) removed | RISKY | outputs are no longer checked |
//! | output check attached | SAFE | |
//! | output field removed, output schema removed, output field type changed | BREAKING | consumers read it |
//! | output field added, output schema added | SAFE | |
//! | output field no longer required | RISKY | it may be absent |
//! | output field now required | SAFE | |
//! | description or title changed (the tool's or an argument's) | RISKY | the model reads a description as an instruction: a changed one can change what it does (the "rug pull" of a poisoned description) |
//!
//! Paths name where a change is: `create_user.args.currency`, `create_user.args.address.city`,
//! `create_user.args.tags[]` (array items), `create_user.args.meta{}` (map values),
//! `list_tasks.agent_limit`, `list_tasks.output.items`, `delete_task.annotations.destructive`.

mod awareness;
mod diff;
mod digest;
mod lockfile;
mod model;
#[cfg(any(feature = "rmcp", test))]
mod schema;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub use awareness::{Awareness, AwarenessConfig, KnownGood};
pub(crate) use awareness::{MAX_VALUE_CHARS, Relevance};
pub(crate) use diff::value_text;
pub use diff::{ChangeSeverity, Delta, Diff, diff};
pub use lockfile::{assert_lockfile, assert_lockfile_accepting, check_lockfile};
pub use model::Contract;
pub(crate) use model::{Declared, Hints};

/// Every tool's contract, by name: what a lockfile holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerContract {
    tools: BTreeMap<String, Contract>,
    /// The profile the tools' schemas are advertised in, when it is not the default
    /// ([`SchemaProfile::Portable`](crate::profile::SchemaProfile::Portable)).
    profile: Option<crate::profile::SchemaProfile>,
}

impl ServerContract {
    /// The contracts, by tool name.
    #[must_use]
    pub fn tools(&self) -> &BTreeMap<String, Contract> {
        &self.tools
    }

    /// The profile the tools' schemas are advertised in, as the lockfile records it: `None`
    /// for the default, [`SchemaProfile::Portable`](crate::profile::SchemaProfile::Portable).
    #[must_use]
    pub(crate) fn schema_profile(&self) -> Option<crate::profile::SchemaProfile> {
        self.profile
    }

    /// These contracts, their schemas advertised in `profile` (recorded unless it is the
    /// default).
    #[must_use]
    pub(crate) fn with_schema_profile(mut self, profile: crate::profile::SchemaProfile) -> Self {
        self.profile = (profile != crate::profile::SchemaProfile::Portable).then_some(profile);
        self
    }

    /// Adds or replaces a tool's contract.
    pub fn insert(&mut self, contract: Contract) {
        self.tools.insert(contract.name.clone(), contract);
    }
}

impl FromIterator<Contract> for ServerContract {
    fn from_iter<I: IntoIterator<Item = Contract>>(iter: I) -> Self {
        Self {
            tools: iter.into_iter().map(|c| (c.name.clone(), c)).collect(),
            profile: None,
        }
    }
}

/// What contracts can be taken from: a [`Server`](crate::Server), a list of tool specs, or
/// contracts already built.
pub trait ContractSource {
    /// The contracts of every tool.
    fn server_contract(&self) -> ServerContract;
}

impl ContractSource for ServerContract {
    fn server_contract(&self) -> ServerContract {
        self.clone()
    }
}

/// What went wrong reading, checking or writing contracts. Every variant says what is wrong in
/// words a person can act on; none is a panic.
#[derive(Debug)]
#[non_exhaustive]
pub enum ContractError {
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The lockfile to check does not exist.
    Missing {
        /// Where it was expected.
        path: PathBuf,
    },
    /// The text is not a lockfile this version of the library reads: empty, not JSON, cut
    /// short, a member missing or unknown, a newer format version, a digest that does not
    /// match its content (a hand edit), a tool filed under another name. The message says
    /// which, and what to do.
    Invalid {
        /// The lockfile, when it was read from a file.
        path: Option<PathBuf>,
        /// Line of the error (1-based), when it is at one place of the text.
        line: Option<usize>,
        /// Column of the error (1-based), when it is at one place of the text.
        column: Option<usize>,
        /// What is wrong, and what to do about it.
        message: String,
    },
    /// The contracts drifted from the lockfile beyond what is accepted.
    Drift {
        /// The lockfile.
        path: PathBuf,
        /// The most severe change accepted; `None` when none was.
        accept: Option<ChangeSeverity>,
        /// Every change found.
        diff: Box<Diff>,
    },
}

impl ContractError {
    /// The lockfile text is wrong in a way that is not at one place of it.
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid {
            path: None,
            line: None,
            column: None,
            message: message.into(),
        }
    }

    fn json(e: &serde_json::Error) -> Self {
        let (line, column) = (e.line(), e.column());
        let detail = strip_position(&e.to_string());
        let message = match e.classify() {
            serde_json::error::Category::Eof => format!(
                "the lockfile is truncated: it ends at line {line}, column {column} in the middle of a value"
            ),
            // serde_json appends " at line L column C"; the message says them once.
            serde_json::error::Category::Data => {
                format!("not a guardrails lockfile (line {line}, column {column}): {detail}")
            }
            _ => format!("not valid JSON at line {line}, column {column}: {detail}"),
        };
        Self::Invalid {
            path: None,
            line: Some(line),
            column: Some(column),
            message,
        }
    }

    fn in_file(self, file: &Path) -> Self {
        match self {
            Self::Invalid {
                line,
                column,
                message,
                ..
            } => Self::Invalid {
                path: Some(file.to_owned()),
                line,
                column,
                message,
            },
            other => other,
        }
    }
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Self::Missing { path } => write!(f, "{}: the lockfile does not exist", path.display()),
            Self::Invalid {
                path: Some(path),
                message,
                ..
            } => write!(f, "{}: {message}", path.display()),
            Self::Invalid {
                path: None,
                message,
                ..
            } => f.write_str(message),
            Self::Drift { path, accept, diff } => write!(
                f,
                "the tool contracts drifted from {} beyond what is accepted ({}):\n{diff}",
                path.display(),
                match accept {
                    None => "no change".to_owned(),
                    Some(highest) => format!("changes up to {highest}"),
                }
            ),
        }
    }
}

impl std::error::Error for ContractError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
