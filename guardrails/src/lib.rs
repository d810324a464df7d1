pub use guardrails_derive::*;

pub mod policy;
