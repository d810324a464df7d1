//! The macros at compile time: each mistake is a compile error at its own span, one per file
//! (the expected output is pinned to the workspace toolchain), and the shapes they accept compile
//! clean under `deny(warnings)` and run.

mod pass;

/// Mistakes in `#[derive(ToolArgs)]` and `#[derive(ToolEnum)]`.
#[test]
fn args() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/args/*.rs");
}

/// Mistakes in `#[guarded]`.
#[test]
fn guarded() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/guarded/*.rs");
}

/// Mistakes in `#[tool]`.
#[test]
fn tool() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/tool/*.rs");
}
