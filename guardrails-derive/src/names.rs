//! Every name a user writes in an attribute, each list in one table: the guards of
//! `#[guard(..)]` and their bounds, the string formats of `format = ".."`, the policy profiles
//! of `policy = ".."` and the options of `#[tool(..)]`. Parsing looks names up here, and
//! did-you-mean offers the same names. Formats and profiles name the runtime item each stands
//! for, so a name the runtime does not know cannot compile.

/// The names of a table, in its order: what an unknown name is compared with.
pub(crate) fn names<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
    table.iter().map(|(name, _)| *name).collect()
}

/// What `name` stands for in `table`.
pub(crate) fn lookup<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    table
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, value)| *value)
}

/// A guard of `#[guard(..)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guard {
    Length,
    Range,
    Pattern,
    Format,
    OneOf,
    Unique,
    MultipleOf,
    NonEmpty,
    Custom,
    Policy,
    AcknowledgesPolicy,
    Sensitive,
    NoRepair,
    Example,
    Description,
}

pub(crate) const GUARDS: &[(&str, Guard)] = &[
    ("length", Guard::Length),
    ("range", Guard::Range),
    ("pattern", Guard::Pattern),
    ("format", Guard::Format),
    ("one_of", Guard::OneOf),
    ("unique", Guard::Unique),
    ("multiple_of", Guard::MultipleOf),
    ("non_empty", Guard::NonEmpty),
    ("custom", Guard::Custom),
    ("policy", Guard::Policy),
    ("acknowledges_policy", Guard::AcknowledgesPolicy),
    ("sensitive", Guard::Sensitive),
    ("no_repair", Guard::NoRepair),
    ("example", Guard::Example),
    ("description", Guard::Description),
];

/// A bound of `length(..)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LengthBound {
    Min,
    Max,
    /// `min` and `max` at once.
    Equal,
}

pub(crate) const LENGTH_BOUNDS: &[(&str, LengthBound)] = &[
    ("min", LengthBound::Min),
    ("max", LengthBound::Max),
    ("equal", LengthBound::Equal),
];

/// A bound of `range(..)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RangeBound {
    Min,
    Max,
    ExclusiveMin,
    ExclusiveMax,
}

impl RangeBound {
    pub(crate) fn is_upper(self) -> bool {
        matches!(self, Self::Max | Self::ExclusiveMax)
    }

    pub(crate) fn is_exclusive(self) -> bool {
        matches!(self, Self::ExclusiveMin | Self::ExclusiveMax)
    }
}

pub(crate) const RANGE_BOUNDS: &[(&str, RangeBound)] = &[
    ("min", RangeBound::Min),
    ("max", RangeBound::Max),
    ("exclusive_min", RangeBound::ExclusiveMin),
    ("exclusive_max", RangeBound::ExclusiveMax),
];

/// The formats `format = ".."` accepts, with the variant of `guardrails::validation::StringFormat`
/// each stands for. The runtime's `StringFormat::from_name` must agree: a test of the root
/// package compares the two through the hidden
/// `string_formats!` macro.
pub(crate) const STRING_FORMATS: &[(&str, &str)] = &[
    ("email", "Email"),
    ("url", "Url"),
    ("uri", "Url"),
    ("uuid", "Uuid"),
    ("date", "Date"),
    ("date-time", "DateTime"),
    ("time", "Time"),
    ("ipv4", "Ipv4"),
    ("ipv6", "Ipv6"),
    ("hostname", "Hostname"),
];

/// The built-in output policy profiles `policy = ".."` accepts, with their variant of
/// `guardrails::policy::Profile`.
pub(crate) const POLICY_PROFILES: &[(&str, &str)] = &[
    ("base", "Base"),
    ("observation", "Observation"),
    ("decision", "Decision"),
];

/// An option of `#[tool(..)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolOption {
    Name,
    Title,
    Description,
    ReadOnly,
    Destructive,
    Idempotent,
    OpenWorld,
    AgentLimit,
    Paged,
    Hint,
    Teach,
    MaxBytes,
    MaxTokens,
    Policy,
    RateLimit,
    Repair,
    IgnoreKeys,
}

pub(crate) const TOOL_OPTIONS: &[(&str, ToolOption)] = &[
    ("name", ToolOption::Name),
    ("title", ToolOption::Title),
    ("description", ToolOption::Description),
    ("read_only", ToolOption::ReadOnly),
    ("destructive", ToolOption::Destructive),
    ("idempotent", ToolOption::Idempotent),
    ("open_world", ToolOption::OpenWorld),
    ("agent_limit", ToolOption::AgentLimit),
    ("paged", ToolOption::Paged),
    ("hint", ToolOption::Hint),
    ("teach", ToolOption::Teach),
    ("max_bytes", ToolOption::MaxBytes),
    ("max_tokens", ToolOption::MaxTokens),
    ("policy", ToolOption::Policy),
    ("rate_limit", ToolOption::RateLimit),
    ("repair", ToolOption::Repair),
    ("ignore_keys", ToolOption::IgnoreKeys),
];
