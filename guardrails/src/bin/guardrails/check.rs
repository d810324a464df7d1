//! `guardrails check`: text files against an output policy, for CI pipelines that gate the
//! documents an agent wrote.

use std::io::{self, Read as _, Write};
use std::path::{Path, PathBuf};

use guardrails::__private::{escape_json_text, plain};
use guardrails::policy::{
    Policy, PolicyError, Profile, RenderLimits, RuleSeverity, Status, Verdict,
};
use serde::Serialize;

use crate::{Failure, Outcome};

/// The extensions a directory is searched for.
const TEXT_EXTENSIONS: [&str; 2] = ["md", "txt"];

/// How many characters of a found text a violation echoes: enough to recognise it, bounded so
/// that a minified file does not flood the log.
const ECHO_CHARS: usize = 120;

#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// A built-in profile: base, observation or decision [default: base, unless --policy is
    /// given].
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,

    /// A TOML policy file; with --profile, its rules apply over the profile's rules.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,

    /// Print one JSON document with every file's verdict instead of text.
    #[arg(long)]
    json: bool,

    /// How many violations are listed per file; the rest are counted ("… and N more", and
    /// `omitted` in JSON), so a file full of violations costs neither memory nor a flood.
    #[arg(long, value_name = "N", default_value_t = 50)]
    max_violations: usize,

    /// The largest file checked, in bytes; a larger one stops the run (status 2). No more
    /// than this is ever read from a file.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    max_file_bytes: u64,

    /// Files to check, and directories to search for `.md` and `.txt` files.
    #[arg(required = true, value_name = "PATHS")]
    paths: Vec<PathBuf>,
}

/// One checked file, as `--json` prints it.
#[derive(Serialize)]
struct FileVerdict {
    path: String,
    #[serde(flatten)]
    verdict: Verdict,
}

/// Every checked file, as `--json` prints it.
#[derive(Serialize)]
struct JsonReport<'a> {
    status: Status,
    files_checked: usize,
    critical: usize,
    warnings: usize,
    advisories: usize,
    files: &'a [FileVerdict],
}

pub(crate) fn run(args: &CheckArgs) -> Result<Outcome, Failure> {
    let policy = load(args.profile.as_deref(), args.policy.as_deref())?;
    // Every file is found and read before anything is printed: a run either reports on all
    // the files it was given or fails with status 2, never half of each.
    let mut files = Vec::new();
    for path in &args.paths {
        collect(path, true, &mut files)?;
    }
    let checked = check_files(&policy, &files, args)?;
    let blocked = checked
        .iter()
        .any(|file| file.verdict.status == Status::Blocked);
    let printed = if args.json {
        print_json(&checked)
    } else {
        print_text(&checked, args.max_violations)
    };
    match printed {
        // Whoever reads the output stopped early (`| head`); the verdict still decides.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {}
        other => other.map_err(|error| Failure(format!("cannot write the report: {error}")))?,
    }
    Ok(if blocked {
        Outcome::Failed
    } else {
        Outcome::Passed
    })
}

/// The policy of a built-in profile, of a policy file, or of the file's rules over the profile
/// when both are given; `base` when neither is.
fn load(profile: Option<&str>, file: Option<&Path>) -> Result<Policy, PolicyError> {
    let named = profile.map(str::parse::<Profile>).transpose()?;
    match file {
        None => Ok(named.unwrap_or(Profile::Base).policy().clone()),
        Some(path) => {
            let overlay = Policy::from_toml_file(path)?;
            match named {
                None => Ok(overlay),
                Some(profile) => profile.policy().merge(&overlay),
            }
        }
    }
}

/// Adds `path` to `files`: a file as it is when it was named on the command line, a file found
/// in a directory when its extension is one of [`TEXT_EXTENSIONS`], a directory searched in
/// name order, so that the report is the same on every machine. What cannot be checked is
/// skipped with a note on stderr: a broken or looping symbolic link, and anything that is not
/// a regular file (a FIFO would block the run forever, a device never end).
fn collect(path: &Path, named: bool, files: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let wanted = named || has_text_extension(path);
    let entry = std::fs::symlink_metadata(path)
        .map_err(|error| Failure(format!("cannot read `{}`: {error}", shown(path))))?;
    let metadata = if entry.file_type().is_symlink() {
        match std::fs::metadata(path) {
            Ok(target) => target,
            Err(error) => {
                if wanted {
                    skip(path, &format!("a broken symbolic link ({error})"));
                }
                return Ok(());
            }
        }
    } else {
        entry
    };
    if metadata.is_dir() {
        let mut entries = std::fs::read_dir(path)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|error| {
                Failure(format!("cannot read directory `{}`: {error}", shown(path)))
            })?;
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            // A link to a directory is not followed: it could lead back up the tree.
            let is_linked_dir =
                entry.file_type().is_ok_and(|kind| kind.is_symlink()) && entry.path().is_dir();
            if !is_linked_dir {
                collect(&entry.path(), false, files)?;
            }
        }
    } else if wanted && metadata.is_file() {
        files.push(path.to_path_buf());
    } else if wanted {
        skip(path, "not a regular file");
    }
    Ok(())
}

