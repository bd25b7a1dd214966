//! Accepting configuration documents given as JSON values or as YAML/JSON text.
//!
//! A credential type's `inputs` and `injectors` arrive either as JSON objects or as strings
//! holding a JSON or YAML document. [`parse_document`] turns both forms into one
//! [`serde_json::Value`] and enforces the limits that keep hostile documents cheap:
//!
//! * text is at most [`MAX_DOCUMENT_BYTES`] bytes long;
//! * the resulting value nests at most [`MAX_DEPTH`] containers deep;
//! * YAML aliases cannot blow a small document up into a huge value: the YAML is read into a
//!   value under a budget of nodes and string bytes that a document without aliases can never
//!   exceed (see [`MAX_NODES`] and [`MAX_SCALAR_BYTES`]), so a "billion laughs" document fails
//!   as soon as its expansion passes the budget.
//!
//! Depth is checked without recursion; the YAML reader refuses to descend past the depth limit,
//! so no deep value is ever built.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The longest text document accepted, in bytes (256 KiB).
pub const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// The deepest nesting of arrays and objects accepted. A scalar has depth 0, `{}` and `[]` have
/// depth 1, `{"a": [1]}` has depth 2.
pub const MAX_DEPTH: usize = 32;

/// The most nodes (scalars, arrays, objects and object keys) a YAML document may expand to.
///
/// Every node of a document written without aliases takes at least one byte of text, so this
/// budget (twice the size limit) only ever stops documents that multiply content through
/// aliases.
pub const MAX_NODES: usize = 2 * MAX_DOCUMENT_BYTES;

/// The most bytes of strings (values and keys) a YAML document may expand to.
///
/// Without aliases a string never decodes to more bytes than its source text takes, so only
/// alias-multiplied content reaches this budget.
pub const MAX_SCALAR_BYTES: usize = 2 * MAX_DOCUMENT_BYTES;

/// Longest reason quoted from the YAML parser in [`DocumentError::Invalid`].
const MAX_REASON_CHARS: usize = 200;

/// Why a document was refused. The `Display` text is the message shown to API clients.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    /// The text is neither valid JSON nor valid YAML (or uses YAML features that have no JSON
    /// equivalent, such as non-string mapping keys). Holds the parser's one-line reason.
    #[error("Invalid YAML or JSON: {0}")]
    Invalid(String),
    /// The text is longer than [`MAX_DOCUMENT_BYTES`].
    #[error("Document is larger than {MAX_DOCUMENT_BYTES} bytes.")]
    TooLarge,
    /// The value nests deeper than [`MAX_DEPTH`].
    #[error("Document nesting is deeper than {MAX_DEPTH} levels.")]
    TooDeep,
}

/// Accepts a configuration document.
///
/// * A JSON string is parsed: as JSON first, and when that fails as YAML. An empty (or
///   all-white-space) string is the empty object `{}`.
/// * Any other JSON value (normally an object) is returned unchanged.
///
/// Either way the result is checked against [`MAX_DEPTH`]. The caller validates the shape of
/// the result (a string holding `"text"` parses to a string, which the schema then refuses).
///
/// # Errors
///
/// [`DocumentError::TooLarge`] for text over [`MAX_DOCUMENT_BYTES`],
/// [`DocumentError::Invalid`] for text that is neither JSON nor YAML, or YAML that expands
/// past the alias budget, and [`DocumentError::TooDeep`] for values nested too deeply.
pub fn parse_document(value: &Value) -> Result<Value, DocumentError> {
    let Value::String(text) = value else {
        check_depth(value)?;
        return Ok(value.clone());
    };
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(DocumentError::TooLarge);
    }
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    // Text that is not JSON (including JSON nested past serde_json's own recursion limit) is
    // read as YAML, whose reader enforces the depth limit itself.
    let parsed = match serde_json::from_str::<Value>(text) {
        Ok(parsed) => parsed,
        Err(_) => parse_yaml(text)?,
    };
    check_depth(&parsed)?;
    Ok(parsed)
}

