use proptest::prelude::*;
use serde_json::json;
use serde_yaml::Value as Yaml;

use super::*;

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The JSON value a YAML document reads back as, failing on any string not tagged `!unsafe`.
fn untagged(yaml: Yaml) -> Result<Value, String> {
    match yaml {
        Yaml::Tagged(tagged) => match (tagged.tag == "unsafe", tagged.value) {
            (true, Yaml::String(text)) => Ok(Value::String(text)),
            (_, other) => Err(format!("unexpected tagged value {other:?}")),
        },
        Yaml::String(text) => Err(format!("string {text:?} is not tagged")),
        Yaml::Sequence(items) => items
            .into_iter()
            .map(untagged)
            .collect::<Result<_, _>>()
            .map(Value::Array),
        Yaml::Mapping(mapping) => mapping
            .into_iter()
            .map(|(key, value)| match untagged(key)? {
                Value::String(key) => Ok((key, untagged(value)?)),
                other => Err(format!("key {other} is not a string")),
            })
            .collect::<Result<_, _>>()
            .map(Value::Object),
        Yaml::Null => Ok(Value::Null),
        Yaml::Bool(flag) => Ok(Value::Bool(flag)),
        Yaml::Number(number) => serde_json::to_value(number).map_err(|error| error.to_string()),
    }
}

#[track_caller]
fn assert_round_trip(vars: &Map<String, Value>) {
    let text = unsafe_yaml(vars);
    let yaml: Yaml = serde_yaml::from_str(&text)
        .unwrap_or_else(|error| panic!("{text:?} does not parse: {error}"));
    assert_eq!(
        untagged(yaml),
        Ok(Value::Object(vars.clone())),
        "written as {text:?}"
    );
}

#[test]
fn reference_examples() {
    assert_eq!(
        unsafe_yaml(&object(json!({"api_token": "ABC123"}))),
        "!unsafe 'api_token': !unsafe 'ABC123'\n"
    );
    assert_eq!(
        unsafe_yaml(&object(json!({"auth": {"host": "example.com"}}))),
        "!unsafe 'auth':\n  !unsafe 'host': !unsafe 'example.com'\n"
    );
    assert_eq!(
        unsafe_yaml(&object(json!({"hosts": ["h1", "static"]}))),
        "!unsafe 'hosts':\n- !unsafe 'h1'\n- !unsafe 'static'\n"
    );
}

#[test]
fn tricky_strings_read_back_tagged_and_unchanged() {
    let tricky = [
        "it's",
        "''",
        "\"quoted\"",
        "a: b",
        "# not a comment",
        "x #y",
        "  leading spaces",
        "trailing spaces  ",
        "unicode é 🐉 中文",
        "line one\nline two",
        "trailing newline\n",
        "\r\n",
        "tab\there",
        "bell\u{7} nul\u{0} del\u{7f} nel\u{85} ls\u{2028} bom\u{feff}",
        "{{ x }}",
        "{{ lookup('pipe','id') }}",
        "",
        "!unsafe",
        "!unsafe 'x'",
        "---",
        "...",
        "*alias",
        "&anchor",
        "null",
        "~",
        "true",
        "no",
        "1.0",
        "0x1F",
        "- item",
        "? key",
        "[a, b]",
        "{a: b}",
        "%TAG",
        "@at",
        "`tick",
        "|",
        ">",
        "\\",
    ];
    for text in tricky {
        assert_round_trip(&object(json!({ text: text })));
        assert_round_trip(&object(
            json!({"list": [text, text], "nested": {text: [text]}}),
        ));
    }
}

#[test]
fn strings_with_line_breaks_are_double_quoted() {
    assert_eq!(
        unsafe_yaml(&object(json!({"k": "a\nb"}))),
        "!unsafe 'k': !unsafe \"a\\nb\"\n"
    );
    assert_eq!(
        unsafe_yaml(&object(json!({"k": "it's"}))),
        "!unsafe 'k': !unsafe 'it''s'\n"
    );
}

#[test]
fn collections_nest_and_empty_ones_are_inline() {
    let vars = object(json!({
        "empty_map": {},
        "empty_list": [],
        "lists": [["a", "b"], [], {}, {"k": "v", "l": ["x"]}],
        "deep": {"a": {"b": {"c": ["d"]}}}
    }));
    assert_eq!(
        unsafe_yaml(&vars),
        "!unsafe 'empty_map': {}\n\
         !unsafe 'empty_list': []\n\
         !unsafe 'lists':\n- - !unsafe 'a'\n  - !unsafe 'b'\n- []\n- {}\n\
         - !unsafe 'k': !unsafe 'v'\n  !unsafe 'l':\n  - !unsafe 'x'\n\
         !unsafe 'deep':\n  !unsafe 'a':\n    !unsafe 'b':\n      !unsafe 'c':\n      - !unsafe 'd'\n"
    );
    assert_round_trip(&vars);
}

#[test]
fn an_empty_object_is_an_empty_mapping() {
    assert_eq!(unsafe_yaml(&Map::new()), "{}\n");
    let yaml: Yaml = serde_yaml::from_str(&unsafe_yaml(&Map::new())).unwrap();
    assert_eq!(yaml, Yaml::Mapping(serde_yaml::Mapping::new()));
}

#[test]
fn long_keys_use_the_explicit_form() {
    let long = "k".repeat(2000);
    let vars = object(json!({
        long.clone(): "v",
        format!("{long}1"): {"a": "b", "c": "d"},
        format!("{long}2"): ["x", ["y"]],
        format!("{long}3"): {},
        "short": {long.clone(): [long.clone()]}
    }));
    let text = unsafe_yaml(&vars);
    assert!(text.starts_with(&format!("? !unsafe '{long}'\n: !unsafe 'v'\n")));
    assert_round_trip(&vars);
}

#[test]
fn other_scalars_are_plain_and_do_not_panic() {
    let vars = object(json!({"n": 5, "f": 1.5, "t": true, "z": null, "l": [false, 0]}));
    assert_eq!(
        unsafe_yaml(&vars),
        "!unsafe 'n': 5\n!unsafe 'f': 1.5\n!unsafe 't': true\n!unsafe 'z': null\n!unsafe 'l':\n- false\n- 0\n"
    );
    assert_round_trip(&vars);
}

/// JSON objects of strings, lists and objects, keys and strings drawn from anything.
fn extra_vars() -> impl Strategy<Value = Map<String, Value>> {
    let text = prop_oneof![
        any::<String>(),
        "[ -~]{0,12}",
        Just("'".to_owned()),
        Just("\n".to_owned()),
        Just("{{ x }}".to_owned()),
    ];
    let leaf = text.clone().prop_map(Value::String);
    let value = leaf.prop_recursive(4, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(text.clone(), inner, 0..5)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    });
    prop::collection::btree_map(any::<String>(), value, 0..6)
        .prop_map(|entries| entries.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn any_object_of_strings_lists_and_objects_round_trips(vars in extra_vars()) {
        let text = unsafe_yaml(&vars);
        let yaml: Yaml = serde_yaml::from_str(&text)
            .map_err(|error| TestCaseError::fail(format!("{text:?}: {error}")))?;
        prop_assert_eq!(untagged(yaml), Ok(Value::Object(vars)), "written as {:?}", text);
    }
}
