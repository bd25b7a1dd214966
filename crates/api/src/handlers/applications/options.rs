//! What `OPTIONS /api/v2/applications/` and `<id>/` say about the fields.

use crate::http::options::{FieldMeta, ResourceMeta};

/// What the application resource says about its fields.
pub const META: ResourceMeta = ResourceMeta {
    name: "OAuth 2 Application List",
    description: "API clients: password-grant and authorization-code applications.",
    fields: &[
        FieldMeta::name("Unique within the organization.", 255),
        FieldMeta::DESCRIPTION,
        FieldMeta::read_only("client_id", "string", "Client ID").unfilterable(),
        FieldMeta::read_only("client_secret", "string", "Client secret").unfilterable(),
        FieldMeta::writable(
            "client_type",
            "choice",
            "Client type",
            "confidential or public.",
        )
        .required(),
        FieldMeta::writable(
            "redirect_uris",
            "string",
            "Redirect URIs",
            "Space-separated http(s) URIs; required for authorization-code.",
        ),
        FieldMeta::writable(
            "authorization_grant_type",
            "choice",
            "Authorization grant type",
            "password or authorization-code; fixed after creation.",
        )
        .required(),
        FieldMeta::writable(
            "skip_authorization",
            "boolean",
            "Skip authorization",
            "Skip the consent page.",
        ),
        FieldMeta::writable(
            "organization",
            "id",
            "Organization",
            "Fixed after creation.",
        )
        .required(),
        FieldMeta::writable(
            "user",
            "id",
            "User",
            "Optional owner; fixed after creation.",
        ),
    ],
};