/// Fails when `value` nests more than [`MAX_DEPTH`] containers deep. Iterative.
fn check_depth(value: &Value) -> Result<(), DocumentError> {
    let mut pending: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((value, depth)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        let depth = depth + 1;
        if depth > MAX_DEPTH {
            return Err(DocumentError::TooDeep);
        }
        pending.extend(children.map(|child| (child, depth)));
    }
    Ok(())
}

/// Reads YAML text into a JSON value under the depth, node and string budgets.
fn parse_yaml(text: &str) -> Result<Value, DocumentError> {
    let mut budget = Budget {
        nodes_left: MAX_NODES,
        bytes_left: MAX_SCALAR_BYTES,
        too_deep: false,
    };
    let deserializer = serde_yaml::Deserializer::from_str(text);
    let result = ValueSeed {
        budget: &mut budget,
        depth: 0,
    }
    .deserialize(deserializer);
    match result {
        Ok(value) => Ok(value),
        Err(_) if budget.too_deep => Err(DocumentError::TooDeep),
        Err(error) => Err(DocumentError::Invalid(one_line(&error.to_string()))),
    }
}

/// Squeezes a parser message onto one short line.
fn one_line(reason: &str) -> String {
    let collapsed = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= MAX_REASON_CHARS {
        collapsed
    } else {
        let mut short: String = collapsed.chars().take(MAX_REASON_CHARS).collect();
        short.push_str("...");
        short
    }
}

/// What is left of the expansion allowance while a YAML document is read.
struct Budget {
    nodes_left: usize,
    bytes_left: usize,
    /// Set when reading stopped because of [`MAX_DEPTH`], to report `TooDeep` rather than the
    /// parser's wrapped message.
    too_deep: bool,
}

impl Budget {
    fn take_node<E: de::Error>(&mut self) -> Result<(), E> {
        match self.nodes_left.checked_sub(1) {
            Some(left) => {
                self.nodes_left = left;
                Ok(())
            }
            None => Err(E::custom(
                "document expands to too many values (YAML aliases)",
            )),
        }
    }

    fn take_bytes<E: de::Error>(&mut self, len: usize) -> Result<(), E> {
        match self.bytes_left.checked_sub(len) {
            Some(left) => {
                self.bytes_left = left;
                Ok(())
            }
            None => Err(E::custom(
                "document expands to too much text (YAML aliases)",
            )),
        }
    }
}

/// Builds one JSON value from a YAML node, charging the budget for everything it creates.
struct ValueSeed<'b> {
    budget: &'b mut Budget,
    /// Containers already open around this node.
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl ValueSeed<'_> {
    /// Opens a container one level deeper, or fails past [`MAX_DEPTH`].
    fn enter<E: de::Error>(&mut self) -> Result<usize, E> {
        let depth = self.depth + 1;
        if depth > MAX_DEPTH {
            self.budget.too_deep = true;
            return Err(E::custom(DocumentError::TooDeep));
        }
        Ok(depth)
    }

    fn string<E: de::Error>(self, text: &str) -> Result<Value, E> {
        self.budget.take_bytes(text.len())?;
        Ok(Value::String(text.to_owned()))
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a YAML value representable as JSON")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        self.budget.take_node()?;
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        self.budget.take_node()?;
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        self.budget.take_node()?;
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        self.budget.take_node()?;
        Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| E::custom("infinite and NaN numbers are not valid JSON"))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Value, E> {
        self.budget.take_node()?;
        self.string(value)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.budget.take_node()?;
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        self.budget.take_node()?;
        let depth = self.enter()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ValueSeed {
            budget: &mut *self.budget,
            depth,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut access: A) -> Result<Value, A::Error> {
        self.budget.take_node()?;
        let depth = self.enter()?;
        let mut map = Map::new();
        while let Some(key) = access.next_key_seed(KeySeed {
            budget: &mut *self.budget,
        })? {
            let value = access.next_value_seed(ValueSeed {
                budget: &mut *self.budget,
                depth,
            })?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, _data: A) -> Result<Value, A::Error> {
        Err(de::Error::custom("YAML tags are not supported"))
    }
}

/// Reads a mapping key, which must be a string.
struct KeySeed<'b> {
    budget: &'b mut Budget,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = String;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string mapping key")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
        self.budget.take_node()?;
        self.budget.take_bytes(value.len())?;
        Ok(value.to_owned())
    }

    fn visit_bool<E: de::Error>(self, _value: bool) -> Result<String, E> {
        Err(non_string_key())
    }

    fn visit_i64<E: de::Error>(self, _value: i64) -> Result<String, E> {
        Err(non_string_key())
    }

    fn visit_u64<E: de::Error>(self, _value: u64) -> Result<String, E> {
        Err(non_string_key())
    }

    fn visit_f64<E: de::Error>(self, _value: f64) -> Result<String, E> {
        Err(non_string_key())
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Err(non_string_key())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<String, A::Error> {
        Err(non_string_key())
    }

    fn visit_map<A: MapAccess<'de>>(self, _map: A) -> Result<String, A::Error> {
        Err(non_string_key())
    }
}

