//! The context of one validation pass: the issues found so far and where the pass is.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;

use super::correction::{self, Meant, Step, Suggestion};
use super::info::{ArgsInfo, FieldInfo, Kind, json_type_noun, withheld};
use super::misplaced::{self, Place};
use super::repair::Repair;
use super::report::{Issue, IssueCode, IssueSink, Report, is_plain_key, push_key};
use super::tables::TextTable;
use crate::policy::Policy;
use crate::text::{closest, cut, did_you_mean, preview, quoted_list};

/// The most characters of an unknown key that an issue echoes back.
const KEY_PREVIEW_CHARS: usize = 64;

/// Where a validation pass is inside the arguments.
#[derive(Debug, Clone)]
enum Segment {
    /// A declared field, with the kind of its type (for its fix text).
    Field(&'static FieldInfo, fn() -> Kind),
    Index(usize),
    Key(String),
}

/// The context of one validation pass: the issues found so far and where the pass is.
///
/// Generated code and [`ArgValue`](crate::ArgValue) implementations record issues through it; the path and the
/// fix text of the field being checked are added automatically.
#[derive(Debug, Default)]
pub struct Cx {
    report: Report,
    /// The containers the pass is inside.
    path: Vec<Segment>,
    /// The field being checked at the innermost level. Kept out of `path` so that checking a
    /// scalar field costs a store, not a push and a pop; it joins `path` only when the pass
    /// descends into the field's value.
    leaf: Option<Leaf>,
    /// In a probe pass (see [`Cx::probing`]), the policies met, by where they are; `None` in a
    /// validation pass.
    probe: Option<Vec<ProbedPolicy>>,
    /// Whether no value is echoed, sensitive or not (a server's `echo_values` off).
    withhold_all: bool,
    /// The arguments type of the whole call, when known: where misplaced keys are looked up.
    root: Option<&'static ArgsInfo>,
    /// Misplaced keys: the template of the field each belongs to, and the path it was sent at.
    moves: Vec<(String, String)>,
    /// The template of the field the unknown key being recorded belongs to.
    pending_move: Option<String>,
    /// Whether values whose meaning is not in doubt are repaired (see [`Cx::repairing`]).
    repair: bool,
    /// The repairs made so far.
    repairs: Vec<Repair>,
}

/// One step of the path to a field whose text a policy checks, as a probe pass records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProbeStep {
    /// A declared field, by wire name.
    Field(&'static str),
    /// An item of an array.
    Index,
    /// A value of an object whose keys are data.
    Key,
}

/// A field whose text a policy checks: where it is, and the policy's name in contracts.
pub(crate) type ProbedPolicy = (Vec<ProbeStep>, Policy);

/// A declared field, with the kind of its type (for its fix text).
pub(crate) type Leaf = (&'static FieldInfo, fn() -> Kind);

thread_local! {
    /// A path buffer kept between calls, so that validating valid arguments allocates nothing
    /// beyond the typed value itself.
    static SPARE_PATH: std::cell::Cell<Vec<Segment>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Cx {
    /// A fresh context at the top of the arguments.
    #[must_use]
    pub fn new() -> Self {
        Self {
            report: Report::new(),
            // Taken from the thread's spare buffer when the pass first descends: arguments
            // without nested values never touch it.
            path: Vec::new(),
            leaf: None,
            probe: None,
            withhold_all: false,
            root: None,
            moves: Vec::new(),
            pending_move: None,
            repair: false,
            repairs: Vec::new(),
        }
    }

    /// This context, repairing (`on`) or not the slips whose meaning is not in doubt: a
    /// number, a boolean, an array or an object sent as a string where the field's type leaves
    /// one reading of it (see [`Repair`]). Each repair is noted (see
    /// [`ToolArgs::validate_repairing`](super::ToolArgs::validate_repairing)), and the
    /// repaired value is checked like any value sent. A string field, a `sensitive` or
    /// `no_repair` field and the variants of an enum with data are never repaired.
    #[must_use]
    pub fn repairing(mut self, on: bool) -> Self {
        self.repair = on;
        self
    }

    /// Whether this pass repairs values: generated code and field types test it before
    /// trying a repair, so that a pass that does not pays one test.
    #[must_use]
    pub(crate) fn repairs_on(&self) -> bool {
        self.repair
    }

    /// `value`, or the value it stands for where a value of `kind` is expected at the current
    /// place when there is one reading of it; the repair is noted. Call it where a value does
    /// not have its type's JSON shape, before its checks.
    pub(crate) fn repair(&mut self, kind: &Kind, value: Value) -> Value {
        if !self.repair || self.is_probing() {
            return value;
        }
        let Some((read, slip)) = super::repair::attempt(kind, &value) else {
            return value;
        };
        if self.repair_barred() {
            return value;
        }
        let (sent, read_as) = if self.withhold_all {
            (withheld(&value), withheld(&read))
        } else {
            (preview(&value), preview(&read))
        };
        self.repairs.push(Repair {
            path: self.path(),
            kind: slip,
            sent,
            read_as,
        });
        read
    }

    /// Whether the current place is a `sensitive` or `no_repair` field, or inside one.
    fn repair_barred(&self) -> bool {
        let barred = |field: &FieldInfo| field.sensitive || field.no_repair;
        self.leaf.is_some_and(|(field, _)| barred(field))
            || self
                .path
                .iter()
                .any(|seg| matches!(seg, Segment::Field(field, _) if barred(field)))
    }

    /// The repairs made so far, taken out of the context.
    pub(crate) fn take_repairs(&mut self) -> Vec<Repair> {
        std::mem::take(&mut self.repairs)
    }

    /// Ends the pass, returning its report and the repairs it made.
    pub(crate) fn finish(mut self) -> (Report, Vec<Repair>) {
        let repairs = std::mem::take(&mut self.repairs);
        (self.into_report(), repairs)
    }

    /// A fresh context that echoes no value the caller sent: every issue says what kind of
    /// value was sent and its size ([`withheld`](super::withheld)), never its content, and an
    /// output policy's issue names the rule and the place, not the text it flagged. Keys stay
    /// named: a misspelt key is what the model must correct. What a server's calls use when
    /// [`RenderOptions::with_echo_values`](crate::RenderOptions::with_echo_values) turns the echo off; validate with
    /// it yourself through [`ToolArgs::validate_in`](super::ToolArgs::validate_in).
    #[must_use]
    pub fn withholding_values() -> Self {
        let mut cx = Self::new();
        cx.withhold_all = true;
        cx
    }

    /// Whether a value at the current place is withheld rather than echoed: the context
    /// withholds every value, or the place is a sensitive field or inside one.
    #[must_use]
    pub(crate) fn withholds_values(&self) -> bool {
        self.withhold_all
            || self.leaf.is_some_and(|(field, _)| field.sensitive)
            || self
                .path
                .iter()
                .any(|seg| matches!(seg, Segment::Field(field, _) if field.sensitive))
    }

    /// What an issue at the current place says was sent.
    fn received(&self, value: &Value) -> Cow<'static, str> {
        Cow::Owned(if self.withholds_values() {
            withheld(value)
        } else {
            preview(value)
        })
    }

    /// A probe pass: it reads arguments (a type's valid example) through the very code that
    /// validates them, records no issue, runs no custom check, and notes every field whose text
    /// a policy checks instead of checking it. What a policy guards is learnt from the
    /// validator itself, so the contract cannot disagree with it.
    pub(crate) fn probing() -> Self {
        let mut cx = Self::new();
        cx.probe = Some(Vec::new());
        cx
    }

    /// Whether this is a probe pass.
    pub(crate) fn is_probing(&self) -> bool {
        self.probe.is_some()
    }

    /// In a probe pass, notes that `policy` checks the text of `field` at the current place.
    pub(crate) fn note_policy(&mut self, field: &'static FieldInfo, policy: &Policy) {
        let Some(probe) = &mut self.probe else {
            return;
        };
        let mut steps: Vec<ProbeStep> = self
            .path
            .iter()
            .map(|segment| match segment {
                Segment::Field(field, _) => ProbeStep::Field(field.name),
                Segment::Index(_) => ProbeStep::Index,
                Segment::Key(_) => ProbeStep::Key,
            })
            .collect();
        steps.push(ProbeStep::Field(field.name));
        if !probe.iter().any(|(seen, _)| *seen == steps) {
            probe.push((steps, policy.clone()));
        }
    }

    /// Ends a probe pass, returning the policies it met.
    pub(crate) fn into_probed(mut self) -> Vec<ProbedPolicy> {
        self.probe.take().unwrap_or_default()
    }

    /// Ends the pass, returning its report. A missing field that a misplaced key belongs to
    /// says where that key was sent.
    #[must_use]
    pub(crate) fn into_report(mut self) -> Report {
        let mut report = std::mem::take(&mut self.report);
        misplaced::note_moves(report.issues_mut().iter_mut(), &self.moves);
        report
    }

    /// Sets the arguments type of the whole call, so that an unknown key that is a field at
    /// another level is pointed to its place. [`ToolArgs::validate_in`](super::ToolArgs::validate_in)
    /// does it.
    pub(crate) fn set_root(&mut self, root: &'static ArgsInfo) {
        self.root = Some(root);
    }

    /// The number of issues found so far.
    #[must_use]
    #[doc(hidden)]
    pub fn issue_count(&self) -> usize {
        self.report.len()
    }

    /// The current path, e.g. `items[2].name`.
    #[must_use]
    pub(crate) fn path(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            match seg {
                Segment::Field(field, _) => push_key(&mut out, field.name),
                Segment::Key(name) => push_key(&mut out, name),
                Segment::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
            }
        }
        if let Some((field, _)) = self.leaf {
            push_key(&mut out, field.name);
        }
        out
    }

    /// The current path as an issue keeps it: a top-level field's is its name, borrowed from
    /// the declaration; a deeper place's is built.
    fn issue_path(&self) -> Cow<'static, str> {
        let field = match (self.path.as_slice(), self.leaf) {
            ([], Some((field, _))) => Some(field.name),
            ([Segment::Field(field, _)], None) => Some(field.name),
            _ => None,
        };
        match field {
            Some(name) if is_plain_key(name) => Cow::Borrowed(name),
            _ => Cow::Owned(self.path()),
        }
    }

