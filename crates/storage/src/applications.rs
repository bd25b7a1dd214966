//! OAuth 2 applications: rows, writes, lookups and the visibility-filtered list. The client
//! secret is stored only as its SHA-256 digest.

use std::collections::HashMap;

use acs_authz::ApplicationVisibility;
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::schema::{access_tokens, applications};
use crate::{Backend, DbConnection, StorageResult, Timestamp};

/// An application row.
#[derive(Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = applications)]
pub struct Application {
    /// Primary key.
    pub id: i64,
    /// Name, unique within the organization.
    pub name: String,
    /// Free text.
    pub description: String,
    /// Public identifier of the client.
    pub client_id: String,
    /// SHA-256 digest of the client secret.
    pub client_secret_digest: Vec<u8>,
    /// `confidential` or `public`.
    pub client_type: String,
    /// Space-separated registered redirect URIs.
    pub redirect_uris: String,
    /// `authorization-code` or `password`; fixed at creation.
    pub authorization_grant_type: String,
    /// Whether the consent page is skipped.
    pub skip_authorization: bool,
    /// Owning organization; fixed at creation.
    pub organization_id: i64,
    /// Optional owner.
    pub user_id: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

impl std::fmt::Debug for Application {
    // The secret digest stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("organization_id", &self.organization_id)
            .finish_non_exhaustive()
    }
}

/// The values an application is created or changed with: a `None` takes the column's default
/// on insert and leaves the column as it is on update. Grant type, organization, owner and
/// client credentials are given only when the application is made.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = applications)]
pub struct ApplicationValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Generated client id.
    pub client_id: Option<String>,
    /// Digest of the generated client secret.
    pub client_secret_digest: Option<Vec<u8>>,
    /// `confidential` or `public`.
    pub client_type: Option<String>,
    /// Validated redirect URIs.
    pub redirect_uris: Option<String>,
    /// `authorization-code` or `password`.
    pub authorization_grant_type: Option<String>,
    /// Skip the consent page.
    pub skip_authorization: Option<bool>,
    /// Owning organization.
    pub organization_id: Option<i64>,
    /// Optional owner.
    pub user_id: Option<Option<i64>>,
}

/// What an application record shows of its organization and owner.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApplicationSummaries {
    /// `(id, name, description)` of the organization.
    pub organization: (i64, String, String),
    /// `(id, username, first_name, last_name)` of the owner.
    pub user: Option<(i64, String, String, String)>,
    /// Number of access tokens of the application.
    pub token_count: i64,
    /// The first ten tokens by id: `(id, scope)`.
    pub first_tokens: Vec<(i64, String)>,
}

crate::row_functions!(applications, Application, timed ApplicationValues; find, insert, update);

/// Finds an application by its client id.
pub fn find_by_client_id(
    conn: &mut DbConnection,
    client_id: &str,
) -> StorageResult<Option<Application>> {
    Ok(crate::lookup!(conn, |c| applications::table
        .filter(applications::client_id.eq(client_id))
        .select(Application::as_select())
        .get_result(c)
        .optional())?)
}

/// Deletes an application with its tokens; false if there was none.
pub fn delete(conn: &mut DbConnection, id: i64) -> StorageResult<bool> {
    // The foreign keys cascade too; deleting the tokens explicitly keeps the tokens counter
    // (and so every node's cached bearer principals) in step on either backend.
    diesel::delete(access_tokens::table.filter(access_tokens::application_id.eq(id)))
        .execute(conn)?;
    Ok(diesel::delete(applications::table.find(id)).execute(conn)? > 0)
}

