//! Every route, in one place.

use actix_web::web;

use crate::handlers::{
    fallback, login, logout, metrics, organizations as orgs, profile, root, settings, users,
};

/// Collections awxkit probes with `OPTIONS` that this version of ACS does not serve yet.
const UNSERVED_COLLECTIONS: &[&str] = &[
    "projects",
    "inventories",
    "teams",
    "credentials",
    "job_templates",
    "workflow_job_templates",
    "instance_groups",
];

/// The `OPTIONS` route of a resource (actix has no shorthand for it).
fn options<F, Args>(handler: F) -> actix_web::Route
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::route()
        .method(actix_web::http::Method::OPTIONS)
        .to(handler)
}

/// Registers the routes on an app.
pub fn configure(cfg: &mut web::ServiceConfig) {
    let not_allowed = || web::to(fallback::method_not_allowed);
    cfg.service(
        web::resource("/api/")
            .get(root::api_root)
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/")
            .get(root::api_v2_root)
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/ping/")
            .get(root::ping)
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/login/")
            .get(login::login_page)
            .post(login::login_submit)
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/logout/")
            .get(logout::logout)
            .post(logout::logout)
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/accounts/profile/")
            .get(profile::profile)
            .default_service(not_allowed()),
    )
    .service(web::resource("/static/acs.css").get(fallback::stylesheet))
    .service(
        web::resource("/api/v2/metrics/")
            .get(metrics::metrics)
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/me/")
            .get(users::get_me)
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/users/")
            .get(users::list_users)
            .post(users::create_user)
            .route(options(users::options_users))
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/users/{user}/")
            .get(users::get_user)
            .put(users::put_user)
            .patch(users::patch_user)
            .delete(users::delete_user)
            .route(options(users::options_user))
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/organizations/")
            .get(orgs::list_organizations)
            .post(orgs::create_organization)
            .route(options(orgs::options_organizations))
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/organizations/{id}/")
            .get(orgs::get_organization)
            .put(orgs::put_organization)
            .patch(orgs::patch_organization)
            .delete(orgs::delete_organization)
            .route(options(orgs::options_organization))
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/organizations/{id}/users/")
            .get(orgs::list_members)
            .post(orgs::change_members)
            .route(options(orgs::options_members))
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/organizations/{id}/admins/")
            .get(orgs::list_admins)
            .post(orgs::change_admins)
            .route(options(orgs::options_members))
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/settings/")
            .get(settings::list_categories)
            .default_service(not_allowed()),
    )
    .service(
        web::resource("/api/v2/settings/{category}/")
            .get(settings::get_category)
            .put(settings::put_category)
            .patch(settings::patch_category)
            .delete(settings::reset_category)
            .route(options(settings::options_category))
            .default_service(not_allowed()),
    );
    for name in UNSERVED_COLLECTIONS {
        cfg.service(
            web::resource(format!("/api/v2/{name}/"))
                .route(options(fallback::unserved_collection_options))
                .default_service(web::to(fallback::not_found)),
        );
    }
}
