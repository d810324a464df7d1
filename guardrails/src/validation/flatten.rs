//! `#[serde(flatten)]` of a `ToolArgs` struct: its fields sit in the object of the struct that
//! holds it. The keys that struct does not know go to the flattened struct's check; what neither
//! knows is an unknown key, judged (did-you-mean, misplaced search) against the union of their
//! fields. The description of the holder lists that union, so its schema (merged properties,
//! closed), example and contract say what the validator reads.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::args::ToolArgs;
use super::constraint::{Constraints, Pattern};
use super::context::Cx;
use super::info::{ArgsInfo, FieldInfo};

/// What `#[serde(flatten)]` takes: a struct that derives `ToolArgs`. Generated code reads a
/// flattened field through it, so that any other type is one error that says what to do.
#[diagnostic::on_unimplemented(
    message = "`#[serde(flatten)]` takes a struct that derives `ToolArgs`, not `{Self}`",
    label = "not a `ToolArgs` struct",
    note = "an enum with data is not flattened: hold it in a field of its own (`repeat: Repeat`)"
)]
pub trait Flatten: Sized {
    /// The fields of the struct.
    fn info() -> &'static ArgsInfo;
    /// Reads the struct from the keys that are its fields.
    fn read(object: Map<String, Value>, cx: &mut Cx) -> Option<Self>;

    /// Reads a flattened field: takes the keys that are its fields out of `rest` (the keys the
    /// holder did not know) and checks them at the holder's level. Used by generated code.
    fn take(cx: &mut Cx, rest: &mut Vec<(String, Value)>) -> Option<Self> {
        let info = Self::info();
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(rest)
            .into_iter()
            .partition(|(key, _)| info.wire_fields().any(|f| f.name == key));
        *rest = others;
        Self::read(mine.into_iter().collect(), cx)
    }
}

// Not recommended: a type that is not flattenable is told so in `Flatten`'s words, not
// `ToolArgs`'s.
#[diagnostic::do_not_recommend]
impl<T: ToolArgs> Flatten for T {
    fn info() -> &'static ArgsInfo {
        T::info()
    }
    fn read(object: Map<String, Value>, cx: &mut Cx) -> Option<Self> {
        T::validate_fields(object, cx)
    }
}

/// The description of a struct with flattened fields: its own wire fields, then those of each
/// flattened struct, built once into `fields` and `info`. Used by generated code.
pub fn flattened_info(
    own: &'static ArgsInfo,
    flattened: &[fn() -> &'static ArgsInfo],
    fields: &'static OnceLock<Vec<FieldInfo>>,
    info: &'static OnceLock<ArgsInfo>,
) -> &'static ArgsInfo {
    info.get_or_init(|| {
        let all = fields.get_or_init(|| {
            let mut all: Vec<FieldInfo> = own.wire_fields().map(duplicate).collect();
            // A key the holder declares is the holder's (serde reads it there first).
            for field in flattened.iter().flat_map(|inner| inner().wire_fields()) {
                if !all.iter().any(|f| f.name == field.name) {
                    all.push(duplicate(field));
                }
            }
            all
        });
        ArgsInfo {
            type_name: own.type_name,
            description: own.description,
            fields: all,
        }
    })
}

/// A copy of a field's description (a pattern is compiled again on first use).
fn duplicate(f: &FieldInfo) -> FieldInfo {
    let c = &f.constraints;
    FieldInfo {
        name: f.name,
        rust_name: f.rust_name,
        description: f.description,
        required: f.required,
        nullable: f.nullable,
        skipped: f.skipped,
        constraints: Constraints {
            min_length: c.min_length,
            max_length: c.max_length,
            minimum: c.minimum,
            maximum: c.maximum,
            pattern: c.pattern.as_ref().map(|p| Pattern::new(p.source())),
            format: c.format,
            one_of: c.one_of,
            unique: c.unique,
            multiple_of: c.multiple_of,
            custom: c.custom,
        },
        checked: f.checked,
        sensitive: f.sensitive,
        example: f.example,
        kind: f.kind,
        schema: f.schema,
        generate_example: f.generate_example,
    }
}
