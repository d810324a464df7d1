//! Enums with data (`#[derive(ToolArgs)]` on an enum): which variant a value names under each of
//! serde's representations, the variant's fields checked strictly at their paths, and the
//! words of the whole enum (its schema is built in `schema.rs`, its example in `example/`).
//!
//! The tag is read first. A missing or unknown tag is one issue that lists the variants, with a
//! did-you-mean; a key that is a field of another variant is named as such; an untagged value
//! that fits no variant is reported against the variant it comes closest to.

use serde_json::{Map, Value};

use super::context::Cx;
use super::info::{ArgsInfo, EnumInfo, Kind, Tagging, VariantInfo, withheld};
use super::report::{Issue, IssueCode};
use crate::text::preview;

impl VariantInfo {
    pub(crate) fn args(&self) -> Option<&'static ArgsInfo> {
        self.fields.map(|f| f())
    }

    fn has_field(&self, key: &str) -> bool {
        self.args()
            .is_some_and(|info| info.wire_fields().any(|f| f.name == key))
    }
}

impl EnumInfo {
    /// Whether `key` is a field of some variant.
    pub(crate) fn has_variant_field(&self, key: &str) -> bool {
        self.variants.iter().any(|v| v.has_field(key))
    }

    /// The wire names of every variant's fields.
    pub(crate) fn variant_field_names(&self) -> impl Iterator<Item = &'static str> + use<> {
        let variants: &'static [VariantInfo] = self.variants;
        variants
            .iter()
            .filter_map(VariantInfo::args)
            .flat_map(|info| info.wire_fields().map(|f| f.name))
    }

    fn names(&self) -> Vec<&'static str> {
        self.variants.iter().map(|v| v.name).collect()
    }

    /// What a variant is called in messages: "kind" for `#[serde(tag = "kind")]`.
    fn variant_word(&self) -> &'static str {
        match self.tagging {
            Tagging::Internal { tag } | Tagging::Adjacent { tag, .. } => tag,
            Tagging::External | Tagging::Untagged => "variant",
        }
    }

    /// A noun phrase for values of the enum, as in "Expected …".
    pub(crate) fn noun(&self) -> String {
        match self.tagging {
            Tagging::Internal { tag } => words::tagged_noun(tag, None, &self.names()),
            Tagging::Adjacent { tag, content } => {
                words::tagged_noun(tag, Some(content), &self.names())
            }
            Tagging::External => {
                let units: Vec<&str> = self
                    .variants
                    .iter()
                    .filter(|v| v.fields.is_none())
                    .map(|v| v.name)
                    .collect();
                let data: Vec<&str> = self
                    .variants
                    .iter()
                    .filter(|v| v.fields.is_some())
                    .map(|v| v.name)
                    .collect();
                external_noun(&units, &data)
            }
            Tagging::Untagged => {
                let shapes: Vec<String> = self.variants.iter().map(untagged_shape).collect();
                words::untagged_noun(&shapes)
            }
        }
    }

    /// The JSON type of the enum's values in a contract: `object`, `string` or `any`.
    pub(crate) fn json_type(&self) -> &'static str {
        let unit = self.variants.iter().any(|v| v.fields.is_none());
        let data = self.variants.iter().any(|v| v.fields.is_some());
        let tagged = matches!(
            self.tagging,
            Tagging::Internal { .. } | Tagging::Adjacent { .. }
        );
        if tagged || !unit {
            "object"
        } else if self.tagging == Tagging::External && !data {
            "string"
        } else {
            // A unit variant is a string (external) or `null` (untagged) beside objects.
            "any"
        }
    }

    /// Where the fields of each variant sit below the field that holds the enum, as a path
    /// suffix: `""` (beside the tag), `.data` (adjacent) or `.weekly` (external); with the
    /// variant's fields. For the misplaced-field search.
    pub(crate) fn field_places(&self) -> Vec<(Option<&'static str>, &'static ArgsInfo)> {
        self.variants
            .iter()
            .filter_map(|v| {
                let info = v.args()?;
                let key = match self.tagging {
                    Tagging::Internal { .. } | Tagging::Untagged => None,
                    Tagging::Adjacent { content, .. } => Some(content),
                    Tagging::External => Some(v.name),
                };
                Some((key, info))
            })
            .collect()
    }
}

