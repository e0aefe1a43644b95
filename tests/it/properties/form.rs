//! The form round trip: for a generated schema (flat or nested objects of strings with length
//! bounds, enums, numbers, bounded integers, booleans, arrays of primitives, optional fields,
//! defaults, nullable fields) any valid instance put into the form comes back out unchanged and
//! without an error. Also: any JSON at all as a schema gives a form, never a panic.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tooldeck::catalog::{Format, Source, Tool, ToolUi};
use tooldeck::form::Form;

use super::strategies::{any_string, json_leaf, json_value};

fn tool(schema: Value) -> Tool {
    Tool {
        id: "t".into(),
        name: "t".into(),
        title: None,
        description: None,
        format: Format::JsonSchema,
        source: Source::file("<property>", 1),
        input_schema: schema,
        output_schema: None,
        ui: ToolUi::default(),
        examples: Vec::new(),
        requirements: Default::default(),
        annotations: None,
        task_support: None,
        written: Default::default(),
    }
}

/// A schema the generator knows how to make valid instances of.
#[derive(Debug, Clone)]
enum Spec {
    Str {
        min: usize,
        max: usize,
    },
    Enum(Vec<Value>),
    Number {
        min: f64,
        max: f64,
    },
    Integer {
        min: i64,
        max: i64,
    },
    Bool,
    Array {
        item: Box<Spec>,
        min: usize,
        max: usize,
    },
    Object(Vec<Prop>),
    /// `"type": [<the inner type>, "null"]`.
    Nullable(Box<Spec>),
}

#[derive(Debug, Clone)]
struct Prop {
    name: String,
    spec: Spec,
    required: bool,
    /// Whether the schema gives a default (a valid instance of the spec, made from `default_seed`).
    default: bool,
}

fn primitive() -> impl Strategy<Value = Spec> {
    let enum_value = prop_oneof![
        3 => any_string(8).prop_map(Value::String),
        1 => any::<i32>().prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::Null),
        1 => Just(json!(1.5)),
    ];
    prop_oneof![
        (0usize..4, 0usize..12).prop_map(|(min, extra)| Spec::Str { min, max: min + extra }),
        prop::collection::vec(enum_value, 1..5).prop_map(|mut values| {
            let mut seen = Vec::new();
            values.retain(|v| {
                if seen.contains(v) {
                    false
                } else {
                    seen.push(v.clone());
                    true
                }
            });
            Spec::Enum(values)
        }),
        (-1e6f64..1e6, 0f64..1e6).prop_map(|(min, span)| Spec::Number { min, max: min + span }),
        (any::<i32>(), 0u32..1000)
            .prop_map(|(min, span)| Spec::Integer { min: i64::from(min), max: i64::from(min) + i64::from(span) }),
        Just(Spec::Bool),
    ]
}

fn property_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z][a-z0-9_]{0,6}",
        1 => prop::sample::select(vec!["", "a/b", "~0", "~1x", "with space", "é", "type", "properties", "$ref",
            "items", "0", "[1]"]).prop_map(str::to_string),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    let leaf = prop_oneof![
        4 => primitive(),
        1 => (primitive(), 0usize..3, 0usize..4).prop_map(|(item, min, extra)| Spec::Array { item: Box::new(item), min, max: min + extra }),
        1 => primitive().prop_map(|p| Spec::Nullable(Box::new(p))),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop::collection::vec((property_name(), inner, any::<bool>(), prop::bool::weighted(0.2)), 0..5).prop_map(
            |props| {
                let mut seen = Vec::new();
                Spec::Object(
                    props
                        .into_iter()
                        .filter(|(name, ..)| {
                            if seen.contains(name) {
                                false
                            } else {
                                seen.push(name.clone());
                                true
                            }
                        })
                        .map(|(name, spec, required, default)| Prop { name, spec, required, default })
                        .collect(),
                )
            },
        )
    })
}

/// The root: always an object.
fn root_spec() -> impl Strategy<Value = Spec> {
    spec().prop_map(|s| match s {
        Spec::Object(_) => s,
        other => Spec::Object(vec![Prop { name: "value".into(), spec: other, required: true, default: false }]),
    })
}

