//! The activity stream: who changed what, when. Entries are written in the same transaction as
//! the change they describe, so a change and its record commit or fail together. Callers mask
//! secrets in `changes` before they get here.

use acs_authz::{ApplicationVisibility, CredentialVisibility, Id, TokenVisibility, UserVisibility};
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::schema::{activity_stream, users};
use crate::{Backend, DbConnection, StorageResult, Timestamp};

/// `object1`/`object2` value of a user.
pub const USER: &str = "user";
/// `object1`/`object2` value of an organization.
pub const ORGANIZATION: &str = "organization";
/// `object1`/`object2` value of an application.
pub const APPLICATION: &str = "o_auth2_application";
/// `object1`/`object2` value of an access token.
pub const TOKEN: &str = "o_auth2_access_token";
/// `object1`/`object2` value of a credential type.
pub const CREDENTIAL_TYPE: &str = "credential_type";
/// `object1`/`object2` value of a credential.
pub const CREDENTIAL: &str = "credential";

/// An activity stream row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = activity_stream)]
pub struct Activity {
    /// Primary key.
    pub id: i64,
    /// When it happened.
    pub timestamp: Timestamp,
    /// Who did it (`None` for the system, or an actor since deleted).
    pub actor_id: Option<i64>,
    /// `create`, `update`, `delete`, `associate`, `disassociate`, `login`, `login_failed`.
    pub operation: String,
    /// Kind of the object acted on.
    pub object1: String,
    /// Its id.
    pub object1_id: i64,
    /// Kind of the second object of an association (empty if none).
    pub object2: String,
    /// Its id.
    pub object2_id: Option<i64>,
    /// JSON object of the changes, secrets masked.
    pub changes: String,
    /// JSON object of summaries (actor and objects) as they were at the time.
    pub summary: String,
}

/// The values of a new entry.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = activity_stream)]
#[diesel(treat_none_as_default_value = false)]
pub struct NewActivity<'a> {
    /// When it happened.
    pub timestamp: Timestamp,
    /// Who did it.
    pub actor_id: Option<i64>,
    /// The operation.
    pub operation: &'a str,
    /// Kind of the object acted on.
    pub object1: &'a str,
    /// Its id.
    pub object1_id: i64,
    /// Kind of the second object of an association (empty if none).
    pub object2: &'a str,
    /// Its id.
    pub object2_id: Option<i64>,
    /// JSON object of the changes, secrets masked.
    pub changes: &'a str,
    /// JSON object of summaries.
    pub summary: &'a str,
}

/// Appends an entry.
pub fn record(conn: &mut DbConnection, entry: &NewActivity<'_>) -> StorageResult<()> {
    // Every write records an entry inside its transaction: on the backend's statement cache.
    crate::with_backend!(conn, |c| diesel::insert_into(activity_stream::table)
        .values(entry)
        .execute(c))?;
    Ok(())
}

/// Which entries a caller may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActivityVisibility {
    /// Superusers and system auditors read everything.
    All,
    /// Everyone else: their own actions, and entries about objects they can see now.
    Limited {
        /// The caller.
        user_id: Id,
        /// Users the caller can see.
        users: UserVisibility,
        /// Organizations the caller belongs to.
        organizations: Vec<Id>,
        /// Applications the caller can see.
        applications: ApplicationVisibility,
        /// Tokens the caller can see.
        tokens: TokenVisibility,
        /// Credentials the caller can see (every credential type is visible to everyone);
        /// boxed, as the largest of the lot.
        credentials: Box<CredentialVisibility>,
    },
}

type ActivityQuery<'a> = activity_stream::BoxedQuery<'a, Backend>;

