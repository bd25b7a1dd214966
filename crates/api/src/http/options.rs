//! `OPTIONS` metadata in the shape awxkit reads: `actions` with `GET` and `POST` (collections)
//! or `GET` and `PUT` (details) field descriptions, plus an `Allow` header.

use serde_json::{Map, Value, json};

/// Description of one field.
#[derive(Debug, Clone, Copy)]
pub struct FieldMeta {
    /// Field name.
    pub name: &'static str,
    /// awxkit type: `string`, `integer`, `boolean`, `id`, `json`, `datetime`, `field`, `object`.
    pub kind: &'static str,
    /// Label.
    pub label: &'static str,
    /// Help text.
    pub help_text: &'static str,
    /// Required on create.
    pub required: bool,
    /// Shown but never written.
    pub read_only: bool,
    /// May be used as a list filter.
    pub filterable: bool,
    /// Maximum length of strings.
    pub max_length: Option<usize>,
    /// `(value, label)` pairs of a choice field, as `GET` shows them.
    pub choices: &'static [(&'static str, &'static str)],
    /// The choices a write (`POST`, `PUT`) accepts, when narrower than `choices`.
    pub write_choices: Option<&'static [(&'static str, &'static str)]>,
}

impl FieldMeta {
    /// A writable field.
    pub const fn writable(
        name: &'static str,
        kind: &'static str,
        label: &'static str,
        help_text: &'static str,
    ) -> Self {
        FieldMeta {
            name,
            kind,
            label,
            help_text,
            required: false,
            read_only: false,
            filterable: true,
            max_length: None,
            choices: &[],
            write_choices: None,
        }
    }

    /// The required `name` of a named record (its uniqueness in `help_text`), at most
    /// `max_length` characters.
    pub const fn name(help_text: &'static str, max_length: usize) -> Self {
        Self::writable("name", "string", "Name", help_text)
            .required()
            .max_length(max_length)
    }

    /// The free-text `description` of a named record.
    pub const DESCRIPTION: Self = Self::writable("description", "string", "Description", "");

    /// The organization that owns a record, given when it is made.
    pub const ORGANIZATION: Self = Self::writable(
        "organization",
        "id",
        "Organization",
        "The owning organization.",
    )
    .required();

    /// A read-only field.
    pub const fn read_only(name: &'static str, kind: &'static str, label: &'static str) -> Self {
        FieldMeta {
            name,
            kind,
            label,
            help_text: "",
            required: false,
            read_only: true,
            filterable: true,
            max_length: None,
            choices: &[],
            write_choices: None,
        }
    }

    /// Marks the field required on create.
    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Marks the field as not filterable (secrets).
    pub const fn unfilterable(mut self) -> Self {
        self.filterable = false;
        self
    }

    /// Sets a maximum length.
    pub const fn max_length(mut self, n: usize) -> Self {
        self.max_length = Some(n);
        self
    }

    /// Lists the choices of a choice field.
    pub const fn choices(mut self, choices: &'static [(&'static str, &'static str)]) -> Self {
        self.choices = choices;
        self
    }

    /// Narrows the choices a write accepts.
    pub const fn write_choices(mut self, choices: &'static [(&'static str, &'static str)]) -> Self {
        self.write_choices = Some(choices);
        self
    }

    fn describe(&self, for_write: bool) -> Value {
        let mut entry = Map::new();
        entry.insert("type".into(), json!(self.kind));
        entry.insert("label".into(), json!(self.label));
        if !self.help_text.is_empty() {
            entry.insert("help_text".into(), json!(self.help_text));
        }
        if for_write {
            entry.insert("required".into(), json!(self.required));
        }
        if let Some(n) = self.max_length {
            entry.insert("max_length".into(), json!(n));
        }
        let choices = match (for_write, self.write_choices) {
            (true, Some(narrower)) => narrower,
            _ => self.choices,
        };
        if !choices.is_empty() {
            entry.insert(
                "choices".into(),
                Value::Array(
                    choices
                        .iter()
                        .map(|(value, label)| json!([value, label]))
                        .collect(),
                ),
            );
        }
        entry.insert("filterable".into(), json!(self.filterable));
        Value::Object(entry)
    }
}

/// The body of an association change (`{"id": …}`, with `"disassociate": true` to undo).
pub const ASSOCIATION: &[FieldMeta] = &[
    FieldMeta::writable("id", "id", "ID", "The record to associate.").required(),
    FieldMeta::writable(
        "disassociate",
        "boolean",
        "Disassociate",
        "Undo the association.",
    ),
];

/// Common read-only fields of every record.
pub const ENVELOPE_FIELDS: &[FieldMeta] = &[
    FieldMeta::read_only("id", "integer", "ID"),
    FieldMeta::read_only("type", "choice", "Type"),
    FieldMeta::read_only("url", "string", "Url").unfilterable(),
    FieldMeta::read_only("related", "object", "Related").unfilterable(),
    FieldMeta::read_only("summary_fields", "object", "Summary fields").unfilterable(),
    FieldMeta::read_only("created", "datetime", "Created"),
    FieldMeta::read_only("modified", "datetime", "Modified"),
];

