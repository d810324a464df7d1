//! Field-level contract diffs: each change with a severity, a path, before, after and a
//! description. The rules are in the [module docs](super).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value, json};

use super::ServerContract;
use super::model::{Contract, Field, JsonType, Limit, OutputField, cmp_numbers};

/// How much a change matters to a client calibrated on the old contract. Ordered from the least
/// to the most severe, so `max()` is the highest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ChangeSeverity {
    /// Said differently, meaning the same (values reordered, a default stated): calls keep
    /// working as they are, and the model reads nothing new.
    Cosmetic,
    /// Calls that worked keep working; new ones may do more.
    Safe,
    /// Calls keep validating, but what they do or return may differ.
    Risky,
    /// Calls that worked may now be rejected, or behave in a way the client relied on not to.
    Breaking,
}

impl ChangeSeverity {
    /// Every severity, from the most severe down.
    pub(crate) const ALL: [Self; 4] = [Self::Breaking, Self::Risky, Self::Safe, Self::Cosmetic];

    /// The uppercase name, as in reports.
    #[must_use]
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Cosmetic => "COSMETIC",
            Self::Safe => "SAFE",
            Self::Risky => "RISKY",
            Self::Breaking => "BREAKING",
        }
    }
}

impl fmt::Display for ChangeSeverity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One change between two contracts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Delta {
    /// How much the change matters.
    pub severity: ChangeSeverity,
    /// Where it is, e.g. `create_user.args.currency` or `list_tasks.agent_limit`.
    pub path: String,
    /// The tool it belongs to.
    pub tool: String,
    /// The top-level argument it is about, if any: what relevance to a failing call is judged by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) argument: Option<String>,
    /// The old value; `None` when the thing did not exist.
    pub before: Option<Value>,
    /// The new value; `None` when the thing no longer exists.
    pub after: Option<Value>,
    /// What changed and what it means for a caller.
    pub description: String,
}

/// The changes between two sets of contracts, in a stable order: by tool name, then in the
/// order of the contract's members, arguments by name.
///
/// It displays itself as a report for people and CI logs (a summary line, then one block per
/// change: severity, path, description, before and after), and serializes to a report for
/// machines: `changes` (their number), `breaking`, `maxSeverity`, `counts` by severity and
/// every delta.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diff {
    deltas: Vec<Delta>,
}

impl Diff {
    /// Every change.
    #[must_use]
    pub fn deltas(&self) -> &[Delta] {
        &self.deltas
    }

    /// Whether nothing changed.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.deltas.is_empty()
    }

    /// The number of changes.
    #[must_use]
    pub(crate) fn len(&self) -> usize {
        self.deltas.len()
    }

    /// The highest severity, if anything changed.
    #[must_use]
    pub(crate) fn max_severity(&self) -> Option<ChangeSeverity> {
        self.deltas.iter().map(|d| d.severity).max()
    }

    /// Whether any change is BREAKING.
    #[must_use]
    pub fn is_breaking(&self) -> bool {
        self.max_severity() == Some(ChangeSeverity::Breaking)
    }

    /// The number of changes of a severity.
    #[must_use]
    pub(crate) fn count(&self, severity: ChangeSeverity) -> usize {
        self.deltas
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    fn summary(&self) -> String {
        if self.is_empty() {
            return "no contract changes".to_owned();
        }
        let counts: Vec<String> = ChangeSeverity::ALL
            .iter()
            .map(|s| (s, self.count(*s)))
            .filter(|(_, n)| *n > 0)
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        let changes = crate::text::count(self.len(), "contract change", "contract changes");
        format!("{changes}: {}", counts.join(", "))
    }

    /// The report for machines that `Diff` serializes to.
    fn report(&self) -> Value {
        let counts: serde_json::Map<String, Value> = ChangeSeverity::ALL
            .iter()
            .map(|s| (s.as_str().to_owned(), Value::from(self.count(*s))))
            .collect();
        json!({
            "changes": self.len(),
            "breaking": self.is_breaking(),
            "maxSeverity": self.max_severity(),
            "counts": counts,
            "deltas": self.deltas,
        })
    }
}

impl fmt::Display for Diff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.summary())?;
        for d in &self.deltas {
            writeln!(
                f,
                "{:<9} {}: {}",
                d.severity.as_str(),
                d.path,
                d.description
            )?;
            writeln!(f, "          before: {}", value_text(d.before.as_ref()))?;
            writeln!(f, "          after:  {}", value_text(d.after.as_ref()))?;
        }
        Ok(())
    }
}

