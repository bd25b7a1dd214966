//! `OPTIONS` on the activity stream and on every `…/activity_stream/` sub-list: the entries'
//! fields, read only (entries are written by the changes they record, never through the API).

use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiResult;
use crate::http::options::{FieldMeta, ResourceMeta, answer_read_only};
use crate::state::AppState;

/// The entries' metadata.
pub const META: ResourceMeta = ResourceMeta {
    name: "Activity Stream List",
    description: "What was created, changed, deleted, associated and disassociated, by whom.",
    fields: &[
        FieldMeta::read_only("timestamp", "datetime", "Timestamp"),
        FieldMeta::read_only("operation", "choice", "Operation").choices(&[
            ("create", "Entity Created"),
            ("update", "Entity Updated"),
            ("delete", "Entity Deleted"),
            ("associate", "Entity Associated with another Entity"),
            (
                "disassociate",
                "Entity was Disassociated with another Entity",
            ),
        ]),
        FieldMeta::read_only("changes", "json", "Changes"),
        FieldMeta::read_only("object1", "string", "Object1"),
        FieldMeta::read_only("object2", "string", "Object2"),
    ],
};

/// The `Allow` of every activity path.
const ALLOW: &str = "GET, HEAD, OPTIONS";

/// `OPTIONS` on any activity list or entry (the path's ids do not change the answer).
pub async fn options_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &META, ALLOW).await
}
