//! The generated validators on good, bad and hostile input: every guard on every field type, the
//! shapes serde gives (enums with data, flatten, aliases, partial updates, maps), rules across
//! fields, misplaced and sensitive fields, and generated code that stays lint-clean.

mod data_enums;
mod examples_validate;
mod field_checks;
mod field_types;
mod flatten;
mod guard_type_table;
mod invisible_characters;
mod lints;
mod map_length;
mod misplaced;
mod partial_update;
mod sensitive;
mod serde_alias;
mod struct_checks;
mod validation;
mod variant_checks;
