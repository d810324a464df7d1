//! The logic of `guardrails diff OLD NEW` (feature `cli`), kept in the library so the binary
//! is argument parsing only and other subcommands can sit beside it.

use std::path::Path;

use super::{ContractError, ServerContract, diff};

/// The output of `guardrails diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, clap::ValueEnum)]
#[non_exhaustive]
pub enum DiffFormat {
    /// A summary line and one block per change, for people and CI logs.
    #[default]
    Text,
    /// A JSON object: counts by severity, `breaking`, and every delta.
    Json,
}

/// Diffs two lockfiles: the report, and whether anything BREAKING changed (the exit status).
///
/// # Errors
/// Either file cannot be read or is not a valid lockfile; the error names the file.
pub fn diff_command(
    old: &Path,
    new: &Path,
    format: DiffFormat,
) -> Result<(String, bool), ContractError> {
    let old = ServerContract::read_lockfile(old)?;
    let new = ServerContract::read_lockfile(new)?;
    let changes = diff(&old, &new);
    let report = match format {
        DiffFormat::Text => changes.to_text(),
        DiffFormat::Json => {
            let mut text = serde_json::to_string_pretty(&changes.to_json()).unwrap_or_default();
            text.push('\n');
            text
        }
    };
    Ok((report, changes.is_breaking()))
}
