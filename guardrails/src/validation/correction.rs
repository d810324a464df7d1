//! The corrected call: the arguments a caller sent, each mistake the server is sure how to
//! fix fixed, and a marked hole wherever a value is missing or wrong and only the caller knows
//! the right one. What a repeated invalid call is answered with, on every path (derived tools,
//! router guards, the proxy), in every format and in `_meta`.
//!
//! Starting from the arguments as sent (as checked: repaired where the tool repairs):
//!
//! - each value an issue is about, wrong or missing, becomes a hole to fill in, with what the
//!   field needs (a rule's own expectation, else the field's fix text). A hole right inside a
//!   list stands for the whole list: a list's items have no names a hole could stand beside,
//!   and the caller sends the list again;
//! - each unknown key is dropped, except where the server is sure what it meant: the
//!   did-you-mean of its own object (a rename), or the one place a field of that name has at
//!   another level (a move, [`misplaced`](super::misplaced)); sure means the validator named
//!   one field, the name is free at its place, no other key goes there, and the place is in
//!   the call (a move through a list needs the list to hold one item);
//! - the repairs a tool declares are applied (the value read, in place of the string sent);
//! - a value the server does not repeat (a `writeOnly` field, a text longer than
//!   [`MAX_ECHOED_CHARS`]) becomes a hole too, to be sent again as it was; a call longer than
//!   [`MAX_CALL_CHARS`], or any call of a server that echoes no value, is not repeated at all:
//!   the changes and the holes are listed instead.
//!
//! Every value left in the corrected call is one the caller sent: nothing is invented, so a
//! literal agent that sends it changes nothing the caller meant. A hole is written where JSON
//! cannot be: `<fill in: due_date>` in text, and in JSON data the key is left out of
//! `arguments` and listed in `fill` with what it needs, so a corrected call with holes can be
//! sent only once they are filled.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::report::{Issue, IssueCode, Report, push_key};
pub(crate) use super::suggestion::{Meant, PlaceStep, Step, Suggestion};
use crate::text::{cut, escape_json_text, json_text};

/// The longest text a corrected call repeats; a longer one is a hole to send again as it was.
pub(crate) const MAX_ECHOED_CHARS: usize = 400;

/// The longest corrected call repeated, as JSON text; a longer one is described, not repeated.
pub(crate) const MAX_CALL_CHARS: usize = 4000;

/// The most characters of a key a change or a hole names.
const KEY_CHARS: usize = 64;

/// The most changes and holes listed.
const MAX_LISTED: usize = 32;

/// One issue as the corrected call reads it: where, what kind, and what the field needs.
#[derive(Debug, Clone, PartialEq)]
struct Finding {
    path: String,
    code: IssueCode,
    need: Cow<'static, str>,
}

/// What a rejection leaves for its corrected call: every issue's place and need, the fixes
/// the validator is sure of, the repairs made, and the arguments as checked where they were
/// kept (see [`Findings::keep_sent`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Findings {
    issues: Vec<Finding>,
    /// Whether every issue is listed (none past the report's cap).
    complete: bool,
    suggestions: Vec<Suggestion>,
    /// The repairs made: where, and the value read (as the receipt shows it).
    repairs: Vec<(String, String)>,
    sent: Option<Value>,
}

impl Findings {
    /// What the corrected call of a rejection with `report` needs.
    pub(crate) fn of(report: &Report) -> Self {
        Self {
            issues: report
                .issues()
                .iter()
                .map(|issue| Finding {
                    path: issue.path.clone().into_owned(),
                    code: issue.code,
                    need: need(issue),
                })
                .collect(),
            complete: report.omitted() == 0,
            suggestions: report.suggestions().to_vec(),
            repairs: Vec::new(),
            sent: None,
        }
    }

    /// Each issue's path as found and code, for telemetry and the loop breaker.
    pub(crate) fn issues(&self) -> impl Iterator<Item = (&str, IssueCode)> {
        self.issues.iter().map(|f| (f.path.as_str(), f.code))
    }

    /// Notes the repairs made to the arguments: each one's path and the value read.
    pub(crate) fn repaired(&mut self, repairs: &[super::Repair]) {
        self.repairs = repairs
            .iter()
            .map(|r| (r.path.clone(), r.read_as.clone()))
            .collect();
    }

