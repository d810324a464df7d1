//! Any bytes that parse as JSON go through the validators of realistic argument types and every
//! renderer: nothing may panic, and every rendered message stays bounded.

#![no_main]

use guardrails::render::render_report;
use guardrails::{RenderFormat, RenderOptions, ToolArgs};
use guardrails_tests::fixtures::{Everything, PlaceOrder};
use libfuzzer_sys::fuzz_target;

fn check<T: ToolArgs>(value: &serde_json::Value) {
    if let Err(report) = T::validate_value(value.clone()) {
        assert!(!report.is_empty());
        for format in [RenderFormat::Xml, RenderFormat::Markdown, RenderFormat::Json] {
            let text = render_report("fuzz", &report, T::info(), T::example(), &RenderOptions::new(format));
            assert!(text.len() < 64 * 1024, "a rendered report of {} bytes", text.len());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        check::<PlaceOrder>(&value);
        check::<Everything>(&value);
    }
});
