//! The reference's named URLs (`/api/v2/job_templates/Deploy++Default/`, the template
//! `Deploy` of organization `Default`; `acs_storage::named_urls` has the keys): before
//! routing, a record named by its key has its URL rewritten to its id, so every endpoint of
//! the record (its detail, its sublists, its actions) answers to either. A key that names no
//! record is left as it is, and answers 404 as any unknown record does; the record found is
//! then shown, changed or refused exactly as by its id.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Uri;
use actix_web::middleware::Next;
use actix_web::web;
use percent_encoding::percent_decode_str;

use crate::context::run;
use crate::state::AppState;

/// `(collection, key, rest)` when `path` is `/api/v2/<collection>/<key>/<rest>` with a key
/// that is not an id, of a collection that has named URLs.
fn named(path: &str) -> Option<(&'static str, String, &str)> {
    let after = path.strip_prefix("/api/v2/")?;
    let (collection, after) = after.split_once('/')?;
    let (key, rest) = after.split_once('/')?;
    if key.is_empty() || key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let collection = acs_storage::named_urls::COLLECTIONS
        .into_iter()
        .find(|known| *known == collection)?;
    let key = percent_decode_str(key).decode_utf8().ok()?.into_owned();
    Some((collection, key, rest))
}

/// Rewrites a named URL to the id of the record it names.
pub async fn resolve_named_urls(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let found = named(req.path()).map(|(collection, key, rest)| (collection, key, rest.to_owned()));
    let state = req.app_data::<web::Data<AppState>>().cloned();
    if let (Some((collection, key, rest)), Some(state)) = (found, state) {
        let resolved = run(&state, req.request(), move |ctx| {
            Ok(acs_storage::named_urls::resolve(
                ctx.conn()?,
                collection,
                &key,
            )?)
        })
        .await;
        // A database that cannot answer leaves the URL as it is: the handler then answers
        // as for any record it cannot find or read.
        if let Ok(reply) = resolved
            && let Some(id) = reply.value
        {
            let query = req.query_string();
            let target = if query.is_empty() {
                format!("/api/v2/{collection}/{id}/{rest}")
            } else {
                format!("/api/v2/{collection}/{id}/{rest}?{query}")
            };
            if let Ok(uri) = target.parse::<Uri>() {
                req.match_info_mut().get_mut().update(&uri);
                req.head_mut().uri = uri;
            }
        }
    }
    next.call(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_keys_of_collections_with_named_urls_are_read() {
        assert_eq!(
            named("/api/v2/job_templates/Deploy%20it++Default/launch/"),
            Some(("job_templates", "Deploy it++Default".to_owned(), "launch/"))
        );
        assert_eq!(
            named("/api/v2/organizations/Default/"),
            Some(("organizations", "Default".to_owned(), ""))
        );
        assert_eq!(named("/api/v2/job_templates/12/"), None);
        assert_eq!(named("/api/v2/jobs/Deploy/"), None);
        assert_eq!(named("/api/v2/job_templates/"), None);
        assert_eq!(named("/api/v2/organizations/Default"), None);
        assert_eq!(named("/api/v2/organizations/%FF/"), None);
    }
}
