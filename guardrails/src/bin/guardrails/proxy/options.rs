//! The command line of `guardrails proxy` and its `--config` file.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

use guardrails::profile::SchemaProfile;
use guardrails::{IgnoreKeys, RenderFormat, RepairPolicy};

use crate::Failure;

/// Arguments of `guardrails proxy`.
#[derive(Debug, clap::Args)]
pub(crate) struct ProxyArgs {
    /// Let every call through, and log on stderr each call the guard would have refused (with
    /// the tool's name and each issue's path and code, never a value); the advertised schemas
    /// stay the upstream's own.
    #[arg(long)]
    pub(super) audit: bool,
    /// Read settings from FILE, a TOML file: `repair = "on"` and `ignore_keys = ["_*"]` (as
    /// the flags of those names), and a `[tools.NAME]` table per tool: `agent_limit`,
    /// `max_bytes`, `max_tokens` (numbers), `result_policy = "FILE"` and
    /// `policies = { FIELD = "FILE" }`, policy files relative to FILE. A flag on the command line
    /// for the same tool and setting wins over the file.
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    /// Read a value whose meaning is not in doubt as meant, and tell the model so: a number,
    /// a boolean, an array or an object sent as a string where the tool's schema expects that
    /// one type (`"25"` for 25). The result carries one line per repair and the receipts in
    /// its `_meta` (`dev.guardrails/repairs`). `on` spares the tools annotated destructive;
    /// `including-destructive` does not. Off unless given (`--repair` alone is `on`).
    #[arg(long, value_enum, value_name = "WHICH", num_args = 0..=1, default_missing_value = "on")]
    pub(super) repair: Option<Repair>,
    /// Drop KEY from every call's arguments before they are checked, when the tool does not
    /// declare it: keys a client adds on its own. `PREFIX*` drops every key that starts with
    /// PREFIX (repeatable). A key neither declared nor dropped is still refused and named.
    #[arg(long = "ignore-keys", value_name = "KEY|PREFIX*")]
    pub(super) ignore_keys: Vec<String>,
    /// What an `integer` of a tool's schema takes: `schema`, every whole number, written as a
    /// float too (`5.0`, `1e2`, `-0.0`), as JSON Schema counts them and as servers in Python
    /// (pydantic) and JavaScript (zod) read them; or `serde`, only a number written without a
    /// fraction or an exponent, as a server written in Rust reads it (`5.0` is refused with
    /// "send 5").
    #[arg(long, value_enum, value_name = "READING", default_value_t = Integers::Schema)]
    pub(super) integers: Integers,
    /// Show at most N items of TOOL's list results (repeatable).
    #[arg(long = "agent-limit", value_name = "TOOL=N", value_parser = tool_number)]
    pub(super) agent_limits: Vec<(String, usize)>,
    /// Cut the text of TOOL's results to N bytes (repeatable).
    #[arg(long = "max-bytes", value_name = "TOOL=N", value_parser = tool_number)]
    pub(super) max_bytes: Vec<(String, usize)>,
    /// Cut TOOL's results to N tokens, as the library estimates them (repeatable).
    #[arg(long = "max-tokens", value_name = "TOOL=N", value_parser = tool_number)]
    pub(super) max_tokens: Vec<(String, usize)>,
    /// Check the text an agent writes into TOOL's argument FIELD (a string, or a list of
    /// strings) against the output policy in FILE (TOML, as `guardrails check --policy` reads)
    /// before it reaches the server: a call whose text breaks a critical or a warning rule is
    /// answered with a tool error naming each rule (repeatable).
    #[arg(long = "policy", value_name = "TOOL.FIELD=FILE", value_parser = field_policy)]
    pub(super) policies: Vec<(String, String, PathBuf)>,
    /// Check the text of TOOL's successful results against the output policy in FILE, as a
    /// derived tool's `#[tool(policy = ..)]` does: a critical rule broken withholds the result
    /// behind a tool error, a warning is delivered with the policy's verdict after it
    /// (repeatable).
    #[arg(long = "result-policy", value_name = "TOOL=FILE", value_parser = tool_file)]
    pub(super) result_policies: Vec<(String, PathBuf)>,
    /// The format of coaching messages and tool errors.
    #[arg(long, value_enum, default_value_t = Format::Xml)]
    pub(super) format: Format,
    /// The form of JSON Schema the tools' schemas are advertised in: `portable` (the forms
    /// every known consumer reads), `strict` (the schema calls are checked against), `openai`
    /// (every property required, `null` read as left out), `gemini` or `anthropic`. Calls are
    /// checked against the strict schema whatever the profile. `guardrails lint` says which
    /// consumer refuses what.
    #[arg(long, value_name = "PROFILE", default_value_t = SchemaProfile::Portable)]
    pub(super) schema_profile: SchemaProfile,
    /// Seconds the upstream has to answer a call before the call fails with a TIMEOUT tool
    /// error.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = seconds)]
    pub(super) call_timeout: f64,
    /// Seconds the upstream has to start: to answer `initialize` and list its tools. Kept apart
    /// from --call-timeout, so that a short call timeout does not fail a slow start (an
    /// interpreter loading its packages on a busy machine).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = seconds)]
    pub(super) start_timeout: f64,
    /// The lockfile of the upstream's contracts (names, titles, descriptions, annotations,
    /// input and output schemas). When FILE exists, the upstream's tools are compared with it
    /// at start and whenever its tool list changes: each change is logged with its severity
    /// (BREAKING, RISKY, SAFE, COSMETIC), and a tool that changed (or is new) is treated by
    /// --on-change. When FILE does not exist, the upstream's contracts are recorded in it.
    /// FILE is never rewritten unless --update-lock says so. `guardrails diff` reads it.
    #[arg(long, value_name = "FILE")]
    pub(super) lock: Option<PathBuf>,
    /// Compare with the lockfile, which must exist (what --lock does with a file that exists).
    #[arg(long, requires = "lock", conflicts_with = "update_lock")]
    pub(super) check: bool,
    /// Record the upstream's contracts in the lockfile at start, replacing what it held: the
    /// changes are approved.
    #[arg(long, requires = "lock")]
    pub(super) update_lock: bool,
    /// What a tool whose contract changed since the lockfile becomes: hidden from the client,
    /// refused with a tool error that says what changed (listed with its approved title and
    /// description: the new text never reaches the model), or served, its rejected calls told
    /// the changes that explain them.
    #[arg(long, value_enum, default_value_t = OnChange::Refuse, requires = "lock")]
    pub(super) on_change: OnChange,
    /// Serve Streamable HTTP at `http://ADDR/mcp` instead of stdio, with the library's hardened
    /// server (bounded connections, requests and sessions; foreign `Origin`s refused). Bind a
    /// loopback address: the proxy has no authentication of its own.
    #[arg(long, value_name = "ADDR")]
    pub(super) http: Option<String>,
    /// Reach an upstream that serves Streamable HTTP at URL (plain `http://`) instead of
    /// starting a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub(super) upstream_url: Option<String>,
    /// The upstream server: a command and its arguments, after `--`.
    #[arg(
        last = true,
        required_unless_present = "upstream_url",
        value_name = "COMMAND"
    )]
    pub(super) command: Vec<OsString>,
}