fn non_string_key<E: de::Error>() -> E {
    E::custom("mapping keys must be strings")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::{Duration, Instant};

    fn parse_text(text: &str) -> Result<Value, DocumentError> {
        parse_document(&Value::String(text.to_owned()))
    }

    #[test]
    fn objects_and_other_values_pass_through() {
        let object = json!({"fields": [{"id": "a", "label": "A"}]});
        assert_eq!(parse_document(&object), Ok(object.clone()));
        assert_eq!(parse_document(&json!(true)), Ok(json!(true)));
        assert_eq!(parse_document(&json!([1, 2])), Ok(json!([1, 2])));
    }

    #[test]
    fn empty_text_is_an_empty_object() {
        assert_eq!(parse_text(""), Ok(json!({})));
        assert_eq!(parse_text("  \n\t"), Ok(json!({})));
    }

    #[test]
    fn json_text_is_parsed_keeping_key_order() {
        let parsed = parse_text(r#"{"z": 1, "a": {"b": [true, null]}}"#).expect("valid json");
        assert_eq!(parsed, json!({"z": 1, "a": {"b": [true, null]}}));
        let keys: Vec<&String> = parsed.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["z", "a"]);
    }

    #[test]
    fn yaml_text_is_parsed() {
        let text = "fields:\n  - id: username\n    label: Username\n    secret: true\nrequired: [username]\n";
        assert_eq!(
            parse_text(text),
            Ok(json!({
                "fields": [{"id": "username", "label": "Username", "secret": true}],
                "required": ["username"]
            }))
        );
    }

    #[test]
    fn yaml_scalars_map_to_json() {
        assert_eq!(
            parse_text("a: 1\nb: 1.5\nc: ~\nd: 'x'\ne: false\nf: -3"),
            Ok(json!({"a": 1, "b": 1.5, "c": null, "d": "x", "e": false, "f": -3}))
        );
        // A bare word is a YAML string; the caller's schema decides what to make of it.
        assert_eq!(parse_text("malformed"), Ok(json!("malformed")));
    }

    #[test]
    fn yaml_aliases_within_budget_are_expanded() {
        assert_eq!(
            parse_text("base: &b {x: 1}\ncopy: *b"),
            Ok(json!({"base": {"x": 1}, "copy": {"x": 1}}))
        );
    }

    #[test]
    fn invalid_text_gives_one_line_message() {
        let error = parse_text("{\"a\": [1, 2\n\n").expect_err("invalid");
        let message = error.to_string();
        assert!(message.starts_with("Invalid YAML or JSON: "), "{message}");
        assert!(!message.contains('\n'), "{message}");
        assert!(message.len() < 300, "{message}");
    }

    #[test]
    fn invalid_message_does_not_echo_large_input() {
        let text = format!("key: [{}\n", "x".repeat(100_000));
        let message = parse_text(&text).expect_err("unterminated").to_string();
        assert!(message.len() < 300, "{message}");
    }

    #[test]
    fn non_string_keys_are_refused() {
        for text in ["1: a", "true: a", "? [a]\n: b", "~: a"] {
            let error = parse_text(text).expect_err(text);
            assert!(
                error.to_string().contains("mapping keys must be strings"),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn tags_and_non_finite_numbers_are_refused() {
        assert!(matches!(
            parse_text("a: !custom x"),
            Err(DocumentError::Invalid(_))
        ));
        assert!(matches!(
            parse_text("a: .nan"),
            Err(DocumentError::Invalid(_))
        ));
        assert!(matches!(
            parse_text("a: .inf"),
            Err(DocumentError::Invalid(_))
        ));
    }

    #[test]
    fn multiple_yaml_documents_are_refused() {
        assert!(matches!(
            parse_text("a: 1\n---\nb: 2\n"),
            Err(DocumentError::Invalid(_))
        ));
    }

    #[test]
    fn size_limit_is_enforced() {
        let limit = format!("\"{}\"", "x".repeat(MAX_DOCUMENT_BYTES - 2));
        assert!(parse_text(&limit).is_ok());
        let over = format!("\"{}\"", "x".repeat(MAX_DOCUMENT_BYTES - 1));
        assert_eq!(parse_text(&over), Err(DocumentError::TooLarge));
        assert_eq!(
            DocumentError::TooLarge.to_string(),
            "Document is larger than 262144 bytes."
        );
    }

    fn nested_json(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn depth_limit_is_enforced_for_json_text_and_values() {
        assert!(parse_text(&nested_json(MAX_DEPTH)).is_ok());
        assert_eq!(
            parse_text(&nested_json(MAX_DEPTH + 1)),
            Err(DocumentError::TooDeep)
        );
        // Past serde_json's own recursion limit the answer is the same.
        assert_eq!(parse_text(&nested_json(1000)), Err(DocumentError::TooDeep));
        let value: Value = serde_json::from_str(&nested_json(MAX_DEPTH + 1)).expect("json");
        assert_eq!(parse_document(&value), Err(DocumentError::TooDeep));
        assert_eq!(
            DocumentError::TooDeep.to_string(),
            "Document nesting is deeper than 32 levels."
        );
    }

    #[test]
    fn depth_limit_is_enforced_for_yaml_text() {
        let mut ok = String::new();
        for level in 0..MAX_DEPTH {
            ok.push_str(&" ".repeat(level * 2));
            ok.push_str("k:\n");
        }
        // MAX_DEPTH nested mappings, the innermost holding null.
        assert!(parse_text(&ok).is_ok());
        let too_deep = format!("{ok}{}k: 1\n", " ".repeat(MAX_DEPTH * 2));
        assert_eq!(parse_text(&too_deep), Err(DocumentError::TooDeep));
        let flow = format!("a: {}1{}", "[".repeat(200), "]".repeat(200));
        assert!(parse_text(&flow).is_err());
    }

    #[test]
    fn billion_laughs_fails_fast() {
        let text = r#"
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"#;
        let started = Instant::now();
        let result = parse_text(text);
        assert!(
            matches!(result, Err(DocumentError::Invalid(_))),
            "{result:?}"
        );
        assert!(started.elapsed() < Duration::from_millis(500));
    }

    #[test]
    fn wide_alias_amplification_fails_fast() {
        // One anchored list of many items, referenced many times: few alias jumps, but an
        // expansion of billions of values. serde_yaml's own jump limit does not catch this.
        let items = vec!["1"; 50_000].join(",");
        let aliases = vec!["*a"; 30_000].join(",");
        let text = format!("a: &a [{items}]\nb: [{aliases}]\n");
        assert!(text.len() <= MAX_DOCUMENT_BYTES);
        let started = Instant::now();
        let result = parse_text(&text);
        assert!(
            matches!(&result, Err(DocumentError::Invalid(reason)) if reason.contains("too many values")),
            "{result:?}"
        );
        // Reading stops at the node budget (about half a million values, a fraction of a
        // second even unoptimised); the full expansion would take minutes and gigabytes.
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn long_string_alias_amplification_fails_fast() {
        let long = "x".repeat(100_000);
        let aliases = vec!["*s"; 1_000].join(",");
        let text = format!("s: &s {long}\nb: [{aliases}]\n");
        let started = Instant::now();
        let result = parse_text(&text);
        assert!(
            matches!(&result, Err(DocumentError::Invalid(reason)) if reason.contains("too much text")),
            "{result:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
