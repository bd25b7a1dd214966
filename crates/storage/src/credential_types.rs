//! Credential types: rows, writes, the managed-type upsert run at start, and the list.
//! `inputs` and `injectors` are stored as JSON text, already validated by the caller.

use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page, like_pattern};
use crate::schema::{credential_types, credentials};
use crate::stamps::{Creation, Modification};
use crate::{Backend, DbConnection, StorageResult, Timestamp};

/// A credential type row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = credential_types)]
pub struct CredentialType {
    /// Primary key.
    pub id: i64,
    /// Name, unique together with the kind.
    pub name: String,
    /// Free text.
    pub description: String,
    /// `ssh`, `vault`, `net`, `scm`, `cloud`, `insights` or `source`.
    pub kind: String,
    /// Registry key of a managed type; `None` for custom types.
    pub namespace: Option<String>,
    /// Whether ACS ships (and protects) the type.
    pub managed: bool,
    /// Input configuration (JSON).
    pub inputs: String,
    /// Injector configuration (JSON).
    pub injectors: String,
    /// Who created it (`None` for managed types).
    pub created_by: Option<i64>,
    /// Who changed it last.
    pub modified_by: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

/// The values a credential type is created or changed with: a `None` takes the column's
/// default on insert and leaves the column as it is on update. Namespace and managed never
/// change through the API.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = credential_types)]
pub struct CredentialTypeValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Kind.
    pub kind: Option<String>,
    /// Registry key (managed types only).
    pub namespace: Option<Option<String>>,
    /// Managed flag.
    pub managed: Option<bool>,
    /// Input configuration (JSON).
    pub inputs: Option<String>,
    /// Injector configuration (JSON).
    pub injectors: Option<String>,
}

crate::row_functions!(credential_types, CredentialType, stamped CredentialTypeValues);

/// Finds a managed credential type by namespace.
pub fn find_by_namespace(
    conn: &mut DbConnection,
    namespace: &str,
) -> StorageResult<Option<CredentialType>> {
    Ok(credential_types::table
        .filter(credential_types::namespace.eq(namespace))
        .select(CredentialType::as_select())
        .get_result(conn)
        .optional()?)
}

/// Reads a credential type under its row lock (a no-op write), inside a write transaction: a
/// credential validated against the type's inputs and saved in the same transaction cannot
/// race a change of those inputs, which takes the same lock.
pub fn lock(conn: &mut DbConnection, id: i64) -> StorageResult<CredentialType> {
    Ok(diesel::update(credential_types::table.find(id))
        .set(credential_types::id.eq(credential_types::id))
        .returning(credential_types::all_columns)
        .get_result(conn)?)
}

/// How many credentials use the type.
pub fn credential_count(conn: &mut DbConnection, id: i64) -> StorageResult<i64> {
    Ok(credentials::table
        .filter(credentials::credential_type_id.eq(id))
        .count()
        .get_result(conn)?)
}

/// A managed type as the registry defines it.
#[derive(Debug, Clone, Copy)]
pub struct ManagedDefinition<'a> {
    /// Registry key.
    pub namespace: &'a str,
    /// Name.
    pub name: &'a str,
    /// Description.
    pub description: &'a str,
    /// Kind.
    pub kind: &'a str,
    /// Input configuration (JSON).
    pub inputs: &'a str,
    /// Injector configuration (JSON).
    pub injectors: &'a str,
}

/// What [`upsert_managed`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpsertOutcome {
    /// Types created.
    pub created: usize,
    /// Types whose stored definition differed and was rewritten.
    pub updated: usize,
}

/// Makes the stored managed types match `definitions`, matching on namespace: missing types
/// are created and changed ones rewritten; identical ones are not touched, so running it at
/// every start (on every node) writes nothing once the database is current.
pub fn upsert_managed(
    conn: &mut DbConnection,
    definitions: &[ManagedDefinition<'_>],
    now: Timestamp,
) -> StorageResult<UpsertOutcome> {
    let mut outcome = UpsertOutcome::default();
    for definition in definitions {
        let values = CredentialTypeValues {
            name: Some(definition.name.to_owned()),
            description: Some(definition.description.to_owned()),
            kind: Some(definition.kind.to_owned()),
            namespace: Some(Some(definition.namespace.to_owned())),
            managed: Some(true),
            inputs: Some(definition.inputs.to_owned()),
            injectors: Some(definition.injectors.to_owned()),
        };
        match find_by_namespace(conn, definition.namespace)? {
            None => {
                insert(conn, &values, Creation::by(None, now))?;
                outcome.created += 1;
            }
            Some(stored) => {
                let current = stored.name == definition.name
                    && stored.description == definition.description
                    && stored.kind == definition.kind
                    && stored.managed
                    && stored.inputs == definition.inputs
                    && stored.injectors == definition.injectors;
                if !current {
                    update(conn, stored.id, &values, Modification::by(None, now))?;
                    outcome.updated += 1;
                }
            }
        }
    }
    Ok(outcome)
}

type CredentialTypesQuery<'a> = credential_types::BoxedQuery<'a, Backend>;

/// Applies the list filters and search of `params` to a credential-type query; shared with
/// the credentials list, which filters through `credential_type__<field>` (`prefix`).
pub(crate) fn filtered<'a>(
    query: CredentialTypesQuery<'a>,
    params: &ListParams,
    prefix: &str,
) -> Result<CredentialTypesQuery<'a>, ListError> {
    let filters: Vec<crate::list::Filter> = params
        .filters
        .iter()
        .filter_map(|filter| {
            let field = filter.field.strip_prefix(prefix)?;
            Some(crate::list::Filter {
                field: field.to_owned(),
                ..filter.clone()
            })
        })
        .collect();
    crate::combine_filters!(credential_types, query, &filters, condition_of)
}