/// What an `integer` of a tool's schema takes (`--integers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Integers {
    /// Every whole number, as JSON Schema counts them.
    Schema,
    /// Only numbers written without a fraction or an exponent, as serde reads integers.
    Serde,
}

/// Which tools' calls are repaired (`--repair`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Repair {
    /// None.
    Off,
    /// Those of every tool not annotated destructive.
    On,
    /// Those of every tool.
    IncludingDestructive,
}

impl From<Repair> for RepairPolicy {
    fn from(repair: Repair) -> Self {
        match repair {
            Repair::Off => Self::Off,
            Repair::On => Self::On,
            Repair::IncludingDestructive => Self::IncludingDestructive,
        }
    }
}

/// The keys `--ignore-keys` names: `PREFIX*` for a prefix, any other for a name.
pub(super) fn ignored_keys(specs: &[String]) -> IgnoreKeys {
    specs.iter().fold(IgnoreKeys::new(), |keys, spec| {
        match spec.strip_suffix('*') {
            Some(prefix) => keys.prefix(prefix.to_owned()),
            None => keys.name(spec.clone()),
        }
    })
}

/// What a tool whose contract changed since the lockfile becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum OnChange {
    /// Not listed, and calls to it are calls to an unknown tool.
    Hide,
    /// Listed, and every call answered with a `CONTRACT_CHANGED` tool error naming the changes.
    Refuse,
    /// Served and guarded; a rejected call carries the changes that can explain it.
    Aware,
}

/// The format of the messages the proxy writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Format {
    /// Compact XML-style tags.
    Xml,
    /// Markdown.
    Markdown,
    /// A JSON object.
    Json,
}

impl From<Format> for RenderFormat {
    fn from(format: Format) -> Self {
        match format {
            Format::Xml => RenderFormat::Xml,
            Format::Markdown => RenderFormat::Markdown,
            Format::Json => RenderFormat::Json,
        }
    }
}

