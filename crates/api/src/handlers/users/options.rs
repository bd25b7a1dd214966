//! What `OPTIONS` of the users, their sub-lists and `/api/v2/me/` say about the fields;
//! `OPTIONS /api/v2/me/`.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiResult;
use crate::http::options::{FieldMeta, ResourceMeta, answer_read_only};
use crate::state::AppState;

/// What the user resource says about its fields.
pub const META: ResourceMeta = ResourceMeta {
    name: "User List",
    description: "Users of ACS.",
    fields: &[
        FieldMeta::writable(
            "username",
            "string",
            "Username",
            "Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.",
        )
        .required()
        .max_length(150),
        FieldMeta::writable("first_name", "string", "First name", "").max_length(150),
        FieldMeta::writable("last_name", "string", "Last name", "").max_length(150),
        FieldMeta::writable("email", "string", "Email address", "").max_length(254),
        FieldMeta::writable(
            "is_superuser",
            "boolean",
            "Superuser status",
            "May do everything.",
        ),
        FieldMeta::writable(
            "is_system_auditor",
            "boolean",
            "System auditor",
            "May read everything.",
        ),
        FieldMeta::writable(
            "password",
            "string",
            "Password",
            "Write-only; shown as $encrypted$.",
        )
        .required()
        .unfilterable(),
        FieldMeta::read_only("last_login", "datetime", "Last login"),
        FieldMeta::read_only("external_account", "string", "External account"),
    ],
};

/// Metadata of user sub-lists (organization members and admins): the user fields, with
/// associate by `id` as the write action.
pub const META_FOR_SUBLIST: ResourceMeta = ResourceMeta {
    name: "Organization Users",
    description: "Users with a role in the organization. POST {\"id\": n} associates, {\"id\": n, \"disassociate\": true} removes.",
    fields: &[
        FieldMeta::writable(
            "id",
            "integer",
            "ID",
            "The user to associate or disassociate.",
        )
        .required(),
        FieldMeta::writable(
            "disassociate",
            "boolean",
            "Disassociate",
            "Remove the role instead of granting it.",
        )
        .unfilterable(),
    ],
};

/// `OPTIONS /api/v2/me/`: the user fields, read only (a user changes their account at
/// `/api/v2/users/<id>/`).
pub async fn options_me(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &META, "GET, HEAD, OPTIONS").await
}
