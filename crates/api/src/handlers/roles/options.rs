//! `OPTIONS` on the role endpoints: a role's fields, and on the association sub-lists the
//! body of a grant (`id`, `disassociate`).

use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiResult;
use crate::http::options::{FieldMeta, ResourceMeta, answer_read_only};
use crate::state::AppState;

/// A role record's metadata.
pub const META: ResourceMeta = ResourceMeta {
    name: "Role List",
    description: "The roles of an object: who holds one may do what it names.",
    fields: &[
        FieldMeta::read_only("name", "string", "Name"),
        FieldMeta::read_only("description", "string", "Description"),
    ],
};

/// The body of a grant to a user (`/users/<id>/roles/`), as the reference describes it.
pub const GRANT_FIELDS: &[FieldMeta] = &[
    FieldMeta::writable("id", "integer", "ID", "Database ID for this role.").required(),
    FieldMeta::writable(
        "disassociate",
        "integer",
        "Disassociate",
        "Provide to remove this role.",
    ),
];

/// The body of a grant of a role (`/roles/<id>/users/`). `disassociate` is an integer, as in
/// the reference: its presence revokes, so a form leaves it out unless it is filled in.
pub const GRANT_TO_USER_FIELDS: &[FieldMeta] = &[
    FieldMeta::writable("id", "integer", "ID", "Database ID for this user.").required(),
    FieldMeta::writable(
        "disassociate",
        "integer",
        "Disassociate",
        "Provide to remove this user from the role.",
    ),
];

/// The body of a grant of a role to a team (`/roles/<id>/teams/`): there `disassociate`
/// revokes only when true, as in the reference.
pub const GRANT_TO_TEAM_FIELDS: &[FieldMeta] = &[
    FieldMeta::writable("id", "integer", "ID", "Database ID for this team.").required(),
    FieldMeta::writable(
        "disassociate",
        "boolean",
        "Disassociate",
        "True to remove this team from the role.",
    ),
];

/// A role's, or a list of roles', metadata: read only.
pub async fn options_role(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &META, "GET, HEAD, OPTIONS").await
}

/// The metadata of a list one grants roles through (`/roles/<id>/users/`,
/// `/users/<id>/roles/`, a team's): to a caller who may write, the `POST` of the grant's
/// body too, which awxkit's `import` reads to know what to send (without it, it warns and
/// guesses). An access list is only read.
pub async fn options_grants(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let path = req.path().to_owned();
    let grant = if path.ends_with("/access_list/") {
        None
    } else if path.ends_with("/roles/") {
        Some(GRANT_FIELDS)
    } else if path.starts_with("/api/v2/roles/") && path.ends_with("/teams/") {
        Some(GRANT_TO_TEAM_FIELDS)
    } else {
        Some(GRANT_TO_USER_FIELDS)
    };
    let reply = crate::context::run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let post = grant.filter(|_| !principal.actor.read_only);
        Ok(META.association(post))
    })
    .await?;
    Ok(reply.options())
}
