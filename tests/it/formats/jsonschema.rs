use super::common::*;
use serde_json::json;
use tooldeck::catalog::{Example, Format};

/// PIE's tool-parameter guidance's "Complex Example", verbatim.
const SEARCH_PRODUCTS: &str = r#"{
"tool": {
"name": "search_products",
"description": "Search for products in the catalog",
"parameters": {
"type": "object",
"properties": {
"query": {
"type": "string",
"description": "Search text to match product names and descriptions"
},
"category": {
"type": "string",
"enum": ["electronics", "clothing", "home", "sports"],
"description": "Product category to filter by"
},
"priceRange": {
"type": "object",
"properties": {
"min": {
"type": "number",
"description": "Minimum price in USD"
},
"max": {
"type": "number",
"description": "Maximum price in USD"
}
},
"description": "Price range filter"
},
"tags": {
"type": "array",
"items": {
"type": "string"
},
"description": "Product tags to filter by"
},
"sortBy": {
"type": "string",
"enum": ["price_asc", "price_desc", "newest", "popular"],
"description": "How to sort results"
},
"limit": {
"type": "integer",
"description": "Maximum number of results (default: 20)"
}
},
"required": ["query"]
}
}
}"#;

#[test]
fn pie_guidance_search_products() {
    let tool = one("search_products.json", SEARCH_PRODUCTS);
    assert_eq!(tool.id, "search_products");
    assert_eq!(tool.name, "search_products");
    assert_eq!(tool.description.as_deref(), Some("Search for products in the catalog"));
    assert_eq!(tool.format, Format::JsonSchema);
    assert_eq!(tool.source.path, "search_products.json");
    assert_eq!(tool.source.line, 2, "the definition starts at the `tool` object");
    assert_eq!(tool.output_schema, None);
    assert!(tool.requirements.is_empty());
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Search text to match product names and descriptions"},
                "category": {
                    "type": "string",
                    "enum": ["electronics", "clothing", "home", "sports"],
                    "description": "Product category to filter by"
                },
                "priceRange": {
                    "type": "object",
                    "properties": {
                        "min": {"type": "number", "description": "Minimum price in USD"},
                        "max": {"type": "number", "description": "Maximum price in USD"}
                    },
                    "description": "Price range filter"
                },
                "tags": {"type": "array", "items": {"type": "string"}, "description": "Product tags to filter by"},
                "sortBy": {
                    "type": "string",
                    "enum": ["price_asc", "price_desc", "newest", "popular"],
                    "description": "How to sort results"
                },
                "limit": {"type": "integer", "description": "Maximum number of results (default: 20)"}
            },
            "required": ["query"]
        })
    );
    assert_eq!(tool.parameter_count(), 6);
}

/// PIE's tool-parameter guidance's parameter-type snippets (string, number, integer, boolean, array, object, enum)
/// gathered into one tool: each stays exactly as written.
#[test]
fn pie_guidance_parameter_types() {
    let properties = json!({
        "city": {"type": "string", "description": "City name (e.g., 'London', 'Tokyo')"},
        "temperature": {"type": "number", "description": "Temperature in Celsius"},
        "count": {"type": "integer", "description": "Number of items to return"},
        "includeDetails": {"type": "boolean", "description": "Whether to include detailed information"},
        "tags": {"type": "array", "items": {"type": "string"}, "description": "List of tags to filter by"},
        "filters": {
            "type": "object",
            "properties": {"minPrice": {"type": "number"}, "maxPrice": {"type": "number"}},
            "description": "Filter criteria"
        },
        "action": {
            "type": "string",
            "enum": ["search", "read", "send", "delete"],
            "description": "The action to perform"
        }
    });
    let text = json!({"tool": {"name": "every_type", "description": "What the tool does", "parameters": {
        "type": "object", "properties": properties, "required": ["city"]
    }}})
    .to_string();
    let tool = one("every_type.json", &text);
    assert_eq!(tool.input_schema, json!({"type": "object", "properties": properties, "required": ["city"]}));
    assert_eq!(tool.parameter_count(), 7);
}

/// PIE's tool-parameter guidance's "Required Parameters" example, as a bare `{name, description, parameters}`.
#[test]
fn bare_name_description_parameters() {
    let text = r#"{
  "name": "gmail_search",
  "description": "Search mail",
  "parameters": {
    "type": "object",
    "properties": {
      "query": { "type": "string", "description": "Search query" },
      "maxResults": { "type": "integer", "description": "Max results" }
    },
    "required": ["query"]
  }
}"#;
    let tool = one("gmail.json", text);
    assert_eq!(tool.format, Format::JsonSchema);
    assert_eq!(tool.source.line, 1);
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Search query"},
                "maxResults": {"type": "integer", "description": "Max results"}
            },
            "required": ["query"]
        })
    );
}

#[test]
fn anthropic_input_schema_list_with_examples() {
    let text = r#"[
  {
    "name": "get_weather",
    "description": "Get the current weather in a given location",
    "input_schema": {
      "type": "object",
      "properties": {
        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
      },
      "required": ["location"]
    },
    "input_examples": [{"location": "Paris, France", "unit": "celsius"}]
  },
  {
    "name": "get_time",
    "input_schema": {"type": "object", "properties": {"tz": {"type": "string"}}}
  }
]"#;
    let tools = clean("anthropic.json", text);
    assert_eq!(ids(&tools), ["get_weather", "get_time"]);
    assert!(tools.iter().all(|t| t.format == Format::JsonSchema));
    assert_eq!(
        tools[0].input_schema,
        json!({
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
            },
            "required": ["location"]
        })
    );
    assert_eq!(tools[0].examples, [Example::Arguments(json!({"location": "Paris, France", "unit": "celsius"}))]);
    assert_eq!(tools[1].description, None);
    assert_eq!(tools[1].input_schema, json!({"type": "object", "properties": {"tz": {"type": "string"}}}));
    assert_eq!((tools[0].source.line, tools[1].source.line), (2, 15));
}

#[test]
fn no_parameters_means_an_empty_object_schema() {
    let tool = one("ping.json", r#"{"tool": {"name": "ping", "description": "Ping", "parameters": {}}}"#);
    assert_eq!(tool.input_schema, json!({"type": "object"}));
    assert_eq!(tool.parameter_count(), 0);
}

#[test]
fn a_tool_without_a_name_is_an_error() {
    let (tools, diagnostics) = load("nameless.json", r#"{"tool": {"description": "x", "parameters": {}}}"#);
    assert!(tools.is_empty());
    let errors = errors(&diagnostics);
    assert_eq!(errors.len(), 1, "{diagnostics:#?}");
    assert!(errors[0].message.contains("no `name`"), "{}", errors[0].message);
    assert_eq!((errors[0].line, errors[0].column), (1, 10));
}
