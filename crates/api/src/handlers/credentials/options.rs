//! What `OPTIONS /api/v2/credentials/` and `<id>/` say about the fields.

use crate::http::options::{FieldMeta, ResourceMeta};

/// What the credential resource says about its fields. `inputs` is typed `json` (awxkit
/// parses it before sending) and cannot be filtered: it holds secrets.
pub const META: ResourceMeta = ResourceMeta {
    name: "Credential List",
    description: "Secrets and settings of a credential type, owned by an organization or a user.",
    fields: &[
        FieldMeta::name("", 512),
        FieldMeta::DESCRIPTION,
        FieldMeta::writable(
            "organization",
            "id",
            "Organization",
            "Owning organization; give this or user.",
        ),
        FieldMeta::writable(
            "user",
            "id",
            "User",
            "Owning user; give this or organization.",
        ),
        FieldMeta::writable(
            "credential_type",
            "id",
            "Credential Type",
            "The type defines the inputs; it cannot change while the credential is in use.",
        )
        .required(),
        FieldMeta::writable(
            "inputs",
            "json",
            "Inputs",
            "Values for the type's fields; secrets read back as $encrypted$.",
        )
        .unfilterable(),
        FieldMeta::read_only("managed", "boolean", "Managed"),
        FieldMeta::read_only("kind", "string", "Kind"),
        FieldMeta::read_only("cloud", "boolean", "Cloud"),
        FieldMeta::read_only("kubernetes", "boolean", "Kubernetes"),
    ],
};
