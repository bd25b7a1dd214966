//! Role-based access control as the reference has it: every object of a role-bearing kind
//! carries one role per role field, roles imply other roles along the implicit-parent graph,
//! and a user holds a role when granted it or one of its ancestors (or by the system flags).
//!
//! - [`ResourceKind`] and [`RoleField`]: the kinds, their fields in declaration order, names
//!   and descriptions as the API shows them.
//! - [`implicit_parents`], [`ancestors`] and [`conferred`]: the graph.
//! - [`Grants`]: the roles a user was granted, and [`Grants::holds`] / [`Grants::visible`];
//!   [`crate::Actor::holds`] adds the system flags.
//! - [`TeamGrant`]: a role granted to a team, which [`crate::Actor::with_team_roles`] gives
//!   the team's members.
//!
//! # Example
//!
//! ```
//! use acs_authz::roles::{Grants, Resource, ResourceKind, Role, RoleField};
//!
//! // Execute on the organization runs its templates, and administers none of them.
//! let grants = Grants::new([Role {
//!     kind: ResourceKind::Organization,
//!     object: 1,
//!     field: RoleField::Execute,
//! }]);
//! let template = Resource::of(ResourceKind::JobTemplate, 7, Some(1));
//! assert!(grants.holds(&template, RoleField::Execute));
//! assert!(!grants.holds(&template, RoleField::Admin));
//! ```

mod fields;
pub(crate) mod grants;
mod graph;
mod teams;

pub use fields::{ResourceKind, RoleField};
pub use grants::{Conferring, Grants, Resource, Role, RoleVisibility};
pub use graph::{Ancestor, Parent, Position, ancestors, conferred, implicit_parents};
pub use teams::TeamGrant;
