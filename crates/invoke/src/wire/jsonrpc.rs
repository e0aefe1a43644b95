//! JSON-RPC 2.0 error codes by name, and the error answer the proxy writes itself.

use serde_json::{Value, json};

/// The message is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The parameters are not what the method takes.
pub const INVALID_PARAMS: i64 = -32602;
/// The server failed inside.
pub const INTERNAL_ERROR: i64 = -32603;
/// The start of the range left to servers (-32000 to -32099): what `--fault` rules usually give.
pub const SERVER_ERROR: i64 = -32000;
/// A request the proxy dropped at a breakpoint (`tooldeck attach`).
pub const DROPPED_AT_BREAKPOINT: i64 = -32001;

/// An error answer to the request `id`.
pub fn error_answer(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
