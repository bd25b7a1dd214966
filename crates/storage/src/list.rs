//! Listing support shared by every collection: filters with lookups, search, ordering and
//! paging, turned into SQL on the boxed query of each table.
//!
//! The query-string vocabulary is the reference system's (`?name__icontains=x`,
//! `?order_by=-id`, `?search=x`); each repository names the fields it accepts and their
//! columns, and refuses secret fields by name.

use diesel::sql_types::{Bool, Text};

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

/// How a filter joins the others of its request (the reference's key prefixes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Combine {
    /// A plain key (or `chain__`, the same here): it must hold, as every other such one.
    #[default]
    All,
    /// `or__`: at least one of the request's `or__` filters must hold.
    Any,
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
    /// How it joins the request's other filters.
    pub combine: Combine,
    /// `not__`: the rows it does not hold for (rows where the field is null among them).
    pub negated: bool,
}

impl Filter {
    /// A plain filter: `field` compared by `lookup` with `value`.
    pub fn new(field: &str, lookup: Lookup, value: &str) -> Self {
        Filter {
            field: field.to_owned(),
            lookup,
            value: value.to_owned(),
            combine: Combine::All,
            negated: false,
        }
    }

    /// Reads a query key such as `or__not__name__icontains`: the prefixes `chain__`, `or__`
    /// and `not__`, in that order as the reference reads them, then the field and its lookup;
    /// a key without a known lookup suffix is an exact match on the whole rest.
    pub fn from_query(key: &str, value: &str) -> Self {
        let key = key.strip_prefix("chain__").unwrap_or(key);
        let (combine, key) = match key.strip_prefix("or__") {
            Some(rest) => (Combine::Any, rest),
            None => (Combine::All, key),
        };
        let (negated, key) = match key.strip_prefix("not__") {
            Some(rest) => (true, rest),
            None => (false, key),
        };
        let mut filter = Filter::plain(key, value);
        filter.combine = combine;
        filter.negated = negated;
        filter
    }

