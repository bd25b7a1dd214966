//! Credentials: rows, writes, summaries and the visibility-filtered list. Secret inputs
//! arrive here already sealed by the caller; storage never sees them in clear.

use std::collections::HashMap;

use acs_authz::CredentialVisibility;
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::schema::{credential_types, credentials, organization_source_credentials};
use crate::{Backend, DbConnection, StorageResult, Timestamp};

/// A credential row. `inputs` holds secret values sealed, so its `Debug` output is safe, but
/// it is left out anyway to keep logs short.
#[derive(Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = credentials)]
pub struct Credential {
    /// Primary key.
    pub id: i64,
    /// Name, unique per organization and type.
    pub name: String,
    /// Free text.
    pub description: String,
    /// Its type.
    pub credential_type_id: i64,
    /// Owning organization (exclusive with `user_id`).
    pub organization_id: Option<i64>,
    /// Owning user (exclusive with `organization_id`).
    pub user_id: Option<i64>,
    /// Input values as JSON; secret values sealed.
    pub inputs: String,
    /// Creator.
    pub created_by: Option<i64>,
    /// Last modifier.
    pub modified_by: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credential")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("credential_type_id", &self.credential_type_id)
            .finish_non_exhaustive()
    }
}

/// The values a credential is created or changed with: a `None` takes the column's default on
/// insert and leaves the column as it is on update. The owner never changes.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = credentials)]
pub struct CredentialValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Its type.
    pub credential_type_id: Option<i64>,
    /// Owning organization (exclusive with `user_id`).
    pub organization_id: Option<Option<i64>>,
    /// Owning user (exclusive with `organization_id`).
    pub user_id: Option<Option<i64>>,
    /// Input values as JSON; secret values sealed.
    pub inputs: Option<String>,
}

/// What a credential record shows of its type and owner.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CredentialSummaries {
    /// `(id, name, description, kind, namespace)` of the type.
    pub credential_type: (i64, String, String, String, Option<String>),
    /// `(id, name, description)` of the owning organization.
    pub organization: Option<(i64, String, String)>,
    /// `(id, username, first_name, last_name)` of the owning user.
    pub user: Option<(i64, String, String, String)>,
}

crate::row_functions!(credentials, Credential, stamped CredentialValues; find, insert, update);

/// Deletes a credential (and its places in content-source lists); false if there was none.
pub fn delete(conn: &mut DbConnection, id: i64) -> StorageResult<bool> {
    diesel::delete(
        organization_source_credentials::table
            .filter(organization_source_credentials::credential_id.eq(id)),
    )
    .execute(conn)?;
    Ok(diesel::delete(credentials::table.find(id)).execute(conn)? > 0)
}

/// Whether anything uses the credential, so that its type may not change: a place in an
/// organization's content-source list, a job template or an inventory source.
pub fn in_use(conn: &mut DbConnection, id: i64) -> StorageResult<bool> {
    let places: i64 = organization_source_credentials::table
        .filter(organization_source_credentials::credential_id.eq(id))
        .count()
        .get_result(conn)?;
    Ok(places > 0
        || crate::job_templates::uses_credential(conn, id)?
        || crate::inventory_sources::uses_credential(conn, id)?)
}

/// Type and owner summaries of each credential in `items`.
pub fn summaries(
    conn: &mut DbConnection,
    items: &[Credential],
) -> StorageResult<HashMap<i64, CredentialSummaries>> {
    let type_ids: Vec<i64> = items.iter().map(|c| c.credential_type_id).collect();
    let org_ids: Vec<i64> = items.iter().filter_map(|c| c.organization_id).collect();
    let user_ids: Vec<i64> = items.iter().filter_map(|c| c.user_id).collect();
    type TypeSummary = (i64, String, String, String, Option<String>);
    let types: HashMap<i64, TypeSummary> = credential_types::table
        .filter(credential_types::id.eq_any(&type_ids))
        .select((
            credential_types::id,
            credential_types::name,
            credential_types::description,
            credential_types::kind,
            credential_types::namespace,
        ))
        .load::<TypeSummary>(conn)?
        .into_iter()
        .map(|row| (row.0, row))
        .collect();
    let orgs = crate::summaries::organizations(conn, &org_ids)?;
    let owners = crate::summaries::users(conn, &user_ids)?;
    Ok(items
        .iter()
        .map(|c| {
            (
                c.id,
                CredentialSummaries {
                    credential_type: types
                        .get(&c.credential_type_id)
                        .cloned()
                        .unwrap_or_default(),
                    organization: c.organization_id.and_then(|id| orgs.get(&id).cloned()),
                    user: c.user_id.and_then(|id| owners.get(&id).cloned()),
                },
            )
        })
        .collect())
}

/// Which credentials a list covers besides the caller's visibility.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CredentialScope {
    /// Only credentials of this type.
    pub credential_type: Option<i64>,
}