impl Serialize for Diff {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.report().serialize(serializer)
    }
}

/// A value in a report: compact JSON, or `(absent)`.
pub(crate) fn value_text(value: Option<&Value>) -> String {
    value.map_or_else(|| "(absent)".to_owned(), Value::to_string)
}

/// The changes from `before` to `after`.
#[must_use]
pub fn diff(before: &ServerContract, after: &ServerContract) -> Diff {
    let old = &before.tools;
    let new = &after.tools;
    // A removed tool whose contract reappears, unchanged, under a new name was renamed: one
    // delta says so instead of a removal and an unrelated addition.
    let mut renamed: BTreeMap<&str, &str> = BTreeMap::new();
    let mut renamed_to: BTreeSet<&str> = BTreeSet::new();
    for (name, contract) in old.iter().filter(|(n, _)| !new.contains_key(*n)) {
        let twin = new.iter().find(|(n, c)| {
            !old.contains_key(*n) && !renamed_to.contains(n.as_str()) && same_but_name(contract, c)
        });
        if let Some((new_name, _)) = twin {
            renamed.insert(name, new_name);
            renamed_to.insert(new_name);
        }
    }
    let names: BTreeSet<&str> = old.keys().chain(new.keys()).map(String::as_str).collect();
    let mut out = Vec::new();
    for name in names {
        match (old.get(name), new.get(name)) {
            (Some(_), None) => match renamed.get(name) {
                Some(to) => out.push(Delta {
                    severity: ChangeSeverity::Breaking,
                    path: name.to_owned(),
                    tool: name.to_owned(),
                    argument: None,
                    before: Some(Value::from(name)),
                    after: Some(Value::from(*to)),
                    description: format!("Tool renamed to `{to}`: calls to `{name}` now fail."),
                }),
                None => out.push(Delta {
                    severity: ChangeSeverity::Breaking,
                    path: name.to_owned(),
                    tool: name.to_owned(),
                    argument: None,
                    before: Some(Value::from(name)),
                    after: None,
                    description: "Tool removed: calls to it now fail.".to_owned(),
                }),
            },
            (None, Some(_)) if renamed_to.contains(name) => {}
            (None, Some(_)) => out.push(Delta {
                severity: ChangeSeverity::Safe,
                path: name.to_owned(),
                tool: name.to_owned(),
                argument: None,
                before: None,
                after: Some(Value::from(name)),
                description: "Tool added.".to_owned(),
            }),
            (Some(b), Some(a)) => out.extend(diff_tool(b, a)),
            (None, None) => {}
        }
    }
    if before.schema_profile() != after.schema_profile() {
        let name =
            |p: Option<crate::profile::SchemaProfile>| Value::from(p.unwrap_or_default().name());
        out.push(Delta {
            severity: ChangeSeverity::Risky,
            path: "schema_profile".to_owned(),
            tool: String::new(),
            argument: None,
            before: Some(name(before.schema_profile())),
            after: Some(name(after.schema_profile())),
            description: "The tools' schemas are advertised in another profile: a client reads \
                          them in another form (a model calibrated on one may send another \
                          shape)."
                .to_owned(),
        });
    }
    Diff { deltas: out }
}

fn same_but_name(old: &Contract, new: &Contract) -> bool {
    let mut renamed = old.clone();
    renamed.name.clone_from(&new.name);
    renamed == *new
}

/// Collects the deltas of one tool.
struct Collector<'a> {
    tool: &'a str,
    argument: Option<&'a str>,
    out: Vec<Delta>,
}

impl Collector<'_> {
    fn push(
        &mut self,
        severity: ChangeSeverity,
        path: String,
        before: Option<Value>,
        after: Option<Value>,
        description: impl Into<String>,
    ) {
        self.out.push(Delta {
            severity,
            path,
            tool: self.tool.to_owned(),
            argument: self.argument.map(str::to_owned),
            before,
            after,
            description: description.into(),
        });
    }
}

/// How much a change matters, and what it means for a caller: a severity and a delta's
/// description.
type Grade = (ChangeSeverity, String);

