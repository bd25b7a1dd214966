//! Rules of automation records that the API checks on write and the runner again on use: a
//! relative path inside a project, and variables text.

use serde_json::Value;

/// Why `text` is not a plain relative path inside a directory (no root, no `.` or `..`, no
/// empty segments, no backslashes), if it is not. Checked on the raw text, because
/// `Path::components` quietly drops inner `.` and doubled separators.
pub fn relative_path_problem(text: &str) -> Option<&'static str> {
    if text.is_empty() {
        return Some("This field may not be blank.");
    }
    if text.starts_with('/') {
        return Some("Must be a path relative to the project directory.");
    }
    let plain = text
        .split('/')
        .all(|segment| !matches!(segment, "" | "." | ".."));
    if !plain || text.contains('\\') {
        return Some("Must not contain '..', '.', empty segments or backslashes.");
    }
    None
}

/// Parses variables text into an object (`{}` for blank text).
pub fn parse_variables(text: &str) -> Result<serde_json::Map<String, Value>, String> {
    match acs_credential_types::parse_document(&Value::String(text.to_owned())) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("Must be a YAML or JSON mapping.".to_owned()),
        Err(error) => Err(format!("Cannot parse as YAML or JSON: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_inside() {
        for good in [
            "site.yml",
            "playbooks/site.yml",
            "a b/c.yaml",
            "inventory.py",
        ] {
            assert_eq!(relative_path_problem(good), None, "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x.yml",
            "a/../../x",
            "./x",
            "a//b",
            "a/",
            "a\\b",
            "a/./b",
        ] {
            assert!(relative_path_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn variables_must_be_a_mapping() {
        assert_eq!(parse_variables("").map(|m| m.len()), Ok(0));
        assert_eq!(parse_variables("a: 1\nb: [x]").map(|m| m.len()), Ok(2));
        assert_eq!(parse_variables("{\"a\": 1}").map(|m| m.len()), Ok(1));
        assert!(parse_variables("- a\n- b").is_err());
        assert!(parse_variables("a: [").is_err());
    }
}
