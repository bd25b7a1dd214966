//! The JSON body of an answer as HTML: pretty-printed, escaped, every URL of the API in it a
//! link.

use serde_json::Value;

/// `value` when it is a URL of this API.
pub fn api_link(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|url| is_api_url(url))
        .map(str::to_owned)
}

pub fn is_api_url(text: &str) -> bool {
    text.starts_with("/api/") && !text.contains(char::is_whitespace)
}

/// `value` pretty-printed as JSON, HTML-escaped, every string that is a URL of this API an
/// anchor to it.
pub fn json_html(value: &Value) -> String {
    let mut html = String::new();
    write_json(&mut html, value, 0);
    html
}

fn write_json(html: &mut String, value: &Value, depth: usize) {
    let indent = |html: &mut String, depth: usize| html.push_str(&"  ".repeat(depth));
    match value {
        Value::Object(map) if !map.is_empty() => {
            html.push_str("{\n");
            for (i, (key, item)) in map.iter().enumerate() {
                indent(html, depth + 1);
                html.push_str("<span class=\"key\">");
                html.push_str(&handlebars::html_escape(
                    &Value::from(key.as_str()).to_string(),
                ));
                html.push_str("</span>: ");
                write_json(html, item, depth + 1);
                html.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            indent(html, depth);
            html.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            html.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                indent(html, depth + 1);
                write_json(html, item, depth + 1);
                html.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            indent(html, depth);
            html.push(']');
        }
        Value::String(text) if is_api_url(text) => {
            let escaped = handlebars::html_escape(text);
            html.push_str(&format!("&quot;<a href=\"{escaped}\">{escaped}</a>&quot;"));
        }
        other => html.push_str(&handlebars::html_escape(&other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn json_is_escaped_and_api_urls_are_links() {
        let html = json_html(&json!({
            "name": "<b>x</b>",
            "url": "/api/v2/users/1/",
            "external": "https://example.com/",
            "related": {"tokens": "/api/v2/users/1/tokens/\"onclick=\"x"},
            "list": [1, true, null],
            "empty": {},
        }));
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(
            html.contains("&quot;<a href=\"/api/v2/users/1/\">/api/v2/users/1/</a>&quot;"),
            "{html}"
        );
        assert!(html.contains("&quot;https://example.com/&quot;"), "{html}");
        assert!(
            html.contains("<a href=\"/api/v2/users/1/tokens/&quot;onclick&#x3D;&quot;x\">"),
            "{html}"
        );
        assert!(html.contains("&quot;empty&quot;</span>: {}"), "{html}");
    }
}
