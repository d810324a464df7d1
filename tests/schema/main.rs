//! The JSON Schemas a server advertises: standard 2020-12, never in disagreement with the
//! validator, formats checked as the `jsonschema` crate checks them, and structured results held
//! to their output schema.

mod format_agreement;
mod integer_readings;
mod output_schema;
mod portable_agreement;
mod schema_agreement;
mod strict_schemas;
mod wording_agreement;