    /// Runs `f` one array index deeper.
    pub fn at_index<R>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        self.descend(Some(Segment::Index(index)), f)
    }

    /// Runs `f` over the items of a list: `f` gets a [`ListCx`] that moves to each index in
    /// turn. The same path as [`Cx::at_index`] for each item, with one step pushed for the
    /// whole list instead of one per item.
    pub(crate) fn in_list<R>(&mut self, f: impl FnOnce(&mut ListCx<'_>) -> R) -> R {
        self.descend(Some(Segment::Index(0)), |cx| f(&mut ListCx { cx }))
    }

    /// Runs `f` one object key deeper (for map-like values whose keys are data).
    ///
    /// The keys of a map whose values are withheld are data too: the path says `*` for them.
    pub fn at_key<R>(&mut self, key: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let key = if self.withholds_values() {
            "*".to_owned()
        } else {
            cut(key, KEY_PREVIEW_CHARS).into_owned()
        };
        self.descend(Some(Segment::Key(key)), f)
    }

    /// Runs `f` aside: the issues it finds are counted, not kept. How the variants of an
    /// untagged enum are tried before the closest is reported.
    ///
    /// Nothing is repaired in a trial: a repair could make a value read as another variant
    /// than serde would read it as.
    pub(crate) fn trial<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> (R, usize) {
        let kept = std::mem::take(&mut self.report);
        let moves = self.moves.len();
        let repair = std::mem::replace(&mut self.repair, false);
        let out = f(self);
        self.repair = repair;
        let tried = std::mem::replace(&mut self.report, kept);
        self.moves.truncate(moves);
        (out, tried.len() + tried.omitted())
    }

    /// Runs `f` inside the value of the current field: how a nested struct's fields are
    /// checked.
    pub(crate) fn nested<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.descend(None, f)
    }

    fn descend<R>(&mut self, step: Option<Segment>, f: impl FnOnce(&mut Self) -> R) -> R {
        if self.path.capacity() == 0 {
            self.path = SPARE_PATH
                .try_with(std::cell::Cell::take)
                .unwrap_or_default();
        }
        let leaf = self.leaf.take();
        if let Some((field, kind)) = leaf {
            self.path.push(Segment::Field(field, kind));
        }
        let stepped = step.is_some();
        if let Some(step) = step {
            self.path.push(step);
        }
        let out = f(self);
        if stepped {
            self.path.pop();
        }
        if leaf.is_some() {
            self.path.pop();
        }
        self.leaf = leaf;
        out
    }

    pub(crate) fn enter(&mut self, field: &'static FieldInfo, kind: fn() -> Kind) -> Option<Leaf> {
        self.leaf.replace((field, kind))
    }

    pub(crate) fn leave(&mut self, previous: Option<Leaf>) {
        self.leaf = previous;
    }

    /// The fix text of the innermost field being checked.
    fn current_fix(&self) -> Option<Cow<'static, str>> {
        let in_path = self.path.iter().rev().find_map(|seg| match seg {
            Segment::Field(field, kind) => Some((*field, *kind)),
            _ => None,
        });
        self.leaf
            .or(in_path)
            .map(|(field, kind)| fix_text(field, kind))
    }

    /// Records an issue at the current path.
    pub fn fail(
        &mut self,
        code: IssueCode,
        message: impl Into<Cow<'static, str>>,
        received: Option<&Value>,
        expected: Option<Cow<'static, str>>,
    ) {
        if self.is_probing() {
            return;
        }
        if !self.report.has_room() {
            self.report.count_omitted();
            return;
        }
        let issue = Issue {
            path: self.issue_path(),
            code,
            message: message.into(),
            received: received.map(|value| self.received(value)),
            expected,
            fix: self.current_fix(),
        };
        self.report.push(issue);
    }

    /// Records that `value` is not of the JSON type `kind` describes.
    pub fn type_mismatch(&mut self, kind: &Kind, value: &Value) {
        if !self.report.has_room() {
            self.report.count_omitted();
            return;
        }
        let noun = kind.noun();
        let got = json_type_noun(value);
        self.fail(
            IssueCode::Type,
            format!("Expected {noun}, got {got}."),
            Some(value),
            Some(noun.into()),
        );
    }

    /// Records every key of `unknown` (keys of an object that are not among `fields`), each with
    /// the closest field as a suggestion. Generated code reports them after the fields' own
    /// issues, so the model reads about its real fields first.
    #[doc(hidden)]
    pub fn unknown_fields(&mut self, unknown: Vec<(String, Value)>, fields: &'static [FieldInfo]) {
        for (key, value) in unknown {
            self.unknown_field(&key, &value, fields);
        }
    }

    /// Records a key of an object that is not one of `fields`, suggesting the closest field,
    /// or, when the key is a field at another level of the arguments, where it belongs.
    pub(crate) fn unknown_field(&mut self, key: &str, value: &Value, fields: &'static [FieldInfo]) {
        if self.is_probing() {
            return;
        }
        if !self.report.has_room() {
            self.report.count_omitted();
            return;
        }
        let by_rust_name = fields.iter().find(|f| !f.skipped && f.rust_name == key);
        // Which object the key is not a field of: the tool's arguments at the top, the nested
        // object by its path below (`lines[0]`), so the model knows where to look.
        let container = self.path();
        let not_a_field = not_a_field(&container);
        // A field of this object sent under its Rust name, then a field of another level sent
        // by its exact name, then a near miss here, then a near miss elsewhere.
        let here = self.template();
        let places = self.root.map(misplaced::places_of).unwrap_or_default();
        let misplaced = |near_misses| misplaced::find(places, &here, key, near_misses);
        let near_here = || {
            let normalized = misplaced::normalized_names(fields);
            let candidates = fields
                .iter()
                .zip(normalized)
                .filter(|(f, _)| !f.skipped)
                .map(|(f, name)| (f.name, Cow::Borrowed(&**name)));
            closest(key, candidates)
                .and_then(|best| fields.iter().find(|f| !f.skipped && f.name == best))
        };
        let worded = |(message, fix, sensitive): (String, String, bool)| {
            (Cow::Owned(message), Cow::Owned(fix), sensitive)
        };
        let (message, fix, sensitive) = if let Some(field) = by_rust_name {
            self.suggest_rename(key, field);
            worded(rename(&not_a_field, field))
        } else if let Some(places) = misplaced(false) {
            self.suggest_move(key, &places);
            worded(self.moved(&not_a_field, key, &places, true))
        } else if let Some(field) = near_here() {
            self.suggest_rename(key, field);
            worded(rename(&not_a_field, field))
        } else if let Some(places) = misplaced(true) {
            self.suggest_move(key, &places);
            worded(self.moved(&not_a_field, key, &places, false))
        } else {
            // The fix depends on the declaration alone and is lent; so is the message at the
            // top level (below it, the message names the container).
            (not_a_field, Cow::Borrowed(remove_fix_of(fields)), false)
        };
        let received = if sensitive || self.withhold_all {
            withheld(value)
        } else {
            preview(value)
        };
        // The key is a step of its own after the container's; a field being checked, if any,
        // comes after it.
        let path = if self.leaf.is_none() {
            let mut path = container;
            push_key(&mut path, &cut(key, KEY_PREVIEW_CHARS));
            path
        } else {
            self.path
                .push(Segment::Key(cut(key, KEY_PREVIEW_CHARS).into_owned()));
            let path = self.path();
            self.path.pop();
            path
        };
        if let Some(sent) = &self.pending_move {
            self.moves.push((sent.clone(), path.clone()));
            self.pending_move = None;
        }
        let issue = Issue {
            path: Cow::Owned(path),
            code: IssueCode::UnknownField,
            message,
            received: Some(Cow::Owned(received)),
            expected: None,
            fix: Some(fix),
        };
        self.report.push(issue);
    }

    /// The place of the unknown key `key` of the current object, as sent.
    fn key_steps(&self, key: &str) -> Vec<Step> {
        let mut steps: Vec<Step> = self
            .path
            .iter()
            .map(|segment| match segment {
                Segment::Field(field, _) => Step::Key(field.name.to_owned()),
                Segment::Index(i) => Step::Index(*i),
                Segment::Key(key) => Step::Key(key.clone()),
            })
            .collect();
        if let Some((field, _)) = self.leaf {
            steps.push(Step::Key(field.name.to_owned()));
        }
        steps.push(Step::Key(key.to_owned()));
        steps
    }

    /// Notes that the unknown key `key` of the current object is `field` of the same object.
    fn suggest_rename(&mut self, key: &str, field: &FieldInfo) {
        let key = self.key_steps(key);
        // Into the report: a trial's report, and what it suggests, is set aside with it.
        self.report.suggest(Suggestion {
            key,
            meant: Meant::Rename(field.name.to_owned()),
        });
    }

    /// Notes that the unknown key `key` of the current object is the field at `places` of
    /// another level, when there is one such place.
    fn suggest_move(&mut self, key: &str, places: &[&'static Place]) {
        let [place] = places else { return };
        let Some(to) = correction::parse_place(&place.container, &place.name) else {
            return;
        };
        let key = self.key_steps(key);
        self.report.suggest(Suggestion {
            key,
            meant: Meant::Move(to),
        });
    }

    /// The message, fix and sensitivity of an unknown key that is a field at other `places`
    /// of the arguments; notes where it belongs, so that a missing-field issue there can refer
    /// to it.
    fn moved(
        &mut self,
        not_a_field: &str,
        key: &str,
        places: &[&'static Place],
        exact: bool,
    ) -> (String, String, bool) {
        let moved = misplaced::moved(not_a_field, key, places, exact);
        if moved.to.is_some() {
            self.pending_move = moved.to;
        }
        (moved.message, moved.fix, moved.sensitive)
    }

    /// The template of the current place: field names, `[]` for each item (see
    /// [`misplaced`]).
    fn template(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            match seg {
                Segment::Field(field, _) => push_key(&mut out, field.name),
                Segment::Index(_) => out.push_str("[]"),
                Segment::Key(_) => out.push_str("{}"),
            }
        }
        if let Some((field, _)) = self.leaf {
            push_key(&mut out, field.name);
        }
        out
    }

    pub(crate) fn missing(&mut self, field: &'static FieldInfo, kind: fn() -> Kind) {
        let previous = self.enter(field, kind);
        self.fail(
            IssueCode::Missing,
            "Required field is missing.",
            None,
            Some(kind().noun().into()),
        );
        self.leave(previous);
    }

    /// Records the failure of a custom check; the message is cut to a bounded length.
    pub fn custom(&mut self, message: &str) {
        let message = cut(message, 300).into_owned();
        self.fail(IssueCode::Custom, message, None, None);
    }
}

