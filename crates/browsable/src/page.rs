//! What a page shows: the resource, the answer, and the forms of the changes its caller may
//! make.

use serde::Serialize;
use serde_json::Value;

use crate::endpoints::{EndpointInfo, Endpoints};
use crate::fields::{FormField, form_fields};
use crate::json::{api_link, json_html};

/// A change posted from a page: the method it stands for (`POST`, `PUT`, `PATCH`,
/// `DELETE`) and its JSON body.
#[derive(Debug, Clone)]
pub struct Change {
    /// The method.
    pub method: &'static str,
    /// The JSON body, as sent.
    pub content: String,
}

/// Who looks at a page, as far as its forms go.
#[derive(Debug, Clone, Default)]
pub struct Viewer {
    /// The browser's CSRF token (its `csrftoken` cookie), if it has one.
    pub csrf_token: Option<String>,
    /// The request carried `Authorization`: a program, which gets no forms.
    pub authorized: bool,
    /// What the handler said the caller may do beyond the record's own `user_capabilities`.
    pub offer: Offer,
}

/// The changes a handler says the caller may make where the answer does not say so itself: a
/// list has no `user_capabilities`, settings have none, and a run's say `delete: false` (as
/// the reference system's do) though who may run it may delete it once it has finished.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offer {
    /// `POST`: create in a list, associate, launch, update, cancel.
    pub post: bool,
    /// `PUT` and `PATCH`.
    pub change: bool,
    /// `DELETE`.
    pub delete: bool,
}

impl<'a> ApiPage<'a> {
    /// The page of the answer `value` (with `status_line`) to `method` on `path`, after
    /// `change` when it answers one.
    pub fn new(
        endpoints: &Endpoints,
        method: &'a str,
        path: &'a str,
        status_line: String,
        value: &Value,
        change: Option<&Change>,
        viewer: &Viewer,
    ) -> Self {
        let endpoint = endpoints.find(path);
        ApiPage {
            title: endpoint.map_or_else(|| path.to_owned(), EndpointInfo::title),
            description: endpoint.map_or_else(String::new, |e| e.description.clone()),
            method,
            path,
            crumbs: crumbs(path),
            methods: endpoint.map_or_else(String::new, |e| e.methods.join(", ")),
            status: status_line,
            body: json_html(value),
            previous: api_link(value.get("previous")),
            next: api_link(value.get("next")),
            parameters: endpoint.map_or_else(Vec::new, |e| e.parameters.clone()),
            forms: endpoint.and_then(|e| forms(viewer, e, value, change)),
        }
    }
}

/// What the page shows.
#[derive(Debug, Serialize)]
pub struct ApiPage<'a> {
    /// The resource's name ([`EndpointInfo::title`]), or the path.
    title: String,
    /// What the resource is.
    description: String,
    /// The method and path, as asked (a page's change as the method it stood for).
    method: &'a str,
    path: &'a str,
    /// The path's parents, each a link.
    crumbs: Vec<Crumb>,
    /// `Allow`: the methods of the endpoint.
    methods: String,
    /// The status line of the answer.
    status: String,
    /// The answer, as escaped HTML with its API URLs as links.
    body: String,
    /// Previous and next page of a list.
    previous: Option<String>,
    next: Option<String>,
    /// The list's query parameters: paging, ordering, search and the filters.
    parameters: Vec<Parameter>,
    /// The forms of the changes the caller may make.
    forms: Option<Forms>,
}

/// A record page's forms.
#[derive(Debug, Serialize)]
pub struct Forms {
    /// The browser's CSRF token (its `csrftoken` cookie).
    csrf_token: String,
    /// `PATCH` and `PUT`, when the caller may change the record.
    edit: Option<EditForm>,
    /// `DELETE`, when the caller may delete it.
    delete: bool,
    /// `POST` on a list, when the caller may create there.
    create: Option<CreateForm>,
}

#[derive(Debug, Serialize)]
struct CreateForm {
    /// The JSON in the text area: the fields to fill, or what was sent.
    content: String,
    /// The same as typed inputs.
    fields: Vec<FormField>,
}

#[derive(Debug, Serialize)]
struct EditForm {
    /// The JSON in the text area: the record's writable fields, or what was sent.
    content: String,
    /// The methods offered, the one sent first.
    methods: Vec<&'static str>,
    /// The writable fields as typed inputs.
    fields: Vec<FormField>,
}

/// A parent of the page's path, as a link.
#[derive(Debug, Serialize)]
pub struct Crumb {
    /// The path segment.
    pub name: String,
    /// The parent's URL.
    pub url: String,
}

/// A query parameter of a list.
#[derive(Debug, Clone, Serialize)]
pub struct Parameter {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
}

/// `/api/v2/users/1/` → `/api/`, `/api/v2/`, `/api/v2/users/`.
pub fn crumbs(path: &str) -> Vec<Crumb> {
    let mut crumbs = Vec::new();
    let mut url = String::from("/");
    let segments: Vec<_> = path.split('/').filter(|s| !s.is_empty()).collect();
    for segment in segments.iter().take(segments.len().saturating_sub(1)) {
        url.push_str(segment);
        url.push('/');
        crumbs.push(Crumb {
            name: (*segment).to_owned(),
            url: url.clone(),
        });
    }
    crumbs
}