    /// Keeps the arguments as checked, which the corrected call starts from.
    pub(crate) fn keep_sent(&mut self, sent: Value) {
        self.sent = Some(sent);
    }
}

/// What a hole of an issue needs: a rule's own expectation (else its message), or what the
/// field accepts.
fn need(issue: &Issue) -> Cow<'static, str> {
    let own = if matches!(issue.code, IssueCode::Custom | IssueCode::Policy) {
        issue.expected.as_ref()
    } else {
        issue.fix.as_ref().or(issue.expected.as_ref())
    };
    own.cloned().unwrap_or_else(|| issue.message.clone())
}

/// Whether a hole is a value the caller must choose, or its own value sent again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HoleKind {
    Fill,
    Keep,
}

/// A value left out of the corrected call: where, as the model reads the place, and what it
/// needs.
#[derive(Debug, Clone, PartialEq)]
struct Hole {
    /// The object holding it (empty: the arguments themselves, when `key` is `None`).
    parent: Vec<Step>,
    key: Option<String>,
    shown: String,
    need: String,
    kind: HoleKind,
}

impl Hole {
    fn steps(&self) -> Vec<Step> {
        let mut steps = self.parent.clone();
        if let Some(key) = &self.key {
            steps.push(Step::Key(key.clone()));
        }
        steps
    }
}

/// A repeated invalid call, corrected: see the [module](self).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Corrected {
    /// The arguments without the holes; `None` when they are not repeated (too long, or the
    /// server echoes no value), or when the arguments themselves are the hole.
    arguments: Option<Value>,
    /// Why the arguments are not repeated, when they are not.
    withheld: Option<&'static str>,
    holes: Vec<Hole>,
    /// What was changed, in words: renames, moves, removals, repairs.
    changes: Vec<String>,
}

/// The corrected call of a rejection, when its arguments were kept and every issue is known.
/// `write_only` are the names of the fields whose values are never repeated; `echo` is off
/// when the server echoes no value.
pub(crate) fn correct(
    findings: &Findings,
    write_only: &BTreeSet<String>,
    echo: bool,
) -> Option<Corrected> {
    let sent = findings.sent.as_ref()?;
    if !findings.complete {
        return None;
    }
    let mut args = sent.clone();
    let mut changes = Vec::new();
    apply_repairs(&mut args, &findings.repairs, &mut changes);
    let mut holes = holes_of(&args, &findings.issues);
    let unknown = unknown_keys(&args, &findings.issues, &holes);
    let mut fixes = sure_fixes(&args, findings, &holes);
    fixes.retain(|fix| unknown.iter().any(|(key, _)| *key == fix.from));
    // A field a fix fills is not missing any more.
    let (filled, kept): (Vec<Hole>, Vec<Hole>) = holes
        .into_iter()
        .partition(|hole| fixes.iter().any(|fix| fix.to == hole.steps()));
    holes = kept;
    // Values out: the holes, then every unknown key; values in: the fixes.
    for hole in &holes {
        remove(&mut args, &hole.steps());
    }
    let mut taken = Vec::with_capacity(fixes.len());
    for (key, finding) in unknown {
        let value = remove(&mut args, &key);
        match (fixes.iter().any(|fix| fix.from == key), value) {
            (true, Some(value)) => taken.push((key, value)),
            _ => changes.push(format!("removed {}", shown_path(&key, &finding.path))),
        }
    }
    // Renames first: a move may go into a list sent under a misspelt name.
    for fix in &fixes {
        let Some(at) = taken.iter().position(|(key, _)| *key == fix.from) else {
            continue;
        };
        let (_, value) = taken.swap_remove(at);
        if insert(&mut args, &fix.to, value) {
            changes.push(fix.change.clone());
        } else if let Some(hole) = filled.iter().find(|hole| hole.steps() == fix.to) {
            holes.push(hole.clone());
        }
    }
    if holes.iter().any(|hole| hole.key.is_none()) {
        // The arguments themselves are the hole.
        return Some(Corrected {
            arguments: None,
            withheld: None,
            holes,
            changes,
        });
    }
    if !echo {
        return Some(Corrected {
            arguments: None,
            withheld: Some("this server does not echo values"),
            holes,
            changes,
        });
    }
    let mut kept = Vec::new();
    not_repeated(&mut args, &mut Vec::new(), write_only, &mut kept);
    if json_text(&args).len() > MAX_CALL_CHARS {
        return Some(Corrected {
            arguments: None,
            withheld: Some("the call is too long to repeat"),
            holes,
            changes,
        });
    }
    holes.extend(kept);
    Some(Corrected {
        arguments: Some(args),
        withheld: None,
        holes,
        changes,
    })
}

