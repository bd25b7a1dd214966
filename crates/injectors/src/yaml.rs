//! The `!unsafe` YAML form of a credential's extra variables.
//!
//! Extra variables reach `ansible-playbook` as `-e @file`. Ansible templates every string it
//! reads from such a file unless the string is tagged `!unsafe`, so a credential value such as
//! `{{ lookup('pipe', 'id') }}` would run on the controller. [`unsafe_yaml`] therefore tags every
//! string, keys included, at every depth, as the reference system's "unsafe" dumper does:
//!
//! ```
//! let vars = serde_json::json!({"auth": {"host": "example.com"}, "hosts": ["h1", "static"]});
//! let serde_json::Value::Object(vars) = vars else { unreachable!() };
//! assert_eq!(
//!     acs_injectors::unsafe_yaml(&vars),
//!     "!unsafe 'auth':\n  !unsafe 'host': !unsafe 'example.com'\n\
//!      !unsafe 'hosts':\n- !unsafe 'h1'\n- !unsafe 'static'\n"
//! );
//! ```

use serde_json::{Map, Value};

use crate::literal::{json_literal, needs_escape, push_quoted};

/// The tag that stops Ansible from templating a string.
const UNSAFE_TAG: &str = "!unsafe";

/// The longest key written as an implicit (`key: value`) key. YAML readers limit implicit keys
/// (libyaml to 1024 characters); longer keys use the explicit `? key` form, as PyYAML does from
/// 128 characters on.
const MAX_IMPLICIT_KEY: usize = 128;

/// Writes extra variables as a YAML document in which every string, key or value, is tagged
/// `!unsafe`.
///
/// Strings are single-quoted (`'` doubled) unless they hold a line break or another character
/// YAML cannot carry raw in a single-quoted scalar; those are double-quoted with escapes
/// (`!unsafe "a\nb"`), so every string reads back exactly. Objects are block mappings in the
/// object's order (two spaces per level), lists block sequences (not indented under their key),
/// empty ones `{}` and `[]`. Numbers, booleans and `null`, which validated extra variables never hold, are written
/// as plain scalars. An empty object gives `{}\n`.
#[must_use]
pub fn unsafe_yaml(vars: &Map<String, Value>) -> String {
    let mut out = String::new();
    if vars.is_empty() {
        out.push_str("{}\n");
    } else {
        write_mapping(&mut out, vars, 0);
    }
    out
}

/// `text` as a tagged scalar.
fn unsafe_scalar(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + UNSAFE_TAG.len() + 3);
    out.push_str(UNSAFE_TAG);
    out.push(' ');
    if text.chars().any(needs_escape) {
        push_quoted(&mut out, text);
    } else {
        out.push('\'');
        out.push_str(&text.replace('\'', "''"));
        out.push('\'');
    }
    out
}

/// A value that fits on the current line: a scalar or an empty collection.
fn inline(value: &Value) -> String {
    match value {
        Value::String(text) => unsafe_scalar(text),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{}".to_owned(),
        Value::Null => "null".to_owned(),
        other => json_literal(other),
    }
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// Writes a non-empty mapping whose first entry starts at the current position and whose other
/// entries start at column `indent`.
fn write_mapping(out: &mut String, map: &Map<String, Value>, indent: usize) {
    for (index, (key, value)) in map.iter().enumerate() {
        if index > 0 {
            push_indent(out, indent);
        }
        let key = unsafe_scalar(key);
        if key.chars().count() > MAX_IMPLICIT_KEY {
            out.push_str("? ");
            out.push_str(&key);
            out.push('\n');
            push_indent(out, indent);
            out.push(':');
            write_explicit_value(out, value, indent);
        } else {
            out.push_str(&key);
            out.push(':');
            write_implicit_value(out, value, indent);
        }
    }
}

/// Writes the value of `key:` in a mapping at column `indent`: nested mappings on the next lines
/// two columns further in, lists on the next lines at the same column.
fn write_implicit_value(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            push_indent(out, indent + 2);
            write_mapping(out, map, indent + 2);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            push_indent(out, indent);
            write_sequence(out, items, indent);
        }
        other => {
            out.push(' ');
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
}

/// Writes the value after the `:` of an explicit key at column `indent`: collections start on
/// the same line, their later lines two columns further in.
fn write_explicit_value(out: &mut String, value: &Value, indent: usize) {
    out.push(' ');
    match value {
        Value::Object(map) if !map.is_empty() => write_mapping(out, map, indent + 2),
        Value::Array(items) if !items.is_empty() => write_sequence(out, items, indent + 2),
        other => {
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
}

/// Writes a non-empty sequence whose first item starts at the current position and whose other
/// items start at column `indent`.
fn write_sequence(out: &mut String, items: &[Value], indent: usize) {
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            push_indent(out, indent);
        }
        out.push_str("- ");
        match item {
            Value::Object(map) if !map.is_empty() => write_mapping(out, map, indent + 2),
            Value::Array(nested) if !nested.is_empty() => write_sequence(out, nested, indent + 2),
            other => {
                out.push_str(&inline(other));
                out.push('\n');
            }
        }
    }
}

#[cfg(test)]
mod tests;
