//! Checks of a `#[tool]` function: options that contradict each other, limits that cannot
//! work, a name MCP clients reject, a missing description, a signature the pipeline cannot
//! call. Every problem is reported at its own span; what passes becomes the
//! [`CheckedTool`].

use darling::error::Accumulator;
use syn::spanned::Spanned as _;

use crate::checked::{AgentLimit, CheckedTool, Teaching};
use crate::diagnostic::error;
use crate::tool_ast::{Params, RepairOption, ToolFn, ToolOptions, fn_span};
use crate::tool_name::{MAX_TOOL_NAME_CHARS, is_valid_tool_name};

/// The smallest byte cap that leaves room for a result and its notice.
const MIN_MAX_BYTES: u64 = 256;

/// The smallest token budget that leaves room for a result and its notice.
const MIN_MAX_TOKENS: u64 = 64;

/// The checked tool, or `None` when a check failed or the parameters did not parse (each
/// failure recorded in `acc`).
pub(crate) fn check_tool<'a>(tool: ToolFn<'a>, acc: &mut Accumulator) -> Option<CheckedTool<'a>> {
    let mut found = darling::Error::accumulator();
    check_options(&tool, &mut found);
    let name = tool.name();
    let description = tool.description().map(str::to_owned);
    let checked = match (description, tool.params) {
        (Some(description), Some(params)) => {
            Some(resolve(tool.item, name, description, tool.options, params))
        }
        // A missing description was just recorded, parameters that did not parse when parsed.
        _ => None,
    };
    acc.handle(found.finish_with(checked)).flatten()
}

/// The options as the expansion reads them, once checked.
fn resolve<'a>(
    item: &'a syn::ItemFn,
    name: String,
    description: String,
    options: ToolOptions,
    params: Params<'a>,
) -> CheckedTool<'a> {
    let annotations = [
        ("read_only", options.read_only),
        ("destructive", options.destructive),
        ("idempotent", options.idempotent),
        ("open_world", options.open_world),
    ]
    .into_iter()
    .filter_map(|(method, flag)| Some((method, flag?)))
    .collect();
    let agent_limit = options.agent_limit.map(|max| AgentLimit {
        max,
        teaching: match (options.hint, options.teach) {
            (Some(hint), _) => Teaching::Hint(hint.value),
            (None, Some(teach)) => Teaching::Teach(teach),
            (None, None) => Teaching::Filters,
        },
        paged: options.paged.as_ref().is_some_and(|p| p.value),
    });
    CheckedTool {
        item,
        name,
        description,
        title: options.title.map(|t| t.value),
        annotations,
        agent_limit,
        max_bytes: options.max_bytes.map(|m| m.value),
        max_tokens: options.max_tokens.map(|m| m.value),
        rate_limit: options
            .rate_limit
            .as_ref()
            .and_then(|limit| parse_rate_limit(&limit.value).ok()),
        policy: options.policy,
        repair: options.repair.map(|r| r.value),
        ignore_keys: options.ignore_keys.map(|keys| {
            let values =
                |list: Vec<crate::ast::At<String>>| list.into_iter().map(|k| k.value).collect();
            (values(keys.value.prefixes), values(keys.value.names))
        }),
        params,
    }
}

