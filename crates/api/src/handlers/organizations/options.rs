//! What `OPTIONS /api/v2/organizations/` and `<id>/` say about the fields.

use crate::http::options::{FieldMeta, ResourceMeta};

/// What the organization resource says about its fields.
pub const META: ResourceMeta = ResourceMeta {
    name: "Organization List",
    description: "Organizations group users; their admins manage them.",
    fields: &[FieldMeta::name("Unique name.", 512), FieldMeta::DESCRIPTION],
};
