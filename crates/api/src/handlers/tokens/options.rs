//! What `OPTIONS` of `/api/v2/tokens/`, the token sub-lists and `/api/v2/tokens/<id>/` says
//! about the fields.

use crate::http::options::{FieldMeta, ResourceMeta};

/// What the token resource says about its fields.
pub const META: ResourceMeta = ResourceMeta {
    name: "OAuth 2 Token List",
    description: "Access tokens: personal (no application) and application tokens.",
    fields: &[
        FieldMeta::DESCRIPTION,
        FieldMeta::read_only("user", "id", "User"),
        FieldMeta::read_only("token", "string", "Token").unfilterable(),
        FieldMeta::read_only("refresh_token", "string", "Refresh token").unfilterable(),
        FieldMeta::writable(
            "application",
            "id",
            "Application",
            "Empty for a personal access token; fixed after creation.",
        ),
        FieldMeta::read_only("expires", "datetime", "Expires"),
        FieldMeta::writable(
            "scope",
            "string",
            "Scope",
            "Space-separated: read, write (write implies read). Default: write.",
        ),
    ],
};