/// The context inside a list, from [`Cx::in_list`]: [`ListCx::at`] gives the context of one
/// item.
#[derive(Debug)]
pub(crate) struct ListCx<'a> {
    cx: &'a mut Cx,
}

impl ListCx<'_> {
    /// The context of the item at `index`: issues recorded through it are at `…[index]`.
    pub(crate) fn at(&mut self, index: usize) -> &mut Cx {
        // The step `in_list` pushed is the last one whenever no item is being read: an item's
        // own steps are popped before its read returns.
        if let Some(Segment::Index(at)) = self.cx.path.last_mut() {
            *at = index;
        }
        self.cx
    }
}

/// The fix text of `field`, whose type has the kind `kind` builds: what the field accepts,
/// which its declaration fixes, so it is worded once per field and kind and borrowed after.
fn fix_text(field: &'static FieldInfo, kind: fn() -> Kind) -> Cow<'static, str> {
    // Both are addresses of statics, never reused for another field or kind.
    static FIXES: TextTable = TextTable::new();
    let key = (std::ptr::from_ref(field) as usize, kind as usize);
    FIXES.text(key, || field.fix_with(&kind()))
}

impl Drop for Cx {
    // Inlined: a pass that never descended (most valid calls) gives nothing back, for the cost
    // of a test.
    #[inline]
    fn drop(&mut self) {
        if self.path.capacity() != 0 {
            self.spare_path();
        }
    }
}

impl Cx {
    /// Gives the path buffer back to the thread, for its next pass.
    #[inline(never)]
    fn spare_path(&mut self) {
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        // A thread that is ending has no spare buffer left: the path is dropped.
        let _ = SPARE_PATH.try_with(|spare| spare.set(path));
    }
}

/// The issue of `key`, sent in the object at path `container` (empty at the top) whose
/// fields are `names`, for arguments known by their schema alone: a did-you-mean for the
/// closest field (or `rename_to`, the field a Rust name stands for), else the list of fields.
pub(crate) fn unknown_field_issue(
    container: &str,
    key: &str,
    value: &Value,
    names: &[&str],
    rename_to: Option<&str>,
) -> Issue {
    let not_a_field = not_a_field(container);
    let (message, fix) = match rename_target(key, names, rename_to) {
        Some(best) => rename_texts(&not_a_field, best),
        None => (not_a_field.into_owned(), remove_fix(names)),
    };
    let mut path = container.to_owned();
    push_key(&mut path, &cut(key, KEY_PREVIEW_CHARS));
    Issue {
        path: path.into(),
        code: IssueCode::UnknownField,
        message: message.into(),
        received: Some(preview(value).into()),
        expected: None,
        fix: Some(fix.into()),
    }
}

/// The field an unknown key `key` of an object whose fields are `names` is told to be
/// renamed to: `rename_to` (the field a Rust name stands for), else the closest field.
pub(crate) fn rename_target<'a>(
    key: &str,
    names: &[&'a str],
    rename_to: Option<&'a str>,
) -> Option<&'a str> {
    rename_to.or_else(|| did_you_mean(key, names.iter().copied()))
}

