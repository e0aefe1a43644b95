//! Resources (MCP `resources/*`): every page of the list and of the templates, a read with its
//! contents (text or blob, bounded by the answer cap every request has), and subscriptions. The
//! server's JSON is read item by item: an entry that cannot be read is a warning, and the
//! entries beside it are kept.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::McpEndpoint;
use super::content::{Embedded, read_resource_contents};
use super::uri_template::{Template, TemplateError};
use crate::invoke::InvokeError;

/// A guard against a server whose `nextCursor` never ends.
const MAX_PAGES: usize = 10_000;

/// One resource of `resources/list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    pub uri: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The entry exactly as the server sent it (the raw definition view).
    #[serde(skip)]
    pub raw: Value,
}

/// One template of `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    pub uri_template: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its variables, in order, or why its template does not parse.
    #[serde(skip)]
    pub parsed: Result<Template, TemplateError>,
    #[serde(skip)]
    pub raw: Value,
}

impl ResourceTemplate {
    /// The names of its variables (none when the template does not parse).
    pub fn variables(&self) -> Vec<String> {
        self.parsed.as_ref().map(|t| t.variables()).unwrap_or_default()
    }
}

/// A `resources/read` result: the contents that could be read, and why others could not.
#[derive(Debug, Clone, Default)]
pub struct ReadResult {
    pub contents: Vec<Embedded>,
    pub warnings: Vec<String>,
}

fn string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_string)
}

/// `resources/list` entries; the unreadable ones are warnings in `w`.
pub fn read_resources(entries: &[Value], w: &mut Vec<String>) -> Vec<Resource> {
    let mut read = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let Some(obj) = entry.as_object() else {
            w.push(format!("resource {i} is not an object"));
            continue;
        };
        let Some(uri) = string(obj, "uri") else {
            w.push(format!("resource {i} has no \"uri\""));
            continue;
        };
        read.push(Resource {
            name: string(obj, "name").unwrap_or_else(|| uri.clone()),
            uri,
            title: string(obj, "title"),
            description: string(obj, "description"),
            mime_type: string(obj, "mimeType"),
            size: obj.get("size").and_then(Value::as_u64),
            raw: entry.clone(),
        });
    }
    read
}

/// `resources/templates/list` entries; the unreadable ones are warnings in `w`, and a template
/// that does not parse is kept with why.
pub fn read_templates(entries: &[Value], w: &mut Vec<String>) -> Vec<ResourceTemplate> {
    let mut read = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let Some(obj) = entry.as_object() else {
            w.push(format!("resource template {i} is not an object"));
            continue;
        };
        let Some(uri_template) = string(obj, "uriTemplate") else {
            w.push(format!("resource template {i} has no \"uriTemplate\""));
            continue;
        };
        let parsed = Template::parse(&uri_template);
        if let Err(e) = &parsed {
            w.push(format!("resource template {uri_template:?}: {e}"));
        }
        read.push(ResourceTemplate {
            name: string(obj, "name").unwrap_or_else(|| uri_template.clone()),
            uri_template,
            title: string(obj, "title"),
            description: string(obj, "description"),
            mime_type: string(obj, "mimeType"),
            parsed,
            raw: entry.clone(),
        });
    }
    read
}

