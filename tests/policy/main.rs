//! Output policies: each rule and severity, the one-pass scan, hostile text, TOML files, policies
//! on arguments and outputs, and their rendering.

mod acknowledgement_lints;
mod output_policy_formats;
mod policy_args;
mod policy_figures;
mod policy_hostile;
mod policy_one_pass;
mod policy_render;
mod policy_rules;
mod policy_toml;
