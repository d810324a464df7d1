//! The macros at compile time: each mistake is a compile error at its own span, one per file
//! (the expected output is pinned to the workspace toolchain), and the shapes they accept compile
//! clean under `deny(warnings)` and run.

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

/// The main shapes of the derive and a `#[tool]` handler, each a program that compiles clean
/// and checks what it validates.
#[test]
fn pass() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
}
