//! `/api/v2/organizations/<id>/source_credentials/` (also served as `galaxy_credentials/`,
//! the reference's name): the organization's content sources in precedence order. `POST {"id": n}` appends, `{"id": n, "position": k}` moves (or inserts)
//! to the 0-based position `k`, `{"id": n, "disassociate": true}` removes. Each answers 204.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::Value;

use super::visible;
use crate::error::{ApiError, ApiResult};
use crate::handlers::credentials::{render_page, viewable_page};
use crate::handlers::frame::{signed_in_list_taking_post, signed_in_no_content};
use crate::http::body::JsonObject;
use crate::http::fields::FieldReader;
use crate::state::AppState;
use acs_app::source_credentials::SourceChange;

/// The organization's content sources, in order: those of them the caller may view (the
/// reference filters them by read access too), secrets masked as everywhere.
pub async fn list_source_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_list_taking_post(&req, &state, move |ctx, principal, list, page_wanted| {
        visible(ctx, principal, id)?;
        let conn = ctx.conn()?;
        // A handful of sources: all of them, then the page of those the caller may view.
        let (_, all) = acs_storage::source_credentials::page(conn, id, 0, i64::MAX)?;
        let (count, items) = viewable_page(
            conn,
            &principal.actor,
            all,
            list.params.offset,
            list.params.limit,
        )?;
        let results = render_page(conn, principal, &items)?;
        let may_change =
            page_wanted && acs_authz::can_change_organization(&principal.actor, id).is_ok();
        Ok((may_change, list.envelope(count, results)?))
    })
    .await
}

fn read_change(body: &serde_json::Map<String, Value>) -> ApiResult<(i64, SourceChange)> {
    let mut fields = FieldReader::new(body, true);
    let id = match body.get("id") {
        None | Some(Value::Null) => {
            fields.error("id", "Credential 'id' field is missing.");
            None
        }
        Some(_) => fields.id("id", true),
    };
    let disassociate = fields.boolean("disassociate").unwrap_or(false);
    let position = match body.get("position") {
        None | Some(Value::Null) => None,
        Some(value) => match value.as_u64().and_then(|p| usize::try_from(p).ok()) {
            Some(position) => Some(position),
            None => {
                fields.error("position", "A valid non-negative integer is required.");
                None
            }
        },
    };
    if disassociate && position.is_some() {
        fields.error("position", "A removed credential has no position.");
    }
    fields.finish()?;
    let id = id.ok_or_else(|| ApiError::field("id", "Credential 'id' field is missing."))?;
    let change = match (disassociate, position) {
        (true, _) => SourceChange::Remove,
        (false, Some(position)) => SourceChange::MoveTo(position),
        (false, None) => SourceChange::Append,
    };
    Ok((id, change))
}

/// Appends, moves or removes a content source.
pub async fn change_source_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let org_id = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        let org = visible(ctx, principal, org_id)?;
        // Refused before the body is read, as in the reference.
        acs_authz::can_change_organization(&principal.actor, org_id)?;
        let change = read_change(&body.0)?;
        let writer = ctx.writer(principal);
        Ok(acs_app::source_credentials::change(
            &writer,
            ctx.conn()?,
            &org,
            change,
        )?)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_three_forms() {
        let read = |v: Value| read_change(v.as_object().expect("object")).ok();
        assert_eq!(read(json!({"id": 3})), Some((3, SourceChange::Append)));
        assert_eq!(
            read(json!({"id": 3, "position": 0})),
            Some((3, SourceChange::MoveTo(0)))
        );
        assert_eq!(
            read(json!({"id": 3, "disassociate": true})),
            Some((3, SourceChange::Remove))
        );
        assert_eq!(read(json!({"id": 0})), None);
        assert_eq!(read(json!({"id": "x"})), None);
        assert_eq!(read(json!({"id": 3, "position": -1})), None);
        assert_eq!(read(json!({})), None);
    }
}
