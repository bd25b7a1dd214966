//! What `OPTIONS /api/v2/credential_types/` and `<id>/` say about the fields.

use crate::http::options::{FieldMeta, ResourceMeta};

/// Every kind, as reads show them.
const KINDS: &[(&str, &str)] = &[
    ("ssh", "Machine"),
    ("vault", "Vault"),
    ("net", "Network"),
    ("scm", "Source Control"),
    ("cloud", "Cloud"),
    ("insights", "Insights"),
    ("source", "Content Source"),
];

/// The kinds a custom type may have.
const CUSTOM_KINDS: &[(&str, &str)] = &[("net", "Network"), ("cloud", "Cloud")];

/// What the credential type resource says about its fields. `inputs` and `injectors` are
/// typed `json` so that awxkit parses them from JSON or YAML before sending.
pub const META: ResourceMeta = ResourceMeta {
    name: "Credential Type List",
    description: "Kinds of credentials: the inputs they hold and how those reach a job.",
    fields: &[
        FieldMeta::name("Unique together with the kind.", 512),
        FieldMeta::DESCRIPTION,
        FieldMeta::writable("kind", "choice", "Kind", "cloud or net for custom types.")
            .required()
            .choices(KINDS)
            .write_choices(CUSTOM_KINDS),
        FieldMeta::read_only("namespace", "string", "Namespace"),
        FieldMeta::read_only("managed", "boolean", "Managed"),
        FieldMeta::writable(
            "inputs",
            "json",
            "Inputs",
            "Input configuration: fields and required ids, as JSON or YAML.",
        )
        .unfilterable(),
        FieldMeta::writable(
            "injectors",
            "json",
            "Injectors",
            "Injector configuration: env, extra_vars and file templates, as JSON or YAML.",
        )
        .unfilterable(),
    ],
};