fn visible<'a>(query: ActivityQuery<'a>, visibility: &ActivityVisibility) -> ActivityQuery<'a> {
    use crate::schema::{access_tokens, applications, credentials, organization_roles};

    let ActivityVisibility::Limited {
        user_id,
        users: user_visibility,
        organizations,
        applications: app_visibility,
        tokens: token_visibility,
        credentials: credential_visibility,
    } = visibility
    else {
        return query;
    };
    // The subqueries are written out rather than reused from the list modules: diesel's
    // multi-backend connection cannot nest a boxed query inside another.
    let (app_orgs, app_owner) = match app_visibility {
        ApplicationVisibility::All => (None, None),
        ApplicationVisibility::Limited {
            user_id,
            administered,
        } => (Some(administered.clone()), Some(*user_id)),
    };
    let visible_apps = applications::table
        .filter(
            applications::organization_id
                .eq_any(app_orgs.clone().unwrap_or_default())
                .or(applications::user_id.eq(app_owner.unwrap_or(0)))
                .or(diesel::dsl::sql::<diesel::sql_types::Bool>(
                    if app_orgs.is_none() { "1 = 1" } else { "1 = 0" },
                )),
        )
        .select(applications::id);
    let (token_orgs, token_owner) = match token_visibility {
        TokenVisibility::All => (None, None),
        TokenVisibility::Limited {
            user_id,
            administered,
        } => (Some(administered.clone()), Some(*user_id)),
    };
    let managed = organization_roles::table
        .filter(organization_roles::organization_id.eq_any(token_orgs.clone().unwrap_or_default()))
        .select(organization_roles::user_id);
    let visible_tokens = access_tokens::table
        .filter(
            access_tokens::user_id
                .eq(token_owner.unwrap_or(0))
                .or(access_tokens::user_id.eq_any(managed))
                .or(diesel::dsl::sql::<diesel::sql_types::Bool>(
                    if token_orgs.is_none() {
                        "1 = 1"
                    } else {
                        "1 = 0"
                    },
                )),
        )
        .select(access_tokens::id);
    let (related_orgs, related_user, superusers, all_users) = match user_visibility {
        UserVisibility::All => (Vec::new(), 0, false, true),
        UserVisibility::Related {
            user_id,
            organizations,
            superusers,
        } => (organizations.clone(), *user_id, *superusers, false),
    };
    let related = organization_roles::table
        .filter(organization_roles::organization_id.eq_any(related_orgs))
        .select(organization_roles::user_id);
    let visible_users = users::table
        .filter(
            users::id
                .eq(related_user)
                .or(users::is_superuser
                    .eq(superusers)
                    .and(users::is_superuser.eq(true)))
                .or(users::id.eq_any(related))
                .or(diesel::dsl::sql::<diesel::sql_types::Bool>(if all_users {
                    "1 = 1"
                } else {
                    "1 = 0"
                })),
        )
        .select(users::id);
    let (credential_orgs, credential_owner) = match credential_visibility.as_ref() {
        CredentialVisibility::All => (None, None),
        // The activity of credentials shown by roles alone stays with their admins.
        CredentialVisibility::Limited {
            user_id,
            administered,
            ..
        } => (Some(administered.clone()), Some(*user_id)),
    };
    let credential_users = organization_roles::table
        .filter(
            organization_roles::organization_id.eq_any(credential_orgs.clone().unwrap_or_default()),
        )
        .select(organization_roles::user_id.nullable());
    let visible_credentials = credentials::table
        .filter(
            credentials::user_id
                .eq(credential_owner.unwrap_or(0))
                .or(credentials::organization_id
                    .eq_any(credential_orgs.clone().unwrap_or_default()))
                .or(credentials::user_id.eq_any(credential_users))
                .or(diesel::dsl::sql::<diesel::sql_types::Bool>(
                    if credential_orgs.is_none() {
                        "1 = 1"
                    } else {
                        "1 = 0"
                    },
                )),
        )
        .select(credentials::id);
    query.filter(
        activity_stream::actor_id
            .eq(*user_id)
            .or(activity_stream::object1.eq(CREDENTIAL_TYPE))
            .or(activity_stream::object1
                .eq(CREDENTIAL)
                .and(activity_stream::object1_id.eq_any(visible_credentials)))
            .or(activity_stream::object1
                .eq(USER)
                .and(activity_stream::object1_id.eq_any(visible_users)))
            .or(activity_stream::object1
                .eq(ORGANIZATION)
                .and(activity_stream::object1_id.eq_any(organizations.clone())))
            .or(activity_stream::object1
                .eq(APPLICATION)
                .and(activity_stream::object1_id.eq_any(visible_apps)))
            .or(activity_stream::object1
                .eq(TOKEN)
                .and(activity_stream::object1_id.eq_any(visible_tokens))),
    )
}

