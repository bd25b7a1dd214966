//! Python-compatible rendering of values, paths and JSON-schema errors.
//!
//! The reference system reports validation problems with Python's `repr()` of the offending
//! values and with messages produced by the Python `jsonschema` package (reworded in a few places
//! by the reference system itself). Clients and acceptance tests compare these strings
//! byte-for-byte, so this module reproduces them:
//!
//! * [`py_type_name`], [`py_repr`] and [`py_str`] render JSON values the way Python renders the
//!   equivalent objects (`None`, `True`, `'text'`, `[1, 'a']`, `{'k': 1.5}`);
//! * [`py_path`] renders an instance location as a Python list (`['fields', 0, 'help_text']`);
//! * [`schema_error_message`] turns one [`jsonschema::ValidationError`] into the reference
//!   system's message.
//!
//! The module is crate-private but shared: the input-configuration validation and the
//! injector-configuration validation both format their schema errors through it.

use std::fmt::Write as _;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::{JsonType, ValidationError};
use serde_json::Value;

/// Python's `type(value).__name__` for the object the JSON value decodes to.
///
/// Integers are `int`, every other number is `float` (as Python's `json` module decodes them).
pub(crate) fn py_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python's `str(value)`: strings are rendered bare, everything else as [`py_repr`].
pub(crate) fn py_str(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr(value)` for the object the JSON value decodes to.
///
/// Objects keep their key order. The rendering is iterative, so arbitrarily deep values cannot
/// exhaust the stack.
pub(crate) fn py_repr(value: &Value) -> String {
    enum Step<'a> {
        Value(&'a Value),
        Key(&'a str),
        Text(&'static str),
    }

    let mut out = String::new();
    let mut stack = vec![Step::Value(value)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Text(text) => out.push_str(text),
            Step::Key(key) => push_str_repr(&mut out, key),
            Step::Value(Value::Null) => out.push_str("None"),
            Step::Value(Value::Bool(true)) => out.push_str("True"),
            Step::Value(Value::Bool(false)) => out.push_str("False"),
            Step::Value(Value::Number(number)) => match number.as_f64() {
                Some(float) if number.is_f64() => out.push_str(&py_float_repr(float)),
                _ => out.push_str(&number.to_string()),
            },
            Step::Value(Value::String(text)) => push_str_repr(&mut out, text),
            Step::Value(Value::Array(items)) => {
                stack.push(Step::Text("]"));
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push(Step::Value(item));
                    if index > 0 {
                        stack.push(Step::Text(", "));
                    }
                }
                stack.push(Step::Text("["));
            }
            Step::Value(Value::Object(map)) => {
                stack.push(Step::Text("}"));
                let entries: Vec<_> = map.iter().collect();
                for (index, (key, item)) in entries.into_iter().enumerate().rev() {
                    stack.push(Step::Value(item));
                    stack.push(Step::Text(": "));
                    stack.push(Step::Key(key));
                    if index > 0 {
                        stack.push(Step::Text(", "));
                    }
                }
                stack.push(Step::Text("{"));
            }
        }
    }
    out
}

/// Python's `repr()` of a string, e.g. `'text'`, `"it's"`, `'a\nb'`.
pub(crate) fn py_str_repr(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_str_repr(&mut out, text);
    out
}

fn push_str_repr(out: &mut String, text: &str) {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_py_printable(c) => out.push(c),
            c => {
                let code = u32::from(c);
                // Writing to a String cannot fail.
                let _ = if code < 0x100 {
                    write!(out, "\\x{code:02x}")
                } else if code < 0x10000 {
                    write!(out, "\\u{code:04x}")
                } else {
                    write!(out, "\\U{code:08x}")
                };
            }
        }
    }
    out.push(quote);
}

/// An approximation of Python's `str.isprintable()` for one character.
///
/// Python treats the Unicode categories "Other" (Cc, Cf, Cs, Co, Cn) and "Separator" (Zl, Zp,
/// and Zs except the ASCII space) as non-printable. Without the Unicode database this covers
/// the control characters, every Unicode white space except the space, the common format
/// characters and the private use areas; unassigned code points are treated as printable.
fn is_py_printable(ch: char) -> bool {
    if ch == ' ' {
        return true;
    }
    if ch.is_control() || ch.is_whitespace() {
        return false;
    }
    !matches!(
        u32::from(ch),
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xE000..=0xF8FF
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0xF0000..=0x10FFFF
    )
}

/// Python's `repr()` of a float (the shortest round-tripping text, `1.0`, `1e+16`, `1e-05`).
fn py_float_repr(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        }
        .to_owned();
    }
    // `{:e}` gives the shortest round-tripping digits: "1.5e0", "-1e100", "1.2345e-5".
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific
        .split_once('e')
        .unwrap_or((scientific.as_str(), "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::from(sign);
    if (-4..16).contains(&exponent) {
        if exponent >= 0 {
            let int_len = usize::try_from(exponent).unwrap_or(0) + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n(
                '0',
                usize::try_from(-exponent - 1).unwrap_or(0),
            ));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.unsigned_abs()
        );
    }
    out
}

/// Renders an instance location as a Python list: `[]`, `['fields', 0, 'help_text']`.
pub(crate) fn py_path(location: &Location) -> String {
    let mut out = String::from("[");
    for (index, segment) in location.segments().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        match segment {
            LocationSegment::Property(name) => push_str_repr(&mut out, &name),
            LocationSegment::Index(position) => {
                let _ = write!(out, "{position}");
            }
        }
    }
    out.push(']');
    out
}

/// The name the reference system uses for a JSON-schema type: `object` is spelled `dict`.
fn expected_type_name(json_type: JsonType) -> &'static str {
    match json_type {
        JsonType::Object => "dict",
        other => other.as_str(),
    }
}

/// The sub-schema that holds the keyword an error comes from, if the schema path resolves.
fn keyword_owner<'s>(schema: &'s Value, error: &ValidationError<'_>) -> Option<&'s Value> {
    let path = error.schema_path().as_str();
    let parent = path.rsplit_once('/').map_or("", |(parent, _)| parent);
    schema.pointer(parent)
}

/// Renders one JSON-schema validation error as the reference system does.
///
/// `schema` must be the root schema the validator was compiled from; it is consulted for the
/// details the error itself does not carry (the custom `error` text of a `pattern`, the
/// `patternProperties` of an `additionalProperties` failure).
///
/// The formats, matching the reference system's `JSONSchemaField`:
///
/// * type errors: `<pytype> provided, expected <type>` at the root, and
///   `<pytype> provided in relative path <path>, expected <type>` below it (`object` is `dict`);
/// * `additionalProperties`: `Schema validation error in relative path <path> (<message>)`, the
///   message being `Additional properties are not allowed ('a', 'b' were unexpected)` or, when
///   the schema also has `patternProperties`,
///   `'a' does not match any of the regexes: '<regex>'`;
/// * `enum`: `'<value>' is not one of ['a', 'b']`;
/// * `pattern`: the sub-schema's `error` text with `{instance}` replaced by the value, else
///   `'<value>' does not match '<regex>'`;
/// * `required`: `'<name>' is a required property`;
/// * `minItems`: `[] should be non-empty` (limit 1) or `<value> is too short`;
/// * `uniqueItems`: `<value> has non-unique elements`;
/// * `anyOf` / `oneOf`: `<value> is not valid under any of the given schemas`;
/// * anything else: the `jsonschema` crate's own message.
pub(crate) fn schema_error_message(schema: &Value, error: &ValidationError<'_>) -> String {
    let instance: &Value = error.instance();
    let location = error.instance_path();
    match error.kind() {
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(json_type) => expected_type_name(*json_type).to_owned(),
                TypeKind::Multiple(set) => {
                    let names: Vec<Value> = set
                        .iter()
                        .map(|json_type| Value::from(expected_type_name(json_type)))
                        .collect();
                    py_repr(&Value::Array(names))
                }
            };
            let provided = py_type_name(instance);
            if location.is_empty() {
                format!("{provided} provided, expected {expected}")
            } else {
                format!(
                    "{provided} provided in relative path {}, expected {expected}",
                    py_path(location)
                )
            }
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let mut names: Vec<&str> = unexpected.iter().map(String::as_str).collect();
            names.sort_unstable();
            names.dedup();
            let joined = names
                .iter()
                .map(|name| py_str_repr(name))
                .collect::<Vec<_>>()
                .join(", ");
            let patterns = keyword_owner(schema, error)
                .and_then(|owner| owner.get("patternProperties"))
                .and_then(Value::as_object);
            let detail = match patterns {
                Some(patterns) => {
                    let mut regexes: Vec<&str> = patterns.keys().map(String::as_str).collect();
                    regexes.sort_unstable();
                    let regexes = regexes
                        .iter()
                        .map(|regex| py_str_repr(regex))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let verb = if names.len() == 1 { "does" } else { "do" };
                    format!("{joined} {verb} not match any of the regexes: {regexes}")
                }
                None => {
                    let verb = if names.len() == 1 { "was" } else { "were" };
                    format!("Additional properties are not allowed ({joined} {verb} unexpected)")
                }
            };
            format!(
                "Schema validation error in relative path {} ({detail})",
                py_path(location)
            )
        }
        ValidationErrorKind::Enum { options } => {
            let allowed = match options.as_ref() {
                Value::Array(options) => options.iter().map(py_str).collect::<Vec<_>>(),
                other => vec![py_str(other)],
            };
            format!(
                "'{}' is not one of ['{}']",
                py_str(instance),
                allowed.join("', '")
            )
        }
        ValidationErrorKind::Pattern { pattern } => {
            let custom = keyword_owner(schema, error)
                .and_then(|owner| owner.get("error"))
                .and_then(Value::as_str);
            match custom {
                Some(template) => template.replace("{instance}", &py_str(instance)),
                None => format!(
                    "{} does not match {}",
                    py_repr(instance),
                    py_str_repr(pattern)
                ),
            }
        }
        ValidationErrorKind::Required { property } => {
            format!("{} is a required property", py_repr(property))
        }
        ValidationErrorKind::MinItems { limit } => {
            if *limit == 1 {
                format!("{} should be non-empty", py_repr(instance))
            } else {
                format!("{} is too short", py_repr(instance))
            }
        }
        ValidationErrorKind::UniqueItems => {
            format!("{} has non-unique elements", py_repr(instance))
        }
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            format!(
                "{} is not valid under any of the given schemas",
                py_repr(instance)
            )
        }
        _ => error.to_string(),
    }
}

/// Validates `instance` and renders every error with [`schema_error_message`], in the order the
/// validator reports them.
pub(crate) fn schema_error_messages(
    validator: &jsonschema::Validator,
    schema: &Value,
    instance: &Value,
) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|error| schema_error_message(schema, &error))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn type_names_follow_python() {
        assert_eq!(py_type_name(&json!(null)), "NoneType");
        assert_eq!(py_type_name(&json!(true)), "bool");
        assert_eq!(py_type_name(&json!(1)), "int");
        assert_eq!(py_type_name(&json!(-1)), "int");
        assert_eq!(py_type_name(&json!(1.5)), "float");
        assert_eq!(py_type_name(&json!("x")), "str");
        assert_eq!(py_type_name(&json!([])), "list");
        assert_eq!(py_type_name(&json!({})), "dict");
    }

    #[test]
    fn repr_of_scalars_and_containers() {
        assert_eq!(py_repr(&json!(null)), "None");
        assert_eq!(py_repr(&json!(true)), "True");
        assert_eq!(py_repr(&json!(false)), "False");
        assert_eq!(py_repr(&json!(1)), "1");
        assert_eq!(py_repr(&json!("dup")), "'dup'");
        assert_eq!(py_repr(&json!(["a", "b", "c"])), "['a', 'b', 'c']");
        assert_eq!(py_repr(&json!([])), "[]");
        assert_eq!(py_repr(&json!({})), "{}");
        assert_eq!(
            py_repr(&json!({"x-y": "a", "n": [1, null, {"k": false}]})),
            "{'x-y': 'a', 'n': [1, None, {'k': False}]}"
        );
    }

    #[test]
    fn repr_of_strings_quotes_and_escapes_like_python() {
        assert_eq!(py_str_repr("it's"), "\"it's\"");
        assert_eq!(py_str_repr("say \"hi\""), "'say \"hi\"'");
        assert_eq!(py_str_repr("both ' and \""), "'both \\' and \"'");
        assert_eq!(py_str_repr("a\\b\n\t\r"), "'a\\\\b\\n\\t\\r'");
        assert_eq!(py_str_repr("\u{0}\u{7f}"), "'\\x00\\x7f'");
        assert_eq!(py_str_repr("\u{a0}\u{200b}"), "'\\xa0\\u200b'");
        assert_eq!(py_str_repr("🐉 é"), "'🐉 é'");
        assert_eq!(
            py_str_repr("^template(\\.[a-z]+)?$"),
            "'^template(\\\\.[a-z]+)?$'"
        );
    }

    #[test]
    fn repr_of_floats_like_python() {
        let cases = [
            (1.5, "1.5"),
            (1.0, "1.0"),
            (-2.0, "-2.0"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e100, "1.5e+100"),
            (123.456, "123.456"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
        ];
        for (value, expected) in cases {
            assert_eq!(py_float_repr(value), expected, "{value}");
        }
    }

    #[test]
    fn str_is_bare_for_strings_only() {
        assert_eq!(py_str(&json!("some default string")), "some default string");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!({"a": "b"})), "{'a': 'b'}");
    }

    #[test]
    fn repr_of_deep_values_does_not_recurse() {
        let mut value = json!(1);
        for _ in 0..10_000 {
            value = Value::Array(vec![value]);
        }
        let text = py_repr(&value);
        assert_eq!(text.len(), 20_001);
        // Dismantle iteratively: dropping a deeply nested value recurses.
        let mut current = value;
        while let Value::Array(mut items) = current {
            current = items.pop().unwrap_or(Value::Null);
        }
    }

    fn messages(schema: &Value, instance: &Value) -> Vec<String> {
        let validator = jsonschema::draft4::new(schema).expect("schema compiles");
        schema_error_messages(&validator, schema, instance)
    }

    #[test]
    fn maps_the_common_keywords() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "list": {"type": "array", "minItems": 1, "uniqueItems": true},
                "kind": {"enum": ["string", "boolean"]},
                "name": {"type": "string", "pattern": "^[a-z]+$", "error": "{instance} is bad"},
                "code": {"type": "string", "pattern": "^[a-z]+$"},
                "file": {
                    "type": "object",
                    "patternProperties": {"^template$": {"type": "string"}},
                    "additionalProperties": false
                },
                "item": {"type": "object", "required": ["label"]},
                "either": {"anyOf": [{"type": "string"}, {"type": "array"}]}
            }
        });
        assert_eq!(
            messages(&schema, &json!([1])),
            ["list provided, expected dict"]
        );
        assert_eq!(
            messages(&schema, &json!({"list": 1})),
            ["int provided in relative path ['list'], expected array"]
        );
        assert_eq!(
            messages(&schema, &json!({"list": []})),
            ["[] should be non-empty"]
        );
        assert_eq!(
            messages(&schema, &json!({"list": ["dup", "dup"]})),
            ["['dup', 'dup'] has non-unique elements"]
        );
        assert_eq!(
            messages(&schema, &json!({"kind": "invalid-type"})),
            ["'invalid-type' is not one of ['string', 'boolean']"]
        );
        assert_eq!(messages(&schema, &json!({"name": "9x"})), ["9x is bad"]);
        assert_eq!(
            messages(&schema, &json!({"code": "9x"})),
            ["'9x' does not match '^[a-z]+$'"]
        );
        assert_eq!(
            messages(&schema, &json!({"zzz": 1, "yyy": 2})),
            [
                "Schema validation error in relative path [] (Additional properties are not allowed ('yyy', 'zzz' were unexpected))"
            ]
        );
        assert_eq!(
            messages(&schema, &json!({"file": {"foo": "bar"}})),
            [
                "Schema validation error in relative path ['file'] ('foo' does not match any of the regexes: '^template$')"
            ]
        );
        assert_eq!(
            messages(&schema, &json!({"item": {}})),
            ["'label' is a required property"]
        );
        assert_eq!(
            messages(&schema, &json!({"either": 5})),
            ["5 is not valid under any of the given schemas"]
        );
    }
}
