//! Every route, in one place, each with the description the OpenAPI document gives it.

use actix_web::web;
use serde_json::Value;

use crate::handlers::fallback::UNSERVED_COLLECTIONS;
use crate::handlers::{
    account, activity_stream as activity, applications as apps, automation as auto, change, config,
    create, credential_types as ctypes, credentials as creds, detail, fallback, listing, login,
    logout, metrics, oauth, openapi, organizations as orgs, roles, root, runs, settings, sso,
    teams, tokens, users,
};
use crate::http::options::{ASSOCIATION, FieldMeta};
use crate::openapi::{Endpoint, Operation as Op, Routes};

/// The body of a change to an organization's content sources: an association, or a move.
/// The body of a copy.
const COPY: &[FieldMeta] =
    &[FieldMeta::writable("name", "string", "Name", "The copy's name.").required()];

const SOURCE_ORDER: &[FieldMeta] = &[
    FieldMeta::writable("id", "id", "ID", "The credential.").required(),
    FieldMeta::writable(
        "disassociate",
        "boolean",
        "Disassociate",
        "Remove the source.",
    ),
    FieldMeta::writable(
        "position",
        "integer",
        "Position",
        "Where to move the source.",
    ),
];

/// Registers the routes on an app.
pub fn configure(cfg: &mut web::ServiceConfig) {
    register(&mut Routes::serving(cfg));
}

/// The OpenAPI document of every route.
pub fn openapi_document() -> Value {
    let mut routes = Routes::describing();
    register(&mut routes);
    routes.into_document().to_json()
}

fn register(routes: &mut Routes<'_>) {
    register_root(routes);
    register_pages(routes);
    register_oauth(routes);
    register_accounts(routes);
    register_organizations(routes);
    register_tokens(routes);
    register_credentials(routes);
    register_activity_and_settings(routes);
    register_automation(routes);
    register_roles(routes);
    for name in UNSERVED_COLLECTIONS {
        routes.add(
            Endpoint::new(format!("/api/v2/{name}/"))
                .options(
                    fallback::unserved_collection_options,
                    Op::metadata("Not served by ACS: empty actions for awxkit's probe"),
                )
                .otherwise(fallback::not_found),
        );
    }
}

