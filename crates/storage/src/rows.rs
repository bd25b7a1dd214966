//! The four row functions every simple table has, written once.

/// Writes `find`, `insert`, `update` and `delete` for a table keyed by `id`, given its row
/// type, its insertable type and its changeset type; after a `;`, only the ones named (a
/// table whose other functions do more than these).
#[macro_export]
#[doc(hidden)]
macro_rules! row_functions {
    ($table:ident, $row:ident, $new:ident, $changes:ident) => {
        $crate::row_functions!($table, $row, $new, $changes; find, insert, update, delete);
    };
    ($table:ident, $row:ident, $new:ident, $changes:ident; $($function:ident),+) => {
        $($crate::row_functions!(@$function $table, $row, $new, $changes);)+
    };
    (@find $table:ident, $row:ident, $new:ident, $changes:ident) => {
        #[doc = concat!("Finds a row of `", stringify!($table), "` by primary key.")]
        pub fn find(conn: &mut $crate::DbConnection, id: i64) -> $crate::StorageResult<$row> {
            Ok($table::table
                .find(id)
                .select($row::as_select())
                .first(conn)?)
        }
    };
    (@insert $table:ident, $row:ident, $new:ident, $changes:ident) => {
        #[doc = concat!("Inserts a row into `", stringify!($table), "`.")]
        pub fn insert(
            conn: &mut $crate::DbConnection,
            new: &$new<'_>,
        ) -> $crate::StorageResult<$row> {
            Ok(diesel::insert_into($table::table)
                .values(new)
                .returning($table::all_columns)
                .get_result(conn)?)
        }
    };
    (@update $table:ident, $row:ident, $new:ident, $changes:ident) => {
        /// Applies `changes` and returns the updated row.
        pub fn update(
            conn: &mut $crate::DbConnection,
            id: i64,
            changes: &$changes,
        ) -> $crate::StorageResult<$row> {
            Ok(diesel::update($table::table.find(id))
                .set(changes)
                .returning($table::all_columns)
                .get_result(conn)?)
        }
    };
    (@delete $table:ident, $row:ident, $new:ident, $changes:ident) => {
        /// Deletes a row; false if there was none.
        pub fn delete(conn: &mut $crate::DbConnection, id: i64) -> $crate::StorageResult<bool> {
            Ok(diesel::delete($table::table.find(id)).execute(conn)? > 0)
        }
    };
}