impl McpEndpoint {
    /// Every entry of `field` across all pages of `method`, as the server sent them.
    pub(super) async fn list_all(&self, method: &str, field: &str) -> Result<Vec<Value>, InvokeError> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match cursor.take() {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            let mut page = self.custom(method, params, true).await?;
            match page.get_mut(field).map(Value::take) {
                Some(Value::Array(entries)) => all.extend(entries),
                None | Some(Value::Null) => {}
                Some(_) => {
                    return Err(InvokeError::Unreadable(format!(
                        "{}: {method}: \"{field}\" is not a list",
                        self.label
                    )));
                }
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => cursor = Some(next.to_string()),
                _ => return Ok(all),
            }
        }
        Err(InvokeError::Broken(format!("{}: {method} still had a nextCursor after {MAX_PAGES} pages", self.label)))
    }

    /// True when the server said in `initialize` that it offers `capability` (`resources`,
    /// `prompts`, `completions`...).
    pub fn offers(&self, capability: &str) -> bool {
        let Some(peer) = self.client.peer_info() else { return false };
        serde_json::to_value(&peer.capabilities).is_ok_and(|c| c.get(capability).is_some_and(|v| !v.is_null()))
    }

    /// True when the server said it sends `notifications/resources/updated` to subscribers
    /// (`resources.subscribe`).
    pub fn offers_subscriptions(&self) -> bool {
        let Some(peer) = self.client.peer_info() else { return false };
        serde_json::to_value(&peer.capabilities)
            .is_ok_and(|c| c.pointer("/resources/subscribe").and_then(Value::as_bool) == Some(true))
    }

    /// Every resource across all pages of `resources/list`, with warnings for entries that
    /// could not be read.
    pub async fn list_resources(&self) -> Result<(Vec<Resource>, Vec<String>), InvokeError> {
        let entries = self.list_all("resources/list", "resources").await?;
        let mut warnings = Vec::new();
        let resources = read_resources(&entries, &mut warnings);
        Ok((resources, warnings))
    }

    /// Every template across all pages of `resources/templates/list`.
    pub async fn list_resource_templates(&self) -> Result<(Vec<ResourceTemplate>, Vec<String>), InvokeError> {
        let entries = self.list_all("resources/templates/list", "resourceTemplates").await?;
        let mut warnings = Vec::new();
        let templates = read_templates(&entries, &mut warnings);
        Ok((templates, warnings))
    }

    /// `resources/read {uri}`: the contents, text or blob each; what cannot be read is a
    /// warning beside the rest.
    pub async fn read(&self, uri: &str) -> Result<ReadResult, InvokeError> {
        let mut result = self.custom("resources/read", json!({ "uri": uri }), true).await?;
        let contents = match result.get_mut("contents").map(Value::take) {
            Some(Value::Array(contents)) => contents,
            _ => {
                let label = &self.label;
                return Err(InvokeError::Unreadable(format!("{label}: the resources/read result has no \"contents\"")));
            }
        };
        drop(result);
        let mut warnings = Vec::new();
        let contents = read_resource_contents(contents, &mut warnings);
        Ok(ReadResult { contents, warnings })
    }

    /// `resources/subscribe {uri}`: the server sends `notifications/resources/updated` when it
    /// changes (an event, [`super::events::ServerEvent::ResourceUpdated`]).
    pub async fn subscribe(&self, uri: &str) -> Result<(), InvokeError> {
        self.before_2026("resources/subscribe")?;
        self.custom("resources/subscribe", json!({ "uri": uri }), true).await.map(|_| ())
    }

    /// 2026-07-28 replaced `resources/subscribe` with a long-lived `subscriptions/listen`
    /// request, which tooldeck does not make yet: said plainly rather than sent to be refused.
    fn before_2026(&self, method: &str) -> Result<(), InvokeError> {
        match self.speaks_2026() {
            true => Err(InvokeError::NotSent(format!(
                "{}: {method} is not in protocol 2026-07-28 (subscriptions/listen replaced it, and tooldeck \
                 does not speak it yet); --protocol 2025-11-25 subscribes the older way",
                self.label
            ))),
            false => Ok(()),
        }
    }

    /// `resources/unsubscribe {uri}`.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), InvokeError> {
        self.before_2026("resources/unsubscribe")?;
        self.custom("resources/unsubscribe", json!({ "uri": uri }), true).await.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_entry_keeps_the_others() {
        let mut w = Vec::new();
        let entries = [
            json!({"uri": "test://a", "name": "a", "mimeType": "text/plain", "size": 3}),
            json!(42),
            json!({"name": "no uri"}),
            json!({"uri": "test://b"}),
        ];
        let read = read_resources(&entries, &mut w);
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].name, "test://b", "a resource without a name goes by its URI");
        assert_eq!(w.len(), 2, "{w:?}");
    }

    #[test]
    fn a_template_that_does_not_parse_is_kept_with_why() {
        let mut w = Vec::new();
        let entries = [
            json!({"uriTemplate": "test://{id}", "name": "ok"}),
            json!({"uriTemplate": "test://{broken", "name": "b"}),
        ];
        let read = read_templates(&entries, &mut w);
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].variables(), ["id"]);
        assert!(read[1].parsed.is_err());
        assert!(w[0].contains("test://{broken"), "{w:?}");
    }
}
