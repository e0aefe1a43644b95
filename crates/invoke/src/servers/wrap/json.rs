//! Wrapping an entry of a JSON config (JSONC and JSON5 too: comments are kept): only the entry's
//! value is rewritten, in place; the original value's text rides in the wrapped entry's
//! [`ORIGINAL_FIELD`] and is put back as it was.

use serde_json::{Map, Value, json};

use super::{ORIGINAL_FIELD, TextError, Wrapped};
use crate::catalog::document::{Document, Node};

/// The entry at `path` in `text`, wrapped.
pub fn wrap(text: &str, path: &[String], wrapped: &Wrapped) -> Result<String, TextError> {
    let document = parse(text)?;
    let (start, end, entry) = locate(text, &document, path)?;
    let Some(fields) = entry.value().as_object() else {
        return Err(TextError::Other("the entry is not an object".into()));
    };
    if fields.contains_key(ORIGINAL_FIELD) {
        return Err(TextError::Wrapped);
    }
    let mut new: Map<String, Value> = fields.clone();
    new.insert("command".into(), json!(wrapped.command));
    new.insert("args".into(), json!(wrapped.args));
    new.insert(ORIGINAL_FIELD.into(), json!(&text[start..end]));
    let mut pretty = Vec::new();
    crate::json_out::write_pretty(&mut pretty, &Value::Object(new)).map_err(|e| TextError::Other(e.to_string()))?;
    let pretty = String::from_utf8_lossy(&pretty);
    // Indented like the line the entry starts on (tabs where it uses tabs), its lines ended as
    // the file's are, so the file still reads as the person wrote it.
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    let indent: String = text[line_start..start].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let eol = if text.split_once('\n').is_some_and(|(first, _)| first.ends_with('\r')) { "\r\n" } else { "\n" };
    let lines: Vec<String> = pretty
        .split('\n')
        .map(|line| match indent.contains('\t') {
            // The printer indents by two spaces a level; JSON strings hold no raw newline, so
            // each line's leading spaces are indentation.
            true => {
                let body = line.trim_start_matches(' ');
                format!("{}{body}", "\t".repeat((line.len() - body.len()) / 2))
            }
            false => line.to_string(),
        })
        .collect();
    let value = lines.join(&format!("{eol}{indent}"));
    Ok(format!("{}{value}{}", &text[..start], &text[end..]))
}

/// The entry at `path` in `text` as it was before it was wrapped.
pub fn unwrap(text: &str, path: &[String]) -> Result<String, TextError> {
    let document = parse(text)?;
    let (start, end, entry) = locate(text, &document, path)?;
    let Some(original) = entry.value().get(ORIGINAL_FIELD).and_then(Value::as_str) else {
        return Err(TextError::NotWrapped);
    };
    Ok(format!("{}{original}{}", &text[..start], &text[end..]))
}

fn parse(text: &str) -> Result<Document, TextError> {
    Document::parse(text).map_err(|e| TextError::Other(format!("not readable as JSON: {}", e.message)))
}

/// Where the entry's value starts and ends in `text`, and the entry.
fn locate<'a>(text: &str, document: &'a Document, path: &[String]) -> Result<(usize, usize, Node<'a>), TextError> {
    let mut node = document.root();
    for key in path {
        node = node.get(key).ok_or_else(|| TextError::Other(format!("no \"{key}\" where the entry was")))?;
    }
    let start = node.offset();
    let end = value_end(text, start).ok_or_else(|| TextError::Other("the entry's end cannot be found".into()))?;
    Ok((start, end, node))
}

/// The end (exclusive) of the object or list that starts at `start`: strings (either quote, as
/// JSON5 has), escapes and comments are stepped over.
fn value_end(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if !matches!(bytes.get(start), Some(b'{' | b'[')) {
        return None;
    }
    let mut depth = 0usize;
    let mut at = start;
    while at < bytes.len() {
        match bytes[at] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            quote @ (b'"' | b'\'') => {
                at += 1;
                while at < bytes.len() && bytes[at] != quote {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at = memchr::memmem::find(&bytes[at + 2..], b"*/").map_or(bytes.len(), |n| at + 2 + n + 1);
            }
            _ => {}
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_entry_unwraps_to_the_same_bytes_comments_and_all() {
        let text = "{\n  // my servers\n  \"servers\": {\n    \"notes\": { // the notes one\n      \"type\": \"stdio\", \"command\": \"node\", \"args\": [\"s.js\", \"}\"] /* } */,\n    },\n    \"other\": {\"command\": \"x\"}\n  }\n}\n";
        let path = ["servers".to_string(), "notes".to_string()];
        let wrapped =
            Wrapped { command: "/bin/tooldeck".into(), args: vec!["proxy".into(), "--".into(), "node".into()] };
        let new = wrap(text, &path, &wrapped).unwrap();
        assert!(new.starts_with("{\n  // my servers\n") && new.contains("\"other\": {\"command\": \"x\"}"), "{new}");
        let document = Document::parse(&new).unwrap();
        let entry = document.root().value()["servers"]["notes"].clone();
        assert_eq!(entry["command"], "/bin/tooldeck");
        assert_eq!(entry["type"], "stdio");
        assert!(matches!(wrap(&new, &path, &wrapped), Err(TextError::Wrapped)));
        assert_eq!(unwrap(&new, &path).unwrap(), text);
        assert!(matches!(unwrap(text, &path), Err(TextError::NotWrapped)));
    }
}
