//! The shapes the macros accept: the derive's main shapes and a `#[tool]` handler, each a module
//! that must compile clean under `deny(warnings)` and checks what it validates. They build with
//! this binary rather than as trybuild cases: a passing trybuild case builds every
//! dev-dependency of the package a second time, which took longer than all the other tests.

mod enum_with_data;
mod flatten;
mod struct_check;
mod struct_with_guards;
mod tool_handler;
