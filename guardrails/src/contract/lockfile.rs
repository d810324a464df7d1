//! The lockfile: canonical JSON of every tool's contract with sha256 digests, read back with
//! errors that say what is wrong, written atomically, and checked from a test.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use super::diff::{ChangeSeverity, Diff, diff};
use super::digest::hex;
use super::model::Contract;
use super::{ContractError, ServerContract};

/// The lockfile format this version writes and reads. Older versions are read when they can
/// be; newer ones are refused with [`ContractError::Invalid`].
///
/// Additions that old lockfiles read the same under stay within a version: an argument's
/// `policy` member, for one, is absent when an argument has no policy, so every lockfile
/// written before it was added reads as it did, with the same digests.
pub(crate) const FORMAT_VERSION: u64 = 1;

/// The environment variable that turns [`assert_lockfile`] into an update: set it to `1`
/// (`GUARDRAILS_UPDATE_LOCK=1 cargo test`) to accept the current contracts deliberately.
pub(crate) const UPDATE_ENV: &str = "GUARDRAILS_UPDATE_LOCK";

/// What the server's digest is fed the schema profile under: no tool name holds a NUL.
const PROFILE_KEY: &str = "\0schema_profile";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LockfileRepr {
    format_version: u64,
    digest: String,
    /// The profile the schemas are advertised in; absent for the default (`portable`), so
    /// that lockfiles written before it read the same, with the same digests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schema_profile: Option<String>,
    tools: BTreeMap<String, LockedTool>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LockedTool {
    digest: String,
    contract: Contract,
}

/// Sorts the keys of every object, whatever `serde_json`'s map type is in the final build
/// (with its `preserve_order` feature a map keeps insertion order).
fn canonical(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, canonical(v)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        other => other,
    }
}

fn canonical_value<T: Serialize>(value: &T) -> Value {
    // The contract types serialize to plain JSON: no map with non-string keys, no failing
    // `Serialize`, so there is no error to report.
    canonical(serde_json::to_value(value).unwrap_or(Value::Null))
}

/// The canonical compact JSON of a contract: the bytes its digest is taken of.
fn canonical_bytes(contract: &Contract) -> Vec<u8> {
    serde_json::to_vec(&canonical_value(contract)).unwrap_or_default()
}

/// The digest of the whole server, fed one contract at a time: the bytes hashed are those of
/// the canonical compact JSON of the map from tool name to contract (`{"a":…,"b":…}`, names
/// in order), without ever holding that whole text.
struct ServerDigest {
    hasher: Sha256,
    first: bool,
}

impl ServerDigest {
    fn new() -> Self {
        let mut hasher = Sha256::new();
        hasher.update(b"{");
        Self {
            hasher,
            first: true,
        }
    }

    /// Adds the next tool, in name order, with the canonical bytes of its contract.
    fn add(&mut self, name: &str, contract_bytes: &[u8]) {
        if !self.first {
            self.hasher.update(b",");
        }
        self.first = false;
        self.hasher
            .update(serde_json::to_vec(name).unwrap_or_default());
        self.hasher.update(b":");
        self.hasher.update(contract_bytes);
    }

    fn finish(mut self) -> String {
        self.hasher.update(b"}");
        hex(&self.hasher.finalize())
    }
}

/// The digest of one contract: sha256 of its canonical compact JSON, as `sha256:<hex>`.
#[must_use]
pub(crate) fn contract_digest(contract: &Contract) -> String {
    hex(&Sha256::digest(canonical_bytes(contract)))
}

impl ServerContract {
    /// The digest of the whole server: sha256 of the canonical compact JSON of every contract by
    /// tool name. It changes exactly when some tool's contract does.
    #[must_use]
    pub fn digest(&self) -> String {
        let mut digest = ServerDigest::new();
        for (name, contract) in &self.tools {
            digest.add(name, &canonical_bytes(contract));
        }
        if let Some(profile) = self.profile {
            digest.add(PROFILE_KEY, profile.name().as_bytes());
        }
        digest.finish()
    }

