//! `guardrails lint`: which consumer of a server's tool schemas (model providers' SDKs,
//! grammar engines, the MCP SDKs) would refuse or weaken which keyword, of which tool, where.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use guardrails::profile::{Finding, SchemaProfile, Severity, lint_tools};
use guardrails::validation::SchemaArgs;
use rmcp::ServiceExt as _;
use rmcp::model::Tool;
use rmcp::transport::TokioChildProcess;

use crate::{Failure, Outcome};

/// Arguments of `guardrails lint`.
#[derive(Debug, clap::Args)]
pub(crate) struct LintArgs {
    /// Read the tools from FILE (a `tools/list` result, its `tools` array, or a JSON-RPC
    /// response holding one) instead of starting a server.
    #[arg(long, value_name = "FILE", conflicts_with = "command")]
    tools: Option<PathBuf>,
    /// Lint what `guardrails proxy --schema-profile PROFILE` would advertise for these tools,
    /// for each --profile (every profile when none is given), instead of the tools as listed.
    #[arg(long)]
    as_proxy: bool,
    /// With --as-proxy, the profiles to lint (repeatable).
    #[arg(long = "profile", value_name = "PROFILE", requires = "as_proxy")]
    profiles: Vec<SchemaProfile>,
    /// A consumer whose refusals do not fail the run (repeatable), such as `google-genai`,
    /// whose MCP conversion crashes on `additionalProperties: false`.
    #[arg(long = "allow", value_name = "CONSUMER")]
    allow: Vec<String>,
    /// Print each finding as a JSON line.
    #[arg(long)]
    json: bool,
    /// Seconds the server has to start and list its tools.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    start_timeout: u64,
    /// The server: a command and its arguments, after `--`, started over stdio.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

pub(crate) fn run(args: &LintArgs) -> Result<Outcome, Failure> {
    let tools = match &args.tools {
        Some(path) => read_tools(path)?,
        None => list_tools(&args.command, Duration::from_secs(args.start_timeout))?,
    };
    let runs: Vec<(Option<SchemaProfile>, Vec<Tool>)> = if args.as_proxy {
        let profiles = if args.profiles.is_empty() {
            SchemaProfile::ALL.to_vec()
        } else {
            args.profiles.clone()
        };
        profiles
            .into_iter()
            .map(|profile| (Some(profile), as_proxy(&tools, profile)))
            .collect()
    } else {
        vec![(None, tools)]
    };
    let mut failed = false;
    let mut out = std::io::stdout().lock();
    for (profile, tools) in runs {
        let findings = lint_tools(&tools);
        let refused = findings
            .iter()
            .filter(|f| {
                f.severity == Severity::Refuses && !args.allow.iter().any(|a| a == f.consumer)
            })
            .count();
        failed |= refused > 0;
        if args.json {
            for finding in &findings {
                let _ = writeln!(out, "{}", line(profile, finding, true));
            }
        } else {
            // One line per tool, schema, consumer and keyword, with the places it stands.
            let mut grouped: Vec<(&Finding, Vec<&str>)> = Vec::new();
            for finding in &findings {
                let same = grouped.iter_mut().find(|(first, _)| {
                    first.tool == finding.tool
                        && first.schema == finding.schema
                        && first.consumer == finding.consumer
                        && first.keyword == finding.keyword
                });
                match same {
                    Some((_, paths)) => paths.push(&finding.path),
                    None => grouped.push((finding, Vec::new())),
                }
            }
            for (finding, more) in grouped {
                let also = match more.len() {
                    0 => String::new(),
                    n => format!(" (and {n} more places)"),
                };
                let _ = writeln!(out, "{}{also}", line(profile, finding, false));
            }
        }
        if !args.json {
            let _ = writeln!(
                out,
                "{}{} tools, {} findings, {refused} refusals that fail the run",
                profile.map(|p| format!("[{p}] ")).unwrap_or_default(),
                tools.len(),
                findings.len(),
            );
        }
    }
    Ok(if failed {
        Outcome::Failed
    } else {
        Outcome::Passed
    })
}

fn line(profile: Option<SchemaProfile>, finding: &Finding, json: bool) -> String {
    if json {
        let mut value = serde_json::to_value(finding).unwrap_or_default();
        if let (Some(profile), Some(object)) = (profile, value.as_object_mut()) {
            object.insert("profile".into(), profile.to_string().into());
        }
        return value.to_string();
    }
    match profile {
        Some(profile) => format!("[{profile}] {finding}"),
        None => finding.to_string(),
    }
}

/// The tools as the proxy advertises them under `profile`: each input schema made strict, then
/// written in the profile (a schema that cannot be checked is served as it is).
fn as_proxy(tools: &[Tool], profile: SchemaProfile) -> Vec<Tool> {
    tools
        .iter()
        .map(|tool| {
            let mut tool = tool.clone();
            if let Ok(args) = SchemaArgs::new(&tool.input_schema) {
                tool.input_schema = std::sync::Arc::new(profile.advertise(args.schema()));
            }
            if let Some(output) = &tool.output_schema {
                tool.output_schema =
                    Some(std::sync::Arc::new(profile.for_output().advertise(output)));
            }
            tool
        })
        .collect()
}

fn read_tools(path: &PathBuf) -> Result<Vec<Tool>, Failure> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Failure(format!("{}: not JSON: {e}", path.display())))?;
    let tools = value
        .pointer("/result/tools")
        .or_else(|| value.get("tools"))
        .unwrap_or(&value);
    serde_json::from_value(tools.clone())
        .map_err(|e| Failure(format!("{}: not a list of MCP tools: {e}", path.display())))
}

fn list_tools(command: &[OsString], timeout: Duration) -> Result<Vec<Tool>, Failure> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| Failure("give the server's command after `--`, or --tools FILE".into()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let shown = program.to_string_lossy().into_owned();
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .map_err(|e| Failure(format!("cannot start `{shown}`: {e}")))?;
        let listed = tokio::time::timeout(timeout, async {
            let client = ()
                .serve(transport)
                .await
                .map_err(|e| Failure(format!("`{shown}` did not start as an MCP server: {e}")))?;
            let tools = client
                .list_all_tools()
                .await
                .map_err(|e| Failure(format!("`{shown}` did not list its tools: {e}")))?;
            let _ = client.cancel().await;
            Ok::<_, Failure>(tools)
        })
        .await;
        listed.unwrap_or_else(|_| {
            Err(Failure(format!(
                "`{shown}` did not list its tools within {} s",
                timeout.as_secs()
            )))
        })
    })
}