/// What a resource says about itself.
#[derive(Debug, Clone, Copy)]
pub struct ResourceMeta {
    /// Display name (`User List`).
    pub name: &'static str,
    /// Description.
    pub description: &'static str,
    /// Resource fields (after the envelope).
    pub fields: &'static [FieldMeta],
}

impl ResourceMeta {
    fn get_action(&self) -> Value {
        let fields = ENVELOPE_FIELDS.iter().chain(self.fields);
        Value::Object(
            fields
                .map(|f| (f.name.to_owned(), f.describe(false)))
                .collect(),
        )
    }

    fn write_action(&self) -> Value {
        let fields = self.fields.iter().filter(|f| !f.read_only);
        Value::Object(
            fields
                .map(|f| (f.name.to_owned(), f.describe(true)))
                .collect(),
        )
    }

    /// The metadata body: `GET` always, the write action (`POST` or `PUT`) when allowed.
    fn body(&self, write: Option<&str>) -> Map<String, Value> {
        let mut actions = Map::new();
        actions.insert("GET".into(), self.get_action());
        if let Some(method) = write {
            actions.insert(method.into(), self.write_action());
        }
        let mut body = Map::new();
        body.insert("name".into(), json!(self.name));
        body.insert("description".into(), json!(self.description));
        body.insert("renders".into(), json!(["application/json"]));
        body.insert("parses".into(), json!(["application/json"]));
        body.insert("actions".into(), Value::Object(actions));
        body
    }

    /// Metadata of a collection; `can_create` adds the `POST` action. The `Allow` header
    /// lists what the view implements, whoever asks (DRF's behaviour, which awxkit relies on).
    pub fn collection(&self, can_create: bool) -> (Value, &'static str) {
        let mut body = self.body(can_create.then_some("POST"));
        body.insert("object_roles".into(), json!([]));
        (Value::Object(body), "GET, POST, HEAD, OPTIONS")
    }

    /// Metadata of a resource nobody writes through this path (runs): the `GET` action only,
    /// and `allow` as the `Allow` header.
    pub fn read_only(&self, allow: &str) -> (Value, String) {
        (Value::Object(self.body(None)), allow.to_owned())
    }

    /// Metadata of a list one associates records through (a role's users, a user's roles):
    /// `GET` of the records, and, when given, `POST` of `post`, the association's body.
    pub fn association(&self, post: Option<&'static [FieldMeta]>) -> (Value, String) {
        let mut body = self.body(None);
        if let (Some(fields), Some(Value::Object(actions))) = (post, body.get_mut("actions")) {
            let association = ResourceMeta { fields, ..*self };
            actions.insert("POST".into(), association.write_action());
        }
        (Value::Object(body), "GET, POST, HEAD, OPTIONS".to_owned())
    }

    /// Metadata of a list one both associates records through and creates them in (an
    /// inventory group's hosts): `GET` of the records and, when `may_post`, `POST` taking a
    /// new record's fields or the association's (`association`).
    pub fn association_or_creation(
        &self,
        association: &'static [FieldMeta],
        may_post: bool,
    ) -> (Value, String) {
        let mut body = self.body(may_post.then_some("POST"));
        let attach = ResourceMeta {
            fields: association,
            ..*self
        }
        .write_action();
        if let (Some(Value::Object(post)), Value::Object(attach)) = (
            body.get_mut("actions")
                .and_then(|actions| actions.get_mut("POST")),
            attach,
        ) {
            post.extend(attach);
        }
        (Value::Object(body), "GET, POST, HEAD, OPTIONS".to_owned())
    }

    /// Metadata of a detail; `can_change` adds the `PUT` action. The `Allow` header lists
    /// every method the view implements: awxkit probes `OPTIONS /<collection>/1/` once to
    /// decide which subcommands exist, so it must not depend on which object 1 is.
    pub fn detail(&self, can_change: bool) -> (Value, String) {
        let body = self.body(can_change.then_some("PUT"));
        (
            Value::Object(body),
            "GET, PUT, PATCH, DELETE, HEAD, OPTIONS".to_owned(),
        )
    }
}

/// Answers `OPTIONS` on a path nobody writes through (runs, events, the activity stream,
/// `me/`): `meta`'s `GET` action and `allow`, to any signed-in caller.
pub async fn answer_read_only(
    req: actix_web::HttpRequest,
    state: actix_web::web::Data<crate::state::AppState>,
    meta: &'static ResourceMeta,
    allow: &'static str,
) -> crate::error::ApiResult<actix_web::HttpResponse> {
    let reply = crate::context::run(&state, &req, move |ctx| {
        ctx.require_user()?;
        Ok(meta.read_only(allow))
    })
    .await?;
    Ok(reply.options())
}
