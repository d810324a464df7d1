//! Integration tests and examples of guardrails.
