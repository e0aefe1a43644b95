//! gloodata's tile line: the tool's prefix, then each arg in `ui.args` order as its prefix, its
//! value (strings quoted) and its suffix, then the tool's suffix. Unset args are left out.

use serde_json::Value;

use crate::catalog::Tile;

pub fn tile_text(tile: &Tile, arguments: &Value) -> String {
    tile_line(tile, arguments, &Value::Null)
}

/// [`tile_text`] knowing the input schema: a number typed badly (sent as the text typed) shows
/// as typed, not quoted like a string.
pub fn tile_line(tile: &Tile, arguments: &Value, schema: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(tile.prefix.clone());
    for arg in &tile.args {
        let Some(value) = arguments.get(&arg.name).filter(|v| !v.is_null()) else { continue };
        parts.extend(arg.prefix.clone());
        let numeric = matches!(
            schema.pointer(&format!("/properties/{}/type", crate::catalog::schema::escape_pointer(&arg.name))),
            Some(Value::String(t)) if t == "number" || t == "integer"
        );
        parts.push(match value {
            Value::String(s) if numeric => s.clone(),
            Value::String(s) => format!("\"{s}\""),
            other => other.to_string(),
        });
        parts.extend(arg.suffix.clone());
    }
    parts.extend(tile.suffix.clone());
    parts.retain(|p| !p.is_empty());
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::TileArg;
    use serde_json::json;

    fn arg(name: &str, prefix: Option<&str>, suffix: Option<&str>) -> TileArg {
        TileArg { name: name.into(), prefix: prefix.map(Into::into), suffix: suffix.map(Into::into) }
    }

    #[test]
    fn gloodata_documented_example() {
        let tile = Tile {
            prefix: Some("Show Map".into()),
            args: vec![arg("address", Some("Of"), None), arg("zoom", Some("At Zoom Level"), None)],
            suffix: None,
        };
        assert_eq!(
            tile_text(&tile, &json!({"address": "Cairo", "zoom": 12})),
            "Show Map Of \"Cairo\" At Zoom Level 12"
        );
        assert_eq!(tile_text(&tile, &json!({"zoom": 3})), "Show Map At Zoom Level 3");
        assert_eq!(tile_text(&tile, &json!({})), "Show Map");
    }

    #[test]
    fn a_number_typed_badly_shows_as_typed() {
        let tile = Tile { prefix: Some("Zoom".into()), args: vec![arg("zoom", Some("To"), None)], suffix: None };
        let schema = json!({"properties": {"zoom": {"type": "integer"}}});
        assert_eq!(tile_line(&tile, &json!({"zoom": "12.5"}), &schema), "Zoom To 12.5");
    }

    #[test]
    fn suffixes_and_order() {
        let tile = Tile {
            prefix: Some("Error Rate".into()),
            args: vec![arg("window", Some("Over The Last"), Some("Hours")), arg("service", Some("For"), None)],
            suffix: Some("As A Chart".into()),
        };
        assert_eq!(
            tile_text(&tile, &json!({"service": "api", "window": 24})),
            "Error Rate Over The Last 24 Hours For \"api\" As A Chart"
        );
    }
}
