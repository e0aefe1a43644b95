//! Every definition format, from their documentation's own examples to the exact JSON Schema each describes,
//! through the public loading API: one file per format, and `loader` for what the loader does
//! whatever the format (YAML, sloppy and invalid schemas, lines, duplicate ids, `$ref`s, a forced
//! format).

#[path = "formats/common.rs"]
mod common;
#[path = "formats/genaiscript.rs"]
mod genaiscript;
#[path = "formats/gloodata.rs"]
mod gloodata;
#[path = "formats/jsonschema.rs"]
mod jsonschema;
#[path = "formats/loader.rs"]
mod loader;
#[path = "formats/marketplace.rs"]
mod marketplace;
#[path = "formats/mcp.rs"]
mod mcp;
#[path = "formats/openai.rs"]
mod openai;
#[path = "formats/otc.rs"]
mod otc;
