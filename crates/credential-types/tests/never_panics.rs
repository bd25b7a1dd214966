//! Property tests: the validators accept any input without panicking.
//!
//! Each validator is fed arbitrary values and text, plus inputs shaped to get past the first
//! checks (near-valid input configurations, PEM-looking text, YAML built from YAML tokens), so
//! that the deeper code paths are exercised too.

use acs_credential_types::{
    check_private_key, managed_types, parse_document, validate_credential_inputs,
    validate_inputs_config,
};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Keys that mean something to the validators, mixed with arbitrary ones.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "fields", "required", "dependencies", "id", "label", "help_text", "type", "format",
            "choices", "multiline", "secret", "ask_at_runtime", "default", "username", "password",
            "ssh_key_data", "ssh_key_unlock", "authorize", "authorize_password", "url", "token",
            "svc", "AUTOMATION_X", "vault_id", "verify_ssl",
        ])
        .prop_map(str::to_owned),
        1 => ".{0,12}",
    ]
}

/// Strings that mean something to the validators, mixed with arbitrary ones.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "", "string", "boolean", "url", "ssh_private_key", "vault_id", "ASK", "$encrypted$",
            "http://example.org", "foo.com", "https://[dead:beef", "a@b", "svc", "AUTOMATION_X",
            "x-y", "9x", "username", "password", "authorize",
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----",
        ])
        .prop_map(str::to_owned),
        1 => ".{0,40}",
    ]
}

/// Arbitrary JSON values of small depth.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e20_f64..1e20).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// Field definitions that are often valid, sometimes subtly not.
fn field_definition() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            3 => prop::sample::select(vec!["username", "password", "flag", "key", "url", "region"])
                .prop_map(str::to_owned),
            1 => key(),
        ],
        prop::option::of(prop::sample::select(vec!["string", "boolean", "other"])),
        prop::option::of(prop::sample::select(vec![
            "url",
            "ssh_private_key",
            "vault_id",
        ])),
        prop::option::of(prop::collection::vec(text(), 0..3)),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::option::of(json_value()),
    )
        .prop_map(|(id, field_type, format, choices, secret, ask, default)| {
            let mut field = Map::new();
            field.insert("id".to_owned(), Value::from(id.clone()));
            field.insert("label".to_owned(), Value::from(id));
            if let Some(field_type) = field_type {
                field.insert("type".to_owned(), Value::from(field_type));
            }
            if let Some(format) = format {
                field.insert("format".to_owned(), Value::from(format));
            }
            if let Some(choices) = choices {
                field.insert("choices".to_owned(), Value::from(choices));
            }
            if let Some(secret) = secret {
                field.insert("secret".to_owned(), Value::from(secret));
            }
            if let Some(ask) = ask {
                field.insert("ask_at_runtime".to_owned(), Value::from(ask));
            }
            if let Some(default) = default {
                field.insert("default".to_owned(), default);
            }
            Value::Object(field)
        })
}

/// Input configurations shaped like real ones.
fn input_configuration() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(field_definition(), 0..5),
        prop::option::of(prop::collection::vec(key(), 0..3)),
    )
        .prop_map(|(fields, required)| {
            let mut document = Map::new();
            document.insert("fields".to_owned(), Value::from(fields));
            if let Some(required) = required {
                document.insert("required".to_owned(), Value::from(required));
            }
            Value::Object(document)
        })
}

/// Text that looks like PEM blocks.
fn pem_like() -> impl Strategy<Value = String> {
    let label = prop_oneof![
        prop::sample::select(vec![
            "RSA PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
            "PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "CERTIFICATE",
            "PUBLIC KEY",
            "FOO PRIVATE KEY",
            "DH PARAMETERS",
        ])
        .prop_map(str::to_owned),
        "[A-Z ]{0,12}",
    ];
    let body = prop_oneof![
        "[A-Za-z0-9+/=\n]{0,80}",
        "(Proc-Type: 4,ENCRYPTED\n)?[A-Za-z0-9+/]{0,40}={0,2}",
        // OpenSSH headers with arbitrary cipher-length bytes.
        "b3BlbnNzaC1rZXktdjEA[A-Za-z0-9+/]{0,24}",
        ".{0,40}",
    ];
    prop::collection::vec((label, body, "-{3,6}", ".{0,3}"), 1..4).prop_map(|blocks| {
        blocks
            .into_iter()
            .map(|(label, body, dashes, junk)| {
                format!(
                    "{dashes}BEGIN {label}{dashes}\n{body}\n{dashes}END {label}{dashes}{junk}\n"
                )
            })
            .collect()
    })
}

