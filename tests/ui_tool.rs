//! Mistakes in `#[tool]` are compile errors at their own span, one per file.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/tool/*.rs");
}
