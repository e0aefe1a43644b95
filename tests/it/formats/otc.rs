use super::common::*;
use serde_json::{Value, json};
use tooldeck::catalog::{Authorization, Format};

/// The OTC RFC's Gmail example: 1.0 draft (`input_schema.parameters`), OAuth2 requirement.
const GMAIL: &str = r#"{
  "id": "Gmail.GetEmails@1.2.0",
  "name": "Gmail_GetEmails",
  "description": "Retrieves emails from Gmail using OAuth 2.0 authentication.",
  "version": "1.2.0",
  "input_schema": {
    "parameters": {
      "type": "object",
      "properties": {
        "query": {
          "type": "string",
          "description": "Search query for filtering emails."
        }
      },
      "required": []
    }
  },
  "output_schema": {
    "type": "object",
    "properties": {
      "emails": {
        "type": "array",
        "items": {
          "type": "object",
          "properties": {
            "id": { "type": "string" },
            "subject": { "type": "string" },
            "snippet": { "type": "string" }
          },
          "required": ["id", "subject", "snippet"]
        },
        "description": "List of retrieved emails."
      }
    },
    "required": ["emails"]
  },
  "requirements": {
    "authorization": [
      {
        "id": "google",
        "oauth2": {
          "scopes": ["https://www.googleapis.com/auth/gmail.readonly"]
        }
      }
    ],
    "user_id": true
  }
}"#;

#[test]
fn draft_1_0_input_schema_parameters() {
    let tool = one("gmail.json", GMAIL);
    assert_eq!(tool.id, "Gmail.GetEmails@1.2.0");
    assert_eq!(tool.name, "Gmail_GetEmails");
    assert_eq!(tool.format, Format::Otc);
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {"query": {"type": "string", "description": "Search query for filtering emails."}},
            "required": []
        })
    );
    assert_eq!(
        tool.output_schema,
        Some(json!({
            "type": "object",
            "properties": {
                "emails": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"id": {"type": "string"}, "subject": {"type": "string"}, "snippet": {"type": "string"}},
                        "required": ["id", "subject", "snippet"]
                    },
                    "description": "List of retrieved emails."
                }
            },
            "required": ["emails"]
        }))
    );
    assert_eq!(
        tool.requirements.authorization,
        [Authorization {
            id: "google".into(),
            provider_type: Some("oauth2".into()),
            scopes: vec!["https://www.googleapis.com/auth/gmail.readonly".into()],
        }]
    );
    assert!(tool.requirements.secrets.is_empty());
}

#[test]
fn later_revision_bare_input_schema_and_null_output() {
    let text = r#"{
  "id": "Calculator.Add@2.0.0",
  "name": "Calculator_Add",
  "description": "Adds two numbers.",
  "version": "2.0.0",
  "input_schema": {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"]
  },
  "output_schema": null
}"#;
    let tool = one("add.json", text);
    assert_eq!(tool.id, "Calculator.Add@2.0.0");
    assert_eq!(tool.format, Format::Otc);
    assert_eq!(
        tool.input_schema,
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]})
    );
    assert_eq!(tool.output_schema, None);
}

#[test]
fn list_under_tools_or_items_with_secrets() {
    let tool = |id: &str, requirements: Value| {
        json!({
            "id": id, "name": id.split('@').next().unwrap().replace('.', "_"), "version": "1.0.0",
            "input_schema": {"parameters": {"type": "object", "properties": {"to": {"type": "string"}}}},
            "requirements": requirements
        })
    };
    let sms = tool(
        "SMS.Send@1.0.0",
        json!({"authorization": [{"id": "twilio", "oauth2": {"scopes": ["sms:send", "sms:read"]}}], "secrets": [{"id": "TWILIO_API_KEY"}]}),
    );
    let ring = tool("Doorbell.Ring@1.0.0", json!({"secrets": [{"id": "DOORBELL_TOKEN"}, "PLAIN_SECRET"]}));
    for key in ["tools", "items"] {
        let text = serde_json::to_string_pretty(&json!({ key: [sms, ring] })).unwrap();
        let tools = clean("otc.json", &text);
        assert_eq!(ids(&tools), ["SMS.Send@1.0.0", "Doorbell.Ring@1.0.0"], "under {key}");
        assert!(tools.iter().all(|t| t.format == Format::Otc));
        assert_eq!(
            tools[0].requirements.authorization,
            [Authorization {
                id: "twilio".into(),
                provider_type: Some("oauth2".into()),
                scopes: vec!["sms:send".into(), "sms:read".into()],
            }]
        );
        assert_eq!(tools[0].requirements.secrets, ["TWILIO_API_KEY"]);
        assert!(tools[1].requirements.authorization.is_empty());
        assert_eq!(tools[1].requirements.secrets, ["DOORBELL_TOKEN", "PLAIN_SECRET"]);
        assert_eq!(tools[1].input_schema, json!({"type": "object", "properties": {"to": {"type": "string"}}}));
    }
    // A bare array of OTC definitions too (the `/tools` answer of some servers).
    let text = serde_json::to_string(&json!([sms, ring])).unwrap();
    assert_eq!(ids(&clean("otc.json", &text)), ["SMS.Send@1.0.0", "Doorbell.Ring@1.0.0"]);
}

