//! `GET /api/v2/jobs/<id>/job_events/` and `/api/v2/<updates>/<id>/events/`: the run's output
//! as one `verbose` event per line, in the reference's event shape (`counter`, `start_line`,
//! `end_line`, `stdout`), filterable by `start_line`. ACS keeps the output, not Ansible's
//! structured events; this is what awxkit's `--monitor` and `--wait` read.

use acs_storage::list::Lookup;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::{RunType, visible};
use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::http::list::ListRequest;
use crate::state::AppState;

/// A line filter from `start_line`, `start_line__gte`, …
fn line_filter(list: &ListRequest) -> ApiResult<Vec<(Lookup, usize)>> {
    let mut filters = Vec::new();
    for filter in &list.params.filters {
        match filter.field.as_str() {
            "start_line" => {
                let line: usize = filter.value.trim().parse().map_err(|_| {
                    ApiError::field(
                        "start_line",
                        format!("'{}' is not a line number.", filter.value),
                    )
                })?;
                if !matches!(
                    filter.lookup,
                    Lookup::Exact | Lookup::Gt | Lookup::Gte | Lookup::Lt | Lookup::Lte
                ) {
                    return Err(ApiError::field(
                        "start_line",
                        "This lookup does not apply to a line number.",
                    ));
                }
                filters.push((filter.lookup, line));
            }
            // awxkit sends it; events are never truncated here.
            "no_truncate" => {}
            other => {
                return Err(ApiError::BadRequest(format!(
                    "{other} is not an allowed field name."
                )));
            }
        }
    }
    Ok(filters)
}

fn keeps(filters: &[(Lookup, usize)], line: usize) -> bool {
    filters.iter().all(|(lookup, value)| match lookup {
        Lookup::Gt => line > *value,
        Lookup::Gte => line >= *value,
        Lookup::Lt => line < *value,
        Lookup::Lte => line <= *value,
        _ => line == *value,
    })
}

/// One output line as an event of the reference's shape.
fn event(kind: &str, line: usize, text: &str) -> Value {
    json!({
        "id": line + 1,
        "type": kind,
        "counter": line + 1,
        "event": "verbose",
        "start_line": line,
        "end_line": line + 1,
        "stdout": text.trim_end_matches('\n'),
    })
}

/// How many lines of `output` the filters keep, and the page of them (line number, text) at
/// `offset`, `limit` long, in ascending or descending line order. Lines are counted in one
/// pass and only the page's are collected: a multi-megabyte output costs no event per line.
fn page_of_lines<'a>(
    output: &'a str,
    filters: &[(Lookup, usize)],
    descending: bool,
    offset: usize,
    limit: usize,
) -> (usize, Vec<(usize, &'a str)>) {
    let kept = || {
        output
            .split_inclusive('\n')
            .enumerate()
            .filter(|(line, _)| keeps(filters, *line))
    };
    let count = kept().count();
    if !descending {
        return (count, kept().skip(offset).take(limit).collect());
    }
    // The descending page is an ascending run of lines taken from the end, then reversed.
    let end = count.saturating_sub(offset);
    let start = end.saturating_sub(limit);
    let mut page: Vec<_> = kept().skip(start).take(end - start).collect();
    page.reverse();
    (count, page)
}

/// The events of run `id`.
pub async fn list_events<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let filters = line_filter(&list)?;
    let descending = list
        .params
        .order
        .first()
        .is_some_and(|order| order.descending);
    let id = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let job = visible::<T>(ctx, &principal, id)?;
        let kind = if T::COLLECTION == "jobs" {
            "job_event"
        } else {
            "event"
        };
        let offset = usize::try_from(list.params.offset).unwrap_or(usize::MAX);
        let limit = usize::try_from(list.params.limit).unwrap_or(usize::MAX);
        let (count, lines) = page_of_lines(&job.stdout, &filters, descending, offset, limit);
        let page: Vec<Value> = lines
            .into_iter()
            .map(|(line, text)| event(kind, line, text))
            .collect();
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        list.envelope(count, page)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "zero\none\ntwo\nthree\nfour";

    fn lines(page: &[(usize, &str)]) -> Vec<usize> {
        page.iter().map(|(line, _)| *line).collect()
    }

    #[test]
    fn pages_count_every_kept_line_and_hold_only_their_own() {
        /// (name, filters, descending, offset, limit, count, lines of the page)
        type Row = (
            &'static str,
            Vec<(Lookup, usize)>,
            bool,
            usize,
            usize,
            usize,
            Vec<usize>,
        );
        #[rustfmt::skip]
        let rows: [Row; 7] = [
            ("first page", vec![], false, 0, 2, 5, vec![0, 1]),
            ("second page", vec![], false, 2, 2, 5, vec![2, 3]),
            ("last, short page", vec![], false, 4, 2, 5, vec![4]),
            ("past the end", vec![], false, 9, 2, 5, vec![]),
            ("descending", vec![], true, 0, 2, 5, vec![4, 3]),
            ("descending, last page", vec![], true, 4, 2, 5, vec![0]),
            ("filtered", vec![(Lookup::Gte, 3)], false, 0, 10, 2, vec![3, 4]),
        ];
        for (name, filters, descending, offset, limit, count, expected) in rows {
            let (total, page) = page_of_lines(OUTPUT, &filters, descending, offset, limit);
            assert_eq!((total, lines(&page)), (count, expected), "{name}");
        }
        let (_, page) = page_of_lines(OUTPUT, &[], false, 1, 1);
        assert_eq!(page, vec![(1, "one\n")]);
    }
}
