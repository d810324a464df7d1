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
//!   from its JSON Schemas ([`Contract::from_definition`], [`Contract::from_schemas`]).
//! - [`ServerContract`]: every tool's contract, by name; it reads and writes the lockfile
//!   `guardrails.lock` (canonical JSON, sha256 digests per tool and for the server).
//! - [`diff()`]: the [`Delta`]s between two [`ServerContract`]s, as text, XML or JSON.
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
mod schema;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub use awareness::{Awareness, AwarenessConfig, KnownGood};
pub(crate) use awareness::{MAX_VALUE_CHARS, Relevance};
pub(crate) use diff::value_text;
pub use diff::{ChangeSeverity, Delta, Diff, diff};
pub use lockfile::{
    Accept, LockMode, LockStatus, assert_lockfile, assert_lockfile_accepting, check_lockfile,
};
pub(crate) use model::Declared;
pub use model::{Contract, Hints};

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

    /// The contract of one tool.
    #[must_use]
    pub fn get(&self, tool: &str) -> Option<&Contract> {
        self.tools.get(tool)
    }

    /// The profile the tools' schemas are advertised in, as the lockfile records it: `None`
    /// for the default, [`SchemaProfile::Portable`](crate::profile::SchemaProfile::Portable).
    #[must_use]
    pub fn schema_profile(&self) -> Option<crate::profile::SchemaProfile> {
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
    /// The lockfile is empty.
    Empty,
    /// The text is not valid JSON.
    Syntax {
        /// Line of the error (1-based).
        line: usize,
        /// Column of the error (1-based).
        column: usize,
        /// What the parser found.
        message: String,
    },
    /// The text ends in the middle of a value: a truncated file.
    Truncated {
        /// Line where it ends.
        line: usize,
        /// Column where it ends.
        column: usize,
    },
    /// Valid JSON, but not a lockfile: a member missing, unknown, or of the wrong type.
    Invalid {
        /// Line of the error (1-based).
        line: usize,
        /// Column of the error (1-based).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The lockfile was written by a newer version of this library.
    UnsupportedVersion {
        /// The version in the file.
        found: u64,
        /// The newest version this library reads.
        supported: u64,
    },
    /// A digest does not match the content it covers: the file was edited by hand.
    DigestMismatch {
        /// The tool whose digest is wrong; `None` for the server's digest.
        tool: Option<String>,
        /// The digest in the file.
        recorded: String,
        /// The digest of the content.
        computed: String,
    },
    /// A tool is filed under a name that is not its own.
    NameMismatch {
        /// The key it is filed under.
        key: String,
        /// The name in its contract.
        name: String,
    },
    /// The contracts drifted from the lockfile beyond what is accepted.
    Drift {
        /// The lockfile.
        path: PathBuf,
        /// What was accepted.
        accept: Accept,
        /// Every change found.
        diff: Box<Diff>,
    },
    /// An error in a given file.
    InFile {
        /// The file.
        path: PathBuf,
        /// The error.
        error: Box<ContractError>,
    },
}

impl ContractError {
    fn json(e: &serde_json::Error) -> Self {
        let (line, column) = (e.line(), e.column());
        match e.classify() {
            serde_json::error::Category::Eof => Self::Truncated { line, column },
            serde_json::error::Category::Data => Self::Invalid {
                line,
                column,
                // serde_json appends " at line L column C"; the variant carries them already.
                message: strip_position(&e.to_string()),
            },
            _ => Self::Syntax {
                line,
                column,
                message: strip_position(&e.to_string()),
            },
        }
    }

    fn in_file(self, path: &Path) -> Self {
        Self::InFile {
            path: path.to_owned(),
            error: Box::new(self),
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
            Self::Empty => f.write_str("the lockfile is empty"),
            Self::Syntax {
                line,
                column,
                message,
            } => write!(
                f,
                "not valid JSON at line {line}, column {column}: {message}"
            ),
            Self::Truncated { line, column } => write!(
                f,
                "the lockfile is truncated: it ends at line {line}, column {column} in the middle of a value"
            ),
            Self::Invalid {
                line,
                column,
                message,
            } => write!(
                f,
                "not a guardrails lockfile (line {line}, column {column}): {message}"
            ),
            Self::UnsupportedVersion { found, supported } => write!(
                f,
                "the lockfile has format version {found}, but this version of guardrails reads versions up to {supported}: upgrade guardrails"
            ),
            Self::DigestMismatch {
                tool: Some(tool),
                recorded,
                computed,
            } => write!(
                f,
                "the digest of tool `{tool}` does not match its contract (recorded {recorded}, content hashes to {computed}): the lockfile was edited by hand; regenerate it"
            ),
            Self::DigestMismatch {
                tool: None,
                recorded,
                computed,
            } => write!(
                f,
                "the server digest does not match the tools (recorded {recorded}, content hashes to {computed}): the lockfile was edited by hand; regenerate it"
            ),
            Self::NameMismatch { key, name } => write!(
                f,
                "tool `{key}` holds the contract of `{name}`: the lockfile was edited by hand; regenerate it"
            ),
            Self::Drift { path, accept, diff } => write!(
                f,
                "the tool contracts drifted from {} beyond what is accepted ({accept:?}):\n{}",
                path.display(),
                diff.to_text()
            ),
            Self::InFile { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for ContractError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            Self::InFile { error, .. } => Some(error.as_ref()),
            _ => None,
        }
    }
}
