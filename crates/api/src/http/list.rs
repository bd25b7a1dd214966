//! List requests: paging (`page`, `page_size` capped at 200), `order_by`, `search` and field
//! filters from the query string, and the `{count, next, previous, results}` envelope with
//! relative links.

use acs_storage::list::{Filter, ListParams, OrderBy};
use actix_web::HttpRequest;
use serde::Serialize;

use crate::error::{ApiError, ApiResult};

/// Rows per page unless `page_size` says otherwise.
pub const DEFAULT_PAGE_SIZE: i64 = 25;
/// Largest accepted `page_size`; larger values are capped.
pub const MAX_PAGE_SIZE: i64 = 200;

/// Query keys that are not filters.
const RESERVED: &[&str] = &["page", "page_size", "order_by", "order", "search", "format"];

/// One page of a list as the API renders it.
#[derive(Debug, Clone, Serialize)]
pub struct ListPage<T> {
    /// Matching items over all pages.
    pub count: i64,
    /// Relative link to the next page.
    pub next: Option<String>,
    /// Relative link to the previous page.
    pub previous: Option<String>,
    /// The items of this page.
    pub results: Vec<T>,
}

impl<T> ListPage<T> {
    /// A complete list of `results` on one page.
    pub fn single(results: Vec<T>) -> Self {
        ListPage {
            count: results.len() as i64,
            next: None,
            previous: None,
            results,
        }
    }
}

/// A parsed list request.
#[derive(Debug, Clone)]
pub struct ListRequest {
    /// What storage needs.
    pub params: ListParams,
    page: i64,
    page_size: i64,
    path: String,
    query: Vec<(String, String)>,
}

impl ListRequest {
    /// Parses the query string of `req`.
    pub fn from_request(req: &HttpRequest) -> ApiResult<Self> {
        let query: Vec<(String, String)> = serde_urlencoded::from_str(req.query_string())
            .map_err(|error| ApiError::BadRequest(format!("Malformed query string: {error}")))?;
        Self::from_pairs(req.path().to_owned(), query)
    }

