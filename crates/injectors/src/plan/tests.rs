use serde_json::json;

use super::*;

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// Refuses `PATH` and names starting `ANSIBLE_`, like the credential-type rules do.
fn env_allowed(name: &str) -> Result<(), String> {
    if name == "PATH" || name.starts_with("ANSIBLE_") {
        Err(format!("{name} is not allowed"))
    } else {
        Ok(())
    }
}

fn options() -> PlanOptions {
    PlanOptions {
        files_dir: "/run/job/env".to_owned(),
        extra_vars: true,
        env_allowed,
    }
}

fn credential<'a>(
    label: &'a str,
    templates: &'a InjectorTemplates,
    fields: Value,
    secrets: &[&str],
) -> CredentialInjection<'a> {
    CredentialInjection {
        label,
        templates,
        fields: object(fields),
        secret_fields: secrets.iter().map(|id| (*id).to_owned()).collect(),
        managed: false,
    }
}

fn env(entries: &[(&str, &str)]) -> Vec<(String, String)> {
    entries
        .iter()
        .map(|(name, template)| ((*name).to_owned(), (*template).to_owned()))
        .collect()
}

fn map(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
    entries
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

#[track_caller]
fn plan_ok(credentials: &[CredentialInjection<'_>], options: &PlanOptions) -> InjectionPlan {
    plan(credentials, options).unwrap_or_else(|error| panic!("plan failed: {error}"))
}

// ----- files ------------------------------------------------------------------------------------

#[test]
fn files_are_named_by_index_and_env_sees_their_paths() {
    let first = InjectorTemplates {
        files: FileTemplates::Single("user={{ user }}".to_owned()),
        env: env(&[("FIRST_FILE", "{{ svc.filename }}")]),
        ..InjectorTemplates::default()
    };
    let second = InjectorTemplates {
        files: FileTemplates::Multi(BTreeMap::from([
            ("../../etc/passwd".to_owned(), "x".to_owned()),
            ("cert".to_owned(), "{{ cert }}".to_owned()),
            (
                "config".to_owned(),
                "cert at {{ svc.filename.cert }}".to_owned(),
            ),
        ])),
        env: env(&[("CONFIG", "{{ svc.filename.config }}")]),
        ..InjectorTemplates::default()
    };
    let plan = plan_ok(
        &[
            credential("one", &first, json!({"user": "alice"}), &[]),
            credential("two", &second, json!({"cert": "PEM"}), &["cert"]),
        ],
        &options(),
    );
    let files: Vec<(&str, &str, &str)> = plan
        .files
        .iter()
        .map(|file| {
            (
                file.name.as_str(),
                file.path.as_str(),
                file.content.as_str(),
            )
        })
        .collect();
    assert_eq!(
        files,
        [
            (
                "credential_0_file",
                "/run/job/env/credential_0_file",
                "user=alice"
            ),
            (
                "credential_1_file_0",
                "/run/job/env/credential_1_file_0",
                "x"
            ),
            (
                "credential_1_file_1",
                "/run/job/env/credential_1_file_1",
                "PEM"
            ),
            (
                "credential_1_file_2",
                "/run/job/env/credential_1_file_2",
                "cert at /run/job/env/credential_1_file_1"
            ),
        ]
    );
    assert_eq!(
        plan.env,
        map(&[
            ("FIRST_FILE", "/run/job/env/credential_0_file"),
            ("CONFIG", "/run/job/env/credential_1_file_2"),
        ])
    );
    // The recorded env shows the same paths.
    assert_eq!(plan.recorded_env, plan.env);
}

#[test]
fn a_trailing_slash_on_the_directory_is_not_doubled() {
    let templates = InjectorTemplates {
        files: FileTemplates::Single(String::new()),
        ..InjectorTemplates::default()
    };
    let options = PlanOptions {
        files_dir: "/tmp/x/".to_owned(),
        ..options()
    };
    let plan = plan_ok(&[credential("c", &templates, json!({}), &[])], &options);
    assert_eq!(plan.files[0].path, "/tmp/x/credential_0_file");
}

// ----- env --------------------------------------------------------------------------------------

#[test]
fn secrets_are_masked_in_the_recorded_env_only() {
    let templates = InjectorTemplates {
        env: env(&[
            ("LOGIN", "{{ user }}:{{ password }}"),
            ("FLAG", "{{ debug }}"),
            ("EMPTY", "{{ unset }}"),
        ]),
        ..InjectorTemplates::default()
    };
    let plan = plan_ok(
        &[credential(
            "c",
            &templates,
            json!({"user": "alice", "password": "s3cret", "debug": true}),
            &["password"],
        )],
        &options(),
    );
    assert_eq!(
        plan.env,
        map(&[("LOGIN", "alice:s3cret"), ("FLAG", "true"), ("EMPTY", "")])
    );
    assert_eq!(
        plan.recorded_env,
        map(&[
            ("LOGIN", "alice:**********"),
            ("FLAG", "true"),
            ("EMPTY", "")
        ])
    );
}

#[test]
fn custom_types_are_not_masked_by_name() {
    let templates = InjectorTemplates {
        env: env(&[("MY_TOKEN", "{{ token }}"), ("URL", "{{ url }}")]),
        ..InjectorTemplates::default()
    };
    let plan = plan_ok(
        &[credential(
            "c",
            &templates,
            json!({"token": "visible", "url": "https://u:p@h/"}),
            &[],
        )],
        &options(),
    );
    assert_eq!(plan.recorded_env, plan.env);
}

#[test]
fn refused_env_names_of_custom_types_are_skipped_and_listed() {
    let templates = InjectorTemplates {
        env: env(&[
            ("PATH", "/evil"),
            ("OK", "{{ a }}"),
            ("ANSIBLE_CONFIG", "{{ a }}"),
        ]),
        ..InjectorTemplates::default()
    };
    let plan = plan_ok(
        &[credential("custom", &templates, json!({"a": "1"}), &[])],
        &options(),
    );
    assert_eq!(plan.env, map(&[("OK", "1")]));
    assert_eq!(plan.recorded_env, map(&[("OK", "1")]));
    assert_eq!(
        plan.skipped_env,
        [
            SkippedEnv {
                credential: "custom".to_owned(),
                name: "PATH".to_owned(),
                reason: "PATH is not allowed".to_owned(),
            },
            SkippedEnv {
                credential: "custom".to_owned(),
                name: "ANSIBLE_CONFIG".to_owned(),
                reason: "ANSIBLE_CONFIG is not allowed".to_owned(),
            },
        ]
    );
    assert_eq!(
        plan.skipped_env[0].to_string(),
        "credential \"custom\": env injector PATH skipped: PATH is not allowed"
    );
}

#[test]
fn managed_types_leave_out_empty_variables_and_mask_by_name() {
    let templates = InjectorTemplates {
        env: env(&[
            ("AWS_ACCESS_KEY_ID", "{{ username }}"),
            ("AWS_SECRET_ACCESS_KEY", "{{ password }}"),
            ("AWS_SESSION_TOKEN", "{{ security_token }}"),
            ("ANSIBLE_NET_USERNAME", "{{ username }}"),
            ("SERVER", "{{ server }}"),
            ("PATH", "{{ username }}"),
        ]),
        ..InjectorTemplates::default()
    };
    let mut managed = credential(
        "aws",
        &templates,
        // `password` is not declared secret here: the name alone masks it.
        json!({"username": "AKIA", "password": "s3cret", "server": "https://u:p@h/"}),
        &[],
    );
    managed.managed = true;
    let plan = plan_ok(&[managed], &options());
    assert_eq!(
        plan.env,
        map(&[
            ("AWS_ACCESS_KEY_ID", "AKIA"),
            ("AWS_SECRET_ACCESS_KEY", "s3cret"),
            ("ANSIBLE_NET_USERNAME", "AKIA"),
            ("SERVER", "https://u:p@h/"),
            // Managed types are trusted: their names are not checked again.
            ("PATH", "AKIA"),
        ])
    );
    assert_eq!(
        plan.recorded_env,
        map(&[
            ("AWS_ACCESS_KEY_ID", "AKIA"),
            ("AWS_SECRET_ACCESS_KEY", "**********"),
            ("ANSIBLE_NET_USERNAME", "AKIA"),
            ("SERVER", "**********"),
            ("PATH", "AKIA"),
        ])
    );
    assert!(plan.skipped_env.is_empty());
}

#[test]
fn a_later_credential_overrides_an_earlier_one() {
    let first = InjectorTemplates {
        env: env(&[("SHARED", "first {{ s }}"), ("ONLY_FIRST", "1")]),
        extra_vars: object(json!({"shared": "first", "only_first": {"a": "b"}})),
        ..InjectorTemplates::default()
    };
    let second = InjectorTemplates {
        env: env(&[("SHARED", "second {{ s }}")]),
        extra_vars: object(json!({"shared": {"second": "{{ s }}"}})),
        ..InjectorTemplates::default()
    };
    let plan = plan_ok(
        &[
            credential("one", &first, json!({"s": "x"}), &["s"]),
            credential("two", &second, json!({"s": "y"}), &[]),
        ],
        &options(),
    );
    assert_eq!(
        plan.env,
        map(&[("SHARED", "second y"), ("ONLY_FIRST", "1")])
    );
    assert_eq!(
        plan.recorded_env,
        map(&[("SHARED", "second y"), ("ONLY_FIRST", "1")])
    );
    assert_eq!(
        Value::Object(plan.extra_vars),
        json!({"shared": {"second": "y"}, "only_first": {"a": "b"}})
    );
}

#[test]
fn env_values_a_process_cannot_carry_are_errors() {
    let templates = InjectorTemplates {
        env: env(&[("X", "{{ a }}")]),
        ..InjectorTemplates::default()
    };
    assert_eq!(
        plan(
            &[credential("c", &templates, json!({"a": "a\u{0}b"}), &[])],
            &options()
        ),
        Err(PlanError::Env {
            credential: "c".to_owned(),
            name: "X".to_owned(),
            reason: "the value holds a NUL character",
        })
    );
    let bad_name = InjectorTemplates {
        env: env(&[("A=B", "x")]),
        ..InjectorTemplates::default()
    };
    let error = plan(&[credential("c", &bad_name, json!({}), &[])], &options()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "credential \"c\": the env injector \"A=B\" cannot be set (the name is empty or holds `=` or NUL)"
    );
}

// ----- extra_vars -------------------------------------------------------------------------------

#[test]
fn extra_vars_render_keys_lists_and_objects() {
    let templates = InjectorTemplates {
        extra_vars: object(json!({
            "{{ environment }}_auth": {"user": "{{ user }}", "pass": "{{ pass }}"},
            "hosts": ["{{ host }}", "static", ["{{ host }}"], {"{{ environment }}": "x"}],
            "flag": "{{ debug }}"
        })),
        ..InjectorTemplates::default()
    };
    let plan = plan_ok(
        &[credential(
            "c",
            &templates,
            json!({"environment": "test", "user": "u", "pass": "p", "host": "h1", "debug": false}),
            &["pass"],
        )],
        &options(),
    );
    // Secrets are in clear text in the extra variables, as in the reference system.
    assert_eq!(
        Value::Object(plan.extra_vars.clone()),
        json!({
            "test_auth": {"user": "u", "pass": "p"},
            "hosts": ["h1", "static", ["h1"], {"test": "x"}],
            "flag": "false"
        })
    );
    assert_eq!(
        plan.extra_vars_yaml().as_deref(),
        Some(
            "!unsafe 'test_auth':\n  !unsafe 'user': !unsafe 'u'\n  !unsafe 'pass': !unsafe 'p'\n\
             !unsafe 'hosts':\n- !unsafe 'h1'\n- !unsafe 'static'\n- - !unsafe 'h1'\n\
             - !unsafe 'test': !unsafe 'x'\n!unsafe 'flag': !unsafe 'false'\n"
        )
    );
}

#[test]
fn extra_vars_are_left_out_when_not_wanted() {
    let templates = InjectorTemplates {
        env: env(&[("A", "a")]),
        // Not even parsed for an inventory update.
        extra_vars: object(json!({"k": "{{ broken"})),
        ..InjectorTemplates::default()
    };
    let options = PlanOptions {
        extra_vars: false,
        ..options()
    };
    let plan = plan_ok(&[credential("c", &templates, json!({}), &[])], &options);
    assert!(plan.extra_vars.is_empty());
    assert_eq!(plan.extra_vars_yaml(), None);
    assert_eq!(plan.env, map(&[("A", "a")]));
}

#[test]
fn non_template_leaves_in_a_stored_document_are_kept() {
    let templates = InjectorTemplates {
        extra_vars: object(json!({"n": 5, "l": [true, null]})),
        ..InjectorTemplates::default()
    };
    let plan = plan_ok(&[credential("c", &templates, json!({}), &[])], &options());
    assert_eq!(
        Value::Object(plan.extra_vars),
        json!({"n": 5, "l": [true, null]})
    );
}

// ----- values are data --------------------------------------------------------------------------

#[test]
fn input_values_are_never_rendered_again() {
    let payload = "{{ lookup('pipe','id') }}";
    let templates = InjectorTemplates {
        files: FileTemplates::Single("{{ token }}".to_owned()),
        env: env(&[("TOKEN", "{{ token }}")]),
        extra_vars: object(json!({"token": "{{ token }}", "list": ["{{ token }}"]})),
    };
    let plan = plan_ok(
        &[credential("c", &templates, json!({"token": payload}), &[])],
        &options(),
    );
    assert_eq!(plan.env["TOKEN"], payload);
    assert_eq!(plan.recorded_env["TOKEN"], payload);
    assert_eq!(plan.files[0].content, payload);
    assert_eq!(
        Value::Object(plan.extra_vars.clone()),
        json!({"token": payload, "list": [payload]})
    );
    // And Ansible will not template it either.
    assert_eq!(
        plan.extra_vars_yaml().as_deref(),
        Some(
            "!unsafe 'token': !unsafe '{{ lookup(''pipe'',''id'') }}'\n\
             !unsafe 'list':\n- !unsafe '{{ lookup(''pipe'',''id'') }}'\n"
        )
    );
}

// ----- errors -----------------------------------------------------------------------------------

#[test]
fn bad_stored_templates_are_errors_naming_credential_section_and_key() {
    let cases = [
        (
            InjectorTemplates {
                files: FileTemplates::Multi(BTreeMap::from([(
                    "cert".to_owned(),
                    "{{#each x}}{{/each}}".to_owned(),
                )])),
                ..InjectorTemplates::default()
            },
            "credential \"My cred\": the file injector template.cert is not a valid template \
             (helper `each` is not supported; use `if`, `unless` or `json`)",
        ),
        (
            InjectorTemplates {
                env: env(&[("X", "{{ x")]),
                ..InjectorTemplates::default()
            },
            "credential \"My cred\": the env injector X is not a valid template (unexpected end \
             of template, expected `}}` to close the expression)",
        ),
        (
            InjectorTemplates {
                extra_vars: object(json!({"auth": {"hosts": ["ok", "{{> partial}}"]}})),
                ..InjectorTemplates::default()
            },
            "credential \"My cred\": the extra_vars injector auth.hosts[1] is not a valid \
             template (partials are not supported)",
        ),
        (
            InjectorTemplates {
                extra_vars: object(json!({"auth": {"{{ ../x }}": "v"}})),
                ..InjectorTemplates::default()
            },
            "credential \"My cred\": the extra_vars injector auth.{{ ../x }} (key) is not a \
             valid template (parent paths (`../`) are not supported)",
        ),
    ];
    for (templates, message) in cases {
        let error = plan(
            &[credential("My cred", &templates, json!({}), &[])],
            &options(),
        )
        .expect_err("a bad template fails the plan");
        assert_eq!(error.to_string(), message);
    }
}

#[test]
fn plan_errors_carry_their_parts() {
    let templates = InjectorTemplates {
        env: env(&[("X", "{{ x")]),
        ..InjectorTemplates::default()
    };
    let error = plan(&[credential("c", &templates, json!({}), &[])], &options()).unwrap_err();
    assert!(matches!(
        error,
        PlanError::Template { ref credential, section: Section::Env, ref key, .. }
            if credential == "c" && key == "X"
    ));
}

#[test]
fn render_errors_are_reported_not_panicked() {
    // Whatever Handlebars makes of an attribute of a list, the plan must not panic; when it
    // fails, the error names the template.
    let templates = InjectorTemplates {
        env: env(&[("X", "{{ l.x }}")]),
        ..InjectorTemplates::default()
    };
    match plan(
        &[credential("c", &templates, json!({"l": ["a"]}), &[])],
        &options(),
    ) {
        Ok(plan) => assert!(plan.env.contains_key("X")),
        Err(PlanError::Render { key, .. }) => assert_eq!(key, "X"),
        Err(other) => panic!("unexpected error {other}"),
    }
}

// ----- debug output -----------------------------------------------------------------------------

#[test]
fn debug_output_shows_no_secret() {
    let templates = InjectorTemplates {
        files: FileTemplates::Single("{{ token }}".to_owned()),
        env: env(&[("TOKEN", "{{ token }}")]),
        extra_vars: object(json!({"token": "{{ token }}"})),
    };
    let credential = credential("c", &templates, json!({"token": "s3cret"}), &["token"]);
    let plan = plan_ok(std::slice::from_ref(&credential), &options());
    for debug in [format!("{credential:?}"), format!("{plan:?}")] {
        assert!(!debug.contains("s3cret"), "{debug}");
    }
}

#[test]
fn no_credentials_make_an_empty_plan() {
    assert_eq!(plan_ok(&[], &options()), InjectionPlan::default());
}