/// The condition of one filter on a credential type.
fn condition_of(
    filter: &crate::list::Filter,
) -> Result<crate::list::Condition<'static, credential_types::table>, ListError> {
    match filter.field.as_str() {
        "id" => crate::integer_condition!(credential_types::id, filter),
        "name" => crate::text_condition!(credential_types::name, filter),
        "description" => crate::text_condition!(credential_types::description, filter),
        "kind" => crate::text_condition!(credential_types::kind, filter),
        "namespace" => namespace_condition(filter),
        "managed" => crate::bool_condition!(credential_types::managed, filter),
        "created" => crate::timestamp_condition!(credential_types::created, filter),
        "modified" => crate::timestamp_condition!(credential_types::modified, filter),
        _ => Err(ListError::UnknownField(filter.field.clone())),
    }
}

/// `namespace` is nullable (custom types have none), so it gets its own lookups.
fn namespace_condition(
    filter: &crate::list::Filter,
) -> Result<crate::list::Condition<'static, credential_types::table>, ListError> {
    use crate::list::{Lookup, condition, nullable_condition};
    let column = credential_types::namespace;
    // Namespaces are lower-case identifiers, so the case-insensitive lookups compare the
    // lower-cased value.
    let insensitive = matches!(
        filter.lookup,
        Lookup::Iexact | Lookup::Icontains | Lookup::Istartswith | Lookup::Iendswith
    );
    let value = if insensitive {
        filter.value.to_lowercase()
    } else {
        filter.value.clone()
    };
    Ok(match filter.lookup {
        Lookup::Exact | Lookup::Iexact => nullable_condition(column, column.eq(value)),
        Lookup::In => nullable_condition(
            column,
            column.eq_any(value.split(',').map(str::to_owned).collect::<Vec<_>>()),
        ),
        Lookup::Contains | Lookup::Icontains => nullable_condition(
            column,
            column.like(like_pattern("%", &value, "%")).escape('\\'),
        ),
        Lookup::Startswith | Lookup::Istartswith => nullable_condition(
            column,
            column.like(like_pattern("", &value, "%")).escape('\\'),
        ),
        Lookup::Endswith | Lookup::Iendswith => nullable_condition(
            column,
            column.like(like_pattern("%", &value, "")).escape('\\'),
        ),
        Lookup::Isnull => match crate::list::parse_bool(filter, &value)? {
            true => condition(column, column.is_null()),
            false => condition(column, column.is_not_null()),
        },
        Lookup::Gt | Lookup::Gte | Lookup::Lt | Lookup::Lte => {
            return Err(ListError::BadValue {
                field: filter.field.clone(),
                reason: "this lookup does not apply to a namespace.".to_owned(),
            });
        }
    })
}

fn ordered<'a>(
    mut query: CredentialTypesQuery<'a>,
    params: &ListParams,
) -> Result<CredentialTypesQuery<'a>, ListError> {
    for key in &params.order {
        let desc = key.descending;
        query = match key.field.as_str() {
            "id" => crate::order_column!(query, credential_types::id, desc),
            "name" => crate::order_column!(query, credential_types::name, desc),
            "description" => crate::order_column!(query, credential_types::description, desc),
            "kind" => crate::order_column!(query, credential_types::kind, desc),
            "namespace" => crate::order_column!(query, credential_types::namespace, desc),
            "managed" => crate::order_column!(query, credential_types::managed, desc),
            "created" => crate::order_column!(query, credential_types::created, desc),
            "modified" => crate::order_column!(query, credential_types::modified, desc),
            _ => return Err(ListError::UnknownField(key.field.clone())),
        };
    }
    // The reference orders by kind, then name.
    Ok(query
        .then_order_by(credential_types::kind.asc())
        .then_order_by(credential_types::name.asc())
        .then_order_by(credential_types::id.asc()))
}

fn searched<'a>(query: CredentialTypesQuery<'a>, params: &ListParams) -> CredentialTypesQuery<'a> {
    crate::search_columns!(
        query,
        &params.search,
        credential_types::name,
        credential_types::description
    )
}

/// Lists credential types as `params` ask (every authenticated user sees every type).
pub fn list(
    conn: &mut DbConnection,
    params: &ListParams,
) -> StorageResult<Result<Page<CredentialType>, ListError>> {
    let build = || {
        filtered(credential_types::table.into_boxed(), params, "")
            .map(|query| searched(query, params))
    };
    crate::list_page!(conn, params, build, ordered, CredentialType::as_select())
}

/// The ids of the credential types matching the `credential_type__<field>` filters of
/// `params`, or `None` when there are none (no restriction).
pub(crate) fn ids_for_credential_filters(
    conn: &mut DbConnection,
    params: &ListParams,
) -> StorageResult<Result<Option<Vec<i64>>, ListError>> {
    const PREFIX: &str = "credential_type__";
    if !params.filters.iter().any(|f| f.field.starts_with(PREFIX)) {
        return Ok(Ok(None));
    }
    let query = match filtered(credential_types::table.into_boxed(), params, PREFIX) {
        Ok(query) => query,
        Err(error) => return Ok(Err(error)),
    };
    Ok(Ok(Some(query.select(credential_types::id).load(conn)?)))
}