/// `TOOL=N`.
fn tool_number(text: &str) -> Result<(String, usize), String> {
    let (tool, number) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("expected TOOL=N, got `{text}`"))?;
    let number = number
        .parse()
        .map_err(|_| format!("expected a whole number after `=`, got `{number}`"))?;
    if tool.is_empty() {
        return Err(format!("expected a tool name before `=`, got `{text}`"));
    }
    Ok((tool.to_owned(), number))
}

/// `TOOL=FILE`.
fn tool_file(text: &str) -> Result<(String, PathBuf), String> {
    match text.split_once('=') {
        Some((tool, file)) if !tool.is_empty() && !file.is_empty() => {
            Ok((tool.to_owned(), PathBuf::from(file)))
        }
        _ => Err(format!("expected TOOL=FILE, got `{text}`")),
    }
}

/// `TOOL.FIELD=FILE`; the tool's name is what comes before the last dot of the left side.
fn field_policy(text: &str) -> Result<(String, String, PathBuf), String> {
    let (target, file) = text
        .split_once('=')
        .ok_or_else(|| format!("expected TOOL.FIELD=FILE, got `{text}`"))?;
    let (tool, field) = target
        .rsplit_once('.')
        .filter(|(tool, field)| !tool.is_empty() && !field.is_empty())
        .ok_or_else(|| format!("expected TOOL.FIELD before `=`, got `{target}`"))?;
    if file.is_empty() {
        return Err(format!("expected a policy file after `=`, got `{text}`"));
    }
    Ok((tool.to_owned(), field.to_owned(), PathBuf::from(file)))
}

/// A positive number of seconds.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 && seconds < 1e9 => Ok(seconds),
        _ => Err(format!(
            "expected a positive number of seconds, got `{text}`"
        )),
    }
}

/// The per-tool settings of `--config FILE`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    /// `--repair`.
    repair: Option<Repair>,
    /// `--ignore-keys`, each.
    #[serde(default)]
    ignore_keys: Vec<String>,
    #[serde(default)]
    tools: BTreeMap<String, ToolConfig>,
}

/// One tool's table in `--config FILE`: what the flags of the same names set.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolConfig {
    agent_limit: Option<usize>,
    max_bytes: Option<usize>,
    max_tokens: Option<usize>,
    result_policy: Option<PathBuf>,
    #[serde(default)]
    policies: BTreeMap<String, PathBuf>,
}

impl ProxyArgs {
    /// Adds the settings of `--config FILE` to those of the command line, which win where both
    /// set the same thing: the file's come first, and a later setting replaces an earlier one.
    pub(super) fn merge_config(&mut self) -> Result<(), Failure> {
        let Some(path) = &self.config else {
            return Ok(());
        };
        let shown = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|error| Failure(format!("cannot read {shown}: {error}")))?;
        let config: ConfigFile =
            toml::from_str(&text).map_err(|error| Failure(format!("{shown}: {error}")))?;
        // Policy files are named relative to the configuration file.
        let base = path
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        if self.repair.is_none() {
            self.repair = config.repair;
        }
        prepend(&mut self.ignore_keys, config.ignore_keys);
        let (mut agent_limits, mut max_bytes, mut max_tokens) =
            (Vec::new(), Vec::new(), Vec::new());
        let (mut result_policies, mut policies) = (Vec::new(), Vec::new());
        for (tool, settings) in config.tools {
            if let Some(max) = settings.agent_limit {
                agent_limits.push((tool.clone(), max));
            }
            if let Some(max) = settings.max_bytes {
                max_bytes.push((tool.clone(), max));
            }
            if let Some(max) = settings.max_tokens {
                max_tokens.push((tool.clone(), max));
            }
            if let Some(file) = settings.result_policy {
                result_policies.push((tool.clone(), base.join(file)));
            }
            for (field, file) in settings.policies {
                // A policy on the same field from the command line replaces the file's.
                let named = self
                    .policies
                    .iter()
                    .any(|(t, f, _)| *t == tool && *f == field);
                if !named {
                    policies.push((tool.clone(), field, base.join(file)));
                }
            }
        }
        prepend(&mut self.agent_limits, agent_limits);
        prepend(&mut self.max_bytes, max_bytes);
        prepend(&mut self.max_tokens, max_tokens);
        prepend(&mut self.result_policies, result_policies);
        prepend(&mut self.policies, policies);
        Ok(())
    }
}