/// Applies each repair whose value read is plain JSON (a number, a boolean, an array or an
/// object, as the receipt shows it) in place of the string sent.
fn apply_repairs(args: &mut Value, repairs: &[(String, String)], changes: &mut Vec<String>) {
    for (path, read_as) in repairs {
        let Some(steps) = parse_path(path) else {
            continue;
        };
        let Ok(exact) = resolve(args, &steps) else {
            continue;
        };
        let Ok(read) = serde_json::from_str::<Value>(read_as) else {
            continue;
        };
        if let Some(slot) = get_mut(args, &exact)
            && slot.is_string()
            && !read.is_string()
        {
            *slot = read;
            changes.push(format!("unquoted {}", shown_path(&exact, path)));
        }
    }
}

/// The holes of the issues about values: at each value found wrong, or missing; lifted out of
/// lists to the list, and out of a place that is not in the call to the nearest one that is.
fn holes_of(args: &Value, findings: &[Finding]) -> Vec<Hole> {
    let mut holes: Vec<Hole> = Vec::new();
    for finding in findings {
        if finding.code == IssueCode::UnknownField {
            continue;
        }
        let steps = parse_path(&finding.path).unwrap_or_default();
        let (mut exact, mut lifted) = match resolve(args, &steps) {
            Ok(exact) => (exact, false),
            // A missing field of an object that is there: a new key.
            Err(found)
                if found.len() + 1 == steps.len()
                    && finding.code == IssueCode::Missing
                    && get(args, &found).is_some_and(Value::is_object) =>
            {
                let mut exact = found;
                exact.push(steps[steps.len() - 1].clone());
                (exact, false)
            }
            Err(found) => (found, true),
        };
        while matches!(exact.last(), Some(Step::Index(_))) {
            exact.pop();
            lifted = true;
        }
        let need = if lifted {
            format!("{} ({})", finding.need, finding.path)
        } else {
            finding.need.clone().into_owned()
        };
        // One hole per place: one inside another is part of it.
        if holes.iter().any(|hole| starts_with(&exact, &hole.steps())) {
            if let Some(hole) = holes.iter_mut().find(|hole| hole.steps() == exact)
                && !hole.need.contains(&need)
            {
                let _ = write!(hole.need, "; {need}");
            }
            continue;
        }
        holes.retain(|hole| !starts_with(&hole.steps(), &exact));
        let shown = if lifted {
            shown_path(&exact, "")
        } else {
            finding.path.clone()
        };
        let key = match exact.pop() {
            Some(Step::Key(key)) => Some(key),
            _ => None,
        };
        holes.push(Hole {
            parent: exact,
            key,
            shown: if shown.is_empty() {
                "(arguments)".to_owned()
            } else {
                shown
            },
            need,
            kind: HoleKind::Fill,
        });
    }
    holes
}

/// A rename or move the server is sure of.
struct Fix {
    from: Vec<Step>,
    to: Vec<Step>,
    change: String,
}

/// The fixes of unknown keys the server is sure of: named by the validator, to a place that is
/// in the call, free (or a missing field's) and out of every hole, that no other key goes to.
/// Renames first, then moves, found in the call as renamed: a field sent at the wrong level
/// finds its place in a list sent under a misspelt name.
fn sure_fixes(args: &Value, findings: &Findings, holes: &[Hole]) -> Vec<Fix> {
    let renames = sure(args, findings, holes, &[], true);
    let mut as_renamed = args.clone();
    for fix in &renames {
        if let Some(value) = remove(&mut as_renamed, &fix.from) {
            insert(&mut as_renamed, &fix.to, value);
        }
    }
    // A missing field a rename fills is no hole a move must stay out of.
    let holes: Vec<Hole> = holes
        .iter()
        .filter(|hole| !renames.iter().any(|fix| fix.to == hole.steps()))
        .cloned()
        .collect();
    let moves = sure(&as_renamed, findings, &holes, &renames, false);
    renames.into_iter().chain(moves).collect()
}

