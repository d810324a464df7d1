//! Compile-time diagnostics of the derives: one mistake per file, each reported with its span.
//! The expected output is pinned to the workspace toolchain.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/args/*.rs");
}