    /// Parses name/value pairs of a query string for the list at `path`.
    pub fn from_pairs(path: String, query: Vec<(String, String)>) -> ApiResult<Self> {
        // PostgreSQL refuses NUL in text; no stored value contains one, so refuse it here.
        if let Some((key, _)) = query
            .iter()
            .find(|(k, v)| k.contains('\0') || v.contains('\0'))
        {
            return Err(ApiError::field(key, "Null characters are not allowed."));
        }
        let get = |name: &str| {
            query
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let page_size = match get("page_size").and_then(|v| v.trim().parse::<i64>().ok()) {
            Some(size) if size > 0 => size.min(MAX_PAGE_SIZE),
            _ => DEFAULT_PAGE_SIZE,
        };
        let page = match get("page") {
            None => 1,
            Some(raw) => match raw.trim().parse::<i64>() {
                Ok(page) if (1..=i64::MAX / MAX_PAGE_SIZE).contains(&page) => page,
                _ => return Err(ApiError::NotFound("Invalid page.".into())),
            },
        };
        let order = get("order_by")
            .or_else(|| get("order"))
            .map(|list| {
                list.split(',')
                    .map(str::trim)
                    .filter(|key| !key.is_empty())
                    .map(|key| match key.strip_prefix('-') {
                        Some(field) => OrderBy {
                            field: field.to_owned(),
                            descending: true,
                        },
                        None => OrderBy {
                            field: key.trim_start_matches('+').to_owned(),
                            descending: false,
                        },
                    })
                    .collect()
            })
            .unwrap_or_default();
        let filters = query
            .iter()
            .filter(|(key, _)| !RESERVED.contains(&key.as_str()))
            .map(|(key, value)| Filter::from_query(key, value))
            .collect();
        let search = get("search")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        Ok(ListRequest {
            params: ListParams {
                filters,
                search,
                order,
                offset: (page - 1) * page_size,
                limit: page_size,
            },
            page,
            page_size,
            path,
            query,
        })
    }

    fn link(&self, page: i64) -> String {
        let mut pairs: Vec<(String, String)> = self
            .query
            .iter()
            .filter(|(k, _)| k != "page" && k != "page_size")
            .cloned()
            .collect();
        pairs.push(("page".into(), page.to_string()));
        if self.query.iter().any(|(k, _)| k == "page_size") {
            pairs.push(("page_size".into(), self.page_size.to_string()));
        }
        // The reference sorts the parameters alphabetically.
        pairs.sort();
        let encoded = serde_urlencoded::to_string(&pairs).unwrap_or_default();
        format!("{}?{}", self.path, encoded)
    }

    /// The envelope of the page this request asks of `items`, a list read whole (a few roles,
    /// say); as [`ListRequest::envelope`].
    pub fn envelope_of<T: Serialize>(&self, items: Vec<T>) -> ApiResult<ListPage<T>> {
        let count = i64::try_from(items.len()).unwrap_or(i64::MAX);
        let offset = usize::try_from(self.params.offset).unwrap_or(0);
        let limit = usize::try_from(self.params.limit).unwrap_or(0);
        let page = items.into_iter().skip(offset).take(limit).collect();
        self.envelope(count, page)
    }

    /// The list envelope; a page past the end (other than the first) is 404 `Invalid page.`.
    pub fn envelope<T: Serialize>(&self, count: i64, results: Vec<T>) -> ApiResult<ListPage<T>> {
        let pages = ((count + self.page_size - 1) / self.page_size).max(1);
        if self.page > pages {
            return Err(ApiError::NotFound("Invalid page.".into()));
        }
        let next = (self.page < pages).then(|| self.link(self.page + 1));
        let previous = (self.page > 1).then(|| self.link(self.page - 1));
        Ok(ListPage {
            count,
            next,
            previous,
            results,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(query: &[(&str, &str)]) -> ApiResult<ListRequest> {
        ListRequest::from_pairs(
            "/api/v2/users/".into(),
            query
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn page_size_is_capped_and_defaulted() {
        let cases = [("500", 200), ("0", 25), ("-3", 25), ("abc", 25), ("7", 7)];
        for (raw, expected) in cases {
            let list = request(&[("page_size", raw)]).expect("valid");
            assert_eq!(list.params.limit, expected, "{raw}");
        }
    }

    #[test]
    fn bad_pages_are_not_found() {
        for raw in ["0", "-1", "x", "99999999999999999999"] {
            assert!(
                matches!(request(&[("page", raw)]), Err(ApiError::NotFound(_))),
                "{raw}"
            );
        }
    }

    #[test]
    fn links_are_relative_and_sorted() {
        let list = request(&[("page", "2"), ("page_size", "5"), ("username", "a")]).expect("valid");
        let body = list.envelope::<()>(12, vec![]).expect("in range");
        assert_eq!(
            body.next.as_deref(),
            Some("/api/v2/users/?page=3&page_size=5&username=a")
        );
        assert_eq!(
            body.previous.as_deref(),
            Some("/api/v2/users/?page=1&page_size=5&username=a")
        );
        assert!(matches!(
            list.envelope::<()>(5, vec![]),
            Err(ApiError::NotFound(_))
        ));
        let first = request(&[])
            .expect("valid")
            .envelope::<()>(0, vec![])
            .expect("empty");
        assert_eq!((first.next, first.previous), (None, None));
    }

    #[test]
    fn filters_and_ordering_are_parsed() {
        let list = request(&[
            ("order_by", "-username,id"),
            ("email__icontains", "x"),
            ("search", " a "),
        ])
        .expect("ok");
        assert_eq!(list.params.order.len(), 2);
        assert!(list.params.order[0].descending);
        assert_eq!(list.params.filters.len(), 1);
        assert_eq!(list.params.search.as_deref(), Some("a"));
    }
}