/// The sure fixes of one kind (renames, or moves), beside those already `found`.
fn sure(
    args: &Value,
    findings: &Findings,
    holes: &[Hole],
    found: &[Fix],
    renames: bool,
) -> Vec<Fix> {
    let mut fixes: Vec<Fix> = Vec::new();
    let mut taken: Vec<Vec<Step>> = found.iter().map(|fix| fix.to.clone()).collect();
    for suggestion in &findings.suggestions {
        if matches!(suggestion.meant, Meant::Rename(_)) != renames {
            continue;
        }
        let Ok(from) = resolve(args, &suggestion.key) else {
            continue;
        };
        let Some((Step::Key(key), container)) = from.split_last() else {
            continue;
        };
        let to = match &suggestion.meant {
            Meant::Rename(name) => {
                let mut to = container.to_vec();
                to.push(Step::Key(name.clone()));
                Some(to)
            }
            Meant::Move(place) => place_in(args, place),
        };
        let Some(to) = to else { continue };
        let missing = holes
            .iter()
            .any(|hole| hole.steps() == to && hole.kind == HoleKind::Fill);
        let free = missing || get(args, &to).is_none();
        let in_hole = holes
            .iter()
            .any(|hole| starts_with(&to, &hole.steps()) && hole.steps() != to);
        if !free || in_hole || taken.contains(&to) {
            // Two keys meant for one place: neither is sure.
            fixes.retain(|fix| fix.to != to);
            taken.push(to);
            continue;
        }
        let change = match &suggestion.meant {
            Meant::Rename(name) => format!(
                "renamed {} to {}",
                quoted_key(key),
                crate::text::quote_json(name)
            ),
            Meant::Move(_) => format!("moved {} to {}", shown_path(&from, ""), shown_path(&to, "")),
        };
        taken.push(to.clone());
        fixes.push(Fix { from, to, change });
    }
    fixes
}

/// The place a declared field's template stands for in the call: each list on the way must
/// hold one item, and the object that holds the field must be there.
fn place_in(args: &Value, place: &[PlaceStep]) -> Option<Vec<Step>> {
    let (last, containers) = place.split_last()?;
    let PlaceStep::Field(name) = last else {
        return None;
    };
    let mut at = args;
    let mut steps = Vec::with_capacity(place.len());
    for step in containers {
        match step {
            PlaceStep::Field(field) => {
                at = at.as_object()?.get(field)?;
                steps.push(Step::Key(field.clone()));
            }
            PlaceStep::Each => match at.as_array().map(Vec::as_slice) {
                Some([only]) => {
                    at = only;
                    steps.push(Step::Index(0));
                }
                _ => return None,
            },
        }
    }
    at.as_object()?;
    steps.push(Step::Key(name.clone()));
    Some(steps)
}

/// The unknown keys of the call outside every hole, each with its issue.
fn unknown_keys<'f>(
    args: &Value,
    findings: &'f [Finding],
    holes: &[Hole],
) -> Vec<(Vec<Step>, &'f Finding)> {
    findings
        .iter()
        .filter(|finding| finding.code == IssueCode::UnknownField)
        .filter_map(|finding| {
            let steps = parse_path(&finding.path)?;
            let exact = resolve(args, &steps).ok()?;
            let in_hole = holes.iter().any(|hole| starts_with(&exact, &hole.steps()));
            (matches!(exact.last(), Some(Step::Key(_))) && !in_hole).then_some((exact, finding))
        })
        .collect()
}

