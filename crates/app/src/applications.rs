//! OAuth 2 applications as users register them: created with a fresh client id and secret
//! (only the secret's digest is stored), changed within what creation fixed, deleted with
//! every token issued to them. Each write is one transaction with its activity-stream entry,
//! which keeps the record as the caller renders it (`render`, its secret never shown).

use acs_authz::{Actor, Denied, TargetApplication};
use acs_oauth2::{ClientType, GrantType, PlainSecret};
use acs_storage::applications::{Application, ApplicationValues};
use acs_storage::tokens::TokenHolder;
use acs_storage::{DbConnection, StorageError};
use ring::rand::SecureRandom;
use serde::Serialize;

use crate::activity::Subject;
use crate::error::referenced;
use crate::{AppError, AppResult, CallerError, Writer, token_holders};

/// The message for a name taken within the organization.
pub const NAME_TAKEN: &str = "Application with this Name and Organization already exists.";

/// Application fields as a request gave them, read and checked for form; `None` means "not
/// given". The grant type, organization and owner are set on creation only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplicationInput {
    /// Name.
    pub name: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Confidential or public.
    pub client_type: Option<ClientType>,
    /// Space-separated redirect URIs.
    pub redirect_uris: Option<String>,
    /// The grant the application uses (creation only).
    pub grant_type: Option<GrantType>,
    /// Whether the consent page is skipped.
    pub skip_authorization: Option<bool>,
    /// The organization (creation only).
    pub organization: Option<i64>,
    /// The owning user (creation only).
    pub user: Option<i64>,
}

/// The facts `acs_authz` needs about an application.
pub fn target_of(app: &Application) -> TargetApplication {
    TargetApplication {
        id: app.id,
        organization: app.organization_id,
        user: app.user_id,
    }
}

/// The application `id`, if `actor` may see it: [`AppError::NoSuch`] if it does not exist,
/// [`AppError::Forbidden`] if it is not theirs to see.
pub fn visible(conn: &mut DbConnection, actor: &Actor, id: i64) -> AppResult<Application> {
    let app = acs_storage::applications::find(conn, id).map_err(|error| match error {
        StorageError::NotFound => AppError::NoSuch("OAuth2Application"),
        other => other.into(),
    })?;
    if !acs_authz::can_view_application(actor, &target_of(&app)) {
        return Err(Denied::NotPermitted.into());
    }
    Ok(app)
}

/// Registers the application `input` describes (its name, organization, grant and client
/// types given), if the writer may create one in that organization for that owner: a new
/// client id and secret, the secret stored as its digest. Recorded as a creation with the
/// record `render` shows; returns the application and its secret, to be shown once.
pub fn create<R, E>(
    writer: &Writer<'_>,
    rng: &dyn SecureRandom,
    conn: &mut DbConnection,
    input: &ApplicationInput,
    render: impl Fn(&mut DbConnection, &Application) -> Result<R, E>,
) -> Result<(Application, PlainSecret), E>
where
    R: Serialize,
    E: CallerError,
{
    let (Some(organization), Some(grant_type), Some(client_type)) =
        (input.organization, input.grant_type, input.client_type)
    else {
        let missing = "a new application without its organization, grant or client type";
        return Err(AppError::Damaged(missing.into()).into());
    };
    let owner = references(conn, organization, input.user)?;
    acs_authz::can_create_application(writer.actor, organization, owner.as_ref())
        .map_err(AppError::from)?;
    let client_id = acs_oauth2::generate_client_id(rng).map_err(|_| AppError::Random)?;
    let secret = acs_oauth2::generate_client_secret(rng).map_err(|_| AppError::Random)?;
    let values = ApplicationValues {
        name: Some(input.name.clone().unwrap_or_default()),
        description: Some(input.description.clone().unwrap_or_default()),
        client_id: Some(client_id),
        client_secret_digest: Some(secret.digest().as_bytes().to_vec()),
        client_type: Some(client_type.as_str().to_owned()),
        redirect_uris: Some(input.redirect_uris.clone().unwrap_or_default()),
        authorization_grant_type: Some(grant_type.as_str().to_owned()),
        skip_authorization: Some(input.skip_authorization.unwrap_or(false)),
        organization_id: Some(organization),
        user_id: Some(input.user),
    };
    let app = writer.pool.transaction(conn, |conn| {
        let app =
            acs_storage::applications::insert(conn, &values, writer.now).map_err(name_conflict)?;
        let shown = render(conn, &app)?;
        writer.record_creation(conn, &subject(&app), &shown)?;
        Ok::<_, E>(app)
    })?;
    tracing::info!(
        actor = writer.user.id,
        application = app.id,
        "application created"
    );
    Ok((app, secret))
}

