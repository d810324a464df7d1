//! `#[serde(flatten)]`: the fields of a `ToolArgs` struct, or the tag and fields of an enum with
//! data, sit in the object of the struct that holds it. The keys the holder does not know go to
//! each flattened type in turn; what none takes is an unknown key, judged (did-you-mean,
//! misplaced search) against the fields of them all. The description of the holder lists the
//! flattened fields and enums, so its schema, example and contract say what the validator reads.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::args::ToolArgs;
use super::constraint::{Constraints, Pattern};
use super::context::Cx;
use super::info::{ArgsInfo, FieldInfo};
use super::info::{EnumInfo, Tagging};
use super::value::ArgValue;
use crate::text::did_you_mean;

/// What a flattened type brings to the object that holds it.
#[derive(Debug, Clone, Copy)]
pub enum Flattened {
    /// The fields of a struct.
    Fields(&'static ArgsInfo),
    /// The tag and fields of an enum with data.
    Variants(&'static EnumInfo),
}

/// Marks the [`Flatten`] of a `ToolArgs` struct.
#[derive(Debug)]
pub enum StructFields {}

/// Marks the [`Flatten`] of a tagged enum with data.
#[derive(Debug)]
pub enum EnumVariants {}

/// What `#[serde(flatten)]` takes: a struct that derives `ToolArgs`, or an enum with data
/// tagged internally (`tag`) or adjacently (`tag` and `content`). Generated code reads a
/// flattened field through it, so that any other type is one error that says what to do.
#[diagnostic::on_unimplemented(
    message = "`#[serde(flatten)]` takes a `ToolArgs` struct or a `ToolArgs` enum with `tag`, not `{Self}`",
    label = "not flattenable",
    note = "an externally tagged or untagged enum is not flattened: give it `#[serde(tag = \"..\")]`, or hold it in a field of its own"
)]
pub trait Flatten<M>: Sized {
    /// What the type brings to the holder's object.
    fn flattened() -> Flattened;

    /// Reads the type from its keys.
    fn read(object: Map<String, Value>, cx: &mut Cx) -> Option<Self>;

    /// Reads a flattened field: takes its keys out of `rest` (the keys the holder did not know)
    /// and checks them at the holder's level; `holder` describes the holder, every flattened
    /// struct's fields included. Used by generated code.
    fn take(
        cx: &mut Cx,
        rest: &mut Vec<(String, Value)>,
        holder: &'static ArgsInfo,
    ) -> Option<Self> {
        let flattened = Self::flattened();
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(rest)
            .into_iter()
            .partition(|(key, _)| takes_key(flattened, key, holder));
        *rest = others;
        Self::read(mine.into_iter().collect(), cx)
    }
}

/// Whether a key of the holder's object is the flattened type's. An internally tagged enum also
/// takes a near miss of its variants' fields, so that the variant that reads it names the field
/// meant; never a field of the holder (or of a struct flattened after it), nor a near miss of
/// one.
fn takes_key(flattened: Flattened, key: &str, holder: &'static ArgsInfo) -> bool {
    match flattened {
        Flattened::Fields(info) => info.wire_fields().any(|f| f.name == key),
        Flattened::Variants(info) => match info.tagging {
            Tagging::Internal { tag } => {
                key == tag
                    || info.has_variant_field(key)
                    || (did_you_mean(key, info.variant_field_names()).is_some()
                        && !holder.wire_fields().any(|f| f.name == key)
                        && did_you_mean(key, holder.wire_fields().map(|f| f.name)).is_none())
            }
            Tagging::Adjacent { tag, content } => key == tag || key == content,
            Tagging::External | Tagging::Untagged => false,
        },
    }
}

// Not recommended: a type that is not flattenable is told so in `Flatten`'s words, not
// `ToolArgs`'s.
#[diagnostic::do_not_recommend]
impl<T: ToolArgs> Flatten<StructFields> for T {
    fn flattened() -> Flattened {
        Flattened::Fields(T::info())
    }
    fn read(object: Map<String, Value>, cx: &mut Cx) -> Option<Self> {
        T::validate_fields(object, cx)
    }
}

/// Reads a flattened enum from its keys, at the holder's level. Used by the `Flatten` impl
/// generated for a tagged enum with data.
pub fn read_flattened_enum<T: ArgValue>(object: Map<String, Value>, cx: &mut Cx) -> Option<T> {
    T::from_arg(Value::Object(object), cx)
}

/// The description of a struct with flattened fields, built once.
#[derive(Debug)]
pub struct FlatCells {
    fields: OnceLock<Vec<FieldInfo>>,
    enums: OnceLock<Vec<&'static EnumInfo>>,
    checks: OnceLock<Vec<&'static str>>,
    info: OnceLock<ArgsInfo>,
}

impl FlatCells {
    /// Empty cells, for a `static`.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            fields: OnceLock::new(),
            enums: OnceLock::new(),
            checks: OnceLock::new(),
            info: OnceLock::new(),
        }
    }
}

impl Default for FlatCells {
    fn default() -> Self {
        Self::new()
    }
}

/// The description of a struct with flattened fields: its own wire fields, then those of each
/// flattened struct, and the flattened enums; built once into `cells`. Used by generated code.
pub fn flattened_info(
    own: &'static ArgsInfo,
    flattened: &[fn() -> Flattened],
    cells: &'static FlatCells,
) -> &'static ArgsInfo {
    cells.info.get_or_init(|| {
        let all = cells.fields.get_or_init(|| {
            let mut all: Vec<FieldInfo> = own.wire_fields().map(duplicate).collect();
            // A key the holder declares is the holder's (serde reads it there first).
            for inner in flattened {
                if let Flattened::Fields(info) = inner() {
                    for field in info.wire_fields() {
                        if !all.iter().any(|f| f.name == field.name) {
                            all.push(duplicate(field));
                        }
                    }
                }
            }
            all
        });
        let enums = cells.enums.get_or_init(|| {
            flattened
                .iter()
                .filter_map(|inner| match inner() {
                    Flattened::Variants(info) => Some(info),
                    Flattened::Fields(_) => None,
                })
                .collect()
        });
        // A flattened struct's checks run where it is read, beside the holder's.
        let checks = cells.checks.get_or_init(|| {
            let mut checks = own.checks.to_vec();
            for inner in flattened {
                if let Flattened::Fields(info) = inner() {
                    checks.extend(info.checks);
                }
            }
            checks
        });
        ArgsInfo {
            type_name: own.type_name,
            description: own.description,
            fields: all,
            flattened: enums,
            checks,
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
        no_repair: f.no_repair,
        example: f.example,
        kind: f.kind,
        schema: f.schema,
        generate_example: f.generate_example,
        aliases: f.aliases,
    }
}
