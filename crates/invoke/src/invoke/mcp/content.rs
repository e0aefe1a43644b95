//! The items of an MCP tool result's `content` (the MCP specification's `CallToolResult`), in the
//! order the server gave them: text, image, audio, resource links, embedded resources, and whatever else a server sends
//! (kept as it came, with why it could not be read). Inline data is taken out of the answer without
//! a copy and shared (`Arc<str>`) from then on; it is decoded only where it is needed, off the UI
//! thread. Serialised, an item reads like the MCP block it came from (`mimeType`, `data`...), plus
//! the size of its data.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::catalog::schema::kind_of;

/// One item of a tool result's `content`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentItem {
    Text(Text),
    Image(Media),
    Audio(Media),
    ResourceLink(Link),
    /// An embedded resource: its text or blob came with the answer.
    Resource(Embedded),
    /// A block tooldeck cannot read: a type MCP does not define, or one missing what it needs.
    Unreadable(Unreadable),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Text {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

/// An image or a sound, base64 as it came.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Media {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    pub data: Arc<str>,
    /// Bytes once decoded.
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

/// A resource the server can be asked for (`resources/read`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    pub uri: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// As the server declared it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

/// A resource's contents: in a result (`resource` blocks) and from `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Embedded {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// `"text": ...` or `"blob": ...`, as it came.
    #[serde(flatten)]
    pub body: Inline,
    /// Bytes once decoded.
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` as it came (an MCP App's `_meta.ui`: its CSP and permissions); not printed.
    #[serde(skip)]
    pub meta: Option<Value>,
}

/// Content that came inline, not yet decoded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Inline {
    /// Text as it came.
    #[serde(rename = "text")]
    Text(Arc<str>),
    /// Base64 (image and audio data, resource blobs).
    #[serde(rename = "blob")]
    Base64(Arc<str>),
}

impl Inline {
    /// How long the characters are (not the bytes they decode to).
    pub fn encoded_len(&self) -> usize {
        match self {
            Inline::Text(text) | Inline::Base64(text) => text.len(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unreadable {
    /// The block's `type`, "" when it has none.
    pub declared_type: String,
    pub why: String,
    pub block: Value,
}

/// Who an item is for and how much it matters (MCP `annotations`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// `user`, `assistant`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub audience: Vec<String>,
    /// 0 (least important) to 1 (most).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl ContentItem {
    /// `text`, `image`, ... as MCP names the block (an unreadable one: its own type, quoted).
    pub fn kind(&self) -> &str {
        match self {
            ContentItem::Text(_) => "text",
            ContentItem::Image(_) => "image",
            ContentItem::Audio(_) => "audio",
            ContentItem::ResourceLink(_) => "resource_link",
            ContentItem::Resource(_) => "resource",
            ContentItem::Unreadable(_) => "unreadable",
        }
    }

    pub fn annotations(&self) -> Option<&Annotations> {
        match self {
            ContentItem::Text(t) => t.annotations.as_ref(),
            ContentItem::Image(m) | ContentItem::Audio(m) => m.annotations.as_ref(),
            ContentItem::ResourceLink(l) => l.annotations.as_ref(),
            ContentItem::Resource(e) => e.annotations.as_ref(),
            ContentItem::Unreadable(_) => None,
        }
    }

    /// The item's content type, where it has one.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ContentItem::Text(_) => Some("text/plain"),
            ContentItem::Image(m) | ContentItem::Audio(m) => m.mime_type.as_deref(),
            ContentItem::ResourceLink(l) => l.mime_type.as_deref(),
            ContentItem::Resource(e) => e.mime_type.as_deref(),
            ContentItem::Unreadable(_) => None,
        }
    }

    /// The content that came with the item, to preview or save (a link has none: it is read).
    pub fn inline(&self) -> Option<Inline> {
        match self {
            ContentItem::Text(t) => Some(Inline::Text(Arc::from(t.text.as_str()))),
            ContentItem::Image(m) | ContentItem::Audio(m) => Some(Inline::Base64(Arc::clone(&m.data))),
            ContentItem::Resource(e) => Some(e.body.clone()),
            ContentItem::ResourceLink(_) | ContentItem::Unreadable(_) => None,
        }
    }

    /// The resource's URI (links and embedded resources).
    pub fn uri(&self) -> Option<&str> {
        match self {
            ContentItem::ResourceLink(l) => Some(&l.uri),
            ContentItem::Resource(e) => Some(&e.uri),
            _ => None,
        }
    }
}

/// Reads a result's `content` blocks, taking their strings out (no copy of large data); each way
/// a block breaks the protocol is a warning in `w`.
pub fn read_items(blocks: Vec<Value>, w: &mut Vec<String>) -> Vec<ContentItem> {
    blocks.into_iter().enumerate().map(|(i, block)| read_item(i, block, w)).collect()
}

fn read_item(i: usize, block: Value, w: &mut Vec<String>) -> ContentItem {
    let at = format!("\"content/{i}\"");
    let Value::Object(mut obj) = block else {
        w.push(format!("{at} is {}, not a content block", kind_of(&block)));
        let why = format!("is {}, not an object", kind_of(&block));
        return ContentItem::Unreadable(Unreadable { declared_type: String::new(), why, block });
    };
    let kind = obj.get("type").and_then(Value::as_str).unwrap_or_default().to_string();
    let unreadable = |why: String, obj: Map<String, Value>, w: &mut Vec<String>| {
        w.push(format!("{at} ({kind}) {why}"));
        ContentItem::Unreadable(Unreadable { declared_type: kind.clone(), why, block: Value::Object(obj) })
    };
    let annotations = read_annotations(&at, obj.get("annotations"), w);
    match kind.as_str() {
        "text" => match take_string(&mut obj, "text") {
            Some(text) => ContentItem::Text(Text { text, annotations }),
            None => unreadable("has no \"text\"".into(), obj, w),
        },
        "image" | "audio" => {
            let Some(data) = take_string(&mut obj, "data") else {
                return unreadable("has no data".into(), obj, w);
            };
            let mime_type = take_string(&mut obj, "mimeType");
            if mime_type.is_none() {
                w.push(format!("{at} ({kind}) has no \"mimeType\""));
            }
            let media = Media { mime_type, size: decoded_len(&data), data: Arc::from(data), annotations };
            if kind == "image" { ContentItem::Image(media) } else { ContentItem::Audio(media) }
        }
        "resource_link" => {
            let Some(uri) = take_string(&mut obj, "uri") else {
                return unreadable("has no \"uri\"".into(), obj, w);
            };
            let name = take_string(&mut obj, "name").unwrap_or_else(|| {
                w.push(format!("{at} (resource_link) has no \"name\""));
                String::new()
            });
            let size = obj.get("size").and_then(Value::as_u64);
            if obj.get("size").is_some_and(|s| !s.is_null()) && size.is_none() {
                w.push(format!("{at} (resource_link): \"size\" is not a whole number of bytes"));
            }
            ContentItem::ResourceLink(Link {
                uri,
                name,
                title: take_string(&mut obj, "title"),
                description: take_string(&mut obj, "description"),
                mime_type: take_string(&mut obj, "mimeType"),
                size,
                annotations,
            })
        }
        "resource" => {
            let Some(Value::Object(resource)) = obj.get_mut("resource") else {
                return unreadable("has no \"resource\" object".into(), obj, w);
            };
            match read_embedded(resource, annotations) {
                Ok((embedded, problems)) => {
                    w.extend(problems.into_iter().map(|p| format!("{at} (resource) {p}")));
                    ContentItem::Resource(embedded)
                }
                Err(why) => unreadable(why.to_string(), obj, w),
            }
        }
        "" => {
            w.push(format!("{at} (type \"\") is not a content block tooldeck can read"));
            let why = "has no \"type\"".to_string();
            ContentItem::Unreadable(Unreadable { declared_type: kind, why, block: Value::Object(obj) })
        }
        other => {
            w.push(format!("{at} (type {other:?}) is not a content block tooldeck can read"));
            let why = format!("\"{other}\" is not an MCP content type");
            ContentItem::Unreadable(Unreadable { declared_type: kind, why, block: Value::Object(obj) })
        }
    }
}

/// Why an embedded or read resource cannot be read at all (said after where it was).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum EmbeddedError {
    #[error("has neither \"text\" nor \"blob\"")]
    NoBody,
}

/// `{uri, mimeType, text | blob}`, the strings taken out; or why it cannot be read. Problems that
/// still leave it readable come back beside it.
fn read_embedded(
    resource: &mut Map<String, Value>,
    annotations: Option<Annotations>,
) -> Result<(Embedded, Vec<String>), EmbeddedError> {
    let body = if resource.get("text").is_some_and(Value::is_string) {
        Inline::Text(Arc::from(take_string(resource, "text").unwrap_or_default()))
    } else if resource.get("blob").is_some_and(Value::is_string) {
        Inline::Base64(Arc::from(take_string(resource, "blob").unwrap_or_default()))
    } else {
        return Err(EmbeddedError::NoBody);
    };
    let mut problems = Vec::new();
    let uri = take_string(resource, "uri").unwrap_or_else(|| {
        problems.push("has no \"uri\"".to_string());
        String::new()
    });
    let size = match &body {
        Inline::Text(text) => text.len() as u64,
        Inline::Base64(data) => decoded_len(data),
    };
    let mime_type = take_string(resource, "mimeType");
    let meta = resource.remove("_meta").filter(Value::is_object);
    Ok((Embedded { uri, mime_type, body, size, annotations, meta }, problems))
}

/// A `resources/read` result's `contents`; entries that cannot be read are left out (with why, in
/// `w`).
pub fn read_resource_contents(contents: Vec<Value>, w: &mut Vec<String>) -> Vec<Embedded> {
    let mut read = Vec::new();
    for (i, entry) in contents.into_iter().enumerate() {
        let Value::Object(mut entry) = entry else {
            w.push(format!("\"contents/{i}\" is not an object"));
            continue;
        };
        match read_embedded(&mut entry, None) {
            Ok((embedded, problems)) => {
                w.extend(problems.into_iter().map(|p| format!("\"contents/{i}\" {p}")));
                read.push(embedded);
            }
            Err(why) => w.push(format!("\"contents/{i}\" {why}")),
        }
    }
    read
}

/// `annotations: {audience, priority, lastModified}`; what does not fit is a warning.
fn read_annotations(at: &str, value: Option<&Value>, w: &mut Vec<String>) -> Option<Annotations> {
    let value = value.filter(|v| !v.is_null())?;
    let Some(obj) = value.as_object() else {
        w.push(format!("{at}: \"annotations\" is {}, not an object", kind_of(value)));
        return None;
    };
    let mut annotations = Annotations::default();
    match obj.get("audience") {
        None | Some(Value::Null) => {}
        Some(Value::Array(roles)) => {
            for role in roles {
                match role.as_str() {
                    Some(r @ ("user" | "assistant")) => annotations.audience.push(r.to_string()),
                    _ => w.push(format!("{at}: audience {role} is not \"user\" or \"assistant\"")),
                }
            }
        }
        Some(other) => w.push(format!("{at}: \"audience\" is {}, not an array", kind_of(other))),
    }
    match obj.get("priority") {
        None | Some(Value::Null) => {}
        Some(p) => match p.as_f64() {
            // rmcp holds a priority as an f32: 0.9 comes back as 0.8999999761581421. Six places
            // are more than any server means.
            Some(p) if (0.0..=1.0).contains(&p) => annotations.priority = Some((p * 1e6).round() / 1e6),
            _ => w.push(format!("{at}: priority {p} is not a number from 0 to 1")),
        },
    }
    annotations.last_modified = obj.get("lastModified").and_then(Value::as_str).map(str::to_string);
    Some(annotations)
}

/// The string at `key`, taken out of `obj` (no copy); `None` when it is absent or not a string.
fn take_string(obj: &mut Map<String, Value>, key: &str) -> Option<String> {
    match obj.get_mut(key) {
        Some(Value::String(s)) => Some(std::mem::take(s)),
        _ => None,
    }
}

/// The number of bytes base64 text decodes to.
pub fn decoded_len(b64: &str) -> u64 {
    (b64.bytes().filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_')).count() * 3 / 4) as u64
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn items(content: Value) -> (Vec<ContentItem>, Vec<String>) {
        let mut w = Vec::new();
        let Value::Array(blocks) = content else { panic!() };
        (read_items(blocks, &mut w), w)
    }

    #[test]
    fn every_kind_in_order_with_its_annotations() {
        let (items, w) = items(json!([
            {"type": "text", "text": "a\nb", "annotations": {"audience": ["user"], "priority": 0.5}},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///r.md", "name": "r.md", "mimeType": "text/markdown", "size": 12},
            {"type": "resource", "resource": {"uri": "file:///n.txt", "mimeType": "text/plain", "text": "hello"},
                "annotations": {"audience": ["assistant"], "lastModified": "2025-01-01T00:00:00Z"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAEC"}},
        ]));
        assert!(w.is_empty(), "{w:?}");
        let kinds: Vec<&str> = items.iter().map(ContentItem::kind).collect();
        assert_eq!(kinds, ["text", "image", "audio", "resource_link", "resource", "resource"]);
        let ContentItem::Text(text) = &items[0] else { panic!() };
        assert_eq!(text.annotations.as_ref().unwrap().audience, ["user"]);
        let ContentItem::Image(image) = &items[1] else { panic!() };
        assert_eq!((&*image.data, image.size), ("iVBORw0KGgo=", 8));
        let ContentItem::Resource(blob) = &items[5] else { panic!() };
        assert_eq!((blob.size, &blob.body), (3, &Inline::Base64(Arc::from("AAEC"))));
        // Serialised like the MCP blocks they came from, data and all.
        let json = serde_json::to_value(&items).unwrap();
        assert_eq!(json[1], json!({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo=", "size": 8}));
        assert_eq!(json[4]["text"], "hello");
        assert_eq!(json[4]["annotations"], json!({"audience": ["assistant"], "lastModified": "2025-01-01T00:00:00Z"}));
        assert_eq!(json[5]["blob"], "AAEC");
        assert_eq!(json[3]["size"], 12);
    }

    #[test]
    fn broken_blocks_are_kept_with_why() {
        let (items, w) = items(json!([
            {"type": "video", "url": "x"},
            {"type": "image", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///x"}},
            "text",
            {"type": "text", "text": "t", "annotations": {"priority": 7, "audience": ["robot"]}},
        ]));
        assert_eq!(items.iter().map(ContentItem::kind).collect::<Vec<_>>()[..4], ["unreadable"; 4]);
        let ContentItem::Unreadable(video) = &items[0] else { panic!() };
        assert_eq!((video.declared_type.as_str(), &video.block["url"]), ("video", &json!("x")));
        assert_eq!(
            w,
            [
                "\"content/0\" (type \"video\") is not a content block tooldeck can read",
                "\"content/1\" (image) has no data",
                "\"content/2\" (resource) has neither \"text\" nor \"blob\"",
                "\"content/3\" is a string, not a content block",
                "\"content/4\": audience \"robot\" is not \"user\" or \"assistant\"",
                "\"content/4\": priority 7 is not a number from 0 to 1",
            ]
        );
    }
}