/// The words of an enum's variants, shared by the derived validators and those built from a
/// JSON Schema (`json_schema/`), which read the same representations from the schema: one
/// wording whichever way a tool declares its enum.
pub(crate) mod words {
    use crate::text::{code_span, did_you_mean, quoted_list};

    /// A noun phrase for the values of an untagged enum, whose variants have the `shapes`.
    pub(crate) fn untagged_noun(shapes: &[String]) -> String {
        format!("one of these shapes: {}", shapes.join("; "))
    }

    /// The shape of an untagged variant with the fields `names`.
    pub(crate) fn object_shape(names: &[&str]) -> String {
        format!("an object with the fields {}", quoted_list(names))
    }

    /// The message of an untagged value that fits none of its `count` variants, the closest
    /// of which is `closest` (its name and shape, or its shape alone).
    pub(crate) fn fits_none_message(count: usize, closest: &str) -> String {
        format!(
            "Fits none of the {count} shapes this field accepts. The closest is {closest}; {}.",
            if count > 1 {
                "its issues follow"
            } else {
                "see its issues"
            }
        )
    }

    /// A noun phrase for the values of an internally (`content` none) or adjacently tagged
    /// enum whose tag `tag` names one of the variants `names`.
    pub(crate) fn tagged_noun(tag: &str, content: Option<&str>, names: &[&str]) -> String {
        let names = quoted_list(names);
        match content {
            None => {
                format!("an object whose {tag:?} is one of {names}, with the fields of that {tag}")
            }
            Some(content) => format!(
                "an object whose {tag:?} is one of {names}, and {content:?} the fields of that {tag}"
            ),
        }
    }

    /// A noun phrase for the values of an externally tagged enum: its unit variants' names,
    /// and its variants with data.
    pub(crate) fn external_noun(units: &[&str], data: &[&str]) -> String {
        match (units.is_empty(), data.is_empty()) {
            (_, true) => format!("one of {}", quoted_list(units)),
            (true, false) => format!(
                "an object with one key, the variant ({}), whose value holds its fields",
                quoted_list(data)
            ),
            (false, false) => format!(
                "one of {}, or an object with one key, the variant ({}), whose value holds its fields",
                quoted_list(units),
                quoted_list(data)
            ),
        }
    }

    /// The message of an externally tagged value that is an object of `keys` keys, not one.
    pub(crate) fn key_count_message(keys: usize) -> String {
        format!("Expected an object with exactly one key, the variant; got {keys} keys.")
    }

    /// The message of the name of a variant with data sent as a string.
    pub(crate) fn carries_fields_message(name: &str) -> String {
        format!("The variant {name:?} carries fields: send it as an object, {{{name:?}: {{…}}}}.")
    }

    /// The message and fix of a unit variant sent as an object with fields.
    pub(crate) fn carries_no_fields(name: &str) -> (String, String) {
        (
            format!("The variant {name:?} carries no fields: send it as {name:?}."),
            format!("the string {name:?}"),
        )
    }

    /// The message, expected value and fix of `name`, which is none of the variants `names`
    /// (called `word`: "variant", or the tag's name).
    pub(crate) fn unknown_variant(
        word: &str,
        name: &str,
        names: &[&str],
    ) -> (String, String, String) {
        let list = quoted_list(names);
        // A tag's value is named by the tag ("This \"action\" names no variant."); a variant
        // without a tag is named a variant.
        let (wrong, allowed) = if word == "variant" {
            (
                "Not a variant of this field.".to_owned(),
                format!("The variants are {list}."),
            )
        } else {
            (
                format!("This {word:?} names no variant."),
                format!("The {word:?} is one of {list}."),
            )
        };
        let message = match did_you_mean(name, names.iter().copied()) {
            Some(best) => format!("{wrong} Did you mean {best:?}? {allowed}"),
            None => format!("{wrong} {allowed}"),
        };
        (
            message,
            format!("one of {list}"),
            format!("one of {list}, with the fields of that {word}"),
        )
    }

