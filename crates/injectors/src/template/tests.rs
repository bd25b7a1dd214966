use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;

fn refs(source: &str) -> Vec<String> {
    parse(source)
        .unwrap_or_else(|error| panic!("{source:?} should parse: {error}"))
        .references()
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn unsupported_reason(source: &str) -> String {
    match parse(source) {
        Err(TemplateError::Unsupported(reason)) => reason,
        other => panic!("{source:?} should be unsupported, got {other:?}"),
    }
}

fn syntax_reason(source: &str) -> String {
    match parse(source) {
        Err(TemplateError::Syntax(reason)) => reason,
        other => panic!("{source:?} should be a syntax error, got {other:?}"),
    }
}

// ----- parse: the accepted subset ---------------------------------------------------------------

#[test]
fn raw_text_has_no_references() {
    assert!(refs("").is_empty());
    assert!(refs("plain text, with } and { and }}").is_empty());
}

#[test]
fn values_in_double_and_triple_braces_are_references() {
    assert_eq!(refs("{{ username }}"), ["username"]);
    assert_eq!(refs("{{username}}"), ["username"]);
    assert_eq!(refs("{{{ username }}}"), ["username"]);
    assert_eq!(refs("{{ svc.filename.cert }}"), ["svc.filename.cert"]);
}

#[test]
fn references_are_in_source_order_without_dedup() {
    assert_eq!(
        refs("{{b}} {{#if a}}{{c}}{{else}}{{b}}{{/if}} {{#unless d}}{{e}}{{/unless}}"),
        ["b", "a", "c", "b", "d", "e"]
    );
}

#[test]
fn if_else_chains_are_supported() {
    assert_eq!(refs("{{#if a}}A{{else if b}}B{{else}}C{{/if}}"), ["a", "b"]);
    assert_eq!(refs("{{#unless a}}x{{^}}y{{/unless}}"), ["a"]);
}

#[test]
fn comments_escapes_and_whitespace_control_are_supported() {
    assert!(refs("{{! a comment }}{{!-- another {{ x }} --}}").is_empty());
    assert!(refs(r"\{{ not_a_reference }}").is_empty());
    assert_eq!(refs("a {{~ x ~}} b"), ["x"]);
    assert_eq!(refs("{{~#if x~}} y {{~/if~}}"), ["x"]);
}

#[test]
fn template_keeps_its_source() {
    let template: Template = "{{ a }}".parse().unwrap();
    assert_eq!(template.source(), "{{ a }}");
}

// ----- parse: rejected constructs ---------------------------------------------------------------

#[test]
fn other_helpers_are_rejected_by_name() {
    for (source, helper) in [
        ("{{#each items}}x{{/each}}", "each"),
        ("{{#with item}}x{{/with}}", "with"),
        ("{{lookup a b}}", "lookup"),
        ("{{log a}}", "log"),
        ("{{eq a b}}", "eq"),
        ("{{#eq a b}}x{{/eq}}", "eq"),
        ("{{upper a}}", "upper"),
        ("{{#section}}x{{/section}}", "section"),
        ("{{{{raw}}}}{{x}}{{{{/raw}}}}", "raw"),
        ("{{#if a}}x{{else each b}}y{{/if}}", "each"),
    ] {
        assert_eq!(
            unsupported_reason(source),
            format!("helper `{helper}` is not supported; use `if`, `unless` or `json`"),
            "{source}"
        );
    }
}

#[test]
fn if_and_unless_must_be_blocks() {
    assert_eq!(
        unsupported_reason("{{if a}}"),
        "`if` must be used as a block: {{#if path}}…{{/if}}"
    );
    assert_eq!(
        unsupported_reason("{{ unless }}"),
        "`unless` must be used as a block: {{#unless path}}…{{/unless}}"
    );
}

#[test]
fn partials_and_decorators_are_rejected() {
    assert_eq!(unsupported_reason("{{> x}}"), "partials are not supported");
    assert_eq!(
        unsupported_reason("{{#> x}}y{{/x}}"),
        "partials are not supported"
    );
    assert_eq!(
        unsupported_reason("{{* x}}"),
        "decorators are not supported"
    );
    assert_eq!(
        unsupported_reason("{{#* inline \"x\"}}y{{/inline}}"),
        "decorators are not supported"
    );
}

#[test]
fn path_forms_outside_the_subset_are_rejected() {
    assert_eq!(
        unsupported_reason("{{ ../a }}"),
        "parent paths (`../`) are not supported"
    );
    assert_eq!(
        unsupported_reason("{{ @root.a }}"),
        "`@root` is not supported"
    );
    assert_eq!(
        unsupported_reason("{{ @index }}"),
        "local variables such as `@index` are not supported"
    );
    for source in ["{{ this }}", "{{ this.a }}", "{{ ./a }}"] {
        assert_eq!(
            unsupported_reason(source),
            "`this` is not supported; reference a field by name",
            "{source}"
        );
    }
    assert_eq!(
        unsupported_reason("{{ a/b }}"),
        "`/` is not supported as a path separator; use `.` (`a/b`)"
    );
    assert_eq!(
        unsupported_reason("{{ a.[b c] }}"),
        "bracketed path segments are not supported (`a.[b c]`)"
    );
    for source in ["{{ 5 }}", "{{ x-y }}", "{{ a.9 }}", "{{ é }}"] {
        assert!(
            unsupported_reason(source).ends_with(
                "is not a valid field path; use a field name or dotted names such as `svc.filename`"
            ),
            "{source}"
        );
    }
}

#[test]
fn subexpressions_literals_hashes_and_block_params_are_rejected() {
    assert_eq!(
        unsupported_reason("{{ (a) }}"),
        "subexpressions are not supported"
    );
    assert_eq!(
        unsupported_reason("{{#if (eq a b)}}x{{/if}}"),
        "subexpressions are not supported"
    );
    assert_eq!(
        unsupported_reason("{{#if a includeZero=true}}x{{/if}}"),
        "hash arguments are not supported in `if`"
    );
    assert_eq!(
        unsupported_reason("{{ a b=1 }}"),
        "helper `a` is not supported; use `if`, `unless` or `json`"
    );
    assert_eq!(
        unsupported_reason("{{#if \"x\"}}y{{/if}}"),
        "`if` needs a field path as its condition, not a literal"
    );
    assert_eq!(
        unsupported_reason("{{#if true}}y{{/if}}"),
        "`if` needs a field path as its condition, not a literal"
    );
    assert_eq!(
        unsupported_reason("{{#if}}y{{/if}}"),
        "`if` takes exactly one field path as its condition"
    );
    assert_eq!(
        unsupported_reason("{{#unless a b}}y{{/unless}}"),
        "`unless` takes exactly one field path as its condition"
    );
    assert_eq!(
        unsupported_reason("{{#if a as |b|}}y{{/if}}"),
        "block parameters are not supported in `if`"
    );
}

#[test]
fn deep_nesting_is_rejected() {
    let ok = "{{#if a}}".repeat(MAX_BLOCK_DEPTH) + &"{{/if}}".repeat(MAX_BLOCK_DEPTH);
    assert_eq!(refs(&ok).len(), MAX_BLOCK_DEPTH);
    let deep = "{{#if a}}".repeat(MAX_BLOCK_DEPTH + 1) + &"{{/if}}".repeat(MAX_BLOCK_DEPTH + 1);
    assert_eq!(
        unsupported_reason(&deep),
        format!("blocks nested more than {MAX_BLOCK_DEPTH} levels deep are not supported")
    );
}

#[test]
fn the_json_helper_takes_exactly_one_path() {
    assert_eq!(refs("{{json a}}"), ["a"]);
    assert_eq!(refs("{{{json svc.filename.cert}}}"), ["svc.filename.cert"]);
    assert_eq!(refs("{{~ json a ~}} {{ json }}"), ["a", "json"]);
    for (source, reason) in [
        (
            "{{json a b}}",
            "`json` takes exactly one field path: {{json path}}",
        ),
        (
            "{{json a k=1}}",
            "hash arguments are not supported in `json`",
        ),
        ("{{json \"x\"}}", "`json` needs a field path, not a literal"),
        ("{{json (a)}}", "subexpressions are not supported"),
        ("{{json ../a}}", "parent paths (`../`) are not supported"),
        (
            "{{json this}}",
            "`this` is not supported; reference a field by name",
        ),
        (
            "{{#json a}}x{{/json}}",
            "`json` cannot be used as a block; write {{json path}}",
        ),
        (
            "{{#if a}}x{{else json b}}y{{/if}}",
            "`json` cannot be used as a block; write {{json path}}",
        ),
    ] {
        assert_eq!(unsupported_reason(source), reason, "{source}");
    }
}

// ----- parse: syntax errors ---------------------------------------------------------------------

#[test]
fn syntax_errors_are_one_line_and_readable() {
    for (source, reason) in [
        (
            "{{ username",
            "unexpected end of template, expected `}}` to close the expression",
        ),
        (
            "{{{ username }}",
            "unexpected end of template, expected `}}}` to close the expression",
        ),
        (
            "{{ a }",
            "unexpected end of template, expected `}}` to close the expression",
        ),
        (
            "{{ a b }",
            "unexpected end of template, expected `}}` to close the expression",
        ),
        (
            "{{ a } b",
            "expected `}}` to close the expression at line 1, column 6, found `}`",
        ),
        (
            "{{#if a}}x",
            "unexpected end of template, expected `{{/if}}` to close the `if` block",
        ),
        (
            "{{#if a}}{{#unless b}}x{{/unless}}",
            "unexpected end of template, expected `{{/if}}` to close the `if` block",
        ),
        (
            "{{#if a}}x{{/unless}}",
            "`{{#if}}` is closed by `{{/unless}}` at line 1, column 11",
        ),
        (
            "{{else}}",
            "unexpected `{{else}}` at line 1, column 3: `else` is only allowed once inside an `if` or `unless` block",
        ),
        (
            "{{/if}}",
            "unexpected closing tag `{{/if}}` at line 1, column 3: no block is open",
        ),
        (
            "{{}}",
            "expected a field name at line 1, column 3, found `}`",
        ),
        ("{{", "unexpected end of template, expected a field name"),
        (
            "{{ a. }}",
            "expected a field name at line 1, column 6, found ` `",
        ),
        (
            "{{!-- open comment",
            "unexpected end of template, expected `--}}` to close the comment",
        ),
        (
            "{{! open comment",
            "unexpected end of template, expected `}}` to close the comment",
        ),
        (
            "line one\n{{ b",
            "unexpected end of template, expected `}}` to close the expression",
        ),
    ] {
        let actual = syntax_reason(source);
        assert_eq!(actual, reason, "{source:?}");
        assert!(!actual.contains('\n'));
    }
}

#[test]
fn syntax_error_positions_count_lines_and_characters() {
    assert_eq!(
        syntax_reason("é\n{{ a } é"),
        "expected `}}` to close the expression at line 2, column 6, found `}`"
    );
    assert_eq!(
        syntax_reason("éé{{ a } é"),
        "expected `}}` to close the expression at line 1, column 8, found `}`"
    );
}

// ----- check ------------------------------------------------------------------------------------

fn namespace(files: FileNames) -> CheckNamespace {
    CheckNamespace {
        fields: ["username", "pass", "flag"].map(str::to_owned).to_vec(),
        files,
    }
}

fn multi(names: &[&str]) -> FileNames {
    FileNames::Multi(
        names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<BTreeSet<_>>(),
    )
}

fn check_message(source: &str, files: FileNames) -> Option<String> {
    let template = parse(source).unwrap();
    check(&template, &namespace(files))
        .err()
        .map(|error| error.to_string())
}

#[test]
fn defined_fields_pass() {
    assert_eq!(
        check_message("{{ username }}:{{ pass }}", FileNames::None),
        None
    );
    assert_eq!(check_message("no references", FileNames::None), None);
}

#[test]
fn undefined_fields_are_reported() {
    assert_eq!(
        check_message("{{ nope }}", FileNames::None).as_deref(),
        Some("'nope' is undefined")
    );
    assert_eq!(
        check_message("{{ username }}{{ nope }}{{ other }}", FileNames::None).as_deref(),
        Some("'nope' is undefined")
    );
}

#[test]
fn attributes_of_field_values_are_reported() {
    assert_eq!(
        check_message("{{ username.foo }}", FileNames::None).as_deref(),
        Some("'str object' has no attribute 'foo'")
    );
    assert_eq!(
        check_message("{{ username.foo.bar }}", FileNames::None).as_deref(),
        Some("'str object' has no attribute 'foo'")
    );
}

#[test]
fn the_namespace_container_cannot_be_printed() {
    assert_eq!(
        check_message("{{ svc }}", FileNames::Single).as_deref(),
        Some("Cannot directly reference reserved `svc` namespace container.")
    );
}

#[test]
fn unknown_namespace_attributes_are_reported() {
    assert_eq!(
        check_message("{{ svc.other }}", FileNames::Single).as_deref(),
        Some("'svc' has no attribute 'other'")
    );
}

#[test]
fn unnamed_file_reference_needs_the_unnamed_file_injector() {
    let message = "Must define unnamed file injector in order to reference `svc.filename`.";
    assert_eq!(check_message("{{ svc.filename }}", FileNames::Single), None);
    assert_eq!(
        check_message("{{ svc.filename }}", FileNames::None).as_deref(),
        Some(message)
    );
    assert_eq!(
        check_message("{{ svc.filename }}", multi(&["cert"])).as_deref(),
        Some(message)
    );
}

#[test]
fn named_file_reference_needs_that_named_file_injector() {
    assert_eq!(
        check_message("{{ svc.filename.cert }}", multi(&["cert", "key"])),
        None
    );
    assert_eq!(
        check_message("{{ svc.filename.cert }}", FileNames::None).as_deref(),
        Some("'svc.filename' has no attribute 'cert'")
    );
    assert_eq!(
        check_message("{{ svc.filename.cert }}", multi(&["key"])).as_deref(),
        Some("'svc.filename' has no attribute 'cert'")
    );
    // With the unnamed file injector `svc.filename` is a path (a string).
    assert_eq!(
        check_message("{{ svc.filename.cert }}", FileNames::Single).as_deref(),
        Some("'str object' has no attribute 'cert'")
    );
}

#[test]
fn attributes_of_file_paths_are_reported() {
    assert_eq!(
        check_message("{{ svc.filename.cert.x }}", multi(&["cert"])).as_deref(),
        Some("'str object' has no attribute 'x'")
    );
    assert_eq!(
        check_message("{{ svc.filename.x.y }}", FileNames::Single).as_deref(),
        Some("'str object' has no attribute 'x'")
    );
}

#[test]
fn conditions_are_checked_like_values() {
    assert_eq!(check_message("{{#if flag}}x{{/if}}", FileNames::None), None);
    assert_eq!(
        check_message("{{#if nope}}x{{/if}}", FileNames::None).as_deref(),
        Some("'nope' is undefined")
    );
    assert_eq!(
        check_message("{{#unless svc}}x{{/unless}}", FileNames::None).as_deref(),
        Some("Cannot directly reference reserved `svc` namespace container.")
    );
    assert_eq!(
        check_message(
            "{{#if flag}}x{{else if svc.filename}}y{{/if}}",
            FileNames::None
        )
        .as_deref(),
        Some("Must define unnamed file injector in order to reference `svc.filename`.")
    );
}

#[test]
fn check_reference_reports_an_empty_reference_as_undefined() {
    let namespace = namespace(FileNames::None);
    assert_eq!(
        namespace.check_reference(&Reference::new(Vec::new())),
        Err(UndefinedReference::Undefined(String::new()))
    );
}

// ----- render -----------------------------------------------------------------------------------

fn fields(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn render_with(source: &str, values: Value, files: FilePaths) -> String {
    let template = parse(source).unwrap();
    let namespace = RenderNamespace {
        fields: fields(values),
        files,
    };
    render(&template, &namespace).unwrap()
}

#[test]
fn values_are_never_html_escaped() {
    let values = json!({"pass": "<&>\"'`="});
    assert_eq!(
        render_with("{{ pass }}", values.clone(), FilePaths::None),
        "<&>\"'`="
    );
    assert_eq!(
        render_with("{{{ pass }}}", values, FilePaths::None),
        "<&>\"'`="
    );
}

#[test]
fn unset_fields_and_attributes_render_empty() {
    assert_eq!(
        render_with(
            "[{{ a }}][{{ b }}][{{ a.x }}]",
            json!({"a": ""}),
            FilePaths::None
        ),
        "[][][]"
    );
}

#[test]
fn booleans_render_lowercase() {
    assert_eq!(
        render_with(
            "{{ t }}/{{ f }}",
            json!({"t": true, "f": false}),
            FilePaths::None
        ),
        "true/false"
    );
}

#[test]
fn conditions_use_json_truthiness() {
    let source = "{{#if flag}}FAST!{{else}}SLOW!{{/if}}";
    assert_eq!(
        render_with(source, json!({"flag": true}), FilePaths::None),
        "FAST!"
    );
    assert_eq!(
        render_with(source, json!({"flag": false}), FilePaths::None),
        "SLOW!"
    );
    assert_eq!(
        render_with(source, json!({"flag": ""}), FilePaths::None),
        "SLOW!"
    );
    assert_eq!(render_with(source, json!({}), FilePaths::None), "SLOW!");
    assert_eq!(
        render_with(source, json!({"flag": "no"}), FilePaths::None),
        "FAST!"
    );
    let unless = "{{#unless flag}}off{{else}}on{{/unless}}";
    assert_eq!(render_with(unless, json!({}), FilePaths::None), "off");
    assert_eq!(
        render_with(unless, json!({"flag": true}), FilePaths::None),
        "on"
    );
}

#[test]
fn block_tags_alone_on_their_line_remove_that_line() {
    let source = "start\n{{#if flag}}\non\n{{else}}\noff\n{{/if}}\nend";
    assert_eq!(
        render_with(source, json!({"flag": true}), FilePaths::None),
        "start\non\nend"
    );
    assert_eq!(
        render_with(source, json!({}), FilePaths::None),
        "start\noff\nend"
    );
}

#[test]
fn else_if_chains_render() {
    let source = "{{#if a}}A{{else if b}}B{{else}}C{{/if}}";
    assert_eq!(
        render_with(source, json!({"a": true, "b": true}), FilePaths::None),
        "A"
    );
    assert_eq!(
        render_with(source, json!({"b": true}), FilePaths::None),
        "B"
    );
    assert_eq!(render_with(source, json!({}), FilePaths::None), "C");
}

#[test]
fn values_are_data_and_never_rendered_again() {
    let values = json!({"token": "{{ lookup('pipe','id') }}", "other": "{{ token }}"});
    assert_eq!(
        render_with("{{ token }}|{{ other }}", values, FilePaths::None),
        "{{ lookup('pipe','id') }}|{{ token }}"
    );
}

#[test]
fn json_renders_json_literals() {
    let values = json!({
        "key": "-----BEGIN KEY-----\nab\"c\\d\n-----END KEY-----\n",
        "flag": true,
        "off": false,
        "empty": ""
    });
    let source = r#"{"key": {{json key}}, "flag": {{json flag}}, "off": {{json off}}, "empty": {{json empty}}, "unset": {{json unset}}}"#;
    let rendered = render_with(source, values.clone(), FilePaths::None);
    let parsed: Value = serde_json::from_str(&rendered).unwrap();
    assert_eq!(
        parsed,
        json!({"key": values["key"], "flag": true, "off": false, "empty": "", "unset": ""})
    );
    assert_eq!(
        render_with("{{json p}}", json!({}), FilePaths::Single("/f".into())),
        "\"\""
    );
    assert_eq!(
        render_with(
            "{{json svc.filename}}",
            json!({}),
            FilePaths::Single("/f".into())
        ),
        "\"/f\""
    );
}

#[test]
fn json_output_is_a_yaml_double_quoted_scalar() {
    let text = "multi\nline: with # and 'quotes' and \"double\" and \u{7}\u{85}\u{2028}";
    let rendered = render_with(
        "key: {{json value}}\n",
        json!({ "value": text }),
        FilePaths::None,
    );
    let parsed: serde_yaml::Value = serde_yaml::from_str(&rendered).unwrap();
    assert_eq!(parsed["key"], serde_yaml::Value::String(text.to_owned()));
}

#[test]
fn json_values_are_data_too() {
    assert_eq!(
        render_with(
            "{{json a}}",
            json!({"a": "{{ b }}", "b": "x"}),
            FilePaths::None
        ),
        "\"{{ b }}\""
    );
}

#[test]
fn a_field_named_json_still_renders_as_a_value() {
    assert_eq!(
        render_with(
            "{{ json }}|{{json json}}|{{#if json}}y{{/if}}",
            json!({"json": "v"}),
            FilePaths::None
        ),
        "v|\"v\"|y"
    );
    assert_eq!(
        render_with("[{{ json }}]", json!({}), FilePaths::None),
        "[]"
    );
}

#[test]
fn escapes_comments_and_whitespace_control_render() {
    assert_eq!(
        render_with(
            r"\{{ a }} {{! c }}{{!-- d --}}x  {{~ a ~}}  y",
            json!({"a": "1"}),
            FilePaths::None
        ),
        "{{ a }} x1y"
    );
}

#[test]
fn file_paths_are_available_under_the_namespace() {
    assert_eq!(
        render_with(
            "{{ svc.filename }}",
            json!({}),
            FilePaths::Single("/runner/env/tmp1".into())
        ),
        "/runner/env/tmp1"
    );
    let paths = BTreeMap::from([
        ("cert".to_owned(), "/runner/env/a".to_owned()),
        ("key".to_owned(), "/runner/env/b".to_owned()),
    ]);
    assert_eq!(
        render_with(
            "{{ svc.filename.cert }} {{ svc.filename.key }}",
            json!({}),
            FilePaths::Multi(paths)
        ),
        "/runner/env/a /runner/env/b"
    );
    assert_eq!(
        render_with("[{{ svc.filename }}]", json!({}), FilePaths::None),
        "[]"
    );
}

#[test]
fn a_field_named_svc_is_shadowed_by_the_namespace() {
    assert_eq!(
        render_with(
            "{{ svc.filename }}",
            json!({"svc": {"filename": "mine"}}),
            FilePaths::Single("ours".into())
        ),
        "ours"
    );
}

#[test]
fn fields_named_like_handlebars_helpers_render_as_values() {
    for helper in DISABLED_HELPERS {
        let source = format!("{{{{ {helper} }}}}");
        let mut values = Map::new();
        values.insert(
            helper.to_owned(),
            Value::String(format!("value of {helper}")),
        );
        let namespace = RenderNamespace {
            fields: values,
            files: FilePaths::None,
        };
        assert_eq!(
            render(&parse(&source).unwrap(), &namespace).unwrap(),
            format!("value of {helper}")
        );
    }
}

#[test]
fn a_reusable_renderer_gives_the_same_result() {
    let renderer = Renderer::default();
    let template = parse("{{ a }}-{{ a }}").unwrap();
    let namespace = RenderNamespace {
        fields: fields(json!({"a": "x"})),
        files: FilePaths::None,
    };
    assert_eq!(renderer.render(&template, &namespace).unwrap(), "x-x");
    assert_eq!(renderer.render(&template, &namespace).unwrap(), "x-x");
}

#[test]
fn unusual_data_renders_or_fails_without_panicking() {
    let namespace = RenderNamespace {
        fields: fields(json!({"n": 5, "l": ["a", "b"], "o": {"k": "v"}, "z": null})),
        files: FilePaths::None,
    };
    let template = parse("{{ n }} {{ o.k }} {{ z }}").unwrap();
    assert_eq!(render(&template, &namespace).unwrap(), "5 v ");
    // Whatever Handlebars makes of a name looked up on a list, it must not panic.
    let _ = render(&parse("{{ l.x }}").unwrap(), &namespace);
}

// ----- properties -------------------------------------------------------------------------------

/// Strings built from the tokens that matter to the template grammar.
fn template_like() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("{{".to_owned()),
        Just("}}".to_owned()),
        Just("{{{".to_owned()),
        Just("}}}".to_owned()),
        Just("{{#if ".to_owned()),
        Just("{{/if}}".to_owned()),
        Just("{{#unless ".to_owned()),
        Just("{{/unless}}".to_owned()),
        Just("{{else}}".to_owned()),
        Just("{{else if ".to_owned()),
        Just("{{!".to_owned()),
        Just("{{!--".to_owned()),
        Just("--}}".to_owned()),
        Just("\\".to_owned()),
        Just("~".to_owned()),
        Just(" ".to_owned()),
        Just("\n".to_owned()),
        Just(".".to_owned()),
        Just("../".to_owned()),
        Just("@root".to_owned()),
        Just("this".to_owned()),
        Just("svc".to_owned()),
        Just("filename".to_owned()),
        Just("username".to_owned()),
        Just("each".to_owned()),
        Just("json ".to_owned()),
        Just("#".to_owned()),
        Just("/".to_owned()),
        Just(">".to_owned()),
        Just("*".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just("=".to_owned()),
        Just("\"".to_owned()),
        Just("|".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("é".to_owned()),
        "[a-z0-9]{1,3}",
    ];
    prop::collection::vec(token, 0..24).prop_map(|tokens| tokens.concat())
}

fn exercise(source: &str) {
    if let Ok(template) = parse(source) {
        for files in [FileNames::None, FileNames::Single, multi(&["cert"])] {
            let _ = check(&template, &namespace(files));
        }
        let namespace = RenderNamespace {
            fields: fields(
                json!({"username": "u", "flag": true, "svc": 1, "each": [1], "json": "j"}),
            ),
            files: FilePaths::Multi(BTreeMap::from([("cert".to_owned(), "/p".to_owned())])),
        };
        let _ = render(&template, &namespace);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn parse_check_and_render_never_panic_on_arbitrary_strings(source in any::<String>()) {
        exercise(&source);
    }

    #[test]
    fn parse_check_and_render_never_panic_on_template_like_strings(source in template_like()) {
        exercise(&source);
    }

    #[test]
    fn parsed_syntax_errors_are_single_lines(source in template_like()) {
        if let Err(error) = parse(&source) {
            prop_assert!(!error.to_string().contains('\n'));
        }
    }
}

#[test]
fn errors_quoting_the_source_stay_on_one_line() {
    // Found by the property test below: a bracketed segment holding a newline.
    let error = parse("{{{[\n]}}}--}}").unwrap_err();
    assert_eq!(
        error.to_string(),
        "bracketed path segments are not supported (`[\\n]`)"
    );
}
