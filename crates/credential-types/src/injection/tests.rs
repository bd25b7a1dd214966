use std::collections::BTreeMap;

use acs_injectors::{InjectionPlan, PlanOptions, SkippedEnv, plan};
use serde_json::json;

use super::*;
use crate::injectors::{env_name_allowed, validate_injectors};
use crate::inputs::validate_inputs_config;
use crate::managed::{managed_type, managed_types};
use crate::ssh_key::test_keys::ED25519_PLAIN;

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn options(extra_vars: bool) -> PlanOptions {
    PlanOptions {
        files_dir: "/run/acs/job_7/env".to_owned(),
        extra_vars,
        env_allowed: env_name_allowed,
    }
}

fn map(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
    entries
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

/// Plans one credential of a managed type.
fn plan_managed(namespace: &str, inputs: Value) -> InjectionPlan {
    let managed = managed_type(namespace).expect("registered");
    let config = managed.input_configuration();
    let templates = InjectorTemplates::from(&managed.injector_configuration());
    let injection = credential_injection(managed.name, &templates, &config, &object(inputs));
    assert!(injection.managed);
    plan(&[injection], &options(true)).expect("plans")
}

// ----- injection_fields -------------------------------------------------------------------------

fn example_config(managed: bool) -> InputConfiguration {
    let document = json!({
        "fields": [
            {"id": "username", "label": "Username"},
            {"id": "password", "label": "Password", "secret": true},
            {"id": "key", "label": "Key", "format": "ssh_private_key", "secret": true,
             "multiline": true},
            {"id": "debug", "label": "Debug", "type": "boolean", "default": true},
            {"id": "region", "label": "Region", "default": "eu"}
        ]
    });
    let (mut config, _) = validate_inputs_config(&document, false).expect("valid");
    // The namespace rules differ for managed types only through `managed`.
    config.managed = managed;
    config
}

#[test]
fn custom_fields_follow_the_reference_namespace_rules() {
    let key = ED25519_PLAIN.trim_end();
    let decrypted = object(json!({
        "username": "",
        "password": "s3cret",
        "key": key,
        "undeclared": "x"
    }));
    let (fields, secrets) = injection_fields(&example_config(false), &decrypted);
    assert_eq!(
        Value::Object(fields),
        json!({"password": "s3cret", "key": format!("{key}\n"), "debug": false})
    );
    assert_eq!(
        secrets,
        BTreeSet::from(["password".to_owned(), "key".to_owned()])
    );
}

#[test]
fn managed_fields_take_declared_defaults() {
    let (fields, secrets) = injection_fields(&example_config(true), &Map::new());
    assert_eq!(
        Value::Object(fields),
        json!({"debug": true, "region": "eu"})
    );
    assert!(secrets.is_empty());
    let stored = object(json!({"debug": false, "region": "us", "key": "K\n"}));
    let (fields, secrets) = injection_fields(&example_config(true), &stored);
    assert_eq!(
        Value::Object(fields),
        json!({"key": "K\n", "debug": false, "region": "us"})
    );
    assert_eq!(secrets, BTreeSet::from(["key".to_owned()]));
}

// ----- a custom type end to end -----------------------------------------------------------------

#[test]
fn a_custom_type_plans_env_files_and_extra_vars() {
    let (config, _) = validate_inputs_config(
        &json!({
            "fields": [
                {"id": "username", "label": "Username"},
                {"id": "password", "label": "Password", "secret": true},
                {"id": "cert", "label": "Certificate", "secret": true, "multiline": true},
                {"id": "debug", "label": "Debug", "type": "boolean"},
                {"id": "environment", "label": "Environment"}
            ]
        }),
        false,
    )
    .expect("valid inputs");
    let injectors = validate_injectors(
        &json!({
            "file": {
                "template.cert": "{{ cert }}",
                "template.config": "[client]\ncert={{ svc.filename.cert }}\nuser={{ username }}\n"
            },
            "env": {
                "MY_LOGIN": "{{ username }}:{{ password }}",
                "MY_DEBUG": "{{#if debug}}1{{else}}0{{/if}}",
                "MY_CERT_FILE": "{{ svc.filename.cert }}",
                "MY_CONFIG_FILE": "{{ svc.filename.config }}"
            },
            "extra_vars": {
                "{{environment}}_auth": {"user": "{{ username }}", "password": "{{ password }}"},
                "hosts": ["{{ environment }}.example.org", "static"]
            }
        }),
        &config.field_ids(),
        false,
    )
    .expect("valid injectors");
    let templates = InjectorTemplates::from(&injectors);
    let decrypted = object(json!({
        "username": "alice",
        "password": "pa'ss",
        "cert": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
        "environment": "test"
    }));
    let injection = credential_injection("Custom cred", &templates, &config, &decrypted);
    assert!(!injection.managed);
    let plan = plan(&[injection], &options(true)).expect("plans");

    let dir = "/run/acs/job_7/env";
    assert_eq!(
        plan.env,
        map(&[
            ("MY_LOGIN", "alice:pa'ss"),
            ("MY_DEBUG", "0"),
            ("MY_CERT_FILE", &format!("{dir}/credential_0_file_0")),
            ("MY_CONFIG_FILE", &format!("{dir}/credential_0_file_1")),
        ])
    );
    assert_eq!(
        plan.recorded_env,
        map(&[
            ("MY_LOGIN", "alice:**********"),
            ("MY_DEBUG", "0"),
            ("MY_CERT_FILE", &format!("{dir}/credential_0_file_0")),
            ("MY_CONFIG_FILE", &format!("{dir}/credential_0_file_1")),
        ])
    );
    let files: Vec<(&str, &str)> = plan
        .files
        .iter()
        .map(|file| (file.path.as_str(), file.content.as_str()))
        .collect();
    assert_eq!(
        files,
        [
            (
                "/run/acs/job_7/env/credential_0_file_0",
                "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
            ),
            (
                "/run/acs/job_7/env/credential_0_file_1",
                "[client]\ncert=/run/acs/job_7/env/credential_0_file_0\nuser=alice\n"
            ),
        ]
    );
    assert_eq!(
        plan.extra_vars_yaml().as_deref(),
        Some(
            "!unsafe 'test_auth':\n  !unsafe 'user': !unsafe 'alice'\n  !unsafe 'password': !unsafe 'pa''ss'\n\
             !unsafe 'hosts':\n- !unsafe 'test.example.org'\n- !unsafe 'static'\n"
        )
    );
    assert!(plan.skipped_env.is_empty());

    // An inventory update gets the same env and files, and no extra variables.
    let injection = credential_injection("Custom cred", &templates, &config, &decrypted);
    let inventory = acs_injectors::plan(&[injection], &options(false)).expect("plans");
    assert_eq!(inventory.env, plan.env);
    assert_eq!(inventory.files, plan.files);
    assert!(inventory.extra_vars.is_empty());
}

#[test]
fn refused_env_names_of_custom_types_are_skipped_and_listed() {
    let (config, _) = validate_inputs_config(
        &json!({"fields": [{"id": "token", "label": "Token", "secret": true}]}),
        false,
    )
    .expect("valid inputs");
    // A document stored before these names were refused at save time.
    let stored = InjectorConfiguration {
        env: [
            ("PATH", "/tmp/evil"),
            ("LD_PRELOAD", "/tmp/evil.so"),
            ("ANSIBLE_CONFIG", "/tmp/evil.cfg"),
            ("JOB_ID", "1"),
            ("MY_TOKEN", "{{ token }}"),
        ]
        .iter()
        .map(|(name, template)| ((*name).to_owned(), (*template).to_owned()))
        .collect(),
        ..InjectorConfiguration::default()
    };
    let templates = InjectorTemplates::from(&stored);
    let decrypted = object(json!({"token": "t0k"}));
    let injection = credential_injection("Old cred", &templates, &config, &decrypted);
    let plan = plan(&[injection], &options(true)).expect("plans");
    assert_eq!(plan.env, map(&[("MY_TOKEN", "t0k")]));
    assert_eq!(plan.recorded_env, map(&[("MY_TOKEN", "**********")]));
    let skipped: Vec<&str> = plan
        .skipped_env
        .iter()
        .map(|skipped| skipped.name.as_str())
        .collect();
    assert_eq!(skipped, ["PATH", "LD_PRELOAD", "ANSIBLE_CONFIG", "JOB_ID"]);
    assert_eq!(
        plan.skipped_env[2],
        SkippedEnv {
            credential: "Old cred".to_owned(),
            name: "ANSIBLE_CONFIG".to_owned(),
            reason: "Environment variable ANSIBLE_CONFIG may affect Ansible configuration so \
                     its use is not allowed in credentials."
                .to_owned(),
        }
    );
}

// ----- managed types ----------------------------------------------------------------------------

#[test]
fn aws_sets_the_session_token_only_when_there_is_one() {
    let plan = plan_managed("aws", json!({"username": "AKIA1", "password": "s3cret"}));
    assert_eq!(
        plan.env,
        map(&[
            ("AWS_ACCESS_KEY_ID", "AKIA1"),
            ("AWS_SECRET_ACCESS_KEY", "s3cret")
        ])
    );
    assert_eq!(
        plan.recorded_env,
        map(&[
            ("AWS_ACCESS_KEY_ID", "AKIA1"),
            ("AWS_SECRET_ACCESS_KEY", "**********")
        ])
    );

    let plan = plan_managed(
        "aws",
        json!({"username": "AKIA1", "password": "s3cret", "security_token": "tok"}),
    );
    assert_eq!(
        plan.env,
        map(&[
            ("AWS_ACCESS_KEY_ID", "AKIA1"),
            ("AWS_SECRET_ACCESS_KEY", "s3cret"),
            ("AWS_SECURITY_TOKEN", "tok"),
            ("AWS_SESSION_TOKEN", "tok"),
        ])
    );
    assert_eq!(
        plan.recorded_env,
        map(&[
            ("AWS_ACCESS_KEY_ID", "AKIA1"),
            ("AWS_SECRET_ACCESS_KEY", "**********"),
            ("AWS_SECURITY_TOKEN", "**********"),
            ("AWS_SESSION_TOKEN", "**********"),
        ])
    );
}

#[test]
fn gce_writes_valid_json_for_a_real_multi_line_key() {
    // Stored without its final newline: injection adds it back.
    let key = ED25519_PLAIN.trim_end();
    let plan = plan_managed(
        "gce",
        json!({"username": "sa@proj.iam.gserviceaccount.com", "project": "proj", "ssh_key_data": key}),
    );
    let [file] = plan.files.as_slice() else {
        panic!("one file expected, got {:?}", plan.files);
    };
    assert_eq!(file.path, "/run/acs/job_7/env/credential_0_file");
    let content: Value = serde_json::from_str(&file.content).expect("valid JSON");
    assert_eq!(
        content,
        json!({
            "type": "service_account",
            "private_key": format!("{key}\n"),
            "client_email": "sa@proj.iam.gserviceaccount.com",
            "project_id": "proj",
            "token_uri": "https://oauth2.googleapis.com/token"
        })
    );
    for name in [
        "GCE_CREDENTIALS_FILE_PATH",
        "GCP_SERVICE_ACCOUNT_FILE",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ] {
        assert_eq!(plan.env[name], file.path, "{name}");
        assert_eq!(plan.recorded_env[name], file.path, "{name}");
    }
    assert_eq!(plan.env["GCP_PROJECT"], "proj");
}

#[test]
fn azure_leaves_out_the_other_modes_variables() {
    let plan = plan_managed(
        "azure_rm",
        json!({"subscription": "sub", "client": "c", "secret": "s", "tenant": "t"}),
    );
    assert_eq!(
        plan.env,
        map(&[
            ("AZURE_SUBSCRIPTION_ID", "sub"),
            ("AZURE_CLIENT_ID", "c"),
            ("AZURE_TENANT", "t"),
            ("AZURE_SECRET", "s"),
        ])
    );
    assert_eq!(plan.recorded_env["AZURE_SECRET"], "**********");
}

#[test]
fn openstack_yaml_file_uses_the_declared_verify_default() {
    let plan = plan_managed(
        "openstack",
        json!({"username": "bob", "password": "pa: ss\n", "host": "https://ks", "project": "p"}),
    );
    let content: serde_yaml::Value =
        serde_yaml::from_str(&plan.files[0].content).expect("valid YAML");
    let expected = json!({"clouds": {"devstack": {
        "auth": {"auth_url": "https://ks", "password": "pa: ss\n", "project_name": "p",
                 "username": "bob"},
        "verify": true
    }}});
    assert_eq!(content, serde_yaml::to_value(expected).unwrap());
}

/// The reference system's invariant: with secret inputs *not* masked field by field, the name
/// rules alone still mask every managed env variable built from a secret input.
#[test]
fn managed_env_variables_built_from_secrets_are_masked_by_name() {
    for managed in managed_types() {
        let config = managed.input_configuration();
        let templates = InjectorTemplates::from(&managed.injector_configuration());
        let decrypted: Map<String, Value> = config
            .fields
            .iter()
            .map(|field| {
                let value = match field.field_type {
                    FieldType::Boolean => Value::Bool(true),
                    FieldType::String => Value::from(format!("marker-{}", field.id)),
                };
                (field.id.clone(), value)
            })
            .collect();
        let mut injection = credential_injection(managed.name, &templates, &config, &decrypted);
        injection.secret_fields.clear();
        let plan = plan(&[injection], &options(true)).expect("plans");
        for (name, recorded) in &plan.recorded_env {
            for field in config.fields.iter().filter(|field| field.secret) {
                assert!(
                    !recorded.contains(&format!("marker-{}", field.id)),
                    "{} {name} shows {}",
                    managed.namespace,
                    field.id
                );
            }
        }
    }
}
