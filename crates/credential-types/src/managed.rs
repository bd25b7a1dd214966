//! The managed (built-in) credential types.
//!
//! Managed types exist from the first start, cannot be changed or deleted, and are identified
//! by their `namespace`. Their definitions live here, in code: the stored rows only record
//! their identity, and the API shows the definitions below.
//!
//! Fields, flags, defaults and required lists follow the reference system's registry; labels
//! and help texts are ACS's own. Injectors are Handlebars templates (see `acs_injectors`) that
//! reproduce the reference system's built-in injection outputs:
//!
//! * optional variables (the AWS session token, the Azure variables of the authentication mode
//!   not in use, the Terraform Google credentials path) render as the empty string when they do
//!   not apply, and the injection plan leaves a managed type's empty variables out;
//! * the GCE JSON file and the OpenStack YAML file insert every value with `{{json …}}`, so
//!   they stay well-formed whatever the values hold (a private key's newlines, quotes);
//! * the reference uses declared defaults in its built-in injectors (OpenStack's `verify_ssl`
//!   defaults to true); [`crate::injection::injection_fields`] adds them.
//!
//! The Machine, Source Control, Vault, Network, Satellite and content source types inject
//! nothing through templates: their inputs are used by the job and project-update runners.

use std::sync::LazyLock;

use serde_json::{Value, json};

use crate::injectors::{InjectorConfiguration, validate_injectors};
use crate::inputs::{InputConfiguration, validate_inputs_config};
use crate::kind::Kind;

/// One managed credential type.
#[derive(Debug, Clone, PartialEq)]
pub struct ManagedType {
    /// The registry key, unique among managed types (e.g. `aws`, `content_source_token`).
    pub namespace: &'static str,
    /// The kind.
    pub kind: Kind,
    /// The display name; (`name`, `kind`) is unique among all credential types.
    pub name: &'static str,
    /// A short description.
    pub description: &'static str,
    /// The input configuration document (already normalised: every field has a `type`).
    pub inputs: Value,
    /// The injector configuration document.
    pub injectors: Value,
}

impl ManagedType {
    /// The typed input configuration of this type.
    ///
    /// # Panics
    ///
    /// Never in practice: every managed definition is valid, which the registry's tests check.
    pub fn input_configuration(&self) -> InputConfiguration {
        match validate_inputs_config(&self.inputs, true) {
            Ok((configuration, _)) => configuration,
            Err(errors) => panic!(
                "managed credential type {} has invalid inputs: {errors:?}",
                self.namespace
            ),
        }
    }

    /// The typed injector configuration of this type, validated as a managed type's.
    ///
    /// # Panics
    ///
    /// Never in practice: every managed definition is valid, which the registry's tests check.
    pub fn injector_configuration(&self) -> InjectorConfiguration {
        let inputs = self.input_configuration();
        match validate_injectors(&self.injectors, &inputs.field_ids(), true) {
            Ok(configuration) => configuration,
            Err(errors) => panic!(
                "managed credential type {} has invalid injectors: {errors:?}",
                self.namespace
            ),
        }
    }
}

/// Every managed credential type, in a stable order.
pub fn managed_types() -> &'static [ManagedType] {
    &REGISTRY
}

/// The managed credential type with namespace `namespace`.
pub fn managed_type(namespace: &str) -> Option<&'static ManagedType> {
    REGISTRY
        .iter()
        .find(|managed| managed.namespace == namespace)
}

static REGISTRY: LazyLock<Vec<ManagedType>> = LazyLock::new(registry);

/// An empty injector configuration.
fn no_injectors() -> Value {
    json!({})
}