/// Says on stderr that `path` is not checked, and why.
fn skip(path: &Path, why: &str) {
    eprintln!("skipped `{}`: {why}", shown(path));
}

/// A path as printed: whatever a file name holds, on one line and without invisible
/// characters.
fn shown(path: &Path) -> String {
    plain(&path.display().to_string()).into_owned()
}

fn has_text_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| {
            TEXT_EXTENSIONS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(extension))
        })
}

fn check_files(
    policy: &Policy,
    files: &[PathBuf],
    args: &CheckArgs,
) -> Result<Vec<FileVerdict>, Failure> {
    files
        .iter()
        .map(|path| {
            let text = read_text(path, args.max_file_bytes)?;
            Ok(FileVerdict {
                path: shown(path),
                verdict: policy.check_at_most(&text, args.max_violations),
            })
        })
        .collect()
}

/// The text of `path`, reading at most `max` bytes of it (and one more, to know there is more).
fn read_text(path: &Path, max: u64) -> Result<String, Failure> {
    let cannot_read = |error: io::Error| Failure(format!("cannot read `{}`: {error}", shown(path)));
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(max.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(cannot_read)?;
    if bytes.len() as u64 > max {
        return Err(Failure(format!(
            "`{}` is larger than {max} bytes; raise --max-file-bytes to check it",
            shown(path)
        )));
    }
    String::from_utf8(bytes).map_err(|error| {
        Failure(format!(
            "`{}` is not UTF-8 text (invalid byte at offset {})",
            shown(path),
            error.utf8_error().valid_up_to()
        ))
    })
}

fn totals(checked: &[FileVerdict]) -> (usize, usize, usize) {
    checked.iter().fold((0, 0, 0), |(c, w, a), file| {
        (
            c + file.verdict.count(RuleSeverity::Critical),
            w + file.verdict.count(RuleSeverity::Warning),
            a + file.verdict.count(RuleSeverity::Advisory),
        )
    })
}

fn overall_status(checked: &[FileVerdict]) -> Status {
    let statuses = || checked.iter().map(|file| file.verdict.status);
    if statuses().any(|status| status == Status::Blocked) {
        Status::Blocked
    } else if statuses().any(|status| status == Status::Pending) {
        Status::Pending
    } else {
        Status::Approved
    }
}

fn print_text(checked: &[FileVerdict], max_violations: usize) -> io::Result<()> {
    let mut out = io::stdout().lock();
    let limits = RenderLimits::unlimited()
        .with_max_echo_chars(ECHO_CHARS)
        .with_max_violations(max_violations);
    for file in checked {
        out.write_all(file.verdict.render_located(&file.path, limits).as_bytes())?;
    }
    let (critical, warnings, advisories) = totals(checked);
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let by_status = |status| {
        checked
            .iter()
            .filter(|file| file.verdict.status == status)
            .count()
    };
    writeln!(
        out,
        "{}: {} checked, {} blocked, {} pending, {} approved ({}, {}, {})",
        overall_status(checked),
        count(checked.len(), "file", "files"),
        by_status(Status::Blocked),
        by_status(Status::Pending),
        by_status(Status::Approved),
        count(critical, "critical", "critical"),
        count(warnings, "warning", "warnings"),
        count(advisories, "advisory", "advisories"),
    )?;
    out.flush()
}

fn print_json(checked: &[FileVerdict]) -> io::Result<()> {
    let (critical, warnings, advisories) = totals(checked);
    let report = JsonReport {
        status: overall_status(checked),
        files_checked: checked.len(),
        critical,
        warnings,
        advisories,
        files: checked,
    };
    let text = serde_json::to_string_pretty(&report)?;
    let mut out = io::stdout().lock();
    // Found texts are what agents wrote: nothing invisible in them goes out raw.
    writeln!(out, "{}", escape_json_text(&text))?;
    out.flush()
}