/// `items` put before the entries of `list`.
fn prepend<T>(list: &mut Vec<T>, mut items: Vec<T>) {
    items.append(list);
    *list = items;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_numbers_are_read_from_the_right() {
        assert_eq!(tool_number("search=20"), Ok(("search".to_owned(), 20)));
        assert_eq!(tool_number("a=b=3"), Ok(("a=b".to_owned(), 3)));
        assert!(tool_number("search").is_err());
        assert!(tool_number("=3").is_err());
        assert!(tool_number("search=-1").is_err());
    }

    fn parsed(arguments: &[&str]) -> ProxyArgs {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Command {
            #[command(flatten)]
            proxy: ProxyArgs,
        }
        Command::try_parse_from(std::iter::once("proxy").chain(arguments.iter().copied()))
            .unwrap()
            .proxy
    }

    #[test]
    fn a_config_file_sets_what_the_command_line_does_not() {
        let folder =
            std::env::temp_dir().join(format!("guardrails-proxy-config-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let file = folder.join("proxy.toml");
        std::fs::write(
            &file,
            r#"
repair = "including-destructive"
ignore_keys = ["_*", "trace_id"]

[tools.search]
agent_limit = 50
max_bytes = 2000

[tools.fetch]
max_tokens = 300
result_policy = "results.toml"
policies = { body = "prose.toml", title = "titles.toml" }
"#,
        )
        .unwrap();
        let config = file.to_str().unwrap();
        let mut args = parsed(&[
            "--config",
            config,
            "--agent-limit",
            "search=5",
            "--policy",
            "fetch.title=mine.toml",
            "--ignore-keys",
            "session_id",
            "--",
            "server",
        ]);
        args.merge_config().unwrap();
        assert_eq!(args.repair, Some(Repair::IncludingDestructive));
        assert_eq!(args.ignore_keys, ["_*", "trace_id", "session_id"]);
        assert_eq!(
            ignored_keys(&args.ignore_keys),
            IgnoreKeys::new()
                .prefix("_")
                .name("trace_id")
                .name("session_id")
        );

        // The file's settings come first; a later one replaces an earlier one.
        assert_eq!(
            args.agent_limits,
            [("search".to_owned(), 50), ("search".to_owned(), 5)]
        );
        assert_eq!(args.max_bytes, [("search".to_owned(), 2000)]);
        assert_eq!(args.max_tokens, [("fetch".to_owned(), 300)]);
        assert_eq!(
            args.result_policies,
            [("fetch".to_owned(), folder.join("results.toml"))]
        );
        assert_eq!(
            args.policies,
            [
                (
                    "fetch".to_owned(),
                    "body".to_owned(),
                    folder.join("prose.toml")
                ),
                (
                    "fetch".to_owned(),
                    "title".to_owned(),
                    PathBuf::from("mine.toml")
                ),
            ]
        );

        // The command line's `--repair` wins over the file's; alone it is `on`.
        let mut args = parsed(&["--config", config, "--repair", "--", "server"]);
        args.merge_config().unwrap();
        assert_eq!(args.repair, Some(Repair::On));

        std::fs::write(&file, "[tools.search]\nagent_limt = 5\n").unwrap();
        let error = parsed(&["--config", config, "--", "server"])
            .merge_config()
            .unwrap_err();
        assert!(
            error.0.contains("unknown field `agent_limt`"),
            "{}",
            error.0
        );
        assert!(error.0.contains("agent_limit"), "{}", error.0);

        std::fs::remove_dir_all(&folder).unwrap();
        let error = parsed(&["--config", config, "--", "server"])
            .merge_config()
            .unwrap_err();
        assert!(
            error.0.starts_with(&format!("cannot read {config}")),
            "{}",
            error.0
        );
    }

    #[test]
    fn the_readmes_config_file_reads() {
        let readme = include_str!("../../../../../README.md");
        let start = readme
            .find("Per-tool settings for many tools")
            .expect("the README shows a config file");
        let block = readme[start..]
            .split("```toml\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .expect("a TOML block");
        let config: ConfigFile = toml::from_str(block).unwrap();
        assert_eq!(config.tools.len(), 3);
        assert_eq!(config.tools["search_files"].max_tokens, Some(4000));
        assert_eq!(config.tools["write_file"].policies.len(), 1);
    }

    #[test]
    fn seconds_are_positive_and_finite() {
        assert_eq!(seconds("1.5"), Ok(1.5));
        assert!(seconds("0").is_err());
        assert!(seconds("inf").is_err());
        assert!(seconds("NaN").is_err());
    }
}
