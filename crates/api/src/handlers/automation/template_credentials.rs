//! `/api/v2/job_templates/<id>/credentials/`: the credentials a job template injects into its
//! jobs. `POST {"id": n}` attaches, `{"id": n, "disassociate": true}` detaches; both answer
//! 204. The reference's rules on which credentials go together answer 400 `{"error": …}`.

use acs_credential_types::{AttachedCredential, check_attach};
use acs_storage::DbConnection;
use acs_storage::credentials::Credential;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::job_templates::JobTemplates;
use super::references;
use super::resource::{Resource, visible};
use crate::error::{ApiError, ApiResult};
use crate::handlers::credentials::{render_page, viewable_page};
use crate::handlers::frame::{signed_in_list_taking_post, signed_in_no_content};
use crate::http::body::JsonObject;
use crate::http::fields::FieldReader;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// The template's credentials, by id.
pub async fn list_template_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_list_taking_post(&req, &state, move |ctx, principal, list, page_wanted| {
        let (_, governed) = visible::<JobTemplates>(ctx, principal, id)?;
        let conn = ctx.conn()?;
        let credentials = acs_storage::job_templates::credentials_of(conn, id)?;
        let (count, page) = viewable_page(
            conn,
            &principal.actor,
            credentials,
            list.params.offset,
            list.params.limit,
        )?;
        let results = render_page(conn, principal, &page)?;
        let may_change =
            page_wanted && acs_authz::can_change_object(&principal.actor, &governed).is_ok();
        Ok((may_change, list.envelope(count, results)?))
    })
    .await
}

/// `OPTIONS`: the credentials' fields, and the association's `POST` to whoever may write
/// (awxkit's `export` follows the lists whose `POST` takes an `id`).
pub async fn options_template_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = crate::context::run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let post = (!principal.actor.read_only).then_some(crate::http::options::ASSOCIATION);
        Ok(crate::handlers::credentials::META.association(post))
    })
    .await?;
    Ok(reply.options())
}

/// Attaches or detaches a credential.
pub async fn change_template_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let template_id = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        let (template, governed) = visible::<JobTemplates>(ctx, principal, template_id)?;
        acs_authz::can_change_object(&principal.actor, &governed)?;
        let mut fields = FieldReader::new(&body.0, true);
        let credential_id = fields.id("id", true);
        let disassociate = fields.boolean("disassociate").unwrap_or(false);
        fields.finish()?;
        let credential_id =
            credential_id.ok_or_else(|| ApiError::field("id", "This field is required."))?;
        let now = ctx.now;
        ctx.write(|conn| {
            // Serialises concurrent attachments to one template, so the rules see them all.
            acs_storage::job_templates::lock(conn, template_id)?;
            let (credential, _) =
                references::credential(conn, &principal.actor, "id", credential_id)?;
            let operation = if disassociate {
                if !acs_storage::job_templates::detach(conn, template_id, credential_id)? {
                    return Ok(());
                }
                "disassociate"
            } else {
                let attached = acs_storage::job_templates::credentials_of(conn, template_id)?
                    .iter()
                    .map(|c| attachment(conn, c))
                    .collect::<ApiResult<Vec<_>>>()?;
                let candidate = attachment(conn, &credential)?;
                check_attach(&attached, &candidate).map_err(|error| {
                    let mut body = serde_json::Map::new();
                    body.insert("error".into(), json!(error.to_string()));
                    ApiError::Invalid(body)
                })?;
                acs_storage::job_templates::attach(conn, template_id, credential_id)?;
                "associate"
            };
            activity::record(
                conn,
                now,
                Some(&principal.user),
                operation,
                &Subject::named(
                    <JobTemplates as Resource>::KIND,
                    template_id,
                    &template.name,
                ),
                Some(&Subject::named(
                    acs_storage::activity::CREDENTIAL,
                    credential.id,
                    &credential.name,
                )),
                Value::Null,
            )
            .map_err(Into::into)
        })
    })
    .await
}

/// What the attachment rules need to know about `credential`.
fn attachment(conn: &mut DbConnection, credential: &Credential) -> ApiResult<AttachedCredential> {
    let credential_type = acs_storage::credential_types::find(conn, credential.credential_type_id)?;
    // `vault_id` is not secret, so the stored inputs hold it in clear.
    let inputs = acs_app::credential_inputs::stored_object(&credential.inputs)?;
    Ok(AttachedCredential {
        id: credential.id,
        type_id: credential_type.id,
        type_name: credential_type.name,
        kind: credential_type.kind,
        vault_id: inputs
            .get("vault_id")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}