    /// The lockfile text: canonical JSON (sorted keys, two-space indent, trailing newline).
    /// The same contracts always give the same bytes.
    #[must_use]
    pub fn to_lockfile(&self) -> String {
        let repr = LockfileRepr {
            format_version: FORMAT_VERSION,
            digest: self.digest(),
            schema_profile: self.profile.map(|p| p.name().to_owned()),
            tools: self
                .tools
                .iter()
                .map(|(name, contract)| {
                    let locked = LockedTool {
                        digest: contract_digest(contract),
                        contract: contract.clone(),
                    };
                    (name.clone(), locked)
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&canonical_value(&repr)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads lockfile text, verifying its version and every digest.
    ///
    /// # Errors
    /// What is wrong, with a line and column where JSON is broken: a syntax error, a truncated
    /// or empty file, a member that does not belong, a format version newer than this library
    /// reads, a tool whose digest does not match its contract (a hand edit), a tool filed under
    /// another name.
    pub fn from_lockfile(text: &str) -> Result<Self, ContractError> {
        if text.trim().is_empty() {
            return Err(ContractError::invalid("the lockfile is empty"));
        }
        // One parse. Only a text that does not read as this format is read again, loosely,
        // to tell a newer format or a bad version from a broken file.
        count_parse();
        let repr: LockfileRepr = match serde_json::from_str(text) {
            Ok(repr) => repr,
            Err(error) => return Err(Self::diagnose(text, &error)),
        };
        match repr.format_version {
            0 => return Err(bad_version("0")),
            v if v > FORMAT_VERSION => {
                return Err(unsupported_version(v));
            }
            _ => {}
        }
        let mut tools = BTreeMap::new();
        let mut whole = ServerDigest::new();
        // Each contract's canonical bytes are made once, for its own digest and the server's;
        // the map iterates in name order, the order of the server's digest.
        for (key, locked) in repr.tools {
            if locked.contract.name != key {
                return Err(ContractError::invalid(format!(
                    "tool `{key}` holds the contract of `{}`: the lockfile was edited by hand; regenerate it",
                    locked.contract.name
                )));
            }
            let bytes = canonical_bytes(&locked.contract);
            let computed = hex(&Sha256::digest(&bytes));
            if computed != locked.digest {
                return Err(ContractError::invalid(format!(
                    "the digest of tool `{key}` does not match its contract (recorded {}, content hashes to {computed}): the lockfile was edited by hand; regenerate it",
                    locked.digest
                )));
            }
            whole.add(&key, &bytes);
            tools.insert(key, locked.contract);
        }
        let profile = match repr.schema_profile.as_deref() {
            None => None,
            Some(name) => Some(
                name.parse::<crate::profile::SchemaProfile>()
                    .map_err(|error| not_a_lockfile(&format!("`schema_profile`: {error}")))?,
            ),
        };
        if let Some(profile) = profile {
            whole.add(PROFILE_KEY, profile.name().as_bytes());
        }
        let computed = whole.finish();
        if computed != repr.digest {
            return Err(ContractError::invalid(format!(
                "the server digest does not match the tools (recorded {}, content hashes to {computed}): the lockfile was edited by hand; regenerate it",
                repr.digest
            )));
        }
        Ok(Self {
            tools,
            profile: profile.filter(|p| *p != crate::profile::SchemaProfile::Portable),
        })
    }

    /// Why lockfile text that does not parse as this format was refused: a newer format
    /// version, a version that is not a positive integer, or `error` itself.
    fn diagnose(text: &str, error: &serde_json::Error) -> ContractError {
        count_parse();
        let Ok(loose) = serde_json::from_str::<Value>(text) else {
            return ContractError::json(error);
        };
        let version = loose.get("format_version");
        match version.and_then(Value::as_u64) {
            Some(v) if v > FORMAT_VERSION => unsupported_version(v),
            Some(0) | None => {
                bad_version(&version.map_or_else(|| "nothing".to_owned(), Value::to_string))
            }
            Some(_) => ContractError::json(error),
        }
    }

    /// Reads a lockfile from disk.
    ///
    /// # Errors
    /// The file cannot be read, or what [`ServerContract::from_lockfile`] reports, naming the
    /// file.
    pub fn read_lockfile(path: impl AsRef<Path>) -> Result<Self, ContractError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ContractError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_lockfile(&text).map_err(|e| e.in_file(path))
    }

    /// Writes the lockfile atomically: a temporary file in the same folder, flushed to disk,
    /// then renamed over `path`, so a reader never sees half a lockfile and a failed write
    /// leaves the old one in place.
    ///
    /// # Errors
    /// The folder is not writable or the rename fails.
    pub fn write_lockfile(&self, path: impl AsRef<Path>) -> Result<(), ContractError> {
        write_atomic(path.as_ref(), self.to_lockfile().as_bytes())
    }
}

fn bad_version(found: &str) -> ContractError {
    not_a_lockfile(&format!(
        "`format_version` must be a positive integer, found {found}"
    ))
}

/// Valid JSON that is not a lockfile, for a reason that is the whole document's.
fn not_a_lockfile(detail: &str) -> ContractError {
    ContractError::Invalid {
        path: None,
        line: Some(1),
        column: Some(1),
        message: format!("not a guardrails lockfile (line 1, column 1): {detail}"),
    }
}

fn unsupported_version(found: u64) -> ContractError {
    ContractError::invalid(format!(
        "the lockfile has format version {found}, but this version of guardrails reads versions up to {FORMAT_VERSION}: upgrade guardrails"
    ))
}

#[cfg(test)]
thread_local! {
    /// How many times lockfile text was parsed on this thread.
    static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn count_parse() {
    #[cfg(test)]
    PARSES.with(|parses| parses.set(parses.get() + 1));
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ContractError> {
    // The process id and a counter keep two writers (parallel tests) off each other's file.
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let io = |source| ContractError::Io {
        path: path.to_owned(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map_or_else(
        || "guardrails.lock".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(io)
}

/// Whether [`assert_lockfile`] compares or rewrites: [`LockMode::Update`] when the
/// environment variable `GUARDRAILS_UPDATE_LOCK` is `1`, `true` or `yes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LockMode {
    /// Compare the current contracts with the lockfile.
    Check,
    /// Write the current contracts to the lockfile.
    Update,
}

impl LockMode {
    fn from_env() -> Self {
        match std::env::var(UPDATE_ENV).as_deref() {
            Ok("1" | "true" | "yes") => Self::Update,
            _ => Self::Check,
        }
    }
}

/// Compares `current` with the lockfile at `path`, accepting changes up to the severity
/// `accept` (`None`: no change at all): the changes from the lockfile to `current`, every one
/// of them accepted. To rewrite the lockfile instead, write it
/// ([`ServerContract::write_lockfile`]).
///
/// # Errors
/// [`ContractError::Drift`] when a change is not accepted, [`ContractError::Missing`] when
/// there is no lockfile, or any error reading it.
pub fn check_lockfile(
    current: &ServerContract,
    path: impl AsRef<Path>,
    accept: Option<ChangeSeverity>,
) -> Result<Diff, ContractError> {
    let path = path.as_ref();
    if !path.exists() {
        return Err(ContractError::Missing {
            path: path.to_owned(),
        });
    }
    let old = ServerContract::read_lockfile(path)?;
    let changes = diff(&old, current);
    if changes
        .deltas()
        .iter()
        .any(|d| accept.is_none_or(|highest| d.severity > highest))
    {
        return Err(ContractError::Drift {
            path: path.to_owned(),
            accept,
            diff: Box::new(changes),
        });
    }
    Ok(changes)
}

/// Rewrites the lockfile at `path` with `current`, only when its bytes change (a missing or
/// unreadable lockfile is replaced): the changes from what it held, and whether it was written.
fn update_lockfile(current: &ServerContract, path: &Path) -> Result<(Diff, bool), ContractError> {
    let old_text = std::fs::read_to_string(path).ok();
    let old = old_text
        .as_deref()
        .and_then(|t| ServerContract::from_lockfile(t).ok())
        .unwrap_or_default();
    let text = current.to_lockfile();
    let written = old_text.as_deref() != Some(text.as_str());
    if written {
        write_atomic(path, text.as_bytes())?;
    }
    Ok((diff(&old, current), written))
}

/// Fails the calling test when the current contracts drift from the lockfile at `path`
/// (any change at all); with `GUARDRAILS_UPDATE_LOCK=1` it writes the lockfile instead.
///
/// ```no_run
/// # fn server() -> guardrails::contract::ServerContract { Default::default() }
/// #[test]
/// fn contracts_match_the_lockfile() {
///     guardrails::contract::assert_lockfile(
///         &server(),
///         concat!(env!("CARGO_MANIFEST_DIR"), "/guardrails.lock"),
///     );
/// }
/// ```
///
/// # Panics
/// That is how it fails a test: with the drift report, or the error reading the lockfile, and
/// the command that updates it.
#[track_caller]
pub fn assert_lockfile(current: &(impl super::ContractSource + ?Sized), path: impl AsRef<Path>) {
    assert_accepting(current, path.as_ref(), None);
}

/// Like [`assert_lockfile`], letting changes up to the severity `accept` pass (they are
/// printed to stderr, so the lockfile can be refreshed when convenient):
/// `ChangeSeverity::Risky` lets everything but BREAKING changes pass.
///
/// # Panics
/// When a change beyond `accept` is found or the lockfile cannot be read or written.
#[track_caller]
pub fn assert_lockfile_accepting(
    current: &(impl super::ContractSource + ?Sized),
    path: impl AsRef<Path>,
    accept: ChangeSeverity,
) {
    assert_accepting(current, path.as_ref(), Some(accept));
}

#[track_caller]
fn assert_accepting(
    current: &(impl super::ContractSource + ?Sized),
    path: &Path,
    accept: Option<ChangeSeverity>,
) {
    let contracts = current.server_contract();
    let checked = match LockMode::from_env() {
        LockMode::Update => update_lockfile(&contracts, path),
        LockMode::Check => check_lockfile(&contracts, path, accept).map(|diff| (diff, false)),
    };
    match checked {
        Ok((diff, true)) => {
            eprintln!(
                "guardrails: wrote {} ({})",
                path.display(),
                diff.to_string().lines().next().unwrap_or_default()
            );
        }
        Ok((diff, false)) if !diff.is_empty() => {
            eprintln!(
                "guardrails: {} is behind the code; accepted changes:\n{diff}",
                path.display(),
            );
        }
        Ok(_) => {}
        Err(error) => {
            panic!("{error}\n\nTo accept the current contracts: {UPDATE_ENV}=1 cargo test")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::model::Contract;

    fn sample() -> ServerContract {
        let tool = |name: &str| -> Contract {
            serde_json::from_value(serde_json::json!({
                "name": name,
                "description": format!("The tool {name}, with \"quotes\" and ünïcode."),
            }))
            .unwrap()
        };
        ServerContract {
            tools: ["b_tool", "a_tool", "z"]
                .into_iter()
                .map(|name| (name.to_owned(), tool(name)))
                .collect(),
            profile: None,
        }
    }

    #[test]
    fn the_schema_profile_is_recorded_when_not_the_default_and_read_back() {
        use crate::profile::SchemaProfile;
        let plain = sample().to_lockfile();
        assert!(!plain.contains("schema_profile"), "{plain}");
        let portable = sample().with_schema_profile(SchemaProfile::Portable);
        assert_eq!(portable.to_lockfile(), plain);
        let openai = sample().with_schema_profile(SchemaProfile::OpenAi);
        let text = openai.to_lockfile();
        assert!(text.contains("\"schema_profile\": \"openai\""), "{text}");
        let read = ServerContract::from_lockfile(&text).unwrap();
        assert_eq!(read.schema_profile(), Some(SchemaProfile::OpenAi));
        assert_ne!(read.digest(), sample().digest());
        // A hand edit of the profile breaks the digest.
        let edited = text.replace("\"openai\"", "\"gemini\"");
        assert!(ServerContract::from_lockfile(&edited).is_err());
        // And a diff says the profile changed.
        let diff = diff(&sample(), &read);
        assert_eq!(diff.deltas().len(), 1, "{:?}", diff.deltas());
        assert_eq!(diff.deltas()[0].path, "schema_profile");
    }

    #[test]
    fn an_update_writes_only_when_the_bytes_change() {
        let dir = std::env::temp_dir().join(format!("guardrails-update-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("guardrails.lock");
        std::fs::write(&path, "corrupt").unwrap();
        let (_, written) = update_lockfile(&sample(), &path).unwrap();
        assert!(written);
        let (changes, written) = update_lockfile(&sample(), &path).unwrap();
        assert!(!written && changes.is_empty());
        assert_eq!(ServerContract::read_lockfile(&path).unwrap(), sample());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_valid_lockfile_is_parsed_once() {
        let text = sample().to_lockfile();
        PARSES.with(|parses| parses.set(0));
        ServerContract::from_lockfile(&text).unwrap();
        assert_eq!(PARSES.with(std::cell::Cell::get), 1);
    }

    #[test]
    fn the_streamed_digest_is_the_digest_of_the_whole_canonical_text() {
        let contracts = sample();
        assert!(contracts.tools.len() > 1);
        let whole: &BTreeMap<String, Contract> = &contracts.tools;
        let bytes = serde_json::to_vec(&canonical_value(whole)).unwrap();
        assert_eq!(contracts.digest(), hex(&Sha256::digest(bytes)));
    }
}