    /// The message and fix of a missing tag `tag`, which names one of the variants `names`.
    pub(crate) fn missing_tag(tag: &str, names: &[&str]) -> (String, String) {
        let names = quoted_list(names);
        (
            format!("Missing the field {tag:?}, which names the variant: one of {names}."),
            format!("{tag:?}: one of {names}, with the fields of that {tag}"),
        )
    }

    /// The message, expected value and fix of a tag `tag` that is not a string.
    pub(crate) fn tag_not_a_string(tag: &str, names: &[&str]) -> (String, String, String) {
        let names = quoted_list(names);
        (
            format!("Expected the {tag} as a string, one of {names}."),
            format!("one of {names}"),
            format!("one of {names}"),
        )
    }

    /// The message and fix of `key`, a field of the variant `owner` sent with the variant
    /// `chosen`, whose fields are `fields` (the variants called `word`).
    pub(crate) fn foreign_field(
        word: &str,
        key: &str,
        owner: &str,
        chosen: &str,
        fields: &[&str],
    ) -> (String, String) {
        let message = format!(
            "{} belongs to {word} {}; you chose {}.",
            code_span(key),
            code_span(owner),
            code_span(chosen),
        );
        let fix = if fields.is_empty() {
            format!("Remove it: {word} {chosen:?} has no fields; or choose {word} {owner:?}.")
        } else {
            format!(
                "Remove it: {word} {chosen:?} takes {}; or choose {word} {owner:?} with its fields.",
                quoted_list(fields),
            )
        };
        (message, fix)
    }

    /// The message and fix of a key beside the tag `tag` and the content `content` of an
    /// adjacently tagged value.
    pub(crate) fn beside_tag_and_content(key: &str, tag: &str, content: &str) -> (String, String) {
        let names = [tag, content];
        let message = match did_you_mean(key, names) {
            Some(best) => format!("Not a key of this object. Did you mean {best:?}?"),
            None => "Not a key of this object.".to_owned(),
        };
        let fix = format!(
            "Remove it: the object holds only {tag:?} (the {tag}) and {content:?} (its fields)."
        );
        (message, fix)
    }

    /// The message and fix of the content `content` of a unit variant `name`.
    pub(crate) fn unit_content(tag: &str, content: &str, name: &str) -> (String, String) {
        (
            format!("{tag:?} is {name:?}, which carries no fields: leave {content:?} out."),
            format!("no {content:?}: {name:?} carries no fields"),
        )
    }

    /// The message and fix of a missing content `content` of the variant `name`.
    pub(crate) fn missing_content(tag: &str, content: &str, name: &str) -> (String, String) {
        (
            format!("Missing {content:?}: {tag:?} is {name:?}, whose fields go in {content:?}."),
            format!("an object with the fields of {name:?}"),
        )
    }
}

use words::external_noun;

fn untagged_shape(variant: &VariantInfo) -> String {
    match variant.args() {
        None => "null".to_owned(),
        Some(info) => {
            let names: Vec<&str> = info.wire_fields().map(|f| f.name).collect();
            words::object_shape(&names)
        }
    }
}

/// What a newtype variant holds: a struct that derives `ToolArgs`, whose fields sit where a
/// struct variant's would. Generated code reads newtype variants through it, so that any other
/// type is one error that says what to do.
#[diagnostic::on_unimplemented(
    message = "a newtype variant of a `ToolArgs` enum holds a struct that derives `ToolArgs`, not `{Self}`",
    label = "not a `ToolArgs` struct",
    note = "give the variant named fields instead (`Variant {{ name: String }}`), or derive `ToolArgs` on the struct it holds"
)]
pub trait NewtypeVariant: Sized {
    /// The fields of the struct.
    fn info() -> &'static ArgsInfo;
    /// Reads the struct from the variant's fields.
    fn read(object: Map<String, Value>, cx: &mut Cx) -> Option<Self>;
}

// Not recommended: a type that cannot be held is told so in `NewtypeVariant`'s words.
#[diagnostic::do_not_recommend]
impl<T: super::ToolArgs> NewtypeVariant for T {
    fn info() -> &'static ArgsInfo {
        T::info()
    }
    fn read(object: Map<String, Value>, cx: &mut Cx) -> Option<Self> {
        T::validate_fields(object, cx)
    }
}

