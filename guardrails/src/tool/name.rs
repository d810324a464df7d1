//! The MCP rule for tool names (specification 2025-11-25 and later, "Tool names"): 1 to 128
//! characters, each an ASCII letter, a digit, `_`, `-` or `.`; case-sensitive. Names outside
//! it are refused by clients that enforce it (some reject a whole server's tool list over one
//! such name), so they are refused here first.
//!
//! A proc-macro crate cannot link the runtime, so `#[tool]` includes this very file
//! (`guardrails-derive/src/tool_name.rs` is a link to it), and a name the macro accepts is one
//! the spec it builds accepts. It may use only `core`.

/// The most characters a tool name has.
pub(crate) const MAX_TOOL_NAME_CHARS: usize = 128;

/// Whether `name` is a valid MCP tool name: 1 to 128 of `A-Z a-z 0-9 _ - .`.
#[must_use]
pub(crate) const fn is_valid_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_TOOL_NAME_CHARS {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.') {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_rule() {
        for ok in [
            "a",
            "getUser",
            "DATA_EXPORT_v2",
            "admin.tools.list",
            "user-profile",
        ] {
            assert!(is_valid_tool_name(ok), "{ok}");
        }
        assert!(is_valid_tool_name(&"a".repeat(MAX_TOOL_NAME_CHARS)));
        assert!(!is_valid_tool_name(&"a".repeat(MAX_TOOL_NAME_CHARS + 1)));
        for bad in [
            "",
            "greet someone",
            "user/update",
            "a,b",
            "créer",
            "tool\u{200b}",
        ] {
            assert!(!is_valid_tool_name(bad), "{bad:?}");
        }
    }
}
