//! `/api/v2/teams/`: named groups of users within an organization. A team is a resource like
//! the automation ones (collection and detail by the generic handlers, [`Teams`]); its members
//! are the holders of its member role, and the roles granted to it are its members' too.

mod members;
mod resource;
mod roles;

pub use members::{change_team_users, list_team_users};
pub use resource::Teams;
pub use roles::{change_team_roles, list_team_roles};
