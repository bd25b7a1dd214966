//! Values written as JSON literals that are also valid YAML flow scalars.
//!
//! The `{{json path}}` template helper and the `!unsafe` YAML writer both need to quote text
//! that may hold anything a user typed: newlines, quotes, control characters. A JSON string
//! literal is also a YAML double-quoted scalar, provided it escapes the characters YAML does not
//! accept raw, so one quoting function serves both.

use std::fmt::Write as _;

use serde_json::Value;

/// Whether `c` is written as an escape rather than raw: control characters (C0, DEL and C1),
/// which YAML does not allow unescaped; the line and paragraph separators, which YAML 1.1
/// readers treat as line breaks; and the byte order mark and the non-characters U+FFFE and
/// U+FFFF, which YAML does not allow.
pub(crate) fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}

/// Appends `text` as a double-quoted string: a JSON string literal and a YAML double-quoted
/// scalar with the same value.
pub(crate) fn push_quoted(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            // Every escaped character is in the Basic Multilingual Plane: four hex digits.
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `value` as a JSON literal: strings quoted with [`push_quoted`], `null` (an unset field) as
/// the empty string `""`, booleans and numbers as themselves, lists and objects in flow style.
pub(crate) fn json_literal(value: &Value) -> String {
    let mut out = String::new();
    push_literal(&mut out, value);
    out
}

fn push_literal(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("\"\""),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&number.to_string()),
        Value::String(text) => push_quoted(out, text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                push_literal(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                push_quoted(out, key);
                out.push_str(": ");
                push_literal(out, item);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    #[test]
    fn unset_values_are_empty_strings_and_booleans_are_literals() {
        assert_eq!(json_literal(&Value::Null), "\"\"");
        assert_eq!(json_literal(&json!(true)), "true");
        assert_eq!(json_literal(&json!(false)), "false");
        assert_eq!(json_literal(&json!(5)), "5");
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(
            json_literal(&json!("a\"b\\c\nd\te\u{7}\u{85}\u{2028}é🐉")),
            r#""a\"b\\c\nd\te\u0007\u0085\u2028é🐉""#
        );
    }

    #[test]
    fn lists_and_objects_are_flow_collections() {
        let value = json!({"k": ["a", true, {"n": null}]});
        assert_eq!(json_literal(&value), r#"{"k": ["a", true, {"n": ""}]}"#);
        let back: Value = serde_json::from_str(&json_literal(&value)).unwrap();
        assert_eq!(back, json!({"k": ["a", true, {"n": ""}]}));
    }

    proptest! {
        #[test]
        fn quoted_strings_read_back_as_json_and_yaml(text in any::<String>()) {
            let mut quoted = String::new();
            push_quoted(&mut quoted, &text);
            prop_assert!(!quoted.contains('\n'));
            let json: String = serde_json::from_str(&quoted).unwrap();
            prop_assert_eq!(&json, &text);
            let yaml: String = serde_yaml::from_str(&quoted).unwrap();
            prop_assert_eq!(&yaml, &text);
        }
    }
}
