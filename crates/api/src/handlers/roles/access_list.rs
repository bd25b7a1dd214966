//! `GET /api/v2/<resource>/<id>/access_list/`: every user with access to the object (those
//! granted a role that gives one of its roles, every superuser and system auditor), each
//! with the roles that give it (`direct_access`: the object's own; `indirect_access`: its
//! organization's, and the system roles).

use std::collections::HashMap;

use acs_authz::roles::{Conferring, ResourceKind, Role};
use acs_storage::roles::RoleRecord;
use acs_storage::users::User;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::access_teams::TeamHolders;
use super::owner::{self, Owner, Owners};
use super::role_users::deprecated;
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::signed_in_list;
use crate::state::AppState;
use acs_app::role_grants::{GrantCheck, TeamChange, team_permitted, user_permitted};

/// `GET /api/v2/<resource>/<id>/access_list/`.
pub async fn list_access(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let kind = super::object_roles::kind_of_path(req.path())?;
    let reply = signed_in_list(&req, &state, move |ctx, principal, list| {
        let object = owner::find(ctx, kind, id)?;
        if !object.visible_to(&principal.actor) {
            return Err(ApiError::permission_denied());
        }
        let conferring = object.resource.conferring();
        let records = records_of(ctx.conn()?, &conferring)?;
        let role_ids: Vec<i64> = records.values().map(|record| record.id).collect();
        let teams = TeamHolders::read(ctx.conn()?, &role_ids)?;
        let mut listed_roles = role_ids.clone();
        listed_roles.extend(teams.membership_roles());
        let page = acs_storage::users::list(
            ctx.conn()?,
            &acs_authz::UserVisibility::All,
            Some(acs_storage::users::Within::Access(&listed_roles)),
            &list.params,
        )??;
        let user_ids: Vec<i64> = page.items.iter().map(|user| user.id).collect();
        let held = acs_storage::roles::memberships_among(ctx.conn()?, &listed_roles, &user_ids)?;
        let mut memberships = acs_storage::users::memberships(ctx.conn()?, &user_ids)?;
        let listed: Vec<RoleRecord> = records.values().cloned().collect();
        let owners = owner::of_each(ctx, &listed)?;
        let access = Access {
            principal,
            kind,
            conferring: &conferring,
            records: &records,
            owners: &owners,
            teams: &teams,
        };
        let mut results = Vec::with_capacity(page.items.len());
        for user in &page.items {
            let memberships = memberships.remove(&user.id).unwrap_or_default();
            let rendered = crate::handlers::users::render_user(principal, user, &memberships);
            let mut record = serde_json::to_value(rendered)
                .map_err(|error| ApiError::Internal(error.to_string()))?;
            let granted: Vec<i64> = held
                .iter()
                .filter(|(_, member)| *member == user.id)
                .map(|(role, _)| *role)
                .collect();
            let target = crate::handlers::users::target_of(user, &memberships);
            let (direct, indirect) = access.of(user, &target, &granted);
            let summary = &mut record["summary_fields"];
            if let Some(summary) = summary.as_object_mut() {
                summary.remove("user_capabilities");
            }
            summary["direct_access"] = Value::Array(direct);
            summary["indirect_access"] = Value::Array(indirect);
            results.push(record);
        }
        list.envelope(page.count, results)
    })
    .await?;
    Ok(deprecated(reply))
}

/// The stored records of the `conferring` roles, by role.
fn records_of(
    conn: &mut acs_storage::DbConnection,
    conferring: &[Conferring],
) -> ApiResult<HashMap<Role, RoleRecord>> {
    let mut objects: Vec<(ResourceKind, i64)> = conferring
        .iter()
        .map(|entry| (entry.role.kind, entry.role.object))
        .collect();
    objects.sort_unstable();
    objects.dedup();
    let mut records = HashMap::new();
    for (kind, object) in objects {
        for record in acs_storage::roles::of_objects(conn, kind, &[object])? {
            if let Some(role) = record.role()
                && conferring.iter().any(|entry| entry.role == role)
            {
                records.insert(role, record);
            }
        }
    }
    Ok(records)
}

/// What an access list's entries are made from.
struct Access<'a> {
    principal: &'a Principal,
    kind: ResourceKind,
    conferring: &'a [Conferring],
    records: &'a HashMap<Role, RoleRecord>,
    owners: &'a Owners,
    teams: &'a TeamHolders,
}

impl Access<'_> {
    /// `user`'s `direct_access` and `indirect_access` entries, given the role ids it was
    /// granted among the listed ones (the conferring roles, and the membership roles of the
    /// teams that hold some): a role held through a team is an entry naming the team.
    fn of(
        &self,
        user: &User,
        target: &acs_authz::TargetUser,
        granted: &[i64],
    ) -> (Vec<Value>, Vec<Value>) {
        let (mut direct, mut indirect) = (Vec::new(), Vec::new());
        let teams = self.teams.teams_of(granted);
        for entry in self.conferring {
            let Some(record) = self.records.get(&entry.role) else {
                continue;
            };
            let owner = owner::lookup(self.owners, record);
            let names: Vec<&str> = entry.gives.iter().map(|field| field.name()).collect();
            let listed = if entry.own {
                &mut direct
            } else {
                &mut indirect
            };
            if granted.contains(&record.id) {
                let unattach = owner.is_some_and(|owner| self.may_revoke(record, owner, target));
                listed.push(element(record, owner, unattach, names.clone()));
            }
            for team in self.teams.holding(record.id, &teams) {
                let unattach = owner.is_some_and(|owner| {
                    let change = TeamChange {
                        role: (record, Some(owner)),
                        team,
                        disassociate: true,
                    };
                    team_permitted(&self.principal.actor, &change).is_ok()
                });
                let mut element = element(record, owner, unattach, names.clone());
                self.teams.name_team(&mut element, team);
                listed.push(element);
            }
        }
        let system = |name: &str, description: &str, names: Vec<&str>| {
            json!({
                "role": {
                    "id": null,
                    "name": name,
                    "description": description,
                    "user_capabilities": { "unattach": false },
                },
                "descendant_roles": names,
            })
        };
        if user.is_superuser {
            let every = self
                .kind
                .fields()
                .iter()
                .map(|field| field.name())
                .collect();
            indirect.push(system(
                "System Administrator",
                "Can manage all aspects of the system",
                every,
            ));
        }
        if user.is_system_auditor {
            indirect.push(system(
                "System Auditor",
                "Can view all aspects of the system",
                vec!["read_role"],
            ));
        }
        (direct, indirect)
    }

    /// The reference's `unattach`: the revoke rule, without its check that the caller can
    /// read the user.
    fn may_revoke(
        &self,
        record: &RoleRecord,
        owner: &Owner,
        target: &acs_authz::TargetUser,
    ) -> bool {
        let change = GrantCheck {
            disassociate: true,
            reading_target: false,
        };
        user_permitted(&self.principal.actor, (record, owner), target, change).is_ok()
    }
}

/// One entry: the role, as an access list shows it, and the object's roles it gives.
fn element(record: &RoleRecord, owner: Option<&Owner>, unattach: bool, gives: Vec<&str>) -> Value {
    let (name, description) = super::summaries::name_and_description(record);
    let mut role = json!({
        "id": record.id,
        "name": name,
        "description": description,
        "user_capabilities": { "unattach": unattach },
    });
    if let Some(owner) = owner {
        let kind = owner.resource.kind;
        role["resource_name"] = json!(owner.name);
        role["resource_type"] = json!(kind.type_name());
        role["related"] = json!({ kind.type_name(): owner::url(owner) });
    }
    json!({ "role": role, "descendant_roles": gives })
}