/// Turns every value not repeated into a hole: the fields in `write_only`, and texts longer
/// than [`MAX_ECHOED_CHARS`] (the object field that holds them, out of lists).
fn not_repeated(
    value: &mut Value,
    at: &mut Vec<Step>,
    write_only: &BTreeSet<String>,
    holes: &mut Vec<Hole>,
) -> bool {
    match value {
        Value::String(text) => text.chars().nth(MAX_ECHOED_CHARS).is_some(),
        Value::Array(items) => {
            let mut long = false;
            for (i, item) in items.iter_mut().enumerate() {
                at.push(Step::Index(i));
                long |= not_repeated(item, at, write_only, holes);
                at.pop();
            }
            long
        }
        Value::Object(object) => {
            let mut out = Vec::new();
            for (key, item) in object.iter_mut() {
                at.push(Step::Key(key.clone()));
                let long = not_repeated(item, at, write_only, holes);
                at.pop();
                let secret = write_only.contains(key);
                if long || secret {
                    out.push(key.clone());
                    let mut place = at.clone();
                    place.push(Step::Key(key.clone()));
                    holes.push(Hole {
                        parent: at.clone(),
                        key: Some(key.clone()),
                        shown: shown_path(&place, ""),
                        need: if secret {
                            "your own value, as you sent it (not repeated: it is secret)".to_owned()
                        } else {
                            "your own value, as you sent it (not repeated: it is long)".to_owned()
                        },
                        kind: HoleKind::Keep,
                    });
                }
            }
            for key in out {
                object.remove(&key);
            }
            false
        }
        _ => false,
    }
}

impl Corrected {
    /// Whether the corrected call can be sent as it is: nothing to fill in, nothing left out.
    pub(crate) fn is_complete(&self) -> bool {
        self.holes.is_empty() && self.arguments.is_some()
    }

    /// The call as text: JSON, with each hole written `<fill in: place>` where its value goes;
    /// `None` when the arguments are not repeated.
    pub(crate) fn call_text(&self, tool: &str) -> Option<String> {
        let arguments = match (&self.arguments, self.withheld) {
            (Some(arguments), _) => arguments,
            (None, None) => {
                // The arguments themselves are the hole.
                let mut out = String::from("{\"name\":");
                out.push_str(&json_text(&Value::from(tool)));
                out.push_str(",\"arguments\":<fill in: (arguments)>}");
                return Some(out);
            }
            (None, Some(_)) => return None,
        };
        let mut out = String::from("{\"name\":");
        out.push_str(&json_text(&Value::from(tool)));
        out.push_str(",\"arguments\":");
        self.write_value(arguments, &mut Vec::new(), &mut out);
        out.push('}');
        Some(escape_json_text(&out).into_owned())
    }

    fn write_value(&self, value: &Value, at: &mut Vec<Step>, out: &mut String) {
        match value {
            Value::Object(object) => {
                out.push('{');
                let mut first = true;
                let mut comma = |out: &mut String| {
                    if !std::mem::take(&mut first) {
                        out.push(',');
                    }
                };
                for (key, item) in object {
                    comma(out);
                    out.push_str(&json_text(&Value::from(key.as_str())));
                    out.push(':');
                    at.push(Step::Key(key.clone()));
                    self.write_value(item, at, out);
                    at.pop();
                }
                for hole in self.holes.iter().filter(|hole| hole.parent == *at) {
                    let Some(key) = &hole.key else { continue };
                    comma(out);
                    out.push_str(&json_text(&Value::from(key.as_str())));
                    out.push_str(":<fill in: ");
                    out.push_str(&hole.shown);
                    out.push('>');
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    at.push(Step::Index(i));
                    self.write_value(item, at, out);
                    at.pop();
                }
                out.push(']');
            }
            other => out.push_str(&json_text(other)),
        }
    }

    /// Each hole's place as the model reads it and what it needs, at most [`MAX_LISTED`].
    pub(crate) fn fill(&self) -> impl Iterator<Item = (&str, &str)> {
        self.holes
            .iter()
            .take(MAX_LISTED)
            .map(|hole| (hole.shown.as_str(), hole.need.as_str()))
    }

    /// The changes made to the call, in words, at most [`MAX_LISTED`].
    pub(crate) fn changes(&self) -> &[String] {
        &self.changes[..self.changes.len().min(MAX_LISTED)]
    }

    /// Why the arguments are not repeated, when they are not.
    pub(crate) fn withheld(&self) -> Option<&'static str> {
        self.withheld
    }

    /// The corrected call as data: `{"name", "arguments", "fill": [{"field", "expected"}],
    /// "changes"}`, the arguments without the holes (left out when they are not repeated).
    pub(crate) fn to_value(&self, tool: &str) -> Value {
        let mut call = Map::new();
        call.insert("name".into(), Value::from(tool));
        if let Some(arguments) = &self.arguments {
            call.insert("arguments".into(), arguments.clone());
        }
        if let Some(why) = self.withheld {
            call.insert("notRepeated".into(), Value::from(why));
        }
        let fill: Vec<Value> = self
            .fill()
            .map(|(field, expected)| json!({"field": field, "expected": expected}))
            .collect();
        call.insert("fill".into(), Value::Array(fill));
        call.insert("changes".into(), json!(self.changes()));
        Value::Object(call)
    }
}

