//! Listing support shared by every collection: filters with lookups, search, ordering and
//! paging, turned into SQL on the boxed query of each table.
//!
//! The query-string vocabulary is the reference system's (`?name__icontains=x`,
//! `?order_by=-id`, `?search=x`); each repository names the fields it accepts and their
//! columns, and refuses secret fields by name.

use diesel::sql_types::Text;

diesel::define_sql_function! {
    /// SQL `lower()`, the same on both backends for ASCII.
    fn lower(x: Text) -> Text;
}

/// How a filter compares the field with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// `field=v`, `field__exact=v`
    Exact,
    /// Case-insensitive equality.
    Iexact,
    /// Substring.
    Contains,
    /// Case-insensitive substring.
    Icontains,
    /// Prefix.
    Startswith,
    /// Case-insensitive prefix.
    Istartswith,
    /// Suffix.
    Endswith,
    /// Case-insensitive suffix.
    Iendswith,
    /// One of a comma-separated list.
    In,
    /// `true`: the field is null; `false`: it is not.
    Isnull,
    /// Greater than.
    Gt,
    /// Greater than or equal.
    Gte,
    /// Less than.
    Lt,
    /// Less than or equal.
    Lte,
}

impl Lookup {
    /// Parses a lookup suffix (`icontains`); `None` if unknown.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "exact" => Lookup::Exact,
            "iexact" => Lookup::Iexact,
            "contains" => Lookup::Contains,
            "icontains" => Lookup::Icontains,
            "startswith" => Lookup::Startswith,
            "istartswith" => Lookup::Istartswith,
            "endswith" => Lookup::Endswith,
            "iendswith" => Lookup::Iendswith,
            "in" => Lookup::In,
            "isnull" => Lookup::Isnull,
            "gt" => Lookup::Gt,
            "gte" => Lookup::Gte,
            "lt" => Lookup::Lt,
            "lte" => Lookup::Lte,
            _ => return None,
        })
    }
}

/// One filter of a list request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// Field name as the API names it (`username`).
    pub field: String,
    /// The comparison.
    pub lookup: Lookup,
    /// The raw value from the query string.
    pub value: String,
}

impl Filter {
    /// Splits a query key such as `name__icontains` into field and lookup; a key without a
    /// known lookup suffix is an exact match on the whole key.
    pub fn from_query(key: &str, value: &str) -> Self {
        let (field, lookup) = match key.rsplit_once("__") {
            Some((field, suffix)) => match Lookup::parse(suffix) {
                Some(lookup) => (field, lookup),
                None => (key, Lookup::Exact),
            },
            None => (key, Lookup::Exact),
        };
        Filter {
            field: field.to_owned(),
            lookup,
            value: value.to_owned(),
        }
    }
}

/// One ordering key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderBy {
    /// Field name as the API names it.
    pub field: String,
    /// `-field` in the query string.
    pub descending: bool,
}

/// Everything a list request asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListParams {
    /// Filters, all of which must hold.
    pub filters: Vec<Filter>,
    /// Free text matched case-insensitively against the resource's search fields.
    pub search: Option<String>,
    /// Ordering keys; the primary key always breaks ties.
    pub order: Vec<OrderBy>,
    /// Rows to skip.
    pub offset: i64,
    /// Rows to return.
    pub limit: i64,
}

/// One page of a list and the total number of matching rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    /// Matching rows over all pages.
    pub count: i64,
    /// The rows of this page.
    pub items: Vec<T>,
}

/// Why a list request cannot be answered; each names the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// The resource has no such field (or it cannot be filtered or ordered).
    #[error("{0} is not an allowed field name.")]
    UnknownField(String),
    /// The field holds a secret; filtering or ordering on it would leak it.
    #[error("Filtering on {0} is not allowed.")]
    SecretField(String),
    /// The value does not suit the field or lookup.
    #[error("{field}: {reason}")]
    BadValue {
        /// The field filtered on.
        field: String,
        /// What is wrong with the value.
        reason: String,
    },
}

impl ListError {
    pub(crate) fn bad_value(filter: &Filter, reason: impl Into<String>) -> Self {
        ListError::BadValue {
            field: filter.field.clone(),
            reason: reason.into(),
        }
    }
}

/// Escapes `%`, `_` and `\` for a LIKE pattern used with `ESCAPE '\'`.
pub fn like_pattern(prefix: &str, value: &str, suffix: &str) -> String {
    let mut pattern = String::with_capacity(value.len() + 2);
    pattern.push_str(prefix);
    for c in value.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push_str(suffix);
    pattern
}

