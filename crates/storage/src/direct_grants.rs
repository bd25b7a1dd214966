//! The ids of the roles granted to a user directly, read in the same statement as the user's
//! row where that saves a round trip.
//!
//! A request that misses the principal cache reads its credential with its user, then the
//! user's roles. On PostgreSQL each statement is a round trip to another process, and the
//! misses of many distinct tokens are bound by them; so the bearer and session lookups there
//! carry the granted role ids as one more column ([`GrantedRoleIds`]), and
//! [`crate::roles::user_roles`] reads only the roles themselves. SQLite answers in process
//! and walks the join by its indexes: it reads them there as before.

use diesel::backend::Backend;
use diesel::expression::{AppearsOnTable, Expression, SelectableExpression, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Array, BigInt};

/// The roles granted to a user directly, as far as the lookup that found the user read them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum DirectGrants {
    /// Not read with the user: [`crate::roles::user_roles`] reads them.
    #[default]
    Unread,
    /// The ids of the granted roles, in no particular order.
    Read(Vec<i64>),
}

/// `ARRAY(SELECT role_id FROM role_members WHERE user_id = users.id)`: a column of a query
/// that joins `users`, answered by the `role_members (user_id)` index for each row. Written
/// as a type of its own (not an SQL literal) so that diesel keeps the statement prepared.
#[derive(Debug, Clone, Copy, QueryId)]
pub(crate) struct GrantedRoleIds;

impl Expression for GrantedRoleIds {
    type SqlType = Array<BigInt>;
}

impl<DB: Backend> QueryFragment<DB> for GrantedRoleIds {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> diesel::QueryResult<()> {
        out.push_sql(
            "ARRAY(SELECT role_members.role_id FROM role_members \
             WHERE role_members.user_id = users.id)",
        );
        Ok(())
    }
}

// It names `users.id`: only queries whose FROM clause has `users` may select it.
impl<QS> AppearsOnTable<QS> for GrantedRoleIds where crate::schema::users::id: AppearsOnTable<QS> {}

impl<QS> SelectableExpression<QS> for GrantedRoleIds where
    crate::schema::users::id: SelectableExpression<QS>
{
}

impl ValidGrouping<()> for GrantedRoleIds {
    type IsAggregate = diesel::expression::is_aggregate::Never;
}