fn schema(spec: &Spec) -> Value {
    match spec {
        Spec::Str { min, max } => json!({"type": "string", "minLength": min, "maxLength": max}),
        Spec::Enum(values) => json!({"enum": values}),
        Spec::Number { min, max } => json!({"type": "number", "minimum": min, "maximum": max}),
        Spec::Integer { min, max } => json!({"type": "integer", "minimum": min, "maximum": max}),
        Spec::Bool => json!({"type": "boolean"}),
        Spec::Array { item, min, max } => {
            json!({"type": "array", "items": schema(item), "minItems": min, "maxItems": max})
        }
        Spec::Nullable(inner) => {
            let mut s = schema(inner);
            if let Some(t) = s.get("type").cloned() {
                s["type"] = json!([t, "null"]);
            } else if !s["enum"].as_array().unwrap().contains(&Value::Null) {
                s["enum"].as_array_mut().unwrap().push(Value::Null);
            }
            s
        }
        Spec::Object(props) => {
            let properties: Map<String, Value> = props
                .iter()
                .map(|p| {
                    let mut s = schema(&p.spec);
                    if p.default {
                        s["default"] = canonical(&p.spec);
                    }
                    (p.name.clone(), s)
                })
                .collect();
            let required: Vec<&str> = props.iter().filter(|p| p.required).map(|p| p.name.as_str()).collect();
            json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
        }
    }
}

/// One fixed valid instance (for defaults).
fn canonical(spec: &Spec) -> Value {
    match spec {
        Spec::Str { min, .. } => json!("d".repeat(*min)),
        Spec::Enum(values) => values[0].clone(),
        Spec::Number { min, .. } => json!(min),
        Spec::Integer { min, .. } => json!(min),
        Spec::Bool => json!(true),
        Spec::Array { item, min, .. } => Value::Array(vec![canonical(item); *min]),
        Spec::Nullable(_) => Value::Null,
        Spec::Object(props) => {
            Value::Object(props.iter().filter(|p| p.required).map(|p| (p.name.clone(), canonical(&p.spec))).collect())
        }
    }
}

/// Valid instances of `spec`.
fn instance(spec: &Spec) -> BoxedStrategy<Value> {
    match spec.clone() {
        Spec::Str { min, max } => {
            prop::collection::vec(any::<char>(), min..=max).prop_map(|c| Value::String(c.into_iter().collect())).boxed()
        }
        Spec::Enum(values) => prop::sample::select(values).boxed(),
        Spec::Number { min, max } => prop_oneof![
            (min..=max).prop_map(Value::from),
            Just(Value::from(min)),
            Just(Value::from(max)),
            // A whole number written as a float (1.0), which must not come back as 1.
            Just(Value::from(min.ceil())).prop_filter("in range", move |v| v.as_f64().is_some_and(|f| f <= max)),
            // A whole number in range, written as an integer.
            ((min.ceil() as i64)..=(max.floor() as i64).max(min.ceil() as i64))
                .prop_filter("in range", move |i| (*i as f64) >= min && (*i as f64) <= max)
                .prop_map(Value::from),
        ]
        .boxed(),
        // JSON Schema counts 3.0 as an integer too.
        Spec::Integer { min, max } => {
            prop_oneof![4 => (min..=max).prop_map(Value::from), 1 => (min..=max).prop_map(|i| Value::from(i as f64))]
                .boxed()
        }
        Spec::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Spec::Array { item, min, max } => {
            prop::collection::vec(instance(&item), min..=max).prop_map(Value::Array).boxed()
        }
        Spec::Nullable(inner) => prop_oneof![Just(Value::Null), instance(&inner)].boxed(),
        Spec::Object(props) => {
            let members: Vec<BoxedStrategy<Option<(String, Value)>>> = props
                .iter()
                .map(|p| {
                    let name = p.name.clone();
                    let value = instance(&p.spec).prop_map(move |v| (name.clone(), v));
                    if p.required { value.prop_map(Some).boxed() } else { prop::option::of(value).boxed() }
                })
                .collect();
            members.prop_map(|m| Value::Object(m.into_iter().flatten().collect())).boxed()
        }
    }
}

fn schema_and_instance() -> impl Strategy<Value = (Value, Value)> {
    root_spec().prop_flat_map(|spec| (Just(schema(&spec)), instance(&spec)))
}