/// Arcade's `input.parameters` list, `value_schema`, `output.value_schema` and the object form
/// of `requirements.authorization`.
#[test]
fn arcade_parameter_list_and_object_authorization() {
    let text = r#"{
  "name": "SendMessage",
  "fully_qualified_name": "Slack.SendMessage@0.2.0",
  "description": "Send a message to a Slack channel.",
  "toolkit": {"name": "Slack", "description": null, "version": "0.2.0"},
  "input": {
    "parameters": [
      {"name": "channel", "required": true, "description": "Channel name",
       "value_schema": {"val_type": "string", "inner_val_type": null, "enum": null}, "inferrable": true},
      {"name": "priority", "required": false, "description": "How loud",
       "value_schema": {"val_type": "string", "inner_val_type": null, "enum": ["normal", "urgent"]}},
      {"name": "mentions", "required": false, "description": "User ids",
       "value_schema": {"val_type": "array", "inner_val_type": "string", "enum": null}},
      {"name": "levels", "required": false,
       "value_schema": {"val_type": "array", "inner_val_type": "integer", "enum": [1, 2, 3]}},
      {"name": "count", "required": true, "value_schema": {"val_type": "integer"}},
      {"name": "ratio", "value_schema": {"val_type": "number"}},
      {"name": "silent", "value_schema": {"val_type": "boolean"}},
      {"name": "meta", "value_schema": {"val_type": "json", "properties": {"k": {"val_type": "string", "description": "key"}}}}
    ]
  },
  "output": {
    "description": "The posted message",
    "available_modes": ["value", "error"],
    "value_schema": {"val_type": "json", "inner_val_type": null, "enum": null}
  },
  "requirements": {
    "authorization": {
      "provider_id": "slack",
      "provider_type": "oauth2",
      "oauth2": {"scopes": ["chat:write", "channels:read"]}
    },
    "secrets": null
  }
}"#;
    let tool = one("slack.json", text);
    assert_eq!(tool.id, "Slack.SendMessage@0.2.0");
    assert_eq!(tool.name, "SendMessage");
    assert_eq!(tool.format, Format::Otc);
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "channel": {"type": "string", "description": "Channel name"},
                "priority": {"type": "string", "enum": ["normal", "urgent"], "description": "How loud"},
                "mentions": {"type": "array", "items": {"type": "string"}, "description": "User ids"},
                "levels": {"type": "array", "items": {"type": "integer", "enum": [1, 2, 3]}},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "silent": {"type": "boolean"},
                "meta": {"type": "object", "properties": {"k": {"type": "string", "description": "key"}}}
            },
            "required": ["channel", "count"]
        })
    );
    assert_eq!(tool.output_schema, Some(json!({"type": "object", "description": "The posted message"})));
    assert_eq!(
        tool.requirements.authorization,
        [Authorization {
            id: "slack".into(),
            provider_type: Some("oauth2".into()),
            scopes: vec!["chat:write".into(), "channels:read".into()],
        }]
    );
    assert!(tool.requirements.secrets.is_empty());
}

/// Arcade without `fully_qualified_name`: the id is built from the toolkit; `key` secrets.
#[test]
fn arcade_id_from_toolkit_and_key_secrets() {
    let text = r#"{
  "name": "HelloWorld",
  "description": "A hello world tool",
  "toolkit": {"name": "SampleApi", "version": "0.1.0"},
  "input": {"parameters": [{"name": "name", "required": true, "value_schema": {"val_type": "string"}}]},
  "output": {"value_schema": {"val_type": "json", "properties": {"message": {"val_type": "string"}}, "description": "The greeting"}},
  "requirements": {"authorization": null, "secrets": [{"key": "sample_api_key"}]}
}"#;
    let tool = one("hello.json", text);
    assert_eq!(tool.id, "SampleApi.HelloWorld@0.1.0");
    assert_eq!(
        tool.input_schema,
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
    );
    assert_eq!(
        tool.output_schema,
        Some(json!({"type": "object", "properties": {"message": {"type": "string"}}, "description": "The greeting"}))
    );
    assert!(tool.requirements.authorization.is_empty());
    assert_eq!(tool.requirements.secrets, ["sample_api_key"]);
}