/// Reads a value of an enum with data: finds the variant, then `read(index, fields, cx)` builds
/// it from the object of its fields (empty for a unit variant), recording every issue in `cx`.
/// Used by generated code.
pub fn read_variant<T>(
    info: &'static EnumInfo,
    value: Value,
    cx: &mut Cx,
    read: impl Fn(usize, Map<String, Value>, &mut Cx) -> Option<T>,
) -> Option<T> {
    match info.tagging {
        Tagging::Internal { tag } => read_internal(info, tag, value, cx, &read),
        Tagging::Adjacent { tag, content } => read_adjacent(info, tag, content, value, cx, &read),
        Tagging::External => read_external(info, value, cx, &read),
        Tagging::Untagged => read_untagged(info, value, cx, &read),
    }
}

type Read<'a, T> = &'a dyn Fn(usize, Map<String, Value>, &mut Cx) -> Option<T>;

fn read_internal<T>(
    info: &'static EnumInfo,
    tag: &'static str,
    value: Value,
    cx: &mut Cx,
    read: Read<'_, T>,
) -> Option<T> {
    // Tagged by a key, the value names its variant itself: an object sent as a string of JSON
    // names the same one, and may be repaired (only here, where it was found wrong).
    let value = if value.is_object() {
        value
    } else {
        cx.repair(&Kind::Variants(info), value)
    };
    let Value::Object(mut object) = value else {
        cx.type_mismatch(&Kind::Variants(info), &value);
        return None;
    };
    let index = take_tag(info, tag, &mut object, cx)?;
    cx.nested(|cx| read_fields(info, index, object, cx, read))
}

fn read_adjacent<T>(
    info: &'static EnumInfo,
    tag: &'static str,
    content: &'static str,
    value: Value,
    cx: &mut Cx,
    read: Read<'_, T>,
) -> Option<T> {
    // Tagged by a key, the value names its variant itself: an object sent as a string of JSON
    // names the same one, and may be repaired (only here, where it was found wrong).
    let value = if value.is_object() {
        value
    } else {
        cx.repair(&Kind::Variants(info), value)
    };
    let Value::Object(mut object) = value else {
        cx.type_mismatch(&Kind::Variants(info), &value);
        return None;
    };
    let index = take_tag(info, tag, &mut object, cx);
    let fields = object.remove(content);
    for (key, value) in object {
        let (message, fix) = words::beside_tag_and_content(&key, tag, content);
        record_at_key(
            cx,
            &key,
            IssueCode::UnknownField,
            message,
            &value,
            None,
            fix,
        );
    }
    let index = index?;
    let variant = &info.variants[index];
    if variant.fields.is_none() {
        // serde reads a unit variant's content as `()`: absent or `null`.
        return match fields {
            None | Some(Value::Null) => read(index, Map::new(), cx),
            Some(other) => {
                let (message, fix) = words::unit_content(tag, content, variant.name);
                record_at_key(cx, content, IssueCode::Type, message, &other, None, fix);
                None
            }
        };
    }
    let Some(fields) = fields else {
        let (message, fix) = words::missing_content(tag, content, variant.name);
        record_missing(cx, content, message, fix);
        return None;
    };
    cx.at_key(content, |cx| content_fields(info, index, fields, cx, read))
}

