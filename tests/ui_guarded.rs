//! Compile-time diagnostics of `#[guarded]`: one mistake per file, each reported with its span.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/guarded/*.rs");
}
