//! The typed model of a `#[tool]` function: its options as written and the shape of its
//! parameters. Filled by [`crate::tool_attr`], judged by [`crate::tool_valid`] into the
//! [`crate::checked::CheckedTool`].

use proc_macro2::Span;
use syn::{ItemFn, Type};

use crate::ast::At;

/// The options written in `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct ToolOptions {
    pub(crate) name: Option<At<String>>,
    pub(crate) title: Option<At<String>>,
    pub(crate) description: Option<At<String>>,
    pub(crate) read_only: Option<At<bool>>,
    pub(crate) destructive: Option<At<bool>>,
    pub(crate) idempotent: Option<At<bool>>,
    pub(crate) open_world: Option<At<bool>>,
    pub(crate) agent_limit: Option<At<u64>>,
    pub(crate) paged: Option<At<bool>>,
    pub(crate) hint: Option<At<String>>,
    pub(crate) teach: Option<syn::Path>,
    pub(crate) max_bytes: Option<At<u64>>,
    pub(crate) max_tokens: Option<At<u64>>,
    pub(crate) policy: Option<syn::Path>,
    /// `rate_limit = "10/min"`, as written.
    pub(crate) rate_limit: Option<At<String>>,
    /// `repair`, `repair = false` or `repair(destructive)`.
    pub(crate) repair: Option<At<RepairOption>>,
    /// `ignore_keys(prefix = "_", names("a", "b"))`.
    pub(crate) ignore_keys: Option<At<IgnoreKeysOption>>,
}

/// What `repair` says of the tool's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RepairOption {
    /// `repair = false`: never, whatever the server says.
    Off,
    /// `repair`.
    On,
    /// `repair(destructive)`: on a tool annotated `destructive` too.
    Destructive,
}

/// The keys `ignore_keys` declares, each with its span.
#[derive(Default)]
pub(crate) struct IgnoreKeysOption {
    pub(crate) prefixes: Vec<At<String>>,
    pub(crate) names: Vec<At<String>>,
}

/// The function's parameters, as the tool sees them.
pub(crate) struct Params<'a> {
    /// `T` of a `state: &T` parameter, when there is one.
    pub(crate) state: Option<&'a Type>,
    /// The arguments type.
    pub(crate) args: &'a Type,
    /// Whether the function is a method taking `&self`: a route of an rmcp `#[tool_router]`
    /// impl, whose state is `Self`.
    pub(crate) method: bool,
}

/// A `#[tool]` function.
pub(crate) struct ToolFn<'a> {
    pub(crate) item: &'a ItemFn,
    pub(crate) options: ToolOptions,
    pub(crate) doc: Option<String>,
    /// `None` when the parameters do not have a shape the checks accept.
    pub(crate) params: Option<Params<'a>>,
}

impl ToolFn<'_> {
    /// The tool's name: the `name` option, or the function's name.
    pub(crate) fn name(&self) -> String {
        self.options.name.as_ref().map_or_else(
            || {
                let ident = self.item.sig.ident.to_string();
                ident.strip_prefix("r#").unwrap_or(&ident).to_owned()
            },
            |n| n.value.clone(),
        )
    }

    /// The tool's description: the `description` option, or the doc comment.
    pub(crate) fn description(&self) -> Option<&str> {
        self.options
            .description
            .as_ref()
            .map(|d| d.value.as_str())
            .or(self.doc.as_deref())
    }
}

/// The span of the function's name, where function-wide errors point.
pub(crate) fn fn_span(item: &ItemFn) -> Span {
    item.sig.ident.span()
}
