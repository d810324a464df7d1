//! Every Rust block in the README and the crates' docs is compiled by the doctests: none is
//! marked `ignore`, so a documented signature that stops compiling fails the build.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path
            .extension()
            .is_some_and(|ext| ext == "rs" || ext == "md")
        {
            out.push(path);
        }
    }
}

/// Whether a line opens a code block marked `ignore` (in Markdown or in a doc comment).
fn opens_ignored_block(line: &str) -> bool {
    let line = line.trim_start();
    let line = line
        .strip_prefix("///")
        .or_else(|| line.strip_prefix("//!"))
        .unwrap_or(line)
        .trim_start();
    line.strip_prefix("```")
        .is_some_and(|info| info.split(',').any(|word| word.trim() == "ignore"))
}

#[test]
fn no_documented_block_is_ignored() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("README.md")];
    files(&root.join("guardrails/src"), &mut paths);
    files(&root.join("guardrails-derive/src"), &mut paths);
    let mut ignored = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            if opens_ignored_block(line) {
                ignored.push(format!("{}:{}", path.display(), n + 1));
            }
        }
    }
    assert!(ignored.is_empty(), "blocks marked `ignore`: {ignored:?}");
}

#[test]
fn the_scan_sees_an_ignored_block() {
    assert!(opens_ignored_block("```ignore"));
    assert!(opens_ignored_block("/// ```rust,ignore"));
    assert!(!opens_ignored_block("```rust,no_run"));
    assert!(!opens_ignored_block("```text"));
}
