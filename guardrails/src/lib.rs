pub use guardrails_derive::*;