fn registry() -> Vec<ManagedType> {
    vec![
        ManagedType {
            namespace: "ssh",
            kind: Kind::Ssh,
            name: "Machine",
            description: "Log in to managed hosts over SSH and escalate privileges there.",
            inputs: json!({
                "fields": [
                    {"id": "username", "label": "Username", "type": "string",
                     "help_text": "The user to log in as on managed hosts."},
                    {"id": "password", "label": "Password", "type": "string",
                     "secret": true, "ask_at_runtime": true,
                     "help_text": "The login password; ASK prompts for it at launch."},
                    {"id": "ssh_key_data", "label": "SSH Private Key", "type": "string",
                     "format": "ssh_private_key", "secret": true, "multiline": true,
                     "help_text": "A PEM or OpenSSH private key."},
                    {"id": "ssh_public_key_data", "label": "Signed SSH Certificate",
                     "type": "string", "secret": true, "multiline": true,
                     "help_text": "An SSH certificate signed for the private key, if the hosts require one."},
                    {"id": "ssh_key_unlock", "label": "Private Key Passphrase", "type": "string",
                     "secret": true, "ask_at_runtime": true,
                     "help_text": "The passphrase of an encrypted private key; ASK prompts for it at launch."},
                    {"id": "become_method", "label": "Privilege Escalation Method",
                     "type": "string",
                     "help_text": "How to become another user, e.g. sudo or su."},
                    {"id": "become_username", "label": "Privilege Escalation Username",
                     "type": "string",
                     "help_text": "The user to become (root when empty)."},
                    {"id": "become_password", "label": "Privilege Escalation Password",
                     "type": "string", "secret": true, "ask_at_runtime": true,
                     "help_text": "The password for privilege escalation; ASK prompts for it at launch."}
                ]
            }),
            injectors: no_injectors(),
        },
        ManagedType {
            namespace: "scm",
            kind: Kind::Scm,
            name: "Source Control",
            description: "Check out projects from source control.",
            inputs: json!({
                "fields": [
                    {"id": "username", "label": "Username", "type": "string"},
                    {"id": "password", "label": "Password", "type": "string", "secret": true},
                    {"id": "ssh_key_data", "label": "SCM Private Key", "type": "string",
                     "format": "ssh_private_key", "secret": true, "multiline": true,
                     "help_text": "A private key for SSH access to the repository."},
                    {"id": "ssh_key_unlock", "label": "Private Key Passphrase",
                     "type": "string", "secret": true,
                     "help_text": "The passphrase of an encrypted private key."}
                ]
            }),
            injectors: no_injectors(),
        },
        ManagedType {
            namespace: "vault",
            kind: Kind::Vault,
            name: "Vault",
            description: "Decrypt Ansible Vault content during a job.",
            inputs: json!({
                "fields": [
                    {"id": "vault_password", "label": "Vault Password", "type": "string",
                     "secret": true, "ask_at_runtime": true,
                     "help_text": "The vault password; ASK prompts for it at launch."},
                    {"id": "vault_id", "label": "Vault Identifier", "type": "string",
                     "format": "vault_id",
                     "help_text": "The vault id this password opens (`--vault-id`); one job may use several vault credentials with distinct ids."}
                ],
                "required": ["vault_password"]
            }),
            injectors: no_injectors(),
        },
        ManagedType {
            namespace: "net",
            kind: Kind::Net,
            name: "Network",
            description: "Log in to network devices.",
            inputs: json!({
                "fields": [
                    {"id": "username", "label": "Username", "type": "string"},
                    {"id": "password", "label": "Password", "type": "string", "secret": true},
                    {"id": "ssh_key_data", "label": "SSH Private Key", "type": "string",
                     "format": "ssh_private_key", "secret": true, "multiline": true},
                    {"id": "ssh_key_unlock", "label": "Private Key Passphrase",
                     "type": "string", "secret": true},
                    {"id": "authorize", "label": "Authorize", "type": "boolean",
                     "help_text": "Enter privileged (enable) mode on the device."},
                    {"id": "authorize_password", "label": "Authorize Password",
                     "type": "string", "secret": true,
                     "help_text": "The password for privileged mode; requires Authorize."}
                ],
                "dependencies": {"authorize_password": ["authorize"]},
                "required": ["username"]
            }),
            injectors: no_injectors(),
        },
        ManagedType {
            namespace: "aws",
            kind: Kind::Cloud,
            name: "Amazon Web Services",
            description: "Access Amazon Web Services with an access key.",
            inputs: json!({
                "fields": [
                    {"id": "username", "label": "Access Key", "type": "string"},
                    {"id": "password", "label": "Secret Key", "type": "string", "secret": true},
                    {"id": "security_token", "label": "STS Token", "type": "string",
                     "secret": true,
                     "help_text": "A session token for temporary credentials (AWS STS)."}
                ],
                "required": ["username", "password"]
            }),
            injectors: json!({
                "env": {
                    "AWS_ACCESS_KEY_ID": "{{ username }}",
                    "AWS_SECRET_ACCESS_KEY": "{{ password }}",
                    "AWS_SECURITY_TOKEN": "{{ security_token }}",
                    "AWS_SESSION_TOKEN": "{{ security_token }}"
                }
            }),
        },
        ManagedType {
            namespace: "gce",
            kind: Kind::Cloud,
            name: "Google Compute Engine",
            description: "Access Google Cloud with a service account key.",
            inputs: json!({
                "fields": [
                    {"id": "username", "label": "Service Account Email Address",
                     "type": "string",
                     "help_text": "The client email of the service account."},
                    {"id": "project", "label": "Project", "type": "string",
                     "help_text": "The project id to work in."},
                    {"id": "ssh_key_data", "label": "RSA Private Key", "type": "string",
                     "format": "ssh_private_key", "secret": true, "multiline": true,
                     "help_text": "The service account's private key (PEM)."}
                ],
                "required": ["username", "ssh_key_data"]
            }),
            injectors: json!({
                "file": {
                    "template": "{\n  \"type\": \"service_account\",\n  \"private_key\": {{json ssh_key_data}},\n  \"client_email\": {{json username}},\n  \"project_id\": {{json project}},\n  \"token_uri\": \"https://oauth2.googleapis.com/token\"\n}"
                },
                "env": {
                    "GCE_EMAIL": "{{ username }}",
                    "GCE_PROJECT": "{{ project }}",
                    "GCE_CREDENTIALS_FILE_PATH": "{{ svc.filename }}",
                    "GCP_SERVICE_ACCOUNT_FILE": "{{ svc.filename }}",
                    "GOOGLE_APPLICATION_CREDENTIALS": "{{ svc.filename }}",
                    "GCP_AUTH_KIND": "serviceaccount",
                    "GCP_PROJECT": "{{ project }}",
                    "GCP_ENV_TYPE": "tower"
                }
            }),
        },
        ManagedType {
            namespace: "azure_rm",
            kind: Kind::Cloud,
            name: "Microsoft Azure Resource Manager",
            description: "Access Azure with a service principal or a user account.",
            inputs: json!({
                "fields": [
                    {"id": "subscription", "label": "Subscription ID", "type": "string",
                     "help_text": "The subscription to work in."},
                    {"id": "username", "label": "Username", "type": "string",
                     "help_text": "A user account, when no service principal is given."},
                    {"id": "password", "label": "Password", "type": "string", "secret": true},
                    {"id": "client", "label": "Client ID", "type": "string",
                     "help_text": "The service principal's application id."},
                    {"id": "secret", "label": "Client Secret", "type": "string", "secret": true},
                    {"id": "tenant", "label": "Tenant ID", "type": "string"},
                    {"id": "cloud_environment", "label": "Azure Cloud Environment",
                     "type": "string",
                     "help_text": "The cloud to use when not the public one, e.g. AzureUSGovernment."}
                ],
                "required": ["subscription"]
            }),
            injectors: json!({
                "env": {
                    "AZURE_SUBSCRIPTION_ID": "{{ subscription }}",
                    "AZURE_CLIENT_ID": "{{#if client}}{{#if tenant}}{{ client }}{{/if}}{{/if}}",
                    "AZURE_TENANT": "{{#if client}}{{#if tenant}}{{ tenant }}{{/if}}{{/if}}",
                    "AZURE_SECRET": "{{#if client}}{{#if tenant}}{{ secret }}{{/if}}{{/if}}",
                    "AZURE_AD_USER": "{{#if client}}{{#if tenant}}{{else}}{{ username }}{{/if}}{{else}}{{ username }}{{/if}}",
                    "AZURE_PASSWORD": "{{#if client}}{{#if tenant}}{{else}}{{ password }}{{/if}}{{else}}{{ password }}{{/if}}",
                    "AZURE_CLOUD_ENVIRONMENT": "{{ cloud_environment }}"
                }
            }),
        },
        ManagedType {
            namespace: "vmware",
            kind: Kind::Cloud,
            name: "VMware vCenter",
            description: "Access a VMware vCenter server.",
            inputs: json!({
                "fields": [
                    {"id": "host", "label": "VCenter Host", "type": "string",
                     "help_text": "The host name or address of the vCenter server."},
                    {"id": "username", "label": "Username", "type": "string"},
                    {"id": "password", "label": "Password", "type": "string", "secret": true}
                ],
                "required": ["host", "username", "password"]
            }),
            injectors: json!({
                "env": {
                    "VMWARE_USER": "{{ username }}",
                    "VMWARE_PASSWORD": "{{ password }}",
                    "VMWARE_HOST": "{{ host }}",
                    "VMWARE_VALIDATE_CERTS": "False"
                }
            }),
        },
        ManagedType {
            namespace: "openstack",
            kind: Kind::Cloud,
            name: "OpenStack",
            description: "Access an OpenStack cloud through Keystone.",
            inputs: json!({
                "fields": [
                    {"id": "username", "label": "Username", "type": "string"},
                    {"id": "password", "label": "Password (API Key)", "type": "string",
                     "secret": true},
                    {"id": "host", "label": "Host (Authentication URL)", "type": "string",
                     "help_text": "The Keystone authentication URL, e.g. https://keystone.example.org:5000/v3."},
                    {"id": "project", "label": "Project (Tenant Name)", "type": "string"},
                    {"id": "project_domain_name", "label": "Project (Domain Name)",
                     "type": "string"},
                    {"id": "domain", "label": "Domain Name", "type": "string",
                     "help_text": "The Keystone v3 domain of the user."},
                    {"id": "region", "label": "Region Name", "type": "string"},
                    {"id": "verify_ssl", "label": "Verify SSL", "type": "boolean",
                     "default": true,
                     "help_text": "Check the server's TLS certificate."}
                ],
                "required": ["username", "password", "host", "project"]
            }),
            // Values are YAML double-quoted scalars written by `{{json …}}`; `verify` uses `if`
            // instead so that it is a YAML boolean even when `verify_ssl` is missing.
            injectors: json!({
                "file": {
                    "template": "clouds:\n  devstack:\n    auth:\n      auth_url: {{json host}}\n{{#if domain}}      domain_name: {{json domain}}\n{{/if}}      password: {{json password}}\n{{#if project_domain_name}}      project_domain_name: {{json project_domain_name}}\n{{/if}}      project_name: {{json project}}\n      username: {{json username}}\n{{#if region}}    region_name: {{json region}}\n{{/if}}    verify: {{#if verify_ssl}}true{{else}}false{{/if}}\n"
                },
                "env": {
                    "OS_CLIENT_CONFIG_FILE": "{{ svc.filename }}"
                }
            }),
        },
        ManagedType {
            namespace: "satellite6",
            kind: Kind::Cloud,
            name: "Red Hat Satellite 6",
            description: "Access a Red Hat Satellite 6 server (inventory sources).",
            inputs: json!({
                "fields": [
                    {"id": "host", "label": "Satellite 6 URL", "type": "string",
                     "help_text": "The server's URL, e.g. https://satellite.example.org."},
                    {"id": "username", "label": "Username", "type": "string"},
                    {"id": "password", "label": "Password", "type": "string", "secret": true}
                ],
                "required": ["host", "username", "password"]
            }),
            injectors: no_injectors(),
        },
        ManagedType {
            namespace: "rhv",
            kind: Kind::Cloud,
            name: "Red Hat Virtualization",
            description: "Access a Red Hat Virtualization (oVirt) engine.",
            inputs: json!({
                "fields": [
                    {"id": "host", "label": "Host (Authentication URL)", "type": "string",
                     "help_text": "The engine's API URL, e.g. https://rhv.example.org/ovirt-engine/api."},
                    {"id": "username", "label": "Username", "type": "string"},
                    {"id": "password", "label": "Password", "type": "string", "secret": true},
                    {"id": "ca_file", "label": "CA File", "type": "string",
                     "help_text": "Path of the CA certificate file on the execution node."}
                ],
                "required": ["host", "username", "password"]
            }),
            injectors: json!({
                "file": {
                    "template": "[ovirt]\novirt_url={{ host }}\novirt_username={{ username }}\novirt_password={{ password }}\n{{#if ca_file}}ovirt_ca_file={{ ca_file }}{{/if}}"
                },
                "env": {
                    "OVIRT_INI_PATH": "{{ svc.filename }}",
                    "OVIRT_URL": "{{ host }}",
                    "OVIRT_USERNAME": "{{ username }}",
                    "OVIRT_PASSWORD": "{{ password }}"
                }
            }),
        },
        ManagedType {
            namespace: "controller",
            kind: Kind::Cloud,
            name: "Red Hat Ansible Automation Platform",
            description: "Access another automation controller from a job.",
            inputs: json!({
                "fields": [
                    {"id": "host", "label": "Red Hat Ansible Automation Platform",
                     "type": "string",
                     "help_text": "The controller's base URL or host name."},
                    {"id": "username", "label": "Username", "type": "string"},
                    {"id": "password", "label": "Password", "type": "string", "secret": true},
                    {"id": "oauth_token", "label": "OAuth Token", "type": "string",
                     "secret": true,
                     "help_text": "A token to use instead of username and password."},
                    {"id": "verify_ssl", "label": "Verify SSL", "type": "boolean",
                     "help_text": "Check the controller's TLS certificate."}
                ],
                "required": ["host"]
            }),
            injectors: json!({
                "env": {
                    "TOWER_HOST": "{{ host }}",
                    "TOWER_USERNAME": "{{ username }}",
                    "TOWER_PASSWORD": "{{ password }}",
                    "TOWER_VERIFY_SSL": "{{#if verify_ssl}}True{{else}}False{{/if}}",
                    "TOWER_OAUTH_TOKEN": "{{ oauth_token }}",
                    "CONTROLLER_HOST": "{{ host }}",
                    "CONTROLLER_USERNAME": "{{ username }}",
                    "CONTROLLER_PASSWORD": "{{ password }}",
                    "CONTROLLER_VERIFY_SSL": "{{#if verify_ssl}}True{{else}}False{{/if}}",
                    "CONTROLLER_OAUTH_TOKEN": "{{ oauth_token }}"
                }
            }),
        },
        ManagedType {
            namespace: "terraform",
            kind: Kind::Cloud,
            name: "Terraform backend configuration",
            description: "Give Terraform its backend configuration.",
            inputs: json!({
                "fields": [
                    {"id": "configuration", "label": "Backend configuration", "type": "string",
                     "secret": true, "multiline": true,
                     "help_text": "The backend configuration file's content (HCL)."},
                    {"id": "gce_credentials", "label": "Google Cloud Platform account credentials",
                     "type": "string", "secret": true, "multiline": true,
                     "help_text": "A service account key (JSON) for a Google Cloud Storage backend."}
                ],
                "required": ["configuration"]
            }),
            injectors: json!({
                "file": {
                    "template.configuration": "{{ configuration }}",
                    "template.gce_credentials": "{{ gce_credentials }}"
                },
                "env": {
                    "TF_BACKEND_CONFIG_FILE": "{{ svc.filename.configuration }}",
                    "GOOGLE_BACKEND_CREDENTIALS": "{{#if gce_credentials}}{{ svc.filename.gce_credentials }}{{/if}}"
                }
            }),
        },
        ManagedType {
            namespace: "insights",
            kind: Kind::Insights,
            name: "Insights",
            description: "Access Red Hat Insights.",
            inputs: json!({
                "fields": [
                    {"id": "username", "label": "Username", "type": "string"},
                    {"id": "password", "label": "Password", "type": "string", "secret": true}
                ],
                "required": ["username", "password"]
            }),
            injectors: json!({
                "env": {
                    "INSIGHTS_USER": "{{ username }}",
                    "INSIGHTS_PASSWORD": "{{ password }}"
                },
                "extra_vars": {
                    "scm_username": "{{ username }}",
                    "scm_password": "{{ password }}"
                }
            }),
        },
        ManagedType {
            namespace: "content_source_token",
            kind: Kind::Source,
            name: "Content Source API Token",
            description: "A server that project updates fetch collections and roles from.",
            inputs: json!({
                "fields": [
                    {"id": "url", "label": "Server URL", "type": "string", "format": "url",
                     "help_text": "The content server's API URL, e.g. https://galaxy.ansible.com/."},
                    {"id": "auth_url", "label": "Auth Server URL", "type": "string",
                     "help_text": "The token endpoint to exchange the token at, when the server needs one (e.g. Keycloak)."},
                    {"id": "token", "label": "API Token", "type": "string", "secret": true,
                     "help_text": "The token to authenticate with, if the server requires one."}
                ],
                "required": ["url"]
            }),
            injectors: no_injectors(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet, HashSet};

    use acs_injectors::{CheckNamespace, FileNames, FilePaths, RenderNamespace};
    use serde_json::Map;

    use super::*;
    use crate::values::with_declared_defaults;

    /// Every template of an injector document with its label (`env.X`, `file.template`,
    /// `extra_vars.k`).
    fn templates(injectors: &Value) -> Vec<(String, &str)> {
        let mut found = Vec::new();
        for section in ["file", "env", "extra_vars"] {
            if let Some(entries) = injectors.get(section).and_then(Value::as_object) {
                for (key, template) in entries {
                    let template = template.as_str().expect("managed templates are strings");
                    found.push((format!("{section}.{key}"), template));
                }
            }
        }
        found
    }

    fn file_names(injectors: &Value) -> FileNames {
        let Some(files) = injectors.get("file").and_then(Value::as_object) else {
            return FileNames::None;
        };
        if files.contains_key("template") {
            return FileNames::Single;
        }
        FileNames::Multi(
            files
                .keys()
                .filter_map(|key| key.strip_prefix("template."))
                .map(str::to_owned)
                .collect::<BTreeSet<_>>(),
        )
    }

    #[test]
    fn registry_has_the_required_types() {
        let namespaces: Vec<&str> = managed_types().iter().map(|t| t.namespace).collect();
        for expected in [
            "ssh",
            "scm",
            "vault",
            "net",
            "aws",
            "gce",
            "azure_rm",
            "vmware",
            "openstack",
            "satellite6",
            "rhv",
            "controller",
            "terraform",
            "insights",
            "content_source_token",
        ] {
            assert!(namespaces.contains(&expected), "{expected} missing");
        }
        let source = managed_type("content_source_token").expect("registered");
        assert_eq!(source.kind, Kind::Source);
        assert_eq!(source.name, "Content Source API Token");
        let configuration = source.input_configuration();
        assert_eq!(configuration.field_ids(), ["url", "auth_url", "token"]);
        assert_eq!(configuration.required, ["url"]);
        assert!(configuration.is_secret("token"));
        assert_eq!(
            configuration.field("url").and_then(|field| field.format),
            Some(crate::inputs::Format::Url)
        );
        assert!(managed_type("galaxy_api_token").is_none());
    }

    #[test]
    fn names_and_namespaces_are_unique() {
        let mut namespaces = HashSet::new();
        let mut names = HashSet::new();
        for managed in managed_types() {
            assert!(
                namespaces.insert(managed.namespace),
                "{}",
                managed.namespace
            );
            assert!(
                names.insert((managed.name, managed.kind)),
                "{}",
                managed.name
            );
        }
    }

    #[test]
    fn every_input_configuration_is_valid_and_normalised() {
        for managed in managed_types() {
            let (configuration, normalised) = validate_inputs_config(&managed.inputs, true)
                .unwrap_or_else(|errors| panic!("{}: {errors:?}", managed.namespace));
            assert_eq!(
                normalised, managed.inputs,
                "{} is not normalised",
                managed.namespace
            );
            assert!(configuration.managed);
            // Managed types pass the rule custom types are written under.
            assert_eq!(
                crate::inputs::check_unique_labels(&configuration),
                Ok(()),
                "{}",
                managed.namespace
            );
            for field in &configuration.fields {
                assert!(
                    !field.label.is_empty(),
                    "{}.{} has no label",
                    managed.namespace,
                    field.id
                );
            }
            for id in &configuration.required {
                assert!(
                    configuration.field(id).is_some(),
                    "{} requires unknown {id}",
                    managed.namespace
                );
            }
        }
    }

    #[test]
    fn dependencies_and_flags_follow_the_reference() {
        let net = managed_type("net")
            .expect("registered")
            .input_configuration();
        assert_eq!(
            net.dependencies,
            BTreeMap::from([(
                "authorize_password".to_owned(),
                vec!["authorize".to_owned()]
            )])
        );
        let ssh = managed_type("ssh")
            .expect("registered")
            .input_configuration();
        let asked: Vec<&str> = ssh
            .fields
            .iter()
            .filter(|field| field.ask_at_runtime)
            .map(|field| field.id.as_str())
            .collect();
        assert_eq!(asked, ["password", "ssh_key_unlock", "become_password"]);
        let vault = managed_type("vault")
            .expect("registered")
            .input_configuration();
        assert_eq!(vault.required, ["vault_password"]);
        let openstack = managed_type("openstack")
            .expect("registered")
            .input_configuration();
        assert_eq!(
            openstack
                .field("verify_ssl")
                .and_then(|field| field.default.clone()),
            Some(Value::Bool(true))
        );
    }

    #[test]
    fn every_injector_template_parses_and_references_defined_names() {
        for managed in managed_types() {
            let configuration = managed.input_configuration();
            let namespace = CheckNamespace {
                fields: configuration
                    .field_ids()
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
                files: file_names(&managed.injectors),
            };
            for (label, source) in templates(&managed.injectors) {
                let template = acs_injectors::parse(source)
                    .unwrap_or_else(|error| panic!("{} {label}: {error}", managed.namespace));
                acs_injectors::check(&template, &namespace)
                    .unwrap_or_else(|error| panic!("{} {label}: {error}", managed.namespace));
            }
        }
    }

    #[test]
    fn every_injector_configuration_is_valid_for_a_managed_type() {
        for managed in managed_types() {
            let configuration = managed.injector_configuration();
            assert_eq!(
                configuration.to_value(),
                managed.injectors,
                "{}",
                managed.namespace
            );
        }
    }

    /// Renders every template of a managed type with the given inputs.
    fn render(namespace: &str, inputs: Value, files: FilePaths) -> BTreeMap<String, String> {
        let managed = managed_type(namespace).expect("registered");
        let configuration = managed.input_configuration();
        let inputs: Map<String, Value> = match inputs {
            Value::Object(map) => map,
            _ => panic!("inputs must be an object"),
        };
        let fields = with_declared_defaults(&configuration, &inputs);
        let namespace = RenderNamespace { fields, files };
        templates(&managed.injectors)
            .into_iter()
            .map(|(label, source)| {
                let template = acs_injectors::parse(source).expect("parses");
                let text = acs_injectors::render(&template, &namespace).expect("renders");
                (label, text)
            })
            .collect()
    }

    fn yaml(text: &str) -> serde_yaml::Value {
        serde_yaml::from_str(text).unwrap_or_else(|error| panic!("{text:?}: {error}"))
    }

    #[test]
    fn openstack_file_matches_the_reference_text() {
        let rendered = render(
            "openstack",
            json!({
                "username": "bob",
                "password": "secret",
                "host": "https://keystone.example.org",
                "project": "tenant-name"
            }),
            FilePaths::Single("/runner/env/tmp1".to_owned()),
        );
        // The values are quoted (`{{json …}}`), so the file is semantically equal to the
        // reference's exact text, not byte-equal.
        assert_eq!(
            yaml(&rendered["file.template"]),
            yaml(
                "clouds:\n  devstack:\n    auth:\n      auth_url: https://keystone.example.org\n      password: secret\n      project_name: tenant-name\n      username: bob\n    verify: true\n"
            )
        );
        assert_eq!(
            rendered["file.template"],
            "clouds:\n  devstack:\n    auth:\n      auth_url: \"https://keystone.example.org\"\n      password: \"secret\"\n      project_name: \"tenant-name\"\n      username: \"bob\"\n    verify: true\n"
        );
        assert_eq!(rendered["env.OS_CLIENT_CONFIG_FILE"], "/runner/env/tmp1");
        let full = render(
            "openstack",
            json!({
                "username": "bob",
                "password": "secret",
                "host": "https://keystone.example.org",
                "project": "tenant-name",
                "project_domain_name": "pdn",
                "domain": "dn",
                "region": "r1",
                "verify_ssl": false
            }),
            FilePaths::Single("/runner/env/tmp1".to_owned()),
        );
        assert_eq!(
            yaml(&full["file.template"]),
            yaml(
                "clouds:\n  devstack:\n    auth:\n      auth_url: https://keystone.example.org\n      domain_name: dn\n      password: secret\n      project_domain_name: pdn\n      project_name: tenant-name\n      username: bob\n    region_name: r1\n    verify: false\n"
            )
        );
    }

    #[test]
    fn openstack_file_stays_valid_yaml_for_any_value() {
        let tricky = "it's: a \"pass\" # not a comment\nsecond line\t{{ x }}";
        let rendered = render(
            "openstack",
            json!({
                "username": "- bob",
                "password": tricky,
                "host": "https://keystone.example.org",
                "project": "null",
                "region": "*alias"
            }),
            FilePaths::Single("/runner/env/tmp1".to_owned()),
        );
        let auth = json!({
            "auth_url": "https://keystone.example.org",
            "password": tricky,
            "project_name": "null",
            "username": "- bob"
        });
        let expected = json!({
            "clouds": {"devstack": {"auth": auth, "region_name": "*alias", "verify": true}}
        });
        assert_eq!(
            yaml(&rendered["file.template"]),
            serde_yaml::to_value(expected).unwrap()
        );
    }

    #[test]
    fn aws_env() {
        let rendered = render(
            "aws",
            json!({"username": "AKIA", "password": "s3cret"}),
            FilePaths::None,
        );
        assert_eq!(rendered["env.AWS_ACCESS_KEY_ID"], "AKIA");
        assert_eq!(rendered["env.AWS_SECRET_ACCESS_KEY"], "s3cret");
        assert_eq!(rendered["env.AWS_SESSION_TOKEN"], "");
        let with_token = render(
            "aws",
            json!({"username": "AKIA", "password": "s3cret", "security_token": "tok"}),
            FilePaths::None,
        );
        assert_eq!(with_token["env.AWS_SECURITY_TOKEN"], "tok");
        assert_eq!(with_token["env.AWS_SESSION_TOKEN"], "tok");
    }

    #[test]
    fn rhv_file_and_env() {
        let path = FilePaths::Single("/runner/env/ini".to_owned());
        let inputs = json!({"host": "https://rhv", "username": "u", "password": "p"});
        let rendered = render("rhv", inputs, path.clone());
        assert_eq!(
            rendered["file.template"],
            "[ovirt]\novirt_url=https://rhv\novirt_username=u\novirt_password=p\n"
        );
        assert_eq!(rendered["env.OVIRT_INI_PATH"], "/runner/env/ini");
        let with_ca = render(
            "rhv",
            json!({"host": "https://rhv", "username": "u", "password": "p", "ca_file": "/ca"}),
            path,
        );
        assert_eq!(
            with_ca["file.template"],
            "[ovirt]\novirt_url=https://rhv\novirt_username=u\novirt_password=p\novirt_ca_file=/ca"
        );
    }

    #[test]
    fn controller_env_spells_booleans_like_the_reference() {
        let rendered = render(
            "controller",
            json!({"host": "https://ctl", "verify_ssl": true}),
            FilePaths::None,
        );
        assert_eq!(rendered["env.TOWER_VERIFY_SSL"], "True");
        assert_eq!(rendered["env.CONTROLLER_VERIFY_SSL"], "True");
        assert_eq!(rendered["env.CONTROLLER_HOST"], "https://ctl");
        let unverified = render("controller", json!({"host": "h"}), FilePaths::None);
        assert_eq!(unverified["env.TOWER_VERIFY_SSL"], "False");
    }

    #[test]
    fn azure_env_follows_the_authentication_mode() {
        let principal = render(
            "azure_rm",
            json!({"subscription": "sub", "client": "c", "secret": "s", "tenant": "t",
                   "username": "u", "password": "p"}),
            FilePaths::None,
        );
        assert_eq!(principal["env.AZURE_SUBSCRIPTION_ID"], "sub");
        assert_eq!(principal["env.AZURE_CLIENT_ID"], "c");
        assert_eq!(principal["env.AZURE_TENANT"], "t");
        assert_eq!(principal["env.AZURE_SECRET"], "s");
        assert_eq!(principal["env.AZURE_AD_USER"], "");
        assert_eq!(principal["env.AZURE_PASSWORD"], "");
        let user = render(
            "azure_rm",
            json!({"subscription": "sub", "client": "c", "username": "u", "password": "p"}),
            FilePaths::None,
        );
        assert_eq!(user["env.AZURE_CLIENT_ID"], "");
        assert_eq!(user["env.AZURE_AD_USER"], "u");
        assert_eq!(user["env.AZURE_PASSWORD"], "p");
    }

    #[test]
    fn gce_file_and_env() {
        let key = "-----BEGIN PRIVATE KEY-----\nMIIE\"x\\y\n-----END PRIVATE KEY-----\n";
        let rendered = render(
            "gce",
            json!({"username": "sa@example.iam", "project": "proj", "ssh_key_data": key}),
            FilePaths::Single("/runner/env/gce".to_owned()),
        );
        let file: Value = serde_json::from_str(&rendered["file.template"]).expect("json");
        assert_eq!(
            file,
            json!({
                "type": "service_account",
                "private_key": key,
                "client_email": "sa@example.iam",
                "project_id": "proj",
                "token_uri": "https://oauth2.googleapis.com/token"
            })
        );
        assert_eq!(
            rendered["env.GOOGLE_APPLICATION_CREDENTIALS"],
            "/runner/env/gce"
        );
        assert_eq!(rendered["env.GCP_PROJECT"], "proj");
        assert_eq!(rendered["env.GCP_AUTH_KIND"], "serviceaccount");
    }

    #[test]
    fn terraform_files_and_env() {
        let files = FilePaths::Multi(BTreeMap::from([
            ("configuration".to_owned(), "/runner/env/conf".to_owned()),
            ("gce_credentials".to_owned(), "/runner/env/gcp".to_owned()),
        ]));
        let rendered = render(
            "terraform",
            json!({"configuration": "bucket = \"b\""}),
            files.clone(),
        );
        assert_eq!(rendered["file.template.configuration"], "bucket = \"b\"");
        assert_eq!(rendered["env.TF_BACKEND_CONFIG_FILE"], "/runner/env/conf");
        assert_eq!(rendered["env.GOOGLE_BACKEND_CREDENTIALS"], "");
        let with_gcp = render(
            "terraform",
            json!({"configuration": "x", "gce_credentials": "{}"}),
            files,
        );
        assert_eq!(
            with_gcp["env.GOOGLE_BACKEND_CREDENTIALS"],
            "/runner/env/gcp"
        );
    }

    #[test]
    fn vmware_and_insights() {
        let vmware = render(
            "vmware",
            json!({"host": "vc", "username": "u", "password": "p"}),
            FilePaths::None,
        );
        assert_eq!(vmware["env.VMWARE_HOST"], "vc");
        assert_eq!(vmware["env.VMWARE_VALIDATE_CERTS"], "False");
        let insights = render(
            "insights",
            json!({"username": "u", "password": "p"}),
            FilePaths::None,
        );
        assert_eq!(insights["env.INSIGHTS_USER"], "u");
        assert_eq!(insights["extra_vars.scm_password"], "p");
    }

    #[test]
    fn runner_types_inject_nothing() {
        for namespace in [
            "ssh",
            "scm",
            "vault",
            "net",
            "satellite6",
            "content_source_token",
        ] {
            let managed = managed_type(namespace).expect("registered");
            assert_eq!(managed.injectors, json!({}), "{namespace}");
        }
    }
}
