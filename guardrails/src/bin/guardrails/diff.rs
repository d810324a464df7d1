//! `guardrails diff OLD NEW`: what changed between two contract lockfiles, and whether any of it
//! breaks clients calibrated on the old one.

use std::io::Write as _;
use std::path::PathBuf;

use guardrails::contract::cli::{DiffFormat, diff_command};

use crate::{Failure, Outcome};

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

pub(crate) fn run(args: &DiffArgs) -> Result<Outcome, Failure> {
    let (report, breaking) = diff_command(&args.old, &args.new, args.format)?;
    // A closed pipe (`| head`) is not worth a failure.
    let _ = std::io::stdout().lock().write_all(report.as_bytes());
    Ok(if breaking {
        Outcome::Failed
    } else {
        Outcome::Passed
    })
}
