//! Checks of a `#[tool]` function: options that contradict each other, limits that cannot
//! work, a name MCP clients reject, a missing description, a signature the pipeline cannot
//! call. Every problem is reported at its own span.

use darling::error::Accumulator;
use syn::spanned::Spanned as _;

use crate::diagnostic::error;
use crate::tool_ast::{ToolFn, fn_span};

/// The smallest byte cap that leaves room for a result and its notice.
const MIN_MAX_BYTES: u64 = 256;

/// Whether `name` is a valid MCP tool name: 1 to 128 of `A-Z a-z 0-9 _ - .`.
fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

pub(crate) fn check_tool(tool: &ToolFn<'_>, acc: &mut Accumulator) {
    check_signature(tool, acc);
    let attr = &tool.attr;
    let name = tool.name();
    if !valid_tool_name(&name) {
        let span = attr
            .name
            .as_ref()
            .map_or_else(|| fn_span(tool.item), |n| n.span);
        acc.push(error(
            span,
            format!(
                "tool name `{name}` may only hold letters, digits, `_`, `-` and `.` (1 to 128 characters)"
            ),
        ));
    }
    for (option, text) in [
        ("title", &attr.title),
        ("description", &attr.description),
        ("hint", &attr.hint),
    ] {
        if let Some(text) = text
            && text.value.trim().is_empty()
        {
            acc.push(error(text.span, format!("`{option}` is empty")));
        }
    }
    if tool.description().is_none() {
        acc.push(error(
            fn_span(tool.item),
            format!(
                "tool `{name}` has no description: add a doc comment or `description = \"...\"`; the model reads it to choose the tool"
            ),
        ));
    }
    if let (Some(read_only), Some(destructive)) = (&attr.read_only, &attr.destructive)
        && read_only.value
        && destructive.value
    {
        acc.push(error(
            destructive.span,
            "a `read_only` tool cannot be `destructive`",
        ));
    }
    if let Some(limit) = &attr.agent_limit
        && limit.value == 0
    {
        acc.push(error(limit.span, "`agent_limit` must be at least 1"));
    }
    if let Some(max) = &attr.max_bytes
        && max.value < MIN_MAX_BYTES
    {
        acc.push(error(
            max.span,
            format!(
                "`max_bytes` ({}) leaves no room for a result: use at least {MIN_MAX_BYTES}",
                max.value
            ),
        ));
    }
    if attr.agent_limit.is_none() {
        if let Some(hint) = &attr.hint {
            acc.push(error(
                hint.span,
                "`hint` needs `agent_limit`: it is shown when the limit cuts a result",
            ));
        }
        if let Some(teach) = &attr.teach {
            acc.push(error(
                teach.span(),
                "`teach` needs `agent_limit`: it is called when the limit cuts a result",
            ));
        }
    }
    if let (Some(_), Some(teach)) = (&attr.hint, &attr.teach) {
        acc.push(error(
            teach.span(),
            "`hint` and `teach` both write the teaching block: keep one",
        ));
    }
}

fn check_signature(tool: &ToolFn<'_>, acc: &mut Accumulator) {
    let sig = &tool.item.sig;
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        acc.push(error(
            sig.generics.span(),
            "a `#[tool]` function cannot be generic: its state and arguments types are part of the tool's definition",
        ));
    }
    if let Some(constness) = &sig.constness {
        acc.push(error(
            constness.span(),
            "a `#[tool]` function cannot be `const`",
        ));
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        acc.push(error(
            unsafety.span(),
            "a `#[tool]` function cannot be `unsafe`",
        ));
    }
    if let Some(abi) = &sig.abi {
        acc.push(error(
            abi.span(),
            "a `#[tool]` function cannot have an `extern` ABI",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        acc.push(error(
            variadic.span(),
            "a `#[tool]` function cannot be variadic",
        ));
    }
}