/// The condition on `credentials` of [`CredentialVisibility::Limited`]: owned by the user, by
/// an organization it administers or by one of their users, or shown by a role.
#[macro_export]
#[doc(hidden)]
macro_rules! shown_credentials {
    ($user_id:expr, $administered:expr, $role_organizations:expr, $objects:expr) => {{
        use $crate::schema::{credentials, organization_roles};
        let managed_users = organization_roles::table
            .filter(organization_roles::organization_id.eq_any($administered.clone()))
            .select(organization_roles::user_id.nullable());
        credentials::user_id
            .eq(*$user_id)
            .or(credentials::organization_id.eq_any($administered.clone()))
            .or(credentials::user_id.eq_any(managed_users))
            .or(credentials::organization_id.eq_any($role_organizations.clone()))
            .or(credentials::id.eq_any($objects.clone()))
    }};
}

type CredentialsQuery<'a> = credentials::BoxedQuery<'a, Backend>;

fn visible<'a>(
    query: CredentialsQuery<'a>,
    visibility: &CredentialVisibility,
) -> CredentialsQuery<'a> {
    match visibility {
        CredentialVisibility::All => query,
        CredentialVisibility::Limited {
            user_id,
            administered,
            role_organizations,
            objects,
        } => query.filter(crate::shown_credentials!(
            user_id,
            administered,
            role_organizations,
            objects
        )),
    }
}

fn filtered<'a>(
    mut query: CredentialsQuery<'a>,
    params: &ListParams,
    type_ids: Option<&[i64]>,
) -> Result<CredentialsQuery<'a>, ListError> {
    if let Some(ids) = type_ids {
        query = query.filter(credentials::credential_type_id.eq_any(ids.to_vec()));
    }
    let query = crate::combine_filters!(credentials, query, &params.filters, condition_of)?;
    Ok(crate::search_columns!(
        query,
        &params.search,
        credentials::name,
        credentials::description
    ))
}

/// The condition of one filter on a credential.
fn condition_of(
    filter: &crate::list::Filter,
) -> Result<crate::list::Condition<'static, credentials::table>, ListError> {
    use crate::list::{Combine, condition};
    match filter.field.as_str() {
        "id" => crate::integer_condition!(credentials::id, filter),
        "name" => crate::text_condition!(credentials::name, filter),
        "description" => crate::text_condition!(credentials::description, filter),
        "credential_type" => crate::integer_condition!(credentials::credential_type_id, filter),
        "organization" => {
            crate::integer_condition!(credentials::organization_id, filter, nullable_condition)
        }
        "user" => crate::integer_condition!(credentials::user_id, filter, nullable_condition),
        "created" => crate::timestamp_condition!(credentials::created, filter),
        "modified" => crate::timestamp_condition!(credentials::modified, filter),
        // Applied before, as the credential types they allow
        // (`credential_types::ids_for_credential_filters`), which only narrows.
        field if field.starts_with("credential_type__") => {
            if filter.combine != Combine::All || filter.negated {
                return Err(ListError::bad_value(
                    filter,
                    "or__ and not__ do not apply to the credential type's fields.",
                ));
            }
            Ok(condition(credentials::id, credentials::id.is_not_null()))
        }
        // Inputs hold secrets: filtering would let a caller probe for them.
        field if field == "inputs" || field.starts_with("inputs__") => {
            Err(ListError::SecretField(filter.field.clone()))
        }
        _ => Err(ListError::UnknownField(filter.field.clone())),
    }
}

fn ordered<'a>(
    mut query: CredentialsQuery<'a>,
    params: &ListParams,
) -> Result<CredentialsQuery<'a>, ListError> {
    for key in &params.order {
        let desc = key.descending;
        query = match key.field.as_str() {
            "id" => crate::order_column!(query, credentials::id, desc),
            "name" => crate::order_column!(query, credentials::name, desc),
            "description" => crate::order_column!(query, credentials::description, desc),
            "credential_type" => {
                crate::order_column!(query, credentials::credential_type_id, desc)
            }
            "organization" => crate::order_column!(query, credentials::organization_id, desc),
            "user" => crate::order_column!(query, credentials::user_id, desc),
            "created" => crate::order_column!(query, credentials::created, desc),
            "modified" => crate::order_column!(query, credentials::modified, desc),
            "inputs" => return Err(ListError::SecretField(key.field.clone())),
            _ => return Err(ListError::UnknownField(key.field.clone())),
        };
    }
    Ok(query
        .then_order_by(credentials::name.asc())
        .then_order_by(credentials::id.asc()))
}

fn visible_query<'a>(
    visibility: &CredentialVisibility,
    scope: CredentialScope,
) -> CredentialsQuery<'a> {
    let query = visible(credentials::table.into_boxed(), visibility);
    match scope.credential_type {
        Some(id) => query.filter(credentials::credential_type_id.eq(id)),
        None => query,
    }
}

/// Lists the credentials `visibility` allows within `scope`, as `params` ask. Filters on
/// `credential_type__<field>` (`namespace`, `kind`, `name`, …) select through the type.
pub fn list(
    conn: &mut DbConnection,
    visibility: &CredentialVisibility,
    scope: CredentialScope,
    params: &ListParams,
) -> StorageResult<Result<Page<Credential>, ListError>> {
    let type_ids = match crate::credential_types::ids_for_credential_filters(conn, params)? {
        Ok(ids) => ids,
        Err(error) => return Ok(Err(error)),
    };
    let build = || {
        filtered(
            visible_query(visibility, scope),
            params,
            type_ids.as_deref(),
        )
    };
    crate::list_page!(conn, params, build, ordered, Credential::as_select())
}
