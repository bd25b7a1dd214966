//! `/api/v2/organizations/<id>/source_credentials/` (also served as `galaxy_credentials/`,
//! the reference's name): the organization's content sources in precedence order. `POST {"id": n}` appends, `{"id": n, "position": k}` moves (or inserts)
//! to the 0-based position `k`, `{"id": n, "disassociate": true}` removes. Each answers 204.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::visible;
use crate::error::{ApiError, ApiResult};
use crate::handlers::credentials::{render_page, viewable_page};
use crate::handlers::frame::{signed_in_list_taking_post, signed_in_no_content};
use crate::http::body::JsonObject;
use crate::http::fields::FieldReader;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

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

/// What a POST asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Append,
    MoveTo(usize),
    Remove,
}

fn read_change(body: &serde_json::Map<String, Value>) -> ApiResult<(i64, Change)> {
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
        (true, _) => Change::Remove,
        (false, Some(position)) => Change::MoveTo(position),
        (false, None) => Change::Append,
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
        acs_authz::can_change_organization(&principal.actor, org_id)?;
        let (credential_id, change) = read_change(&body.0)?;
        let credential = match acs_storage::credentials::find(ctx.conn()?, credential_id) {
            Ok(credential) => credential,
            Err(acs_storage::StorageError::NotFound) => {
                return Err(ApiError::field(
                    "id",
                    format!("Invalid pk \"{credential_id}\" - object does not exist."),
                ));
            }
            Err(other) => return Err(other.into()),
        };
        if change != Change::Remove {
            // Using a credential (its token goes to every project update of this
            // organization) needs the right to use it, not only to see it: a system auditor
            // sees every organization's tokens.
            let target = acs_app::credentials::target_of(ctx.conn()?, &credential)?;
            if !acs_authz::can_view_credential(&principal.actor, &target) {
                return Err(ApiError::permission_denied());
            }
            acs_authz::can_use_credential(&principal.actor, &target)?;
            let credential_type =
                acs_storage::credential_types::find(ctx.conn()?, credential.credential_type_id)?;
            if credential_type.kind != "source" {
                return Err(ApiError::field(
                    "id",
                    format!(
                        "Credential must be a content source credential, not {}.",
                        credential_type.name
                    ),
                ));
            }
        }
        let now = ctx.now;
        ctx.write(|conn| {
            acs_storage::source_credentials::lock(conn, org_id)?;
            let current = acs_storage::source_credentials::ordered_ids(conn, org_id)?;
            let Some(order) = reordered(&current, credential_id, change)? else {
                return Ok(());
            };
            acs_storage::source_credentials::replace(conn, org_id, &order)?;
            let (operation, changes) = match change {
                Change::Remove => ("disassociate", json!({ "source_credentials": order })),
                _ => ("associate", json!({ "source_credentials": order })),
            };
            activity::record(
                conn,
                now,
                Some(&principal.user),
                operation,
                &Subject::named(
                    acs_storage::activity::CREDENTIAL,
                    credential.id,
                    &credential.name,
                ),
                Some(&Subject::named(
                    acs_storage::activity::ORGANIZATION,
                    org_id,
                    &org.name,
                )),
                changes,
            )
            .map_err(Into::into)
        })
    })
    .await
}

/// The new order after `change`, or `None` when nothing changes (appending a listed
/// credential or removing an unlisted one, as the reference does).
fn reordered(current: &[i64], id: i64, change: Change) -> ApiResult<Option<Vec<i64>>> {
    let listed = current.contains(&id);
    let mut order: Vec<i64> = current.iter().copied().filter(|c| *c != id).collect();
    match change {
        Change::Append if listed => Ok(None),
        Change::Append => {
            order.push(id);
            Ok(Some(order))
        }
        Change::Remove if !listed => Ok(None),
        Change::Remove => Ok(Some(order)),
        Change::MoveTo(position) => {
            if position > order.len() {
                return Err(ApiError::field(
                    "position",
                    format!(
                        "Ensure this value is less than or equal to {}.",
                        order.len()
                    ),
                ));
            }
            order.insert(position, id);
            Ok((order != current).then_some(order))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reorder_rules() {
        let current = [1, 2, 3];
        assert_eq!(
            reordered(&current, 4, Change::Append).ok(),
            Some(Some(vec![1, 2, 3, 4]))
        );
        assert_eq!(reordered(&current, 2, Change::Append).ok(), Some(None));
        assert_eq!(
            reordered(&current, 2, Change::Remove).ok(),
            Some(Some(vec![1, 3]))
        );
        assert_eq!(reordered(&current, 9, Change::Remove).ok(), Some(None));
        assert_eq!(
            reordered(&current, 3, Change::MoveTo(0)).ok(),
            Some(Some(vec![3, 1, 2]))
        );
        assert_eq!(
            reordered(&current, 1, Change::MoveTo(2)).ok(),
            Some(Some(vec![2, 3, 1]))
        );
        assert_eq!(reordered(&current, 1, Change::MoveTo(0)).ok(), Some(None));
        assert_eq!(
            reordered(&current, 4, Change::MoveTo(1)).ok(),
            Some(Some(vec![1, 4, 2, 3]))
        );
        assert!(reordered(&current, 1, Change::MoveTo(3)).is_err());
        assert!(reordered(&current, 4, Change::MoveTo(4)).is_err());
    }

    #[test]
    fn reads_the_three_forms() {
        let read = |v: Value| read_change(v.as_object().expect("object")).ok();
        assert_eq!(read(json!({"id": 3})), Some((3, Change::Append)));
        assert_eq!(
            read(json!({"id": 3, "position": 0})),
            Some((3, Change::MoveTo(0)))
        );
        assert_eq!(
            read(json!({"id": 3, "disassociate": true})),
            Some((3, Change::Remove))
        );
        assert_eq!(read(json!({"id": 0})), None);
        assert_eq!(read(json!({"id": "x"})), None);
        assert_eq!(read(json!({"id": 3, "position": -1})), None);
        assert_eq!(read(json!({})), None);
    }
}
