//! The `guardrails` command line (feature `cli`).
//!
//! `guardrails diff OLD NEW [--format text|json]` compares two lockfiles. Exit status: 0 when
//! nothing BREAKING changed, 1 when something did, 2 on errors; CI can gate a release on it.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use guardrails::contract::cli::{DiffFormat, diff_command};

#[derive(Parser)]
#[command(
    name = "guardrails",
    version,
    about = "Guardrails for MCP tool servers"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compare two lockfiles; exit 1 when anything BREAKING changed.
    Diff {
        /// The lockfile clients were calibrated on.
        old: PathBuf,
        /// The lockfile of the new version.
        new: PathBuf,
        /// The report's format.
        #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
        format: DiffFormat,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // Help and version are successes; a usage error is an error like any other.
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Diff { old, new, format } => match diff_command(&old, &new, format) {
            Ok((report, breaking)) => {
                // A closed pipe (`| head`) is not worth a panic.
                let _ = std::io::stdout().lock().write_all(report.as_bytes());
                ExitCode::from(u8::from(breaking))
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
    }
}
