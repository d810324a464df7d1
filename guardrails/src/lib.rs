pub use guardrails_derive::*;

pub mod format;
mod sample;