/// Every field name in `schema` whose value is `writeOnly`: never repeated in a corrected call.
pub(crate) fn write_only_names(schema: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    collect_write_only(schema, &mut names, 0);
    names
}

fn collect_write_only(schema: &Value, names: &mut BTreeSet<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    match schema {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = object.get("properties") {
                for (name, property) in properties {
                    if property.get("writeOnly") == Some(&Value::Bool(true)) {
                        names.insert(name.clone());
                    }
                }
            }
            for value in object.values() {
                collect_write_only(value, names, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_write_only(item, names, depth + 1);
            }
        }
        _ => {}
    }
}

/// The steps of an issue's path (`lines[0].sku`, `["odd key"]`): `None` when it is not one.
pub(crate) fn parse_path(path: &str) -> Option<Vec<Step>> {
    parse(path, false).map(|parts| {
        parts
            .into_iter()
            .filter_map(|part| match part {
                Part::Key(key) => Some(Step::Key(key)),
                Part::Index(i) => Some(Step::Index(i)),
                Part::Each => None,
            })
            .collect()
    })
}

/// The steps of a field's place (`lines[].quantity`), its container a template (see
/// [`misplaced`](super::misplaced)).
pub(crate) fn parse_place(container: &str, field: &str) -> Option<Vec<PlaceStep>> {
    let mut steps: Vec<PlaceStep> = parse(container, true)?
        .into_iter()
        .map(|part| match part {
            Part::Key(key) => Some(PlaceStep::Field(key)),
            Part::Each => Some(PlaceStep::Each),
            Part::Index(_) => None,
        })
        .collect::<Option<_>>()?;
    steps.push(PlaceStep::Field(field.to_owned()));
    Some(steps)
}

enum Part {
    Key(String),
    Index(usize),
    Each,
}

/// The parts of a path as [`push_key`] writes them: `.name`, `["quoted"]`, `[3]`, and in a
/// template `[]`.
fn parse(path: &str, template: bool) -> Option<Vec<Part>> {
    let mut parts = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            if let Some(after) = inner.strip_prefix(']') {
                if !template {
                    return None;
                }
                parts.push(Part::Each);
                rest = after;
            } else if inner.starts_with('"') {
                let mut strings = serde_json::Deserializer::from_str(inner).into_iter::<String>();
                let key = strings.next()?.ok()?;
                let after = inner[strings.byte_offset()..].strip_prefix(']')?;
                parts.push(Part::Key(key));
                rest = after;
            } else {
                let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
                let after = inner[digits..].strip_prefix(']')?;
                parts.push(Part::Index(inner[..digits].parse().ok()?));
                rest = after;
            }
        } else {
            let name = if parts.is_empty() {
                rest
            } else {
                rest.strip_prefix('.')?
            };
            let end = name.find(['.', '[']).unwrap_or(name.len());
            if end == 0 {
                return None;
            }
            parts.push(Part::Key(name[..end].to_owned()));
            rest = &name[end..];
        }
    }
    Some(parts)
}

/// The exact place of `steps` in `value`: each key as the call spells it (a key an issue
/// shows cut matches the one key it is the start of; a number is an index in a list), or the
/// longest prefix that is in the call.
fn resolve(value: &Value, steps: &[Step]) -> Result<Vec<Step>, Vec<Step>> {
    let mut at = value;
    let mut exact = Vec::with_capacity(steps.len());
    for step in steps {
        let next = match (step, at) {
            (Step::Key(key), Value::Object(object)) => match object.get_key_value(key) {
                Some((key, next)) => Some((Step::Key(key.clone()), next)),
                None => {
                    let mut cut_to = object
                        .iter()
                        .filter(|(sent, _)| key.ends_with('…') && cut(sent, KEY_CHARS) == **key);
                    match (cut_to.next(), cut_to.next()) {
                        (Some((key, next)), None) => Some((Step::Key(key.clone()), next)),
                        _ => None,
                    }
                }
            },
            (Step::Index(i), Value::Array(items)) => items.get(*i).map(|v| (Step::Index(*i), v)),
            (Step::Key(key), Value::Array(items)) => key
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get(i).map(|v| (Step::Index(i), v))),
            _ => None,
        };
        match next {
            Some((step, next)) => {
                exact.push(step);
                at = next;
            }
            None => return Err(exact),
        }
    }
    Ok(exact)
}