/// Organization, owner and token summaries of each application in `apps`.
pub fn summaries(
    conn: &mut DbConnection,
    apps: &[Application],
) -> StorageResult<HashMap<i64, ApplicationSummaries>> {
    let org_ids: Vec<i64> = apps.iter().map(|a| a.organization_id).collect();
    let user_ids: Vec<i64> = apps.iter().filter_map(|a| a.user_id).collect();
    let app_ids: Vec<i64> = apps.iter().map(|a| a.id).collect();
    let orgs = crate::summaries::organizations(conn, &org_ids)?;
    let owners = crate::summaries::users(conn, &user_ids)?;
    let counts: HashMap<i64, i64> = access_tokens::table
        .filter(access_tokens::application_id.eq_any(&app_ids))
        .group_by(access_tokens::application_id)
        .select((access_tokens::application_id, diesel::dsl::count_star()))
        .load::<(Option<i64>, i64)>(conn)?
        .into_iter()
        .filter_map(|(app, count)| Some((app?, count)))
        .collect();
    let mut summaries = HashMap::with_capacity(apps.len());
    for app in apps {
        let token_count = counts.get(&app.id).copied().unwrap_or(0);
        // At most ten per application, and only for applications that have any.
        let first_tokens = if token_count > 0 {
            access_tokens::table
                .filter(access_tokens::application_id.eq(app.id))
                .order(access_tokens::id)
                .limit(10)
                .select((access_tokens::id, access_tokens::scope))
                .load(conn)?
        } else {
            Vec::new()
        };
        summaries.insert(
            app.id,
            ApplicationSummaries {
                organization: orgs.get(&app.organization_id).cloned().unwrap_or_default(),
                user: app.user_id.and_then(|id| owners.get(&id).cloned()),
                token_count,
                first_tokens,
            },
        );
    }
    Ok(summaries)
}

/// Which applications a list covers besides the caller's visibility.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApplicationScope {
    /// Only applications of this organization.
    pub organization: Option<i64>,
    /// Only applications owned by this user.
    pub user: Option<i64>,
}

type ApplicationsQuery<'a> = applications::BoxedQuery<'a, Backend>;

fn visible<'a>(
    query: ApplicationsQuery<'a>,
    visibility: &ApplicationVisibility,
) -> ApplicationsQuery<'a> {
    match visibility {
        ApplicationVisibility::All => query,
        ApplicationVisibility::Limited {
            user_id,
            administered,
        } => query.filter(
            applications::organization_id
                .eq_any(administered.clone())
                .or(applications::user_id.eq(*user_id)),
        ),
    }
}

fn scoped<'a>(mut query: ApplicationsQuery<'a>, scope: ApplicationScope) -> ApplicationsQuery<'a> {
    if let Some(org) = scope.organization {
        query = query.filter(applications::organization_id.eq(org));
    }
    if let Some(user) = scope.user {
        query = query.filter(applications::user_id.eq(user));
    }
    query
}

/// The query of the applications `visibility` allows, within `scope`.
fn visible_query<'a>(
    visibility: &ApplicationVisibility,
    scope: ApplicationScope,
) -> ApplicationsQuery<'a> {
    scoped(visible(applications::table.into_boxed(), visibility), scope)
}

crate::list_fields! {
    table: applications;
    search: [applications::name, applications::description];
    fields: {
        "id" => integer(applications::id),
        "name" => text(applications::name),
        "description" => text(applications::description),
        "client_type" => text(applications::client_type),
        "authorization_grant_type" => text(applications::authorization_grant_type),
        "organization" => integer(applications::organization_id),
        "user" => nullable_integer(applications::user_id),
        "created" => timestamp(applications::created),
        "modified" => timestamp(applications::modified),
    }
    filter_only: {
        "redirect_uris" => text(applications::redirect_uris),
        "skip_authorization" => boolean(applications::skip_authorization),
    }
    // Client credentials: filtering would let a caller probe for them.
    secret: ["client_id", "client_secret"]
}

/// Lists the applications `visibility` allows within `scope`, as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ApplicationVisibility,
    scope: ApplicationScope,
    params: &ListParams,
) -> StorageResult<Result<Page<Application>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || filtered(visible_query(visibility, scope), params),
        ordered,
        Application::as_select()
    )
}