#[doc(hidden)]
pub fn parse_bool(filter: &Filter, value: &str) -> Result<bool, ListError> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" | "" => Ok(false),
        _ => Err(ListError::bad_value(
            filter,
            format!("'{value}' is not a boolean."),
        )),
    }
}

#[doc(hidden)]
pub fn parse_i64(filter: &Filter, value: &str) -> Result<i64, ListError> {
    value
        .trim()
        .parse()
        .map_err(|_| ListError::bad_value(filter, format!("'{value}' is not an integer.")))
}

#[doc(hidden)]
pub fn parse_timestamp(filter: &Filter, value: &str) -> Result<crate::Timestamp, ListError> {
    let value = value.trim();
    chrono::DateTime::parse_from_rfc3339(value)
        .map(|t| t.naive_utc())
        .or_else(|_| {
            chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d")
                .map(|d| d.and_time(chrono::NaiveTime::MIN))
        })
        .map_err(|_| ListError::bad_value(filter, format!("'{value}' is not a date or date-time.")))
}

/// Applies a filter to a text column of a boxed query.
#[macro_export]
#[doc(hidden)]
macro_rules! filter_text {
    ($query:expr, $column:expr, $filter:expr) => {{
        use $crate::list::{Lookup, like_pattern, lower};
        let f: &$crate::list::Filter = $filter;
        let v = f.value.clone();
        let l = v.to_lowercase();
        Ok(match f.lookup {
            Lookup::Exact => $query.filter($column.eq(v)),
            Lookup::Iexact => $query.filter(lower($column).eq(l)),
            Lookup::Contains => {
                $query.filter($column.like(like_pattern("%", &v, "%")).escape('\\'))
            }
            Lookup::Icontains => {
                $query.filter(lower($column).like(like_pattern("%", &l, "%")).escape('\\'))
            }
            Lookup::Startswith => {
                $query.filter($column.like(like_pattern("", &v, "%")).escape('\\'))
            }
            Lookup::Istartswith => {
                $query.filter(lower($column).like(like_pattern("", &l, "%")).escape('\\'))
            }
            Lookup::Endswith => $query.filter($column.like(like_pattern("%", &v, "")).escape('\\')),
            Lookup::Iendswith => {
                $query.filter(lower($column).like(like_pattern("%", &l, "")).escape('\\'))
            }
            Lookup::In => {
                $query.filter($column.eq_any(v.split(',').map(str::to_owned).collect::<Vec<_>>()))
            }
            Lookup::Gt => $query.filter($column.gt(v)),
            Lookup::Gte => $query.filter($column.ge(v)),
            Lookup::Lt => $query.filter($column.lt(v)),
            Lookup::Lte => $query.filter($column.le(v)),
            Lookup::Isnull => {
                // A NOT NULL column is never null.
                if $crate::list::parse_bool(f, &v)? {
                    $query.filter(diesel::dsl::sql::<diesel::sql_types::Bool>("1 = 0"))
                } else {
                    $query
                }
            }
        })
    }};
}

/// Applies a filter to an integer column of a boxed query.
#[macro_export]
#[doc(hidden)]
macro_rules! filter_integer {
    ($query:expr, $column:expr, $filter:expr) => {{
        use $crate::list::{ListError, Lookup, parse_i64};
        let f: &$crate::list::Filter = $filter;
        match f.lookup {
            Lookup::Exact => Ok($query.filter($column.eq(parse_i64(f, &f.value)?))),
            Lookup::In => {
                let ids = f
                    .value
                    .split(',')
                    .map(|part| parse_i64(f, part))
                    .collect::<Result<Vec<i64>, _>>()?;
                Ok($query.filter($column.eq_any(ids)))
            }
            Lookup::Gt => Ok($query.filter($column.gt(parse_i64(f, &f.value)?))),
            Lookup::Gte => Ok($query.filter($column.ge(parse_i64(f, &f.value)?))),
            Lookup::Lt => Ok($query.filter($column.lt(parse_i64(f, &f.value)?))),
            Lookup::Lte => Ok($query.filter($column.le(parse_i64(f, &f.value)?))),
            Lookup::Isnull => {
                if $crate::list::parse_bool(f, &f.value)? {
                    Ok($query.filter(diesel::dsl::sql::<diesel::sql_types::Bool>("1 = 0")))
                } else {
                    Ok($query)
                }
            }
            _ => Err(ListError::BadValue {
                field: f.field.clone(),
                reason: "this lookup does not apply to a number.".to_owned(),
            }),
        }
    }};
}