/// The forms of a page for a browser signed in with a session (`viewer`): editing when the
/// record (`user_capabilities.edit`) or the handler ([`Offer::change`]) says its caller may
/// and the endpoint takes `PATCH`, deleting likewise, creating where the handler said the
/// caller may post; after a refused change, its form again with what was sent.
fn forms(
    viewer: &Viewer,
    endpoint: &EndpointInfo,
    value: &Value,
    change: Option<&Change>,
) -> Option<Forms> {
    if viewer.authorized {
        return None;
    }
    let csrf_token = viewer.csrf_token.clone().filter(|t| !t.is_empty())?;
    let capabilities = &value["summary_fields"]["user_capabilities"];
    let offers = |method: &str| endpoint.methods.iter().any(|m| m == method);
    let sent_body =
        |change: &Change| -> Value { serde_json::from_str(&change.content).unwrap_or(Value::Null) };
    let edit_fields = |values: &Value| form_fields(endpoint.fields_for("PATCH"), "edit", values);
    let edit =
        match change {
            Some(change) if matches!(change.method, "PUT" | "PATCH") => Some(EditForm {
                content: change.content.clone(),
                methods: if change.method == "PUT" {
                    vec!["PUT", "PATCH"]
                } else {
                    vec!["PATCH", "PUT"]
                },
                fields: edit_fields(&sent_body(change)),
            }),
            Some(_) => None,
            None => ((capabilities["edit"] == true || viewer.offer.change) && offers("PATCH"))
                .then(|| EditForm {
                    content: writable_fields(&endpoint.writable, value),
                    methods: vec!["PATCH", "PUT"],
                    fields: edit_fields(value),
                }),
        };
    let delete = change.is_none()
        && (capabilities["delete"] == true || viewer.offer.delete)
        && offers("DELETE");
    let create_fields = |values: &Value| form_fields(endpoint.fields_for("POST"), "create", values);
    let create = match change.filter(|c| c.method == "POST") {
        Some(change) => Some(CreateForm {
            content: change.content.clone(),
            fields: create_fields(&sent_body(change)),
        }),
        None => (viewer.offer.post && offers("POST")).then(|| CreateForm {
            content: new_record(&endpoint.creatable),
            fields: create_fields(&Value::Null),
        }),
    };
    (edit.is_some() || delete || create.is_some()).then_some(Forms {
        csrf_token,
        edit,
        delete,
        create,
    })
}

/// A new record's body to fill in: the fields a `POST` takes, each with the empty value of
/// its type.
fn new_record(fields: &[(String, Value)]) -> String {
    let fields: serde_json::Map<String, Value> = fields.iter().cloned().collect();
    serde_json::to_string_pretty(&fields).unwrap_or_default()
}

/// The record's writable fields (those `PATCH` takes) as pretty JSON, secrets left out: a
/// masked value sent back would be taken as the new secret.
/// A body that names no fields (settings) takes all of the record's.
fn writable_fields(writable: &[String], value: &Value) -> String {
    let all: Vec<String>;
    let writable = if writable.is_empty() {
        all = value
            .as_object()
            .map(|record| record.keys().cloned().collect())
            .unwrap_or_default();
        &all
    } else {
        writable
    };
    let fields: serde_json::Map<String, Value> = writable
        .iter()
        .filter_map(|name| value.get(name).map(|v| (name.clone(), v.clone())))
        .filter(|(_, v)| v != acs_credential_types::ENCRYPTED_PLACEHOLDER)
        .collect();
    serde_json::to_string_pretty(&fields).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn runs() -> Endpoints {
        Endpoints::from_document(&json!({"paths": {
            "/api/v2/jobs/{id}/": {"get": {"summary": "Read"}, "delete": {}},
        }}))
    }

    fn delete_offered(viewer: &Viewer, record: &Value) -> bool {
        let endpoints = runs();
        let page = ApiPage::new(
            &endpoints,
            "GET",
            "/api/v2/jobs/1/",
            "200 OK".into(),
            record,
            None,
            viewer,
        );
        page.forms.is_some_and(|forms| forms.delete)
    }

    #[test]
    fn a_delete_form_needs_the_record_or_the_handler_to_allow_it() {
        let session = Viewer {
            csrf_token: Some("token".into()),
            ..Viewer::default()
        };
        let refused = json!({"summary_fields": {"user_capabilities": {"delete": false}}});
        let allowed = json!({"summary_fields": {"user_capabilities": {"delete": true}}});
        assert!(!delete_offered(&session, &refused));
        assert!(delete_offered(&session, &allowed));
        let offered = Viewer {
            offer: Offer {
                delete: true,
                ..Offer::default()
            },
            ..session.clone()
        };
        assert!(delete_offered(&offered, &refused));
        // A program, or a browser without its CSRF token, gets no form whatever is offered.
        let program = Viewer {
            authorized: true,
            ..offered.clone()
        };
        assert!(!delete_offered(&program, &allowed));
        let tokenless = Viewer {
            csrf_token: None,
            ..offered
        };
        assert!(!delete_offered(&tokenless, &allowed));
    }
}