const TYPES: &[&str] = &["object", "string", "integer", "number", "boolean", "array", "null", "dict"];
const KEYWORDS: &[&str] = &[
    "type",
    "type",
    "properties",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "enum",
    "const",
    "default",
    "oneOf",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "minimum",
    "maxLength",
    "format",
    "pattern",
    "title",
    "examples",
    "not",
    "if",
    "then",
    "patternProperties",
    "prefixItems",
    "minItems",
];

/// Schemas made of real keywords holding plausible values (and sometimes not): `$ref`s into
/// `$defs`, to the root and to siblings, variants, `allOf`, defaults of any kind.
fn schema_like() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        2 => prop::sample::select(TYPES).prop_map(|t| json!({"type": t})),
        1 => prop::sample::select(vec!["#/$defs/a", "#", "#/properties/p", "#/$defs/missing", "other.json"])
            .prop_map(|r| json!({"$ref": r})),
        1 => prop::sample::select(vec![json!(true), json!(false), json!({})]),
        1 => json_leaf(),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        let member = (
            prop::sample::select(KEYWORDS),
            inner.clone(),
            prop::collection::vec(inner.clone(), 0..3),
            prop::collection::vec((prop::sample::select(vec!["p", "q", "a", "x y"]), inner), 0..3),
            json_value(),
            prop::collection::vec(prop::sample::select(TYPES), 1..3),
        )
            .prop_map(|(keyword, one, list, map, any, types)| {
                let value = match keyword {
                    "properties" | "$defs" | "patternProperties" => {
                        Value::Object(map.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                    }
                    "oneOf" | "anyOf" | "allOf" | "prefixItems" => Value::Array(list),
                    "items" | "additionalProperties" | "not" | "if" | "then" => one,
                    "type" if types.len() == 1 => json!(types[0]),
                    "type" => json!(types),
                    "required" => json!(["p", "q"]),
                    "enum" | "examples" => Value::Array(list.into_iter().filter(|v| !v.is_object()).collect()),
                    "$ref" => json!("#/$defs/a"),
                    _ => any,
                };
                (keyword.to_string(), value)
            });
        prop::collection::vec(member, 0..5).prop_map(|m| Value::Object(m.into_iter().collect()))
    })
    .boxed()
}

proptest! {
    #![proptest_config(crate::properties::config(128))]

    /// Schemas of real keywords: the form builds, and the arguments it starts with, put back
    /// in, come back unchanged.
    #[test]
    fn schema_like_forms_keep_their_own_arguments(schema in schema_like(), defs in schema_like(), arguments in json_value()) {
        let mut schema = json!({"type": "object", "properties": {"p": schema}});
        schema["$defs"] = json!({"a": defs});
        let tool = tool(schema);
        let mut form = Form::new(&tool);
        let first = form.arguments().clone();
        form.set_arguments(&first);
        prop_assert_eq!(form.arguments(), &first, "schema {}", tool.input_schema);
        form.set_arguments(&json!({"p": arguments}));
        let _ = form.rows();
    }

    #[test]
    fn valid_instances_round_trip((schema, instance) in schema_and_instance()) {
        let validator = jsonschema::validator_for(&schema).unwrap();
        prop_assert!(validator.is_valid(&instance), "the generator made an invalid instance {} of {}", instance, schema);
        let tool = tool(schema);
        let mut form = Form::new(&tool);
        form.set_arguments(&instance);
        prop_assert_eq!(form.arguments(), &instance, "schema {}", tool.input_schema);
        prop_assert_eq!(form.validation.error_count, 0, "{:#?}", form.validation.errors);
        // Twice over: a form that already holds a value takes the next one just as well.
        let again = form.arguments().clone();
        form.set_arguments(&again);
        prop_assert_eq!(form.arguments(), &instance);
    }

    /// Any JSON as a schema makes a form; its own arguments put back in are a fixed point.
    #[test]
    fn any_schema_makes_a_form(schema in json_value(), wrap in any::<bool>(), arguments in json_value()) {
        let schema = if wrap { json!({"type": "object", "properties": {"p": schema, "q": {"$ref": "#/properties/p"}}}) } else { schema };
        let tool = tool(schema);
        let mut form = Form::new(&tool);
        let first = form.arguments().clone();
        form.set_arguments(&first);
        prop_assert_eq!(form.arguments(), &first, "schema {}", tool.input_schema);
        form.set_arguments(&arguments);
        let _ = form.rows();
    }
}