fn get<'v>(value: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    steps.iter().try_fold(value, |at, step| match (step, at) {
        (Step::Key(key), Value::Object(object)) => object.get(key),
        (Step::Index(i), Value::Array(items)) => items.get(*i),
        _ => None,
    })
}

fn get_mut<'v>(value: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    steps.iter().try_fold(value, |at, step| match (step, at) {
        (Step::Key(key), Value::Object(object)) => object.get_mut(key),
        (Step::Index(i), Value::Array(items)) => items.get_mut(*i),
        _ => None,
    })
}

/// Takes the object member at `steps` out of `value`.
fn remove(value: &mut Value, steps: &[Step]) -> Option<Value> {
    let (Step::Key(key), parent) = steps.split_last()? else {
        return None;
    };
    get_mut(value, parent)?.as_object_mut()?.remove(key)
}

/// Puts `item` at `steps`, an object member that is free; whether it was put.
fn insert(value: &mut Value, steps: &[Step], item: Value) -> bool {
    let Some((Step::Key(key), parent)) = steps.split_last() else {
        return false;
    };
    match get_mut(value, parent).and_then(Value::as_object_mut) {
        Some(object) if !object.contains_key(key) => {
            object.insert(key.clone(), item);
            true
        }
        _ => false,
    }
}

fn starts_with(steps: &[Step], prefix: &[Step]) -> bool {
    steps.len() >= prefix.len() && steps[..prefix.len()] == *prefix
}

/// A place as the model reads it: `lines[0].sku`; `fallback` when it is the arguments.
fn shown_path(steps: &[Step], fallback: &str) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(key) => push_key(&mut out, &cut(key, KEY_CHARS)),
            Step::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    if out.is_empty() {
        fallback.to_owned()
    } else {
        out
    }
}

/// A key the caller sent, as a JSON string cut to [`KEY_CHARS`].
fn quoted_key(key: &str) -> String {
    crate::text::quote_json(&cut(key, KEY_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_places_read_back_as_they_are_written() {
        let steps = parse_path("lines[2].sku").unwrap();
        assert_eq!(
            steps,
            [
                Step::Key("lines".into()),
                Step::Index(2),
                Step::Key("sku".into())
            ]
        );
        let steps = parse_path(r#"["odd key"].x[0]"#).unwrap();
        assert_eq!(
            steps,
            [
                Step::Key("odd key".into()),
                Step::Key("x".into()),
                Step::Index(0)
            ]
        );
        assert_eq!(parse_path(""), Some(Vec::new()));
        assert!(parse_path("lines[]").is_none());
        assert!(parse_path("a..b").is_none());
        let place = parse_place("order.lines[]", "quantity").unwrap();
        assert_eq!(
            place,
            [
                PlaceStep::Field("order".into()),
                PlaceStep::Field("lines".into()),
                PlaceStep::Each,
                PlaceStep::Field("quantity".into())
            ]
        );
        let mut written = String::new();
        for key in ["a b", "c", "\"q\""] {
            push_key(&mut written, key);
        }
        assert_eq!(
            parse_path(&written).unwrap(),
            [
                Step::Key("a b".into()),
                Step::Key("c".into()),
                Step::Key("\"q\"".into())
            ]
        );
    }

    #[test]
    fn a_cut_key_finds_the_one_key_it_starts() {
        let long = "k".repeat(100);
        let value = json!({ long.clone(): 1, "b": 2 });
        let shown = cut(&long, KEY_CHARS).into_owned();
        assert_eq!(
            resolve(&value, &[Step::Key(shown)]),
            Ok(vec![Step::Key(long)])
        );
        assert_eq!(resolve(&value, &[Step::Key("zz".into())]), Err(Vec::new()));
    }
}