/// Applies a filter to a boolean column of a boxed query.
#[macro_export]
#[doc(hidden)]
macro_rules! filter_bool {
    ($query:expr, $column:expr, $filter:expr) => {{
        use $crate::list::{ListError, Lookup, parse_bool};
        let f: &$crate::list::Filter = $filter;
        match f.lookup {
            Lookup::Exact | Lookup::Iexact => {
                Ok($query.filter($column.eq(parse_bool(f, &f.value)?)))
            }
            _ => Err(ListError::BadValue {
                field: f.field.clone(),
                reason: "this lookup does not apply to a boolean.".to_owned(),
            }),
        }
    }};
}

/// Applies a filter to a timestamp column of a boxed query.
#[macro_export]
#[doc(hidden)]
macro_rules! filter_timestamp {
    ($query:expr, $column:expr, $filter:expr) => {{
        use $crate::list::{ListError, Lookup, parse_timestamp};
        let f: &$crate::list::Filter = $filter;
        match f.lookup {
            Lookup::Exact => Ok($query.filter($column.eq(parse_timestamp(f, &f.value)?))),
            Lookup::Gt => Ok($query.filter($column.gt(parse_timestamp(f, &f.value)?))),
            Lookup::Gte => Ok($query.filter($column.ge(parse_timestamp(f, &f.value)?))),
            Lookup::Lt => Ok($query.filter($column.lt(parse_timestamp(f, &f.value)?))),
            Lookup::Lte => Ok($query.filter($column.le(parse_timestamp(f, &f.value)?))),
            _ => Err(ListError::BadValue {
                field: f.field.clone(),
                reason: "this lookup does not apply to a date-time.".to_owned(),
            }),
        }
    }};
}

/// Narrows a boxed query to the rows where any of the text columns contains `search`
/// (`Option<&String>`, the `?search=` parameter), case-insensitively and with `LIKE`
/// metacharacters escaped; leaves it as it is without a search.
#[macro_export]
#[doc(hidden)]
macro_rules! search_columns {
    ($query:expr, $search:expr, $first:expr $(, $column:expr)* $(,)?) => {
        match $search {
            Some(text) => {
                let pattern = $crate::list::like_pattern("%", &text.to_lowercase(), "%");
                $query.filter(
                    $crate::list::lower($first)
                        .like(pattern.clone())
                        .escape('\\')
                        $(.or($crate::list::lower($column).like(pattern.clone()).escape('\\')))*,
                )
            }
            None => $query,
        }
    };
}

/// Adds an ordering key on a column to a boxed query.
#[macro_export]
#[doc(hidden)]
macro_rules! order_column {
    ($query:expr, $column:expr, $descending:expr) => {
        if $descending {
            $query.then_order_by($column.desc())
        } else {
            $query.then_order_by($column.asc())
        }
    };
}

