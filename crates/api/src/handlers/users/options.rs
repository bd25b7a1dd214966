//! `OPTIONS /api/v2/users/` and `OPTIONS /api/v2/users/<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::context::run;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_options;
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

/// Collection metadata; `POST` appears for callers who may create users.
pub async fn options_users(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let can_create = acs_authz::can_create_user(&principal.actor, Default::default()).is_ok();
        let (body, allow) = META.collection(can_create);
        Ok((body, allow.to_owned()))
    })
    .await?;
    Ok(reply.options())
}

/// Detail metadata; answers even for an id that does not exist (awxkit probes `/users/1/`).
pub async fn options_user(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let segment = path.into_inner();
    signed_in_options(&req, &state, move |ctx, principal| {
        let caps = match super::resolve(ctx, &segment) {
            Ok(user) => {
                let memberships = acs_storage::users::memberships_of(ctx.conn()?, user.id)?;
                acs_authz::user_capabilities(
                    &principal.actor,
                    &super::target_of(&user, &memberships),
                )
            }
            Err(_) => acs_authz::Capabilities {
                edit: principal.actor.is_superuser,
                delete: principal.actor.is_superuser,
            },
        };
        Ok(META.detail(caps.edit))
    })
    .await
}

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