    fn plain(key: &str, value: &str) -> Self {
        let (field, lookup) = match key.rsplit_once("__") {
            Some((field, suffix)) => match Lookup::parse(suffix) {
                Some(lookup) => (field, lookup),
                None => (key, Lookup::Exact),
            },
            None => (key, Lookup::Exact),
        };
        Filter::new(field, lookup, value)
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

/// A list filter's condition on table `T`: a boolean SQL expression, boxed, so that
/// conditions of any field kind can be negated (`not__`) and joined (`or__`).
pub type Condition<'a, T> =
    Box<dyn diesel::BoxableExpression<T, crate::Backend, SqlType = Bool> + 'a>;

/// Boxes `expression`, a condition on `column`'s table.
#[doc(hidden)]
pub fn condition<'a, C, E>(_column: C, expression: E) -> Condition<'a, C::Table>
where
    C: diesel::Column,
    E: diesel::BoxableExpression<C::Table, crate::Backend, SqlType = Bool> + 'a,
{
    Box::new(expression)
}

/// Boxes `expression`, a condition on `column`'s nullable column: true where it holds, false
/// where it does not or is null (so `not__` keeps the rows where the column is null, as the
/// reference's exclusion does).
#[doc(hidden)]
pub fn nullable_condition<'a, C, E>(_column: C, expression: E) -> Condition<'a, C::Table>
where
    C: diesel::Column,
    E: diesel::Expression<SqlType = diesel::sql_types::Nullable<Bool>>
        + diesel::NullableExpressionMethods
        + diesel::BoolExpressionMethods
        + Clone,
    diesel::dsl::And<diesel::dsl::IsNotNull<E>, diesel::dsl::AssumeNotNull<E>>:
        diesel::BoxableExpression<C::Table, crate::Backend, SqlType = Bool> + 'a,
{
    use diesel::{BoolExpressionMethods as _, ExpressionMethods as _};
    Box::new(
        expression
            .clone()
            .is_not_null()
            .and(expression.assume_not_null()),
    )
}

/// The condition of a filter on a text column.
#[macro_export]
#[doc(hidden)]
macro_rules! text_condition {
    ($column:expr, $filter:expr) => {{
        use $crate::list::{Lookup, condition, like_pattern, lower};
        let f: &$crate::list::Filter = $filter;
        let v = f.value.clone();
        let l = v.to_lowercase();
        let c = $column;
        (|| -> Result<_, $crate::list::ListError> {
            Ok(match f.lookup {
                Lookup::Exact => condition(c, c.eq(v)),
                Lookup::Iexact => condition(c, lower(c).eq(l)),
                Lookup::Contains => condition(c, c.like(like_pattern("%", &v, "%")).escape('\\')),
                Lookup::Icontains => {
                    condition(c, lower(c).like(like_pattern("%", &l, "%")).escape('\\'))
                }
                Lookup::Startswith => condition(c, c.like(like_pattern("", &v, "%")).escape('\\')),
                Lookup::Istartswith => {
                    condition(c, lower(c).like(like_pattern("", &l, "%")).escape('\\'))
                }
                Lookup::Endswith => condition(c, c.like(like_pattern("%", &v, "")).escape('\\')),
                Lookup::Iendswith => {
                    condition(c, lower(c).like(like_pattern("%", &l, "")).escape('\\'))
                }
                Lookup::In => condition(
                    c,
                    c.eq_any(v.split(',').map(str::to_owned).collect::<Vec<_>>()),
                ),
                Lookup::Gt => condition(c, c.gt(v)),
                Lookup::Gte => condition(c, c.ge(v)),
                Lookup::Lt => condition(c, c.lt(v)),
                Lookup::Lte => condition(c, c.le(v)),
                Lookup::Isnull => match $crate::list::parse_bool(f, &v)? {
                    true => condition(c, c.is_null()),
                    false => condition(c, c.is_not_null()),
                },
            })
        })()
    }};
}

/// The condition of a filter on an integer column; `$wrap` boxes a comparison
/// ([`condition`] for a NOT NULL column, [`nullable_condition`] for a nullable one).
#[macro_export]
#[doc(hidden)]
macro_rules! integer_condition {
    ($column:expr, $filter:expr) => {
        $crate::integer_condition!($column, $filter, condition)
    };
    ($column:expr, $filter:expr, $wrap:ident) => {{
        use $crate::list::{ListError, Lookup, condition, parse_i64, $wrap as wrap};
        let f: &$crate::list::Filter = $filter;
        let c = $column;
        (|| -> Result<_, $crate::list::ListError> {
            match f.lookup {
                Lookup::Exact => Ok(wrap(c, c.eq(parse_i64(f, &f.value)?))),
                Lookup::In => {
                    let ids = f
                        .value
                        .split(',')
                        .map(|part| parse_i64(f, part))
                        .collect::<Result<Vec<i64>, _>>()?;
                    Ok(wrap(c, c.eq_any(ids)))
                }
                Lookup::Gt => Ok(wrap(c, c.gt(parse_i64(f, &f.value)?))),
                Lookup::Gte => Ok(wrap(c, c.ge(parse_i64(f, &f.value)?))),
                Lookup::Lt => Ok(wrap(c, c.lt(parse_i64(f, &f.value)?))),
                Lookup::Lte => Ok(wrap(c, c.le(parse_i64(f, &f.value)?))),
                Lookup::Isnull => match $crate::list::parse_bool(f, &f.value)? {
                    true => Ok(condition(c, c.is_null())),
                    false => Ok(condition(c, c.is_not_null())),
                },
                _ => Err(ListError::BadValue {
                    field: f.field.clone(),
                    reason: "this lookup does not apply to a number.".to_owned(),
                }),
            }
        })()
    }};
}

/// The condition of a filter on a boolean column.
#[macro_export]
#[doc(hidden)]
macro_rules! bool_condition {
    ($column:expr, $filter:expr) => {{
        use $crate::list::{ListError, Lookup, condition, parse_bool};
        let f: &$crate::list::Filter = $filter;
        let c = $column;
        (|| -> Result<_, $crate::list::ListError> {
            match f.lookup {
                Lookup::Exact | Lookup::Iexact => Ok(condition(c, c.eq(parse_bool(f, &f.value)?))),
                _ => Err(ListError::BadValue {
                    field: f.field.clone(),
                    reason: "this lookup does not apply to a boolean.".to_owned(),
                }),
            }
        })()
    }};
}

/// The condition of a filter on a timestamp column; `$wrap` as for [`integer_condition!`].
#[macro_export]
#[doc(hidden)]
macro_rules! timestamp_condition {
    ($column:expr, $filter:expr) => {
        $crate::timestamp_condition!($column, $filter, condition)
    };
    ($column:expr, $filter:expr, $wrap:ident) => {{
        use $crate::list::{ListError, Lookup, condition, parse_timestamp, $wrap as wrap};
        let f: &$crate::list::Filter = $filter;
        let c = $column;
        (|| -> Result<_, $crate::list::ListError> {
            match f.lookup {
                Lookup::Exact => Ok(wrap(c, c.eq(parse_timestamp(f, &f.value)?))),
                Lookup::Gt => Ok(wrap(c, c.gt(parse_timestamp(f, &f.value)?))),
                Lookup::Gte => Ok(wrap(c, c.ge(parse_timestamp(f, &f.value)?))),
                Lookup::Lt => Ok(wrap(c, c.lt(parse_timestamp(f, &f.value)?))),
                Lookup::Lte => Ok(wrap(c, c.le(parse_timestamp(f, &f.value)?))),
                Lookup::Isnull => match $crate::list::parse_bool(f, &f.value)? {
                    true => Ok(condition(c, c.is_null())),
                    false => Ok(condition(c, c.is_not_null())),
                },
                _ => Err(ListError::BadValue {
                    field: f.field.clone(),
                    reason: "this lookup does not apply to a date-time.".to_owned(),
                }),
            }
        })()
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

/// Applies `$filters` to `$query`, a boxed query of `$table`, with `$one`, a function giving
/// one filter's [`Condition`]: plain filters narrow the query in turn; a `not__` one keeps
/// the rows its condition does not hold for; the `or__` ones keep the rows any of theirs
/// holds for. Evaluates to `Result<query, ListError>`.
#[macro_export]
#[doc(hidden)]
macro_rules! combine_filters {
    ($table:ident, $query:expr, $filters:expr, $one:path) => {{
        use diesel::BoolExpressionMethods as _;
        let mut query = $query;
        let mut any: Option<$crate::list::Condition<'_, $table::table>> = None;
        let mut outcome: Result<(), $crate::list::ListError> = Ok(());
        for filter in $filters {
            let condition: $crate::list::Condition<'_, $table::table> = match $one(filter) {
                Ok(condition) if filter.negated => Box::new(diesel::dsl::not(condition)),
                Ok(condition) => condition,
                Err(error) => {
                    outcome = Err(error);
                    break;
                }
            };
            match filter.combine {
                $crate::list::Combine::All => query = query.filter(condition),
                $crate::list::Combine::Any => {
                    any = Some(match any.take() {
                        None => condition,
                        Some(earlier) => Box::new(earlier.or(condition)),
                    });
                }
            }
        }
        outcome.map(|()| match any {
            Some(condition) => query.filter(condition),
            None => query,
        })
    }};
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
            query: $table::BoxedQuery<'a, $crate::Backend>,
            params: &$crate::list::ListParams,
        ) -> Result<$table::BoxedQuery<'a, $crate::Backend>, $crate::list::ListError> {
            let query = $crate::combine_filters!($table, query, &params.filters, condition_of)?;
            Ok($crate::search_columns!(query, &params.search, $($search),+))
        }

        /// The condition of one filter.
        fn condition_of(
            filter: &$crate::list::Filter,
        ) -> Result<$crate::list::Condition<'static, $table::table>, $crate::list::ListError> {
            match filter.field.as_str() {
                $($name => $crate::list_fields!(@condition $kind, $column, filter),)+
                $($($filter_name => {
                    $crate::list_fields!(@condition $filter_kind, $filter_column, filter)
                })+)?
                $($($secret)|+ => {
                    Err($crate::list::ListError::SecretField(filter.field.clone()))
                })?
                _ => Err($crate::list::ListError::UnknownField(filter.field.clone())),
            }
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
    (@condition integer, $column:expr, $filter:expr) => {
        $crate::integer_condition!($column, $filter)
    };
    (@condition nullable_integer, $column:expr, $filter:expr) => {
        $crate::integer_condition!($column, $filter, nullable_condition)
    };
    (@condition text, $column:expr, $filter:expr) => {
        $crate::text_condition!($column, $filter)
    };
    (@condition boolean, $column:expr, $filter:expr) => {
        $crate::bool_condition!($column, $filter)
    };
    (@condition timestamp, $column:expr, $filter:expr) => {
        $crate::timestamp_condition!($column, $filter)
    };
    (@condition nullable_timestamp, $column:expr, $filter:expr) => {
        $crate::timestamp_condition!($column, $filter, nullable_condition)
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

/// The rows of `$table` (which has `inventory_id`) in the inventories `$visibility` shows
/// (through their organization, or as objects of their own), as a boxed query: what lives in
/// an inventory (hosts, groups, sources) is seen with it.
#[macro_export]
#[doc(hidden)]
macro_rules! rows_in_visible_inventories {
    ($table:ident, $visibility:expr) => {{
        use $crate::schema::inventories;
        let query = $table::table.into_boxed::<$crate::Backend>();
        match $visibility {
            acs_authz::ObjectVisibility::All => query,
            acs_authz::ObjectVisibility::Only {
                organizations,
                objects,
                ..
            } => query.filter(
                $table::inventory_id.eq_any(
                    inventories::table
                        .filter($crate::shown_rows!(inventories, organizations, objects))
                        .select(inventories::id),
                ),
            ),
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
    fn prefixes_say_how_a_filter_joins_the_others() {
        let cases = [
            ("or__id", "id", Combine::Any, false),
            ("not__name__icontains", "name", Combine::All, true),
            ("or__not__username", "username", Combine::Any, true),
            ("chain__or__name", "name", Combine::Any, false),
            ("chain__id__gt", "id", Combine::All, false),
            // Read in the reference's order only: `not__or__` is a field named `or__x`.
            ("not__or__x", "or__x", Combine::All, true),
        ];
        for (key, field, combine, negated) in cases {
            let filter = Filter::from_query(key, "v");
            assert_eq!(
                (filter.field.as_str(), filter.combine, filter.negated),
                (field, combine, negated),
                "{key}"
            );
        }
        assert_eq!(Filter::from_query("or__id__in", "1,2").lookup, Lookup::In);
    }

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(like_pattern("%", "a_b%c\\", "%"), "%a\\_b\\%c\\\\%");
        assert_eq!(like_pattern("", "x", "%"), "x%");
    }
}