/// Refuses a new application whose organization or owner does not exist, naming the field;
/// the owner as the rules see them.
fn references(
    conn: &mut DbConnection,
    organization: i64,
    user: Option<i64>,
) -> AppResult<Option<acs_authz::TargetUser>> {
    referenced(
        acs_storage::organizations::find(conn, organization),
        "organization",
        organization,
    )?;
    let Some(id) = user else {
        return Ok(None);
    };
    let user = referenced(acs_storage::users::find(conn, id), "user", id)?;
    let memberships = acs_storage::users::memberships_of(conn, id)?;
    Ok(Some(crate::users::target_of(&user, &memberships)))
}

/// Changes `before` as `input` says, if the writer may: only an organization's admins set
/// `skip_authorization`, and while it is set only they re-point where its codes go or whether
/// it needs its secret. Recorded as an update from the record `render` showed before to the
/// one it shows after, which is returned.
pub fn change<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    before: &Application,
    input: &ApplicationInput,
    render: impl Fn(&mut DbConnection, &Application) -> Result<R, E>,
) -> Result<R, E>
where
    R: Serialize,
    E: CallerError,
{
    let target = target_of(before);
    acs_authz::can_change_application(writer.actor, &target).map_err(AppError::from)?;
    if input.skip_authorization == Some(true) && !before.skip_authorization {
        acs_authz::can_skip_authorization(writer.actor, &target).map_err(AppError::from)?;
    }
    if input
        .skip_authorization
        .unwrap_or(before.skip_authorization)
    {
        let client_type = input.client_type.map(|t| t.as_str());
        let changed = [
            (
                "redirect_uris",
                input.redirect_uris.as_deref(),
                &before.redirect_uris,
            ),
            ("client_type", client_type, &before.client_type),
        ];
        for (field, sent, stored) in changed {
            if sent.is_some_and(|sent| sent != stored) {
                acs_authz::can_repoint_consentless(writer.actor, &target, field)
                    .map_err(AppError::from)?;
            }
        }
    }
    let shown_before = render(conn, before)?;
    let values = ApplicationValues {
        name: input.name.clone(),
        description: input.description.clone(),
        client_type: input.client_type.map(|t| t.as_str().to_owned()),
        redirect_uris: input.redirect_uris.clone(),
        skip_authorization: input.skip_authorization,
        ..ApplicationValues::default()
    };
    writer.pool.transaction(conn, |conn| {
        let updated = acs_storage::applications::update(conn, before.id, &values, writer.now)
            .map_err(name_conflict)?;
        let shown_after = render(conn, &updated)?;
        let subject = subject(&updated);
        writer.record_update(conn, &subject, &shown_before, &shown_after)?;
        Ok(shown_after)
    })
}

/// Deletes the application `id` and every token issued to it, if the writer may see and
/// delete it. Recorded with its last record as `render` shows it.
pub fn delete<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    id: i64,
    render: impl Fn(&mut DbConnection, &Application) -> Result<R, E>,
) -> Result<Subject, E>
where
    R: Serialize,
    E: CallerError,
{
    let app = visible(conn, writer.actor, id)?;
    acs_authz::can_delete_application(writer.actor, &target_of(&app)).map_err(AppError::from)?;
    let shown = render(conn, &app)?;
    let subject = subject(&app);
    writer.pool.transaction(conn, |conn| {
        let holder = TokenHolder::Application(id);
        token_holders::delete(conn, writer.now, writer.user, holder, &subject, &shown)?;
        Ok(subject.clone())
    })
}

/// The activity stream's name of `app`.
fn subject(app: &Application) -> Subject {
    Subject::named(acs_storage::activity::APPLICATION, app.id, &app.name)
}

/// A uniqueness conflict on write is the name taken; other failures are what they are.
fn name_conflict(error: StorageError) -> AppError {
    match error {
        StorageError::Conflict(_) => AppError::invalid("__all__", NAME_TAKEN),
        other => other.into(),
    }
}