fn read_external<T>(
    info: &'static EnumInfo,
    value: Value,
    cx: &mut Cx,
    read: Read<'_, T>,
) -> Option<T> {
    match value {
        Value::String(name) => {
            let Some(index) = info.variants.iter().position(|v| v.name == name) else {
                unknown_variant(info, &name, &Value::String(name.clone()), cx);
                return None;
            };
            let variant = &info.variants[index];
            if variant.fields.is_some() {
                let message = words::carries_fields_message(variant.name);
                let noun = Kind::Variants(info).noun();
                cx.fail(
                    IssueCode::Type,
                    message,
                    Some(&Value::String(name)),
                    Some(noun.into()),
                );
                return None;
            }
            read(index, Map::new(), cx)
        }
        Value::Object(object) if object.len() == 1 => {
            let (name, fields) = object.into_iter().next()?;
            let Some(index) = info.variants.iter().position(|v| v.name == name) else {
                unknown_variant(info, &name, &Value::String(name.clone()), cx);
                return None;
            };
            if info.variants[index].fields.is_none() {
                // serde reads `{"daily": null}` as the unit variant too.
                if fields.is_null() {
                    return read(index, Map::new(), cx);
                }
                let (message, fix) = words::carries_no_fields(&name);
                record_at_key(cx, &name, IssueCode::Type, message, &fields, None, fix);
                return None;
            }
            cx.at_key(&name, |cx| content_fields(info, index, fields, cx, read))
        }
        Value::Object(object) => {
            let message = words::key_count_message(object.len());
            let noun = Kind::Variants(info).noun();
            cx.fail(
                IssueCode::Type,
                message,
                Some(&Value::Object(object)),
                Some(noun.into()),
            );
            None
        }
        other => {
            cx.type_mismatch(&Kind::Variants(info), &other);
            None
        }
    }
}

fn read_untagged<T>(
    info: &'static EnumInfo,
    value: Value,
    cx: &mut Cx,
    read: Read<'_, T>,
) -> Option<T> {
    // serde takes the first variant the value fits; so does the validator. Each is tried
    // aside, so that the issues reported are those of one variant only.
    let mut closest: Option<(usize, usize)> = None;
    for index in 0..info.variants.len() {
        let (out, issues) = cx.trial(|cx| untagged_variant(info, index, value.clone(), cx, read));
        if let Some(out) = out
            && issues == 0
        {
            return Some(out);
        }
        if closest.is_none_or(|(fewest, _)| issues < fewest) {
            closest = Some((issues, index));
        }
    }
    let (_, index) = closest?;
    let variant = &info.variants[index];
    let message = words::fits_none_message(
        info.variants.len(),
        &format!(
            "the variant {:?} ({})",
            variant.name,
            untagged_shape(variant)
        ),
    );
    let noun = Kind::Variants(info).noun();
    cx.fail(IssueCode::Type, message, Some(&value), Some(noun.into()));
    let _ = untagged_variant(info, index, value, cx, read);
    None
}

fn untagged_variant<T>(
    info: &'static EnumInfo,
    index: usize,
    value: Value,
    cx: &mut Cx,
    read: Read<'_, T>,
) -> Option<T> {
    match (info.variants[index].args(), value) {
        (None, Value::Null) => read(index, Map::new(), cx),
        (None, other) => {
            cx.type_mismatch(&Kind::Variants(info), &other);
            None
        }
        (Some(_), Value::Object(object)) => {
            cx.nested(|cx| read_fields(info, index, object, cx, read))
        }
        (Some(args), other) => {
            cx.type_mismatch(&Kind::Object(args), &other);
            None
        }
    }
}

/// The fields of a variant sent in a value of their own (external and adjacent tagging).
fn content_fields<T>(
    info: &'static EnumInfo,
    index: usize,
    fields: Value,
    cx: &mut Cx,
    read: Read<'_, T>,
) -> Option<T> {
    match fields {
        Value::Object(object) => read_fields(info, index, object, cx, read),
        other => {
            if let Some(args) = info.variants[index].args() {
                cx.type_mismatch(&Kind::Object(args), &other);
            }
            None
        }
    }
}

