//! Strings that match a regular expression.