fn register_root(routes: &mut Routes<'_>) {
    routes.add(Endpoint::new("/api/").get(root::api_root, Op::read("API versions").public()));
    routes.add(
        Endpoint::new("/api/v2/").get(root::api_v2_root, Op::read("Version 2 resources").public()),
    );
    routes.add(Endpoint::new("/api/v2/openapi.json").get(
        openapi::openapi_document,
        Op::read("This document").public(),
    ));
    routes
        .add(Endpoint::new("/api/v2/ping/").get(root::ping, Op::read("Node and version").public()));
    routes.add(Endpoint::new("/api/v2/metrics/").get(
        metrics::metrics,
        Op::text("Prometheus metrics", "text/plain"),
    ));
    routes.add(
        Endpoint::new("/api/v2/config/")
            .get(
                config::get_config,
                Op::read(
                    "Server configuration; the unused project directories for project creators",
                ),
            )
            .options(
                config::options_config,
                Op::metadata("Configuration: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/me/")
            .get(users::get_me, Op::read("The caller, as a one-item list"))
            .options(users::options_me, Op::metadata("The caller: metadata")),
    );
    routes.add(Endpoint::new("/static/acs.css").get(
        fallback::stylesheet,
        Op::asset("The pages' stylesheet", "text/css"),
    ));
    routes.add(Endpoint::new("/static/acs.js").get(
        fallback::script,
        Op::asset("The pages' script", "text/javascript"),
    ));
    routes.add(Endpoint::new("/favicon.ico").get(
        fallback::favicon,
        Op::asset("The pages' icon", "image/x-icon"),
    ));
}

fn register_pages(routes: &mut Routes<'_>) {
    routes.add(
        Endpoint::new("/api/login/")
            .get(login::login_page, Op::page("The login form"))
            .post(
                login::login_submit,
                Op::form("Log in", &["username", "password", "next"]),
            ),
    );
    routes.add(
        Endpoint::new("/api/logout/")
            .get(logout::logout, Op::page("Log out"))
            .post(logout::logout, Op::page("Log out")),
    );
    routes.add(
        Endpoint::new("/api/v2/auth/")
            .get(
                sso::list_sign_on_methods,
                Op::read("The single-sign-on methods").public(),
            )
            .options(
                sso::options_sign_on_methods,
                Op::metadata("The single-sign-on methods: metadata").public(),
            ),
    );
    routes.add(Endpoint::new("/sso/login/{name}/").get(
        sso::start_sign_in,
        Op::page("Start a sign-in at an OpenID provider"),
    ));
    routes.add(Endpoint::new("/sso/complete/{name}/").get(
        sso::complete_sign_in,
        Op::page("Complete a sign-in at an OpenID provider"),
    ));
    routes.add(Endpoint::new("/accounts/profile/").get(account::profile, Op::page("Profile")));
    routes.add(Endpoint::new("/accounts/profile/tokens/").post(
        account::create_token,
        Op::form("Create a personal token", &["description", "scope"]),
    ));
    routes.add(
        Endpoint::new("/accounts/profile/tokens/{id}/revoke/")
            .post(account::revoke_token, Op::form("Revoke a token", &[])),
    );
    let application_form = [
        "name",
        "description",
        "organization",
        "client_type",
        "authorization_grant_type",
        "redirect_uris",
        "skip_authorization",
    ];
    routes.add(
        Endpoint::new("/accounts/applications/")
            .get(account::applications_page, Op::page("Applications"))
            .post(
                account::create_application,
                Op::form("Create an application", &application_form),
            ),
    );
    routes.add(
        Endpoint::new("/accounts/applications/{id}/")
            .get(account::application_page, Op::page("An application"))
            .post(
                account::update_application,
                Op::form("Change an application", &application_form),
            ),
    );
    routes.add(Endpoint::new("/accounts/applications/{id}/delete/").post(
        account::delete_application,
        Op::form("Delete an application", &[]),
    ));
}

fn register_oauth(routes: &mut Routes<'_>) {
    routes.add(
        Endpoint::new("/api/o/").get(oauth::oauth_root, Op::read("OAuth 2 endpoints").public()),
    );
    routes.add(
        Endpoint::new("/api/o/authorize/")
            .get(oauth::authorize_page, Op::page("The consent page"))
            .post(
                oauth::authorize_decision,
                Op::form(
                    "Allow or deny an authorization request",
                    &[
                        "client_id",
                        "redirect_uri",
                        "response_type",
                        "scope",
                        "state",
                        "allow",
                    ],
                ),
            ),
    );
    routes.add(Endpoint::new("/api/o/token/").post(
        oauth::token,
        Op::oauth(
            "Issue tokens (password, authorization_code, refresh_token grants)",
            &[
                "grant_type",
                "username",
                "password",
                "scope",
                "code",
                "redirect_uri",
                "code_verifier",
                "refresh_token",
                "client_id",
                "client_secret",
            ],
        ),
    ));
    for path in ["/api/o/revoke_token/", "/api/o/revoke-token/"] {
        routes.add(Endpoint::new(path).post(
            oauth::revoke_token,
            Op::oauth(
                "Revoke a token (RFC 7009)",
                &["token", "token_type_hint", "client_id", "client_secret"],
            ),
        ));
    }
    routes.add(Endpoint::new("/api/o/introspect/").post(
        oauth::introspect,
        Op::oauth(
            "Introspect a token (RFC 7662)",
            &["token", "token_type_hint"],
        ),
    ));
    routes.add(
        Endpoint::new("/.well-known/oauth-authorization-server").get(
            oauth::authorization_server_metadata,
            Op::read("Authorization server metadata (RFC 8414)").public(),
        ),
    );
}

fn register_accounts(routes: &mut Routes<'_>) {
    let user = &users::META;
    routes.add(
        Endpoint::new("/api/v2/users/")
            .get(listing::list::<users::Users>, Op::list(user))
            .post(create::create::<users::Users>, Op::create(user))
            .options(
                detail::options_collection::<users::Users>,
                Op::metadata("Users: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/users/{user}/")
            .get(detail::get::<users::Users>, Op::detail(user))
            .put(change::put::<users::Users>, Op::replace(user))
            .patch(change::patch::<users::Users>, Op::modify(user))
            .delete(detail::delete::<users::Users>, Op::delete("Delete a user"))
            .options(
                detail::options::<users::Users>,
                Op::metadata("A user: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/users/{user}/applications/")
            .get(
                listing::sub_list::<apps::UserApplications>,
                Op::list(&apps::META),
            )
            .post(
                create::create_under::<apps::UserApplications>,
                Op::create(&apps::META),
            )
            .options(
                detail::options_collection::<apps::Applications>,
                Op::metadata("Applications: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/users/{user}/tokens/")
            .get(
                listing::sub_list::<tokens::UserTokens>,
                Op::list(&tokens::META),
            )
            .post(
                create::create_under::<tokens::UserTokens>,
                Op::create(&tokens::META),
            )
            .options(
                detail::options_collection::<tokens::Tokens>,
                Op::metadata("Tokens: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/users/{user}/personal_tokens/")
            .get(
                listing::sub_list::<tokens::PersonalTokens>,
                Op::list(&tokens::META),
            )
            .post(
                create::create_under::<tokens::PersonalTokens>,
                Op::create(&tokens::META),
            )
            .options(
                detail::options_collection::<tokens::Tokens>,
                Op::metadata("Tokens: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/users/{user}/authorized_tokens/")
            .get(
                listing::sub_list::<tokens::AuthorizedTokens>,
                Op::list(&tokens::META),
            )
            .post(
                create::create_under::<tokens::AuthorizedTokens>,
                Op::create(&tokens::META),
            )
            .options(
                detail::options_collection::<tokens::Tokens>,
                Op::metadata("Tokens: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/users/{user}/activity_stream/")
            .get(
                listing::sub_list::<activity::ActivityOf<users::Users>>,
                Op::list_records("A user's activity"),
            )
            .options(
                activity::options_activity,
                Op::metadata("Activity: metadata"),
            ),
    );
}

fn register_organizations(routes: &mut Routes<'_>) {
    let organization = &orgs::META;
    routes.add(
        Endpoint::new("/api/v2/organizations/")
            .get(listing::list::<orgs::Organizations>, Op::list(organization))
            .post(
                create::create::<orgs::Organizations>,
                Op::create(organization),
            )
            .options(
                detail::options_collection::<orgs::Organizations>,
                Op::metadata("Organizations: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/organizations/{id}/")
            .get(detail::get::<orgs::Organizations>, Op::detail(organization))
            .put(
                change::put::<orgs::Organizations>,
                Op::replace(organization),
            )
            .patch(
                change::patch::<orgs::Organizations>,
                Op::modify(organization),
            )
            .delete(
                detail::delete::<orgs::Organizations>,
                Op::delete("Delete an organization"),
            )
            .options(
                detail::options::<orgs::Organizations>,
                Op::metadata("An organization: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/organizations/{id}/users/")
            .get(orgs::list_members, Op::list(&users::META_FOR_SUBLIST))
            .post(
                orgs::change_members,
                Op::command("Add or remove a member", ASSOCIATION, 204),
            )
            .options(orgs::options_members, Op::metadata("Members: metadata")),
    );
    routes.add(
        Endpoint::new("/api/v2/organizations/{id}/admins/")
            .get(orgs::list_admins, Op::list(&users::META_FOR_SUBLIST))
            .post(
                orgs::change_admins,
                Op::command("Add or remove an admin", ASSOCIATION, 204),
            )
            .options(orgs::options_members, Op::metadata("Admins: metadata")),
    );
    routes.add(
        Endpoint::new("/api/v2/organizations/{id}/applications/")
            .get(
                listing::sub_list::<apps::OrganizationApplications>,
                Op::list(&apps::META),
            )
            .post(
                create::create_under::<apps::OrganizationApplications>,
                Op::create(&apps::META),
            )
            .options(
                detail::options_collection::<apps::Applications>,
                Op::metadata("Applications: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/organizations/{id}/activity_stream/")
            .options(
                activity::options_activity,
                Op::metadata("Activity: metadata"),
            )
            .get(
                listing::sub_list::<activity::ActivityOf<orgs::Organizations>>,
                Op::list_records("An organization's activity"),
            ),
    );
    // One ordered list under two names: the specification's, and the reference's, which its
    // clients (the collection's organization module) read and set.
    for name in ["source_credentials", "galaxy_credentials"] {
        routes.add(
            Endpoint::new(format!("/api/v2/organizations/{{id}}/{name}/"))
                .get(orgs::list_source_credentials, Op::list(&creds::META))
                .post(
                    orgs::change_source_credentials,
                    Op::command("Add, remove or move a content source", SOURCE_ORDER, 204),
                )
                .options(
                    detail::options_collection::<creds::Credentials>,
                    Op::metadata("Credentials: metadata"),
                ),
        );
    }
}

fn register_tokens(routes: &mut Routes<'_>) {
    let application = &apps::META;
    routes.add(
        Endpoint::new("/api/v2/applications/")
            .get(listing::list::<apps::Applications>, Op::list(application))
            .post(
                create::create::<apps::Applications>,
                Op::create(application),
            )
            .options(
                detail::options_collection::<apps::Applications>,
                Op::metadata("Applications: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/applications/{id}/")
            .get(detail::get::<apps::Applications>, Op::detail(application))
            .put(change::put::<apps::Applications>, Op::replace(application))
            .patch(change::patch::<apps::Applications>, Op::modify(application))
            .delete(
                detail::delete::<apps::Applications>,
                Op::delete("Delete an application"),
            )
            .options(
                detail::options::<apps::Applications>,
                Op::metadata("An application: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/applications/{id}/tokens/")
            .get(
                listing::sub_list::<tokens::ApplicationTokens>,
                Op::list(&tokens::META),
            )
            .post(
                create::create_under::<tokens::ApplicationTokens>,
                Op::create(&tokens::META),
            )
            .options(
                detail::options_collection::<tokens::Tokens>,
                Op::metadata("Tokens: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/applications/{id}/activity_stream/")
            .options(
                activity::options_activity,
                Op::metadata("Activity: metadata"),
            )
            .get(
                listing::sub_list::<activity::ActivityOf<apps::Applications>>,
                Op::list_records("An application's activity"),
            ),
    );
    let token = &tokens::META;
    routes.add(
        Endpoint::new("/api/v2/tokens/")
            .get(listing::list::<tokens::Tokens>, Op::list(token))
            .post(create::create::<tokens::Tokens>, Op::create(token))
            .options(
                detail::options_collection::<tokens::Tokens>,
                Op::metadata("Tokens: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/tokens/{id}/")
            .get(detail::get::<tokens::Tokens>, Op::detail(token))
            .put(change::put::<tokens::Tokens>, Op::replace(token))
            .patch(change::patch::<tokens::Tokens>, Op::modify(token))
            .delete(
                detail::delete::<tokens::Tokens>,
                Op::delete("Revoke and delete a token"),
            )
            .options(
                detail::options::<tokens::Tokens>,
                Op::metadata("A token: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/tokens/{id}/activity_stream/")
            .options(
                activity::options_activity,
                Op::metadata("Activity: metadata"),
            )
            .get(
                listing::sub_list::<activity::ActivityOf<tokens::Tokens>>,
                Op::list_records("A token's activity"),
            ),
    );
}

fn register_credentials(routes: &mut Routes<'_>) {
    let credential_type = &ctypes::META;
    routes.add(
        Endpoint::new("/api/v2/credential_types/")
            .get(
                listing::list::<ctypes::CredentialTypes>,
                Op::list(credential_type),
            )
            .post(
                create::create::<ctypes::CredentialTypes>,
                Op::create(credential_type),
            )
            .options(
                detail::options_collection::<ctypes::CredentialTypes>,
                Op::metadata("Credential types: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/credential_types/{id}/")
            .get(
                detail::get::<ctypes::CredentialTypes>,
                Op::detail(credential_type),
            )
            .put(
                change::put::<ctypes::CredentialTypes>,
                Op::replace(credential_type),
            )
            .patch(
                change::patch::<ctypes::CredentialTypes>,
                Op::modify(credential_type),
            )
            .delete(
                detail::delete::<ctypes::CredentialTypes>,
                Op::delete("Delete a credential type"),
            )
            .options(
                detail::options::<ctypes::CredentialTypes>,
                Op::metadata("A credential type: metadata"),
            ),
    );
    let credential = &creds::META;
    routes.add(
        Endpoint::new("/api/v2/credential_types/{id}/credentials/")
            .get(
                listing::sub_list::<creds::TypeCredentials>,
                Op::list(credential),
            )
            .post(
                create::create_under::<creds::TypeCredentials>,
                Op::create(credential),
            )
            .options(
                detail::options_collection::<creds::Credentials>,
                Op::metadata("Credentials: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/credential_types/{id}/activity_stream/")
            .options(
                activity::options_activity,
                Op::metadata("Activity: metadata"),
            )
            .get(
                listing::sub_list::<activity::ActivityOf<ctypes::CredentialTypes>>,
                Op::list_records("A credential type's activity"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/credentials/")
            .get(listing::list::<creds::Credentials>, Op::list(credential))
            .post(create::create::<creds::Credentials>, Op::create(credential))
            .options(
                detail::options_collection::<creds::Credentials>,
                Op::metadata("Credentials: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/credentials/{id}/")
            .get(detail::get::<creds::Credentials>, Op::detail(credential))
            .put(change::put::<creds::Credentials>, Op::replace(credential))
            .patch(change::patch::<creds::Credentials>, Op::modify(credential))
            .delete(
                detail::delete::<creds::Credentials>,
                Op::delete("Delete a credential"),
            )
            .options(
                detail::options::<creds::Credentials>,
                Op::metadata("A credential: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/credentials/{id}/copy/")
            .get(
                creds::copy_credential_check,
                Op::read("Whether the caller may copy the credential"),
            )
            .post(
                creds::copy_credential,
                Op::action("Copy the credential under a new name", COPY, 201),
            )
            .options(
                creds::options_copy,
                Op::metadata("A credential's copy: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/credentials/{id}/activity_stream/")
            .options(
                activity::options_activity,
                Op::metadata("Activity: metadata"),
            )
            .get(
                listing::sub_list::<activity::ActivityOf<creds::Credentials>>,
                Op::list_records("A credential's activity"),
            ),
    );
}

fn register_activity_and_settings(routes: &mut Routes<'_>) {
    routes.add(
        Endpoint::new("/api/v2/activity_stream/")
            .options(
                activity::options_activity,
                Op::metadata("Activity: metadata"),
            )
            .get(
                listing::list::<activity::ActivityStream>,
                Op::list_records("The activity stream"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/activity_stream/{id}/")
            .options(
                activity::options_activity,
                Op::metadata("Activity: metadata"),
            )
            .get(
                detail::get::<activity::ActivityStream>,
                Op::read("One entry of the activity stream"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/settings/")
            .get(
                settings::list_categories,
                Op::list_records("Settings categories"),
            )
            .options(
                settings::options_categories,
                Op::metadata("Settings categories: metadata"),
            ),
    );
    // Before `{category}`: actix tries resources in registration order, and `all` is not a
    // category but every setting at once.
    routes.add(
        Endpoint::new("/api/v2/settings/all/")
            .get(settings::get_all, Op::read("Every setting"))
            .put(settings::put_all, Op::write("Replace settings", 200))
            .patch(settings::patch_all, Op::write("Change any settings", 200))
            .delete(
                settings::reset_all,
                Op::delete("Reset every setting to its default"),
            )
            .options(
                settings::options_all,
                Op::metadata("Every setting: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/settings/{category}/")
            .get(settings::get_category, Op::read("A settings category"))
            .put(
                settings::put_category,
                Op::write("Replace a settings category", 200),
            )
            .patch(settings::patch_category, Op::write("Change settings", 200))
            .delete(
                settings::reset_category,
                Op::delete("Reset a category to its defaults"),
            )
            .options(
                settings::options_category,
                Op::metadata("A category: metadata"),
            ),
    );
}

/// The copy route of an automation resource.
fn copies<R: auto::Copied>(routes: &mut Routes<'_>) {
    routes.add(
        Endpoint::new(format!("/api/v2/{}/{{id}}/copy/", R::COLLECTION))
            .get(
                auto::copy_check::<R>,
                Op::read("Whether the caller may copy it"),
            )
            .post(
                auto::copy::<R>,
                Op::action("Copy it under a new name", COPY, 201),
            )
            .options(creds::options_copy, Op::metadata("A copy: metadata")),
    );
}

/// The collection and detail routes of an automation resource.
fn automation<R: auto::Resource>(routes: &mut Routes<'_>) {
    let meta = &R::META;
    routes.add(
        Endpoint::new(format!("/api/v2/{}/", R::COLLECTION))
            .get(listing::list::<R>, Op::list(meta))
            .post(create::create::<R>, Op::create(meta))
            .options(
                detail::options_collection::<R>,
                Op::metadata("Collection metadata"),
            ),
    );
    routes.add(
        Endpoint::new(format!("/api/v2/{}/{{id}}/", R::COLLECTION))
            .get(detail::get::<R>, Op::detail(meta))
            .put(change::put::<R>, Op::replace(meta))
            .patch(change::patch::<R>, Op::modify(meta))
            .delete(detail::delete::<R>, Op::delete("Delete one"))
            .options(detail::options::<R>, Op::metadata("Record metadata")),
    );
}

/// A membership list of inventory groups, at `/api/v2/<owners>/{id}/<members>/`.
fn memberships<M: auto::Membership>(routes: &mut Routes<'_>, owners: &str, members: &str) {
    let meta = &<M::Member as auto::Resource>::META;
    routes.add(
        Endpoint::new(format!("/api/v2/{owners}/{{id}}/{members}/"))
            .get(auto::list_members::<M>, Op::list(meta))
            .post(
                auto::change_members::<M>,
                Op::command(
                    "Add, take out, or create and add a member",
                    ASSOCIATION,
                    204,
                ),
            )
            .options(
                auto::options_members::<M>,
                Op::metadata("Members: metadata"),
            ),
    );
}

/// An inventory's sub-collection of `R` (hosts, inventory sources).
fn inventory_children<R: auto::Resource>(routes: &mut Routes<'_>) {
    let meta = &R::META;
    routes.add(
        Endpoint::new(format!("/api/v2/inventories/{{id}}/{}/", R::COLLECTION))
            .get(
                listing::sub_list::<auto::InventoryChildren<R>>,
                Op::list(meta),
            )
            .post(
                create::create_under::<auto::InventoryChildren<R>>,
                Op::create(meta),
            )
            .options(
                detail::options_collection::<R>,
                Op::metadata("Collection metadata"),
            ),
    );
}

/// The routes of one kind of run: collection, detail, output, cancel, and the parent's list.
fn run_type<T: runs::RunType>(routes: &mut Routes<'_>) {
    let base = format!("/api/v2/{}/", T::COLLECTION);
    let meta = &runs::META;
    routes.add(
        Endpoint::new(base.clone())
            .get(runs::list_runs::<T>, Op::list(meta))
            .options(runs::options_runs::<T>, Op::metadata("Runs: metadata")),
    );
    routes.add(
        Endpoint::new(format!("{base}{{id}}/"))
            .get(detail::get::<runs::Runs<T>>, Op::detail(meta))
            .delete(
                detail::delete::<runs::Runs<T>>,
                Op::delete("Delete a finished run"),
            )
            .options(runs::options_run::<T>, Op::metadata("A run: metadata")),
    );
    routes.add(
        Endpoint::new(format!("{base}{{id}}/stdout/"))
            .get(runs::get_stdout::<T>, Op::output("The run's output")),
    );
    routes.add(
        Endpoint::new(format!("{base}{{id}}/{}/", T::EVENTS))
            .get(runs::list_events::<T>, Op::list_records("The run's events"))
            .options(runs::options_events, Op::metadata("Events: metadata")),
    );
    routes.add(
        Endpoint::new(format!("{base}{{id}}/cancel/"))
            .get(
                runs::can_cancel_run::<T>,
                Op::read("Whether the run can be cancelled"),
            )
            .post(
                runs::cancel_run::<T>,
                Op::command("Cancel the run", &[], 202),
            ),
    );
    routes.add(
        Endpoint::new(format!("/api/v2/{}/{{id}}/{}/", T::PARENT.1, T::COLLECTION))
            .get(runs::list_runs_of::<T>, Op::list(meta))
            .options(runs::options_runs::<T>, Op::metadata("Runs: metadata")),
    );
}

/// Registers the routes of teams: the resource, its activity, its members and its roles.
fn register_teams(routes: &mut Routes<'_>) {
    let team_meta = &<teams::Teams as auto::Resource>::META;
    automation::<teams::Teams>(routes);
    routes.add(
        Endpoint::new("/api/v2/teams/{id}/activity_stream/")
            .options(
                activity::options_activity,
                Op::metadata("Activity: metadata"),
            )
            .get(
                listing::sub_list::<activity::ActivityOf<teams::Teams>>,
                Op::list_records("A team's activity"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/organizations/{id}/teams/")
            .get(
                listing::sub_list::<teams::OrganizationTeams>,
                Op::list(team_meta),
            )
            .post(
                create::create_under::<teams::OrganizationTeams>,
                Op::create(team_meta),
            )
            .options(
                detail::options_collection::<teams::Teams>,
                Op::metadata("Teams: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/users/{id}/teams/")
            .get(teams::list_user_teams, Op::list(team_meta))
            .options(
                detail::options_collection::<teams::Teams>,
                Op::metadata("Teams: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/credentials/{id}/owner_teams/")
            .get(teams::list_owner_teams, Op::list(team_meta))
            .options(teams::options_team_list, Op::metadata("Teams: metadata")),
    );
    routes.add(
        Endpoint::new("/api/v2/teams/{id}/projects/")
            .get(
                teams::list_team_projects,
                Op::list(&<auto::Projects as auto::Resource>::META),
            )
            .options(
                teams::options_team_projects,
                Op::metadata("Projects: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/teams/{id}/credentials/")
            .get(teams::list_team_credentials, Op::list(&creds::META))
            .options(
                teams::options_team_credentials,
                Op::metadata("Credentials: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/teams/{id}/users/")
            .get(teams::list_team_users, Op::list(&users::META_FOR_SUBLIST))
            .post(
                teams::change_team_users,
                Op::command("Add or remove a member", roles::GRANT_TO_USER_FIELDS, 204),
            )
            .options(
                roles::options_grants,
                Op::metadata("Team members: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/teams/{id}/roles/")
            .get(teams::list_team_roles, Op::list(&roles::META))
            .post(
                teams::change_team_roles,
                Op::command("Grant or revoke a role", roles::GRANT_FIELDS, 204),
            )
            .options(roles::options_grants, Op::metadata("Team roles: metadata")),
    );
    routes.add(
        Endpoint::new("/api/v2/roles/{id}/teams/")
            .get(
                roles::list_role_teams,
                Op::list(&<teams::Teams as auto::Resource>::META),
            )
            .post(
                roles::change_role_teams,
                Op::command("Grant or revoke the role", roles::GRANT_TO_TEAM_FIELDS, 204),
            )
            .options(roles::options_grants, Op::metadata("Role teams: metadata")),
    );
}

/// Registers the routes of the automation resources (contract §6).
fn register_automation(routes: &mut Routes<'_>) {
    automation::<auto::Projects>(routes);
    automation::<auto::Inventories>(routes);
    automation::<auto::Hosts>(routes);
    automation::<auto::Groups>(routes);
    automation::<auto::InventorySources>(routes);
    automation::<auto::JobTemplates>(routes);
    copies::<auto::Projects>(routes);
    copies::<auto::Inventories>(routes);
    copies::<auto::JobTemplates>(routes);
    register_teams(routes);
    routes.add(
        Endpoint::new("/api/v2/job_templates/{id}/credentials/")
            .get(auto::list_template_credentials, Op::list(&creds::META))
            .post(
                auto::change_template_credentials,
                Op::command("Attach or detach a credential", ASSOCIATION, 204),
            )
            .options(
                auto::options_template_credentials,
                Op::metadata("Credentials: metadata"),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/job_templates/{id}/launch/")
            .get(runs::launch_requirements, Op::read("What a launch needs"))
            .post(
                runs::launch_job,
                Op::action("Launch a job", runs::LAUNCH_META.fields, 201),
            )
            .options(runs::options_launch, Op::metadata("Launch: metadata")),
    );
    routes.add(
        Endpoint::new("/api/v2/projects/{id}/update/")
            .get(
                runs::update_status,
                Op::read("Whether the project can be updated"),
            )
            .post(
                runs::start_project_update,
                Op::action("Update the project", &[], 202),
            ),
    );
    routes.add(
        Endpoint::new("/api/v2/inventory_sources/{id}/update/")
            .get(
                runs::update_status,
                Op::read("Whether the source can be updated"),
            )
            .post(
                runs::start_inventory_update,
                Op::action("Update the inventory source", &[], 202),
            ),
    );
    run_type::<runs::Jobs>(routes);
    run_type::<runs::ProjectUpdates>(routes);
    run_type::<runs::InventoryUpdates>(routes);
    inventory_children::<auto::Hosts>(routes);
    inventory_children::<auto::Groups>(routes);
    inventory_children::<auto::InventorySources>(routes);
    memberships::<auto::GroupHosts>(routes, "groups", "hosts");
    memberships::<auto::GroupChildren>(routes, "groups", "children");
    memberships::<auto::HostGroups>(routes, "hosts", "groups");
}

fn register_roles(routes: &mut Routes<'_>) {
    routes.add(
        Endpoint::new("/api/v2/roles/")
            .get(roles::list_roles, Op::list(&roles::META))
            .options(roles::options_role, Op::metadata("Roles: metadata")),
    );
    routes.add(
        Endpoint::new("/api/v2/roles/{id}/")
            .get(roles::get_role, Op::detail(&roles::META))
            .options(roles::options_role, Op::metadata("Role: metadata")),
    );
    routes.add(
        Endpoint::new("/api/v2/roles/{id}/users/")
            .get(roles::list_role_users, Op::list(&users::META_FOR_SUBLIST))
            .post(
                roles::change_role_users,
                Op::command("Grant or revoke the role", roles::GRANT_TO_USER_FIELDS, 204),
            )
            .options(roles::options_grants, Op::metadata("Role users: metadata")),
    );
    routes.add(
        Endpoint::new("/api/v2/users/{id}/roles/")
            .get(roles::list_user_roles, Op::list(&roles::META))
            .post(
                roles::change_user_roles,
                Op::command("Grant or revoke a role", roles::GRANT_FIELDS, 204),
            )
            .options(roles::options_grants, Op::metadata("User roles: metadata")),
    );
    for kind in roles::SERVED_KINDS {
        let collection = roles::collection(kind);
        routes.add(
            Endpoint::new(format!("/api/v2/{collection}/{{id}}/object_roles/"))
                .get(roles::list_object_roles, Op::list(&roles::META))
                .options(roles::options_role, Op::metadata("Object roles: metadata")),
        );
        routes.add(
            Endpoint::new(format!("/api/v2/{collection}/{{id}}/access_list/"))
                .get(roles::list_access, Op::list(&users::META_FOR_SUBLIST))
                .options(roles::options_grants, Op::metadata("Access list: metadata")),
        );
    }
}