/// Text built from YAML tokens, aliases included.
fn yaml_like() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a",
            "b",
            ": ",
            "- ",
            "\n",
            "  ",
            "[",
            "]",
            "{",
            "}",
            ",",
            "&x ",
            "*x",
            "&y ",
            "*y",
            "!tag ",
            "'q'",
            "\"d\"",
            "1",
            "1.5",
            "~",
            "? ",
            "---\n",
            "...\n",
            "%YAML 1.2\n",
            "|\n",
            ">\n",
            "#c",
            ".nan",
            "true",
            "<<: *x",
        ]),
        0..40,
    )
    .prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parse_document_never_panics_on_values(value in json_value()) {
        let _ = parse_document(&value);
    }

    #[test]
    fn parse_document_never_panics_on_text(text in ".{0,200}") {
        let _ = parse_document(&Value::String(text));
    }

    #[test]
    fn parse_document_never_panics_on_yaml(text in yaml_like()) {
        let _ = parse_document(&Value::String(text));
    }

    #[test]
    fn validate_inputs_config_never_panics(value in json_value(), managed in any::<bool>()) {
        let _ = validate_inputs_config(&value, managed);
    }

    #[test]
    fn validate_inputs_config_never_panics_on_near_valid(
        value in input_configuration(),
        managed in any::<bool>(),
    ) {
        if let Ok((configuration, normalised)) = validate_inputs_config(&value, managed) {
            // The normalised document is itself valid and describes the same configuration.
            let (again, renormalised) = validate_inputs_config(&normalised, managed)
                .expect("a normalised document stays valid");
            prop_assert_eq!(again, configuration);
            prop_assert_eq!(renormalised, normalised);
        }
    }

    #[test]
    fn validate_credential_inputs_never_panics(
        document in input_configuration(),
        managed_index in 0..managed_types().len(),
        use_managed in any::<bool>(),
        submitted in json_value(),
        previous in prop::option::of(json_value()),
    ) {
        let configuration = if use_managed {
            Some(managed_types()[managed_index].input_configuration())
        } else {
            validate_inputs_config(&document, false).ok().map(|(configuration, _)| configuration)
        };
        if let Some(configuration) = configuration {
            let previous = previous.and_then(|value| value.as_object().cloned());
            let _ = validate_credential_inputs(&configuration, &submitted, previous.as_ref());
        }
    }

    #[test]
    fn validate_credential_inputs_never_panics_on_known_keys(
        managed_index in 0..managed_types().len(),
        entries in prop::collection::vec((0..16_usize, json_value()), 0..8),
        previous in prop::collection::vec((0..16_usize, text()), 0..4),
    ) {
        let configuration = managed_types()[managed_index].input_configuration();
        let ids = configuration.field_ids();
        let pick = |index: usize| ids[index % ids.len()].to_owned();
        let submitted: Map<String, Value> =
            entries.into_iter().map(|(index, value)| (pick(index), value)).collect();
        let previous: Map<String, Value> = previous
            .into_iter()
            .map(|(index, value)| (pick(index), Value::String(value)))
            .collect();
        let _ = validate_credential_inputs(&configuration, &Value::Object(submitted.clone()), None);
        let result =
            validate_credential_inputs(&configuration, &Value::Object(submitted), Some(&previous));
        if let Ok(values) = result {
            // Every stored key is a defined field.
            for key in values.keys() {
                prop_assert!(configuration.field(key).is_some());
            }
        }
    }

    #[test]
    fn check_private_key_never_panics(text in ".{0,300}") {
        let _ = check_private_key(&text);
    }

    #[test]
    fn check_private_key_never_panics_on_pem_like(text in pem_like()) {
        let _ = check_private_key(&text);
    }
}