/// Which object a key is not a field of: the tool's arguments at the top, the nested object
/// by its path below (`lines[0]`), so the model knows where to look.
pub(crate) fn not_a_field(container: &str) -> Cow<'static, str> {
    if container.is_empty() {
        Cow::Borrowed("Not a field of this tool.")
    } else {
        Cow::Owned(format!("Not a field of `{container}`."))
    }
}

/// The message and fix of a key that names the field `best` of the same object misspelt, or
/// by its Rust name.
fn rename_texts(not_a_field: &str, best: &str) -> (String, String) {
    let best = Value::from(best);
    (
        format!("{not_a_field} Did you mean {best}?"),
        format!("Remove it, or rename it to {best}."),
    )
}

/// The fix of a key sent to an object that has no field.
const NO_FIELD_FIX: &str = "Remove it: no field is accepted here.";

/// The fix of a key that is nothing the object knows: remove it, and the fields there are.
fn remove_fix(names: &[&str]) -> String {
    if names.is_empty() {
        NO_FIELD_FIX.to_owned()
    } else {
        format!("Remove it. The fields are: {}.", quoted_list(names))
    }
}

/// [`remove_fix`] of the fields of `fields` that are not skipped: it depends on the type alone,
/// so it is worded once per type.
fn remove_fix_of(fields: &'static [FieldInfo]) -> &'static str {
    if fields.iter().all(|f| f.skipped) {
        return NO_FIELD_FIX;
    }
    misplaced::fields_text(fields, || {
        let names: Vec<&str> = fields
            .iter()
            .filter(|f| !f.skipped)
            .map(|f| f.name)
            .collect();
        remove_fix(&names)
    })
}

/// The message, fix and sensitivity of a key that names `field` of the same object
/// misspelt, or by its Rust name.
fn rename(not_a_field: &str, field: &'static FieldInfo) -> (String, String, bool) {
    let (message, fix) = rename_texts(not_a_field, field.name);
    (message, fix, field.sensitive)
}

impl Cx {
    /// Records an issue built elsewhere (policy issues carry their own texts); past the cap it
    /// is only counted.
    pub(crate) fn push_issue(&mut self, issue: Issue) {
        if self.is_probing() {
            return;
        }
        if self.report.has_room() {
            self.report.push(issue);
        } else {
            self.report.count_omitted();
        }
    }

    /// Whether a further issue would still be kept (callers skip costly work otherwise).
    pub(crate) fn has_room(&self) -> bool {
        self.report.has_room()
    }

    /// Counts an issue that is not kept.
    pub(crate) fn count_omitted(&mut self) {
        if !self.is_probing() {
            self.report.count_omitted();
        }
    }
}

impl IssueSink for Cx {
    fn fail(
        &mut self,
        code: IssueCode,
        message: Cow<'static, str>,
        received: Option<&Value>,
        expected: Option<Cow<'static, str>>,
    ) {
        Cx::fail(self, code, message, received, expected);
    }
}
