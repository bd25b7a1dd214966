//! `/api/v2/teams/`: named groups of users within an organization. A team is a resource like
//! the automation ones (collection and detail by the generic handlers, [`Teams`]); its members
//! are the holders of its member role, and the roles granted to it are its members' too.

mod lists;
mod members;
mod resource;
mod roles;

pub use lists::{
    OrganizationTeams, list_owner_teams, list_team_credentials, list_team_projects,
    list_user_teams, options_team_credentials, options_team_list, options_team_projects,
};
pub use members::{change_team_users, list_team_users};
pub use resource::Teams;
pub use roles::{change_team_roles, list_team_roles};
