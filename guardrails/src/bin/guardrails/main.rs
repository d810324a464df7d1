//! The `guardrails` command line (feature `cli`).
//!
//! One module per subcommand; each parses its own arguments and returns an [`Outcome`], and
//! `main` turns outcomes and failures into exit codes, so that a new subcommand is a new module
//! and a new variant of [`Command`].

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check;
mod diff;
mod lint;
mod proxy;

/// Cognitive guardrails for MCP tool servers, from the command line.
#[derive(Debug, Parser)]
#[command(name = "guardrails", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check text files against an output policy; exit 1 when anything critical is found.
    ///
    /// Each violation is printed as `path:line:column: SEVERITY rule` with what was found, why
    /// it is a violation and what to write instead. Directories are searched recursively for
    /// `.md` and `.txt` files (entries whose name starts with `.` are skipped); files named
    /// explicitly are checked whatever their extension. What is not a regular file (a FIFO, a
    /// device) and broken or looping symbolic links are skipped with a note on stderr. At most
    /// --max-violations violations are listed per file, the rest counted.
    ///
    /// Exit status: 0 when nothing critical is found (warnings and advisories are printed but
    /// do not fail), 1 when anything critical is, 2 on a usage error, an unreadable file, a
    /// file larger than --max-file-bytes, an unknown profile or an invalid policy file.
    Check(check::CheckArgs),
    /// Compare two contract lockfiles; exit 1 when anything BREAKING changed.
    ///
    /// Prints every change with its severity (BREAKING, RISKY, SAFE, COSMETIC), its path and
    /// what it was and is. Exit status: 0 when nothing BREAKING changed, 1 when something did,
    /// 2 when a lockfile cannot be read or is invalid.
    Diff(diff::DiffArgs),
    /// Say which consumer of a server's tool schemas would refuse or weaken which keyword:
    /// `guardrails lint [OPTIONS] -- COMMAND [ARGS…]`, or `--tools FILE`.
    ///
    /// The consumers are those that turn an MCP tool into a model's tool or a grammar:
    /// the strict transforms of the `anthropic` and `openai-agents` packages, `google-genai`, xgrammar,
    /// llguidance, outlines-core, VS Code, and the MCP TypeScript SDK, whose `listTools()`
    /// throws for a whole list over one boolean subschema. Each finding names the tool, the
    /// schema, the path, the keyword and the consumer. With --as-proxy, what `guardrails proxy`
    /// would advertise in each --profile is linted instead.
    ///
    /// Exit status: 0 when no consumer refuses anything (weakened keywords are printed but do
    /// not fail), 1 when one does (except those given with --allow), 2 when the tools cannot be
    /// read or listed.
    Lint(lint::LintArgs),
    /// Guard an MCP server written in any language: `guardrails proxy [OPTIONS] -- COMMAND [ARGS…]`.
    ///
    /// Starts COMMAND as the upstream MCP server over stdio and serves its tools over stdio,
    /// each guarded from its input schema: a strict schema is advertised, and a call that does
    /// not fit it gets every problem in one coaching message with a valid example, without
    /// reaching the upstream. Calls that fit are forwarded and their results returned as they
    /// come, cut to the limits set here. What is not guarded passes through both ways:
    /// prompts, resources, completions, notifications, progress, logging, and the upstream's
    /// sampling, elicitation and roots requests, the upstream told the client's capabilities.
    /// An upstream that stops is started again on the next call.
    ///
    /// Log lines go to stderr. Exit status: 0 when the client closes the connection, 2 when
    /// the upstream cannot be started.
    Proxy(proxy::ProxyArgs),
}

/// How a subcommand that ran to the end judged its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Nothing that fails the run.
    Passed,
    /// Something that fails the run, such as a critical violation.
    Failed,
}

/// Why a subcommand could not run to the end: a message for stderr, exit status 2.
#[derive(Debug)]
struct Failure(String);

impl<E: std::error::Error> From<E> for Failure {
    fn from(error: E) -> Self {
        Failure(error.to_string())
    }
}

/// The exit status of a run that could not finish; clap exits with the same status on a usage
/// error, so CI scripts can tell "the documents fail" (1) from "the check could not run" (2).
const EXIT_FAILURE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::Proxy(args) => proxy::run(args),
    };
    match result {
        Ok(Outcome::Passed) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(Failure(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_FAILURE)
        }
    }
}