/// How a member that may be absent changed from one contract to the other.
enum Change<'a, T: ?Sized> {
    Added(&'a T),
    Removed(&'a T),
    /// Before, then after; never equal.
    Changed(&'a T, &'a T),
}

// Not derived: the derive would ask `T: Copy`, and a member may be unsized (`str`).
impl<T: ?Sized> Clone for Change<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Change<'_, T> {}

/// One row of the severity table (see the [module docs](super)): a member of `R` (a tool's
/// contract, an argument) and how a change of it is graded. The rows of one owner, whatever
/// the types of their members, make one table.
trait Rule<R> {
    /// Records the change of the member from `before` to `after` at `{path}.{member}`, if it
    /// changed.
    fn apply(&self, c: &mut Collector<'_>, path: &str, before: &R, after: &R);
}

/// A member every `R` has (a type, a tool's description), graded when its value changes.
struct Always<R, T: ?Sized + 'static> {
    member: &'static str,
    read: fn(&R) -> &T,
    /// The member as a delta's before and after show it.
    json: fn(&T) -> Value,
    /// The grade of a change from the first value to the second.
    grade: fn(&T, &T) -> Grade,
}

impl<R, T: ?Sized + PartialEq> Rule<R> for Always<R, T> {
    fn apply(&self, c: &mut Collector<'_>, path: &str, before: &R, after: &R) {
        let (b, a) = ((self.read)(before), (self.read)(after));
        if b != a {
            let (severity, text) = (self.grade)(b, a);
            let path = format!("{path}.{}", self.member);
            c.push(
                severity,
                path,
                Some((self.json)(b)),
                Some((self.json)(a)),
                text,
            );
        }
    }
}

/// A yes-or-no member every `R` has, graded by what turning it on and off means.
struct Flag<R> {
    member: &'static str,
    read: fn(&R) -> bool,
    on: (ChangeSeverity, &'static str),
    off: (ChangeSeverity, &'static str),
}

impl<R> Rule<R> for Flag<R> {
    fn apply(&self, c: &mut Collector<'_>, path: &str, before: &R, after: &R) {
        let (b, a) = ((self.read)(before), (self.read)(after));
        if b != a {
            let (severity, text) = if a { self.on } else { self.off };
            let path = format!("{path}.{}", self.member);
            c.push(
                severity,
                path,
                Some(Value::Bool(b)),
                Some(Value::Bool(a)),
                text,
            );
        }
    }
}

/// A member `R` may lack (a bound, a pattern, a description), graded when it is added,
/// removed or changed.
struct Optional<R, T: ?Sized + 'static> {
    member: &'static str,
    read: fn(&R) -> Option<&T>,
    /// The member as a delta's before and after show it.
    json: fn(&T) -> Value,
    grade: fn(Change<'_, T>) -> Grade,
}

impl<R, T: ?Sized + PartialEq> Rule<R> for Optional<R, T> {
    fn apply(&self, c: &mut Collector<'_>, path: &str, before: &R, after: &R) {
        let (b, a) = ((self.read)(before), (self.read)(after));
        let change = match (b, a) {
            (None, Some(a)) => Change::Added(a),
            (Some(b), None) => Change::Removed(b),
            (Some(b), Some(a)) if b != a => Change::Changed(b, a),
            _ => return,
        };
        let (severity, text) = (self.grade)(change);
        let path = format!("{path}.{}", self.member);
        c.push(severity, path, b.map(self.json), a.map(self.json), text);
    }
}

fn text_json(text: &str) -> Value {
    Value::from(text)
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "the signature of a rule's `json`"
)]
fn count_json(n: &u64) -> Value {
    Value::from(*n)
}

/// A description or a title is an instruction to the model, and a title text it is shown: a
/// change can change what the model does (the poisoned description of a rug pull), so it is
/// reviewed like a change of behaviour.
fn reworded(text: &str) -> Grade {
    (ChangeSeverity::Risky, text.to_owned())
}

/// The rules of a tool's own members read before its hints, arguments and output.
const TOOL_TEXTS: &[&dyn Rule<Contract>] = &[
    &Optional {
        member: "title",
        read: |t: &Contract| t.title.as_deref(),
        json: text_json,
        grade: |_| reworded("Title changed: the model reads the new text."),
    },
    &Always {
        member: "description",
        read: |t: &Contract| t.description.as_str(),
        json: text_json,
        grade: |_, _| {
            reworded("Description changed: the model reads the new text as an instruction.")
        },
    },
];

/// The rules of a tool's bounds on its results.
const TOOL_LIMITS: &[&dyn Rule<Contract>] = &[
    &Optional {
        member: "agent_limit",
        read: |t: &Contract| t.agent_limit.as_ref(),
        json: count_json,
        grade: |change| limit(change, "Agent limit", ("item", "items")),
    },
    &Optional {
        member: "max_bytes",
        read: |t: &Contract| t.max_bytes.as_ref(),
        json: count_json,
        grade: |change| limit(change, "Byte cap", ("byte", "bytes")),
    },
    &Optional {
        member: "max_tokens",
        read: |t: &Contract| t.max_tokens.as_ref(),
        json: count_json,
        grade: |change| limit(change, "Token budget", ("token", "tokens")),
    },
];

/// The rule of a tool's output check, read last.
const TOOL_POLICY: Flag<Contract> = Flag {
    member: "policy",
    read: |t: &Contract| t.policy,
    on: (
        ChangeSeverity::Safe,
        "Output check attached: outputs are checked before delivery.",
    ),
    off: (
        ChangeSeverity::Risky,
        "Output check removed: outputs are no longer checked.",
    ),
};

/// The changes between two contracts of the same tool (paths use the new contract's name).
#[must_use]
pub(crate) fn diff_tool(before: &Contract, after: &Contract) -> Vec<Delta> {
    let name = after.name.as_str();
    let mut c = Collector {
        tool: name,
        argument: None,
        out: Vec::new(),
    };
    for rule in TOOL_TEXTS {
        rule.apply(&mut c, name, before, after);
    }
    hints(&mut c, name, before, after);
    arguments(&mut c, name, &before.args, &after.args);
    c.argument = None;
    output(&mut c, name, before.output.as_ref(), after.output.as_ref());
    for rule in TOOL_LIMITS {
        rule.apply(&mut c, name, before, after);
    }
    checks(
        &mut c,
        &format!("{name}.checks"),
        &before.checks,
        &after.checks,
    );
    TOOL_POLICY.apply(&mut c, name, before, after);
    c.out
}

fn hints(c: &mut Collector<'_>, name: &str, before: &Contract, after: &Contract) {
    let declared =
        |h: &super::model::Hints| [h.read_only, h.destructive, h.idempotent, h.open_world];
    let old = before.annotations.effective();
    let new = after.annotations.effective();
    let old_declared = declared(&before.annotations);
    let new_declared = declared(&after.annotations);
    for i in 0..old.len() {
        let (hint, was) = old[i];
        let is = new[i].1;
        let path = format!("{name}.annotations.{hint}");
        if was != is {
            let severity = match hint {
                "read_only" | "destructive" => ChangeSeverity::Breaking,
                _ => ChangeSeverity::Risky,
            };
            c.push(
                severity,
                path,
                Some(Value::Bool(was)),
                Some(Value::Bool(is)),
                format!("Hint `{hint}` flipped from {was} to {is}: the tool's behaviour changed."),
            );
        } else if old_declared[i] != new_declared[i] {
            c.push(
                ChangeSeverity::Cosmetic,
                path,
                old_declared[i].map(Value::Bool),
                new_declared[i].map(Value::Bool),
                format!("Hint `{hint}` stated differently; clients read it as {is} either way."),
            );
        }
    }
}

fn limit(change: Change<'_, u64>, what: &str, (one, many): (&str, &str)) -> Grade {
    let unit = |n: u64| crate::text::count(usize::try_from(n).unwrap_or(usize::MAX), one, many);
    match change {
        Change::Added(n) => (
            ChangeSeverity::Safe,
            format!("{what} of {} added.", unit(*n)),
        ),
        Change::Removed(_) => (
            ChangeSeverity::Risky,
            format!("{what} removed: results are no longer bounded."),
        ),
        Change::Changed(b, a) if a < b => (
            ChangeSeverity::Risky,
            format!(
                "{what} lowered from {b} to {}: less of each result is shown.",
                unit(*a)
            ),
        ),
        Change::Changed(b, a) => (
            ChangeSeverity::Safe,
            format!("{what} raised from {b} to {}.", unit(*a)),
        ),
    }
}

fn arguments<'a>(
    c: &mut Collector<'a>,
    name: &str,
    before: &'a BTreeMap<String, Field>,
    after: &'a BTreeMap<String, Field>,
) {
    let names: BTreeSet<&'a String> = before.keys().chain(after.keys()).collect();
    for arg in names {
        c.argument = Some(arg.as_str());
        let path = format!("{name}.args.{arg}");
        member(c, &path, "argument", before.get(arg), after.get(arg));
    }
}

/// An argument or a field of a nested object: added, removed or changed.
fn member(
    c: &mut Collector<'_>,
    path: &str,
    what: &str,
    before: Option<&Field>,
    after: Option<&Field>,
) {
    match (before, after) {
        (Some(b), None) => c.push(
            ChangeSeverity::Breaking,
            path.to_owned(),
            Some(field_json(b)),
            None,
            format!("The {what} was removed: calls that send it are now rejected."),
        ),
        (None, Some(a)) if a.required => c.push(
            ChangeSeverity::Breaking,
            path.to_owned(),
            None,
            Some(field_json(a)),
            format!("New required {what}: calls without it are now rejected."),
        ),
        (None, Some(a)) => c.push(
            ChangeSeverity::Safe,
            path.to_owned(),
            None,
            Some(field_json(a)),
            format!("New optional {what}."),
        ),
        (Some(b), Some(a)) => field(c, path, b, a),
        (None, None) => {}
    }
}

fn field_json(f: &Field) -> Value {
    serde_json::to_value(f).unwrap_or(Value::Null)
}

/// Whether a value of type `before` is always a value of type `after`.
fn type_widens(before: JsonType, after: JsonType) -> bool {
    after == JsonType::Any || (before == JsonType::Integer && after == JsonType::Number)
}

/// The rules of an argument's members that compare at any type, its type last.
const FIELD_RULES: &[&dyn Rule<Field>] = &[
    &Flag {
        member: "required",
        read: |f: &Field| f.required,
        on: (
            ChangeSeverity::Breaking,
            "Now required: calls without it are rejected.",
        ),
        off: (ChangeSeverity::Safe, "Now optional."),
    },
    &Flag {
        member: "nullable",
        read: |f: &Field| f.nullable,
        on: (ChangeSeverity::Safe, "Now accepts null."),
        off: (ChangeSeverity::Breaking, "No longer accepts null."),
    },
    &Optional {
        member: "description",
        read: |f: &Field| f.description.as_deref(),
        json: text_json,
        grade: |_| reworded("Description changed: the model reads the new text as an instruction."),
    },
    &Always {
        member: "type",
        read: |f: &Field| &f.json_type,
        json: |t: &JsonType| Value::from(t.as_str()),
        grade: |b, a| retyped(*b, *a),
    },
];

/// The rules of an argument's constraints, compared only between two of the same type.
const CONSTRAINT_RULES: &[&dyn Rule<Field>] = &[
    &Optional {
        member: "min_length",
        read: |f: &Field| f.min_length.as_ref(),
        json: count_json,
        grade: min_length,
    },
    &Optional {
        member: "max_length",
        read: |f: &Field| f.max_length.as_ref(),
        json: count_json,
        grade: max_length,
    },
    &Optional {
        member: "minimum",
        read: |f: &Field| f.minimum.as_ref(),
        json: Limit::to_json,
        grade: |change| bound(change, true),
    },
    &Optional {
        member: "maximum",
        read: |f: &Field| f.maximum.as_ref(),
        json: Limit::to_json,
        grade: |change| bound(change, false),
    },
    &Optional {
        member: "multiple_of",
        read: |f: &Field| f.multiple_of.as_ref(),
        json: |n: &Number| Value::Number(n.clone()),
        grade: multiple_of,
    },
    &Optional {
        member: "pattern",
        read: |f: &Field| f.pattern.as_deref(),
        json: text_json,
        grade: |change| restriction(change, "pattern"),
    },
    &Optional {
        member: "format",
        read: |f: &Field| f.format.as_deref(),
        json: text_json,
        grade: |change| restriction(change, "format"),
    },
    &Optional {
        member: "enum",
        read: |f: &Field| f.enum_values.as_deref(),
        json: |values: &[Value]| Value::Array(values.to_vec()),
        grade: enum_values,
    },
    &Flag {
        member: "unique",
        read: |f: &Field| f.unique,
        on: (ChangeSeverity::Breaking, "Items must now be distinct."),
        off: (ChangeSeverity::Safe, "Items may now repeat."),
    },
    &Flag {
        member: "custom",
        read: |f: &Field| f.custom,
        on: (
            ChangeSeverity::Risky,
            "A custom check now runs: some values may be rejected.",
        ),
        off: (ChangeSeverity::Safe, "The custom check was removed."),
    },
    &Optional {
        member: "policy",
        read: |f: &Field| f.policy.as_deref(),
        json: text_json,
        grade: policy,
    },
];

/// The rule of the type a nested object is of, read after its checks.
const RECURSIVE: Optional<Field, str> = Optional {
    member: "recursive",
    read: |f: &Field| f.recursive.as_deref(),
    json: text_json,
    grade: |_| {
        (
            ChangeSeverity::Breaking,
            "The nested object type changed.".to_owned(),
        )
    },
};

fn field(c: &mut Collector<'_>, path: &str, b: &Field, a: &Field) {
    for rule in FIELD_RULES {
        rule.apply(c, path, b, a);
    }
    if b.json_type != a.json_type {
        // Constraints of another type are not comparable; the type change says it all.
        return;
    }
    for rule in CONSTRAINT_RULES {
        rule.apply(c, path, b, a);
    }
    checks(c, &format!("{path}.checks"), &b.checks, &a.checks);
    RECURSIVE.apply(c, path, b, a);
    match (&b.items, &a.items) {
        (Some(bi), Some(ai)) => field(c, &format!("{path}[]"), bi, ai),
        (None, None) => {}
        (bi, ai) => structure(c, format!("{path}[]"), bi.as_deref(), ai.as_deref()),
    }
    match (&b.values, &a.values) {
        (Some(bv), Some(av)) => field(c, &format!("{path}{{}}"), bv, av),
        (None, None) => {}
        (bv, av) => structure(c, format!("{path}{{}}"), bv.as_deref(), av.as_deref()),
    }
    variants(c, path, b, a);
    match (&b.fields, &a.fields) {
        (Some(bf), Some(af)) => {
            let names: BTreeSet<&String> = bf.keys().chain(af.keys()).collect();
            for name in names {
                member(
                    c,
                    &format!("{path}.{name}"),
                    "field",
                    bf.get(name),
                    af.get(name),
                );
            }
        }
        (None, None) => {}
        (bf, af) => c.push(
            ChangeSeverity::Breaking,
            format!("{path}.fields"),
            bf.as_ref()
                .map(|f| serde_json::to_value(f).unwrap_or(Value::Null)),
            af.as_ref()
                .map(|f| serde_json::to_value(f).unwrap_or(Value::Null)),
            "The object's shape changed: declared fields became data keys or the reverse.",
        ),
    }
}

fn retyped(before: JsonType, after: JsonType) -> Grade {
    let (b, a) = (before.as_str(), after.as_str());
    if type_widens(before, after) {
        (
            ChangeSeverity::Safe,
            format!("Type widened from {b} to {a}."),
        )
    } else {
        (
            ChangeSeverity::Breaking,
            format!("Type changed from {b} to {a}: values of the old type are rejected."),
        )
    }
}

/// The variants of an enum with data: one removed or a new tagging rejects calls that passed
/// (BREAKING), one added accepts more (SAFE); the fields of a variant kept are compared like
/// those of a nested object.
fn variants(c: &mut Collector<'_>, path: &str, b: &Field, a: &Field) {
    if b.tagging != a.tagging {
        c.push(
            ChangeSeverity::Breaking,
            format!("{path}.tagging"),
            b.tagging.clone().map(Value::from),
            a.tagging.clone().map(Value::from),
            "The variant is named another way on the wire: calls in the old form are rejected.",
        );
        return;
    }
    let empty = BTreeMap::new();
    let (bv, av) = match (&b.variants, &a.variants) {
        (None, None) => return,
        (bv, av) => (bv.as_ref().unwrap_or(&empty), av.as_ref().unwrap_or(&empty)),
    };
    let names: BTreeSet<&String> = bv.keys().chain(av.keys()).collect();
    for name in names {
        let vpath = format!("{path}.variants.{name}");
        match (bv.get(name), av.get(name)) {
            (Some(_), None) => c.push(
                ChangeSeverity::Breaking,
                vpath,
                Some(Value::from(name.as_str())),
                None,
                "The variant was removed: calls that choose it are now rejected.",
            ),
            (None, Some(_)) => c.push(
                ChangeSeverity::Safe,
                vpath,
                None,
                Some(Value::from(name.as_str())),
                "New variant.",
            ),
            (Some(bf), Some(af)) => {
                let fields: BTreeSet<&String> = bf.keys().chain(af.keys()).collect();
                for field in fields {
                    member(
                        c,
                        &format!("{vpath}.{field}"),
                        "field",
                        bf.get(field),
                        af.get(field),
                    );
                }
            }
            (None, None) => {}
        }
    }
}

/// Struct-level checks added (a rule that may reject calls that passed) and removed.
fn checks(c: &mut Collector<'_>, path: &str, before: &[String], after: &[String]) {
    for added in after.iter().filter(|name| !before.contains(name)) {
        c.push(
            ChangeSeverity::Risky,
            path.to_owned(),
            None,
            Some(Value::from(added.as_str())),
            format!(
                "The check `{added}` now runs across the fields: calls that passed may now fail."
            ),
        );
    }
    for removed in before.iter().filter(|name| !after.contains(name)) {
        c.push(
            ChangeSeverity::Safe,
            path.to_owned(),
            Some(Value::from(removed.as_str())),
            None,
            format!("The check `{removed}` was removed."),
        );
    }
}

fn structure(c: &mut Collector<'_>, path: String, b: Option<&Field>, a: Option<&Field>) {
    c.push(
        ChangeSeverity::Breaking,
        path,
        b.map(field_json),
        a.map(field_json),
        "The shape of the contents changed.",
    );
}

/// An argument's output policy: every change is RISKY. A policy added or changed may reject
/// text that passed (what it rejects depends on the text, so it cannot be compared like a
/// bound); a policy removed lets text in unchecked, as an output check removed does.
fn policy(change: Change<'_, str>) -> Grade {
    let text = match change {
        Change::Added(a) => format!(
            "The text is now checked by the output policy `{a}`: some values may be rejected."
        ),
        Change::Removed(b) => {
            format!("The output policy `{b}` was removed: the text is no longer checked.")
        }
        Change::Changed(b, a) => format!(
            "The output policy changed from `{b}` to `{a}`: text that passed may be rejected, and the reverse."
        ),
    };
    (ChangeSeverity::Risky, text)
}

fn min_length(change: Change<'_, u64>) -> Grade {
    // No minimum is a minimum of 0.
    let (b, a) = match change {
        Change::Added(a) => (0, *a),
        Change::Removed(b) => (*b, 0),
        Change::Changed(b, a) => (*b, *a),
    };
    match a.cmp(&b) {
        Ordering::Greater => (
            ChangeSeverity::Breaking,
            format!("Minimum length raised from {b} to {a}: shorter values are rejected."),
        ),
        Ordering::Less => (
            ChangeSeverity::Safe,
            format!("Minimum length lowered from {b} to {a}."),
        ),
        Ordering::Equal => (
            ChangeSeverity::Cosmetic,
            "Minimum length of 0 stated differently.".to_owned(),
        ),
    }
}

fn max_length(change: Change<'_, u64>) -> Grade {
    match change {
        Change::Added(a) => (
            ChangeSeverity::Breaking,
            format!("Maximum length of {a} added: longer values are rejected."),
        ),
        Change::Removed(_) => (ChangeSeverity::Safe, "Maximum length removed.".to_owned()),
        Change::Changed(b, a) if a < b => (
            ChangeSeverity::Breaking,
            format!("Maximum length lowered from {b} to {a}: longer values are rejected."),
        ),
        Change::Changed(b, a) => (
            ChangeSeverity::Safe,
            format!("Maximum length raised from {b} to {a}."),
        ),
    }
}

fn bound(change: Change<'_, Limit>, lower: bool) -> Grade {
    let word = if lower { "Minimum" } else { "Maximum" };
    match change {
        Change::Added(_) => (
            ChangeSeverity::Breaking,
            format!("{word} added: values beyond it are rejected."),
        ),
        Change::Removed(_) => (ChangeSeverity::Safe, format!("{word} removed.")),
        Change::Changed(b, a) => {
            let tighter = if lower {
                a.cmp_as_minimum(b)
            } else {
                a.cmp_as_maximum(b)
            };
            match tighter {
                Some(Ordering::Greater) => (
                    ChangeSeverity::Breaking,
                    format!("{word} narrowed: values the old bound accepted are rejected."),
                ),
                Some(Ordering::Less) => (ChangeSeverity::Safe, format!("{word} widened.")),
                // The same bound written as another number type (1 and 1.0).
                Some(Ordering::Equal) => (ChangeSeverity::Cosmetic, format!("{word} restated.")),
                None => (
                    ChangeSeverity::Breaking,
                    format!("{word} changed to a value that cannot be compared."),
                ),
            }
        }
    }
}

/// Whether every multiple of `old` is a multiple of `new` (`new` divides `old`).
fn divides(new: &Number, old: &Number) -> bool {
    if let (Some(n), Some(o)) = (new.as_i64(), old.as_i64()) {
        return n != 0 && o % n == 0;
    }
    match (new.as_f64(), old.as_f64()) {
        (Some(n), Some(o)) if n != 0.0 => {
            let q = o / n;
            (q - q.round()).abs() < 1e-9
        }
        _ => false,
    }
}

fn multiple_of(change: Change<'_, Number>) -> Grade {
    match change {
        Change::Added(a) => (
            ChangeSeverity::Breaking,
            format!("Values must now be multiples of {a}."),
        ),
        Change::Removed(_) => (
            ChangeSeverity::Safe,
            "The step requirement was removed.".to_owned(),
        ),
        Change::Changed(b, a) if cmp_numbers(a, b) == Some(Ordering::Equal) => {
            (ChangeSeverity::Cosmetic, "Step restated.".to_owned())
        }
        Change::Changed(b, a) if divides(a, b) => (
            ChangeSeverity::Safe,
            format!("Step widened from {b} to {a}: every old value is still accepted."),
        ),
        Change::Changed(b, a) => (
            ChangeSeverity::Breaking,
            format!("Step changed from {b} to {a}: some old values are rejected."),
        ),
    }
}

/// A pattern or a format: new is BREAKING, removed is SAFE, changed is BREAKING because two
/// regular expressions (or formats) cannot be compared for inclusion.
fn restriction(change: Change<'_, str>, what: &str) -> Grade {
    match change {
        Change::Added(a) => (
            ChangeSeverity::Breaking,
            format!("New {what} `{a}`: values that do not match are rejected."),
        ),
        Change::Removed(_) => (ChangeSeverity::Safe, format!("The {what} was removed.")),
        Change::Changed(b, a) => (
            ChangeSeverity::Breaking,
            format!("The {what} changed from `{b}` to `{a}`; treat it as stricter."),
        ),
    }
}

fn enum_values(change: Change<'_, [Value]>) -> Grade {
    match change {
        Change::Added(_) => (
            ChangeSeverity::Breaking,
            "Only the listed values are accepted now.".to_owned(),
        ),
        Change::Removed(_) => (
            ChangeSeverity::Safe,
            "Any value of the type is accepted now.".to_owned(),
        ),
        Change::Changed(b, a) => {
            let removed: Vec<String> = b
                .iter()
                .filter(|v| !a.contains(v))
                .map(Value::to_string)
                .collect();
            let added: Vec<String> = a
                .iter()
                .filter(|v| !b.contains(v))
                .map(Value::to_string)
                .collect();
            if !removed.is_empty() {
                (
                    ChangeSeverity::Breaking,
                    format!("Values no longer accepted: {}.", removed.join(", ")),
                )
            } else if !added.is_empty() {
                (
                    ChangeSeverity::Safe,
                    format!("New values accepted: {}.", added.join(", ")),
                )
            } else {
                (
                    ChangeSeverity::Cosmetic,
                    "The values were reordered.".to_owned(),
                )
            }
        }
    }
}

fn output(
    c: &mut Collector<'_>,
    name: &str,
    before: Option<&BTreeMap<String, OutputField>>,
    after: Option<&BTreeMap<String, OutputField>>,
) {
    let to_json =
        |m: &BTreeMap<String, OutputField>| serde_json::to_value(m).unwrap_or(Value::Null);
    let (b, a) = match (before, after) {
        (None, None) => return,
        (None, Some(a)) => {
            c.push(
                ChangeSeverity::Safe,
                format!("{name}.output"),
                None,
                Some(to_json(a)),
                "The structured result is now described.",
            );
            return;
        }
        (Some(b), None) => {
            c.push(
                ChangeSeverity::Breaking,
                format!("{name}.output"),
                Some(to_json(b)),
                None,
                "The structured result is no longer described: its fields may be gone.",
            );
            return;
        }
        (Some(b), Some(a)) => (b, a),
    };
    let names: BTreeSet<&String> = b.keys().chain(a.keys()).collect();
    for field in names {
        let path = format!("{name}.output.{field}");
        let json = |f: &OutputField| serde_json::to_value(f).unwrap_or(Value::Null);
        match (b.get(field), a.get(field)) {
            (Some(old), None) => c.push(
                ChangeSeverity::Breaking,
                path,
                Some(json(old)),
                None,
                "Result field removed.",
            ),
            (None, Some(new)) => c.push(
                ChangeSeverity::Safe,
                path,
                None,
                Some(json(new)),
                "Result field added.",
            ),
            (Some(old), Some(new)) if old.json_type != new.json_type => c.push(
                ChangeSeverity::Breaking,
                path,
                Some(Value::from(old.json_type.as_str())),
                Some(Value::from(new.json_type.as_str())),
                "Result field type changed.",
            ),
            (Some(old), Some(new)) if old.required != new.required => {
                let (severity, text) = if new.required {
                    (ChangeSeverity::Safe, "Result field is now always present.")
                } else {
                    (ChangeSeverity::Risky, "Result field may now be absent.")
                };
                c.push(
                    severity,
                    format!("{path}.required"),
                    Some(Value::Bool(old.required)),
                    Some(Value::Bool(new.required)),
                    text,
                );
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