/// Writes a table's `filtered` and `ordered` functions from the fields it accepts, each with its
/// kind (`integer`, `text`, `boolean`, `timestamp`) and column, the columns `?search=` looks in
/// and the column that breaks ties after the requested order (the primary key last); then,
/// optionally, fields that filter but do not order, and secret fields, which neither filter
/// nor order and are refused as such ([`ListError::SecretField`]) rather than as unknown.
#[macro_export]
#[doc(hidden)]
macro_rules! list_fields {
    (
        table: $table:ident;
        search: [$($search:expr),+ $(,)?];
        $(default_order: $default:expr;)?
        fields: { $($name:literal => $kind:ident($column:expr)),+ $(,)? }
        $(filter_only: { $($filter_name:literal => $filter_kind:ident($filter_column:expr)),+ $(,)? })?
        $(secret: [$($secret:literal),+ $(,)?])?
    ) => {
        fn filtered<'a>(
            mut query: $table::BoxedQuery<'a, $crate::Backend>,
            params: &$crate::list::ListParams,
        ) -> Result<$table::BoxedQuery<'a, $crate::Backend>, $crate::list::ListError> {
            for filter in &params.filters {
                query = match filter.field.as_str() {
                    $($name => $crate::list_fields!(@filter $kind, query, $column, filter)?,)+
                    $($($filter_name => {
                        $crate::list_fields!(@filter $filter_kind, query, $filter_column, filter)?
                    })+)?
                    $($($secret)|+ => {
                        return Err($crate::list::ListError::SecretField(filter.field.clone()));
                    })?
                    _ => return Err($crate::list::ListError::UnknownField(filter.field.clone())),
                };
            }
            Ok($crate::search_columns!(query, &params.search, $($search),+))
        }

        fn ordered<'a>(
            mut query: $table::BoxedQuery<'a, $crate::Backend>,
            params: &$crate::list::ListParams,
        ) -> Result<$table::BoxedQuery<'a, $crate::Backend>, $crate::list::ListError> {
            for key in &params.order {
                let descending = key.descending;
                query = match key.field.as_str() {
                    $($name => $crate::order_column!(query, $column, descending),)+
                    $($($secret)|+ => {
                        return Err($crate::list::ListError::SecretField(key.field.clone()));
                    })?
                    _ => return Err($crate::list::ListError::UnknownField(key.field.clone())),
                };
            }
            Ok(query
                $(.then_order_by($default.asc()))?
                .then_order_by($table::id.asc()))
        }
    };
    (@filter integer, $query:expr, $column:expr, $filter:expr) => {
        $crate::filter_integer!($query, $column, $filter)
    };
    (@filter text, $query:expr, $column:expr, $filter:expr) => {
        $crate::filter_text!($query, $column, $filter)
    };
    (@filter boolean, $query:expr, $column:expr, $filter:expr) => {
        $crate::filter_bool!($query, $column, $filter)
    };
    (@filter timestamp, $query:expr, $column:expr, $filter:expr) => {
        $crate::filter_timestamp!($query, $column, $filter)
    };
}

/// The rows of `$table` (which has `id` and `organization_id`) that `$visibility`, an
/// [`acs_authz::ObjectVisibility`], shows, as a boxed query.
#[macro_export]
#[doc(hidden)]
macro_rules! visible_rows {
    ($table:ident, $visibility:expr) => {{
        let query = $table::table.into_boxed::<$crate::Backend>();
        match $visibility {
            acs_authz::ObjectVisibility::All => query,
            acs_authz::ObjectVisibility::Only {
                organizations,
                objects,
                ..
            } => query.filter($crate::shown_rows!($table, organizations, objects)),
        }
    }};
}

/// The condition on `$table` of [`visible_rows!`]'s `Only`: in one of the `$organizations`,
/// or one of the `$objects`.
#[macro_export]
#[doc(hidden)]
macro_rules! shown_rows {
    ($table:ident, $organizations:expr, $objects:expr) => {
        $table::organization_id
            .eq_any($organizations.clone())
            .or($table::id.eq_any($objects.clone()))
    };
}

/// Runs a list: counts the rows `$build()` selects and loads the page `params` asks for in the
/// order `$ordered` gives. `$build` returns the filtered query or the list error to answer; the
/// surrounding function returns `StorageResult<Result<Page<_>, ListError>>`.
#[macro_export]
#[doc(hidden)]
macro_rules! list_page {
    ($conn:expr, $params:expr, $build:expr, $ordered:path, $selection:expr) => {{
        let build = $build;
        let counted = match build() {
            Ok(query) => query,
            Err(error) => return Ok(Err(error)),
        };
        let paged = match build().and_then(|query| $ordered(query, $params)) {
            Ok(query) => query,
            Err(error) => return Ok(Err(error)),
        };
        let count = counted.count().get_result($conn)?;
        let items = paged
            .select($selection)
            .offset($params.offset)
            .limit($params.limit)
            .load($conn)?;
        Ok(Ok($crate::list::Page { count, items }))
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_keys_split_into_field_and_lookup() {
        let cases = [
            ("name", "name", Lookup::Exact),
            ("name__icontains", "name", Lookup::Icontains),
            (
                "credential_type__namespace",
                "credential_type__namespace",
                Lookup::Exact,
            ),
            (
                "credential_type__namespace__in",
                "credential_type__namespace",
                Lookup::In,
            ),
            ("id__gte", "id", Lookup::Gte),
        ];
        for (key, field, lookup) in cases {
            let filter = Filter::from_query(key, "v");
            assert_eq!(
                (filter.field.as_str(), filter.lookup),
                (field, lookup),
                "{key}"
            );
        }
    }

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(like_pattern("%", "a_b%c\\", "%"), "%a\\_b\\%c\\\\%");
        assert_eq!(like_pattern("", "x", "%"), "x%");
    }
}