/// Reads the fields of the chosen variant; a key that is a field of another variant only is
/// named as such, and kept from the variant's own check.
fn read_fields<T>(
    info: &'static EnumInfo,
    index: usize,
    mut object: Map<String, Value>,
    cx: &mut Cx,
    read: Read<'_, T>,
) -> Option<T> {
    let chosen = &info.variants[index];
    let foreign: Vec<(String, usize)> = object
        .keys()
        .filter(|key| !chosen.has_field(key))
        .filter_map(|key| {
            let owner = info.variants.iter().position(|v| v.has_field(key))?;
            Some((key.clone(), owner))
        })
        .collect();
    let mut misplaced = Vec::with_capacity(foreign.len());
    for (key, owner) in foreign {
        if let Some(value) = object.remove(&key) {
            misplaced.push((key, value, owner));
        }
    }
    let mut clean = misplaced.is_empty();
    if chosen.fields.is_none() {
        for (key, value) in std::mem::take(&mut object) {
            let message = format!(
                "Not a field: the {} {:?} carries no fields.",
                info.variant_word(),
                chosen.name
            );
            let fix = "Remove it.".to_owned();
            record_at_key(
                cx,
                &key,
                IssueCode::UnknownField,
                message,
                &value,
                None,
                fix,
            );
            clean = false;
        }
    }
    let out = read(index, object, cx);
    // Reported after the variant's own issues, as unknown keys are.
    for (key, value, owner) in misplaced {
        foreign_field(info, chosen, &info.variants[owner], &key, &value, cx);
    }
    if clean { out } else { None }
}

/// Records a key that is a field of the variant `owner`, not of the variant `chosen`.
fn foreign_field(
    info: &'static EnumInfo,
    chosen: &VariantInfo,
    owner: &VariantInfo,
    key: &str,
    value: &Value,
    cx: &mut Cx,
) {
    let fields: Vec<&str> = chosen
        .args()
        .map(|args| args.wire_fields().map(|f| f.name).collect())
        .unwrap_or_default();
    let (message, fix) =
        words::foreign_field(info.variant_word(), key, owner.name, chosen.name, &fields);
    record_at_key(cx, key, IssueCode::UnknownField, message, value, None, fix);
}

/// Takes the tag out of an internally or adjacently tagged object: the index of the variant it
/// names, or one issue that lists the variants.
fn take_tag(
    info: &'static EnumInfo,
    tag: &'static str,
    object: &mut Map<String, Value>,
    cx: &mut Cx,
) -> Option<usize> {
    match object.remove(tag) {
        None => {
            let (message, fix) = words::missing_tag(tag, &info.names());
            record_missing(cx, tag, message, fix);
            None
        }
        Some(Value::String(name)) => {
            if let Some(index) = info.variants.iter().position(|v| v.name == name) {
                return Some(index);
            }
            cx.at_key(tag, |cx| {
                unknown_variant(info, &name, &Value::String(name.clone()), cx);
            });
            None
        }
        Some(other) => {
            let (message, expected, fix) = words::tag_not_a_string(tag, &info.names());
            record_at_key(
                cx,
                tag,
                IssueCode::Type,
                message,
                &other,
                Some(expected),
                fix,
            );
            None
        }
    }
}

/// One issue for a name that is no variant, at the current path, with a did-you-mean.
fn unknown_variant(info: &'static EnumInfo, name: &str, sent: &Value, cx: &mut Cx) {
    let (message, expected, fix) = words::unknown_variant(info.variant_word(), name, &info.names());
    let path = cx.path();
    let received = received(cx, sent);
    cx.push_issue(Issue {
        path: path.into(),
        code: IssueCode::Enum,
        message: message.into(),
        received: Some(received.into()),
        expected: Some(expected.into()),
        fix: Some(fix.into()),
    });
}

fn received(cx: &Cx, value: &Value) -> String {
    if cx.withholds_values() {
        withheld(value)
    } else {
        preview(value)
    }
}

/// Records an issue one key below the current path, with texts of its own.
fn record_at_key(
    cx: &mut Cx,
    key: &str,
    code: IssueCode,
    message: String,
    value: &Value,
    expected: Option<String>,
    fix: String,
) {
    cx.at_key(key, |cx| {
        let path = cx.path();
        let received = received(cx, value);
        cx.push_issue(Issue {
            path: path.into(),
            code,
            message: message.into(),
            received: Some(received.into()),
            expected: expected.map(Into::into),
            fix: Some(fix.into()),
        });
    });
}

fn record_missing(cx: &mut Cx, key: &str, message: String, fix: String) {
    cx.at_key(key, |cx| {
        let path = cx.path();
        cx.push_issue(Issue {
            path: path.into(),
            code: IssueCode::Missing,
            message: message.into(),
            received: None,
            expected: None,
            fix: Some(fix.into()),
        });
    });
}
