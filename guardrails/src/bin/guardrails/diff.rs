//! `guardrails diff OLD NEW`: what changed between two contract lockfiles, and whether any of it
//! breaks clients calibrated on the old one.

use std::io::Write as _;
use std::path::PathBuf;

use guardrails::contract::{ServerContract, diff};

use crate::{Failure, Outcome};

/// The output of `guardrails diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
enum DiffFormat {
    /// A summary line and one block per change, for people and CI logs.
    #[default]
    Text,
    /// A JSON object: counts by severity, `breaking`, and every delta.
    Json,
}

/// Arguments of `guardrails diff`.
#[derive(Debug, clap::Args)]
pub(crate) struct DiffArgs {
    /// The lockfile clients were calibrated on.
    old: PathBuf,
    /// The lockfile of the new version.
    new: PathBuf,
    /// The report's format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
}

/// Diffs the two lockfiles: the report on stdout, and a failure when anything BREAKING changed.
/// Either file unreadable or not a valid lockfile is an error that names the file.
pub(crate) fn run(args: &DiffArgs) -> Result<Outcome, Failure> {
    let old = ServerContract::read_lockfile(&args.old)?;
    let new = ServerContract::read_lockfile(&args.new)?;
    let changes = diff(&old, &new);
    let report = match args.format {
        DiffFormat::Text => changes.to_string(),
        DiffFormat::Json => {
            let mut text = serde_json::to_string_pretty(&changes).unwrap_or_default();
            text.push('\n');
            text
        }
    };
    // A closed pipe (`| head`) is not worth a failure.
    let _ = std::io::stdout().lock().write_all(report.as_bytes());
    Ok(if changes.is_breaking() {
        Outcome::Failed
    } else {
        Outcome::Passed
    })
}
