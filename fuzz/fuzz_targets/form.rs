//! Any JSON as a tool's input schema: the form builds, its own arguments go back in, and so does
//! an arbitrary value (the part of the input after the first NUL byte, when it is JSON).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tooldeck::catalog::{Format, Source, Tool, ToolUi};
use tooldeck::form::Form;

fuzz_target!(|data: &[u8]| {
    let (schema, value) = match data.iter().position(|&b| b == 0) {
        Some(nul) => (&data[..nul], Some(&data[nul + 1..])),
        None => (data, None),
    };
    let Ok(schema) = serde_json::from_slice::<Value>(schema) else { return };
    let tool = Tool {
        id: "t".into(),
        name: "t".into(),
        title: None,
        description: None,
        format: Format::JsonSchema,
        source: Source::file("<fuzz>", 1),
        input_schema: schema,
        output_schema: None,
        ui: ToolUi::default(),
        examples: Vec::new(),
        requirements: Default::default(),
        annotations: None,
        task_support: None,
        written: Default::default(),
    };
    let mut form = Form::new(&tool);
    let arguments = form.arguments().clone();
    form.set_arguments(&arguments);
    let _ = form.rows();
    if let Some(value) = value.and_then(|v| serde_json::from_slice::<Value>(v).ok()) {
        form.set_arguments(&value);
        let _ = form.rows();
    }
});
