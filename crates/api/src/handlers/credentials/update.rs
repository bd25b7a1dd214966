//! `PUT` and `PATCH /api/v2/credentials/<id>/`. `inputs`, when sent, replaces the stored
//! inputs wholesale: `$encrypted$` keeps a stored secret, an empty secret removes it.

use acs_storage::credentials::CredentialValues;
use acs_storage::stamps::Modification;
use serde_json::Value;

use super::Credentials;
use super::input::{self, Owner};
use super::render::render_one;
use super::{name_conflict, secrets, validate, visible};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::change::{Change, Edit};
use acs_app::activity::{self, Subject};

/// Why a stored secret is not carried into a type where its field is not secret.
const GIVE_AGAIN: &str = "This field is secret under the credential's current type and not under the new one: give its value again in inputs.";

/// Refuses a type change that would carry a stored secret into a field the new type does not
/// keep secret: carried over, the value would be stored, answered and recorded in clear. Such
/// a field must be given anew in `inputs` (not absent, not `$encrypted$`). Answers 400 naming
/// every such field under `inputs`; nothing of the values is said.
fn refuse_declassified(
    old: &acs_credential_types::InputConfiguration,
    new: &acs_credential_types::InputConfiguration,
    previous: &serde_json::Map<String, Value>,
    submitted: Option<&Value>,
) -> ApiResult<()> {
    let errors: serde_json::Map<String, Value> = previous
        .keys()
        .filter(|field| old.is_secret(field) && new.field(field).is_some() && !new.is_secret(field))
        .filter(|field| {
            let given = submitted.and_then(|inputs| inputs.get(field.as_str()));
            given.is_none_or(|value| value == acs_credential_types::ENCRYPTED_PLACEHOLDER)
        })
        .map(|field| (field.clone(), serde_json::json!([GIVE_AGAIN])))
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    Err(ApiError::Invalid(serde_json::Map::from_iter([(
        "inputs".to_owned(),
        Value::Object(errors),
    )])))
}

const TYPE_IN_USE: &str = "You cannot change the credential type of the credential, as it may break the functionality of the resources using it.";

impl Change for Credentials {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, i64>) -> ApiResult<super::CredentialRecord> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let (stored, target) = visible(ctx, principal, id)?;
        acs_authz::can_change_credential(&principal.actor, &target)?;
        let owner = Owner {
            organization: stored.organization_id,
            user: stored.user_id,
        };
        let input = input::read(body, full, Some(owner))?;
        let type_id = input.credential_type.unwrap_or(stored.credential_type_id);
        let type_changes = type_id != stored.credential_type_id;
        if type_changes {
            validate::type_exists(ctx.conn()?, type_id)?;
            if acs_storage::credentials::in_use(ctx.conn()?, id)? {
                return Err(ApiError::field("credential_type", TYPE_IN_USE));
            }
        }
        let old_type = acs_storage::credential_types::find(ctx.conn()?, stored.credential_type_id)?;
        let old_config = crate::handlers::credential_types::input_configuration(&old_type)?;
        let before = render_one(ctx.conn()?, principal, &stored, &old_type)?;
        let now = ctx.now;
        let state = ctx.state;
        ctx.write(|conn| {
            let opened = secrets::open(&state.keys.cipher(), &old_config, &stored.inputs)?;
            refuse_unreadable(&opened.unreadable, input.inputs.as_ref(), type_changes)?;
            let previous = opened.values;
            if type_changes {
                let new_type = acs_storage::credential_types::lock(conn, type_id)?;
                let new_config = crate::handlers::credential_types::input_configuration(&new_type)?;
                refuse_declassified(&old_config, &new_config, &previous, input.inputs.as_ref())?;
            }
            // New inputs replace the old; a new type re-checks the old ones against it.
            let submitted = match &input.inputs {
                Some(inputs) => Some(inputs.clone()),
                None if type_changes => Some(Value::Object(previous.clone())),
                None => None,
            };
            let (credential_type, inputs, key) = match &submitted {
                Some(submitted) => {
                    let (credential_type, inputs, key) =
                        validate::stored_inputs(conn, state, type_id, submitted, Some(&previous))?;
                    (credential_type, Some(inputs), key)
                }
                None => (
                    acs_storage::credential_types::lock(conn, type_id)?,
                    None,
                    None,
                ),
            };
            validate::owner_allowed(&credential_type, stored.organization_id)?;
            let values = CredentialValues {
                name: input.name.clone(),
                description: input.description.clone(),
                credential_type_id: type_changes.then_some(type_id),
                inputs,
                ..CredentialValues::default()
            };
            let stamps = Modification::by(Some(principal.user.id), now);
            let updated = acs_storage::credentials::update(conn, id, &values, stamps)
                .map_err(name_conflict)?;
            acs_app::credential_inputs::confirm_key(conn, key)?;
            let after = render_one(conn, principal, &updated, &credential_type)?;
            let subject = Subject::named(acs_storage::activity::CREDENTIAL, id, &updated.name);
            activity::record_update(conn, now, &principal.user, &subject, &before, &after)?;
            Ok(after)
        })
    }
}

/// A stored secret the server cannot open may be replaced, never kept: neither by
/// `$encrypted$` nor by a change of type that carries the stored inputs over.
fn refuse_unreadable(
    unreadable: &[String],
    submitted: Option<&Value>,
    type_changes: bool,
) -> ApiResult<()> {
    let kept = unreadable.iter().find(|field| match submitted {
        Some(inputs) => {
            inputs.get(field.as_str()).and_then(Value::as_str)
                == Some(acs_credential_types::ENCRYPTED_PLACEHOLDER)
        }
        None => type_changes,
    });
    match kept {
        Some(field) => Err(ApiError::Invalid(serde_json::Map::from_iter([(
            "inputs".to_owned(),
            serde_json::json!({ field.as_str(): [secrets::UNREADABLE] }),
        )]))),
        None => Ok(()),
    }
}