fn check_options(tool: &ToolFn<'_>, acc: &mut Accumulator) {
    check_signature(tool, acc);
    let options = &tool.options;
    let name = tool.name();
    if !is_valid_tool_name(&name) {
        let span = options
            .name
            .as_ref()
            .map_or_else(|| fn_span(tool.item), |n| n.span);
        acc.push(error(
            span,
            format!(
                "tool name `{name}` breaks the MCP rule for tool names: 1 to {MAX_TOOL_NAME_CHARS} characters, each an ASCII letter, a digit, `_`, `-` or `.`"
            ),
        ));
    }
    for (option, text) in [
        ("title", &options.title),
        ("description", &options.description),
        ("hint", &options.hint),
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
    if let (Some(read_only), Some(destructive)) = (&options.read_only, &options.destructive)
        && read_only.value
        && destructive.value
    {
        acc.push(error(
            destructive.span,
            "a `read_only` tool cannot be `destructive`",
        ));
    }
    if let Some(limit) = &options.agent_limit
        && limit.value == 0
    {
        acc.push(error(limit.span, "`agent_limit` must be at least 1"));
    }
    check_leniency(options, acc);
    if let Some(limit) = &options.rate_limit
        && let Err(message) = parse_rate_limit(&limit.value)
    {
        acc.push(error(limit.span, message));
    }
    check_budgets(options, acc);
    if options.agent_limit.is_none() {
        if let Some(hint) = &options.hint {
            acc.push(error(
                hint.span,
                "`hint` needs `agent_limit`: it is shown when the limit cuts a result",
            ));
        }
        if let Some(teach) = &options.teach {
            acc.push(error(
                teach.span(),
                "`teach` needs `agent_limit`: it is called when the limit cuts a result",
            ));
        }
    }
    if let Some(paged) = options.paged.as_ref().filter(|p| p.value) {
        if options.agent_limit.is_none() {
            acc.push(error(
                paged.span,
                "`paged` needs `agent_limit`: a page is `agent_limit` items long, e.g. `#[tool(agent_limit = 50, paged)]`",
            ));
        }
        if let Some(teach) = &options.teach {
            acc.push(error(
                teach.span(),
                "`paged` tells the model how to ask for the next page in the teaching block: not with `teach`, which writes the whole block; use `hint`",
            ));
        }
    }
    if let (Some(_), Some(teach)) = (&options.hint, &options.teach) {
        acc.push(error(
            teach.span(),
            "`hint` and `teach` both write the teaching block: keep one",
        ));
    }
}

/// A byte cap or a token budget too small to hold a result and its notice.
fn check_budgets(options: &ToolOptions, acc: &mut Accumulator) {
    for (option, max, least) in [
        ("max_bytes", &options.max_bytes, MIN_MAX_BYTES),
        ("max_tokens", &options.max_tokens, MIN_MAX_TOKENS),
    ] {
        if let Some(max) = max
            && max.value < least
        {
            acc.push(error(
                max.span,
                format!(
                    "`{option}` ({}) leaves no room for a result: use at least {least}",
                    max.value
                ),
            ));
        }
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

/// `"10/min"`: how many calls per how many seconds, or what is wrong with it.
/// `repair` on a destructive tool needs `repair(destructive)`; `ignore_keys` declares keys,
/// none of them empty.
fn check_leniency(options: &ToolOptions, acc: &mut Accumulator) {
    if let (Some(repair), Some(destructive)) = (&options.repair, &options.destructive)
        && repair.value == RepairOption::On
        && destructive.value
    {
        acc.push(error(
            repair.span,
            "a `destructive` tool runs only as the model sent it: write `repair(destructive)` to repair its calls anyway",
        ));
    }
    if let Some(keys) = &options.ignore_keys {
        if keys.value.prefixes.is_empty() && keys.value.names.is_empty() {
            acc.push(error(
                keys.span,
                "`ignore_keys` declares no key: write `ignore_keys(prefix = \"_\")`, `ignore_keys(names(\"a\", \"b\"))` or both",
            ));
        }
        for key in keys.value.prefixes.iter().chain(&keys.value.names) {
            if key.value.is_empty() {
                acc.push(error(
                    key.span,
                    "an empty key: an empty prefix would ignore every key, which is turning strictness off",
                ));
            }
        }
    }
}

fn parse_rate_limit(text: &str) -> Result<(u32, u64), String> {
    const FORM: &str = "write `rate_limit` as calls per unit: \"10/s\", \"100/min\" or \"1000/h\"";
    let Some((calls, unit)) = text.split_once('/') else {
        return Err(format!("`{text}` is not a rate limit: {FORM}"));
    };
    let calls: u32 = match calls.trim().parse() {
        Ok(0) => return Err(format!("`rate_limit` allows no call at all: {FORM}")),
        Ok(calls) => calls,
        Err(_) => {
            return Err(format!(
                "`{}` is not a number of calls: {FORM}",
                calls.trim()
            ));
        }
    };
    let seconds = match unit.trim() {
        "s" | "sec" | "second" => 1,
        "min" | "minute" => 60,
        "h" | "hour" => 3600,
        other => return Err(format!("unknown unit `{other}`: {FORM}")),
    };
    Ok((calls, seconds))
}

#[cfg(test)]
mod tests {
    use super::parse_rate_limit;

    #[test]
    fn rate_limits_are_calls_per_unit() {
        assert_eq!(parse_rate_limit("10/min"), Ok((10, 60)));
        assert_eq!(parse_rate_limit(" 5 / s "), Ok((5, 1)));
        assert_eq!(parse_rate_limit("1000/hour"), Ok((1000, 3600)));
        assert!(parse_rate_limit("0/s").unwrap_err().contains("no call"));
        assert!(parse_rate_limit("ten/s").unwrap_err().contains("`ten`"));
        assert!(parse_rate_limit("10/day").unwrap_err().contains("`day`"));
        assert!(parse_rate_limit("10").unwrap_err().contains("\"10/s\""));
    }
}