fn about<'a>(query: ActivityQuery<'a>, object: Option<(&'a str, i64)>) -> ActivityQuery<'a> {
    match object {
        Some((kind, id)) => query.filter(
            activity_stream::object1
                .eq(kind)
                .and(activity_stream::object1_id.eq(id))
                .or(activity_stream::object2
                    .eq(kind)
                    .and(activity_stream::object2_id.eq(id))),
        ),
        None => query,
    }
}

fn filtered<'a>(
    query: ActivityQuery<'a>,
    params: &ListParams,
) -> Result<ActivityQuery<'a>, ListError> {
    let mut query = crate::combine_filters!(activity_stream, query, &params.filters, condition_of)?;
    if let Some(text) = &params.search {
        query = query.filter(activity_stream::operation.eq(text.to_lowercase()));
    }
    Ok(query)
}

/// The condition of one filter on an entry.
fn condition_of(
    filter: &crate::list::Filter,
) -> Result<crate::list::Condition<'static, activity_stream::table>, ListError> {
    match filter.field.as_str() {
        "id" => crate::integer_condition!(activity_stream::id, filter),
        "timestamp" => crate::timestamp_condition!(activity_stream::timestamp, filter),
        "actor" => crate::integer_condition!(activity_stream::actor_id, filter, nullable_condition),
        "operation" => crate::text_condition!(activity_stream::operation, filter),
        "object1" => crate::text_condition!(activity_stream::object1, filter),
        "object2" => crate::text_condition!(activity_stream::object2, filter),
        "changes" => Err(ListError::SecretField(filter.field.clone())),
        _ => Err(ListError::UnknownField(filter.field.clone())),
    }
}

fn ordered<'a>(
    mut query: ActivityQuery<'a>,
    params: &ListParams,
) -> Result<ActivityQuery<'a>, ListError> {
    for key in &params.order {
        let desc = key.descending;
        query = match key.field.as_str() {
            "id" => crate::order_column!(query, activity_stream::id, desc),
            "timestamp" => crate::order_column!(query, activity_stream::timestamp, desc),
            "actor" => crate::order_column!(query, activity_stream::actor_id, desc),
            "operation" => crate::order_column!(query, activity_stream::operation, desc),
            "object1" => crate::order_column!(query, activity_stream::object1, desc),
            "changes" => return Err(ListError::SecretField(key.field.clone())),
            _ => return Err(ListError::UnknownField(key.field.clone())),
        };
    }
    Ok(query.then_order_by(activity_stream::id.asc()))
}

/// Lists the entries `visibility` allows, about `object` (kind, id) when given.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ActivityVisibility,
    object: Option<(&str, i64)>,
    params: &ListParams,
) -> StorageResult<Result<Page<Activity>, ListError>> {
    let base = || {
        about(
            visible(activity_stream::table.into_boxed(), visibility),
            object,
        )
    };
    crate::list_page!(
        conn,
        params,
        || filtered(base(), params),
        ordered,
        Activity::as_select()
    )
}

/// One entry, if `visibility` allows it.
pub fn find(
    conn: &mut DbConnection,
    visibility: &ActivityVisibility,
    id: i64,
) -> StorageResult<Option<Activity>> {
    Ok(visible(activity_stream::table.into_boxed(), visibility)
        .filter(activity_stream::id.eq(id))
        .select(Activity::as_select())
        .get_result(conn)
        .optional()?)
}
