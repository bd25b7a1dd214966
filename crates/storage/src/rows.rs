//! The four row functions every table a user writes through the API has, written once.

/// Writes `find`, `insert`, `update` and `delete` for a table keyed by `id`, given its row
/// type and its type of optional values, both insertable and a changeset (`None`: the
/// column's default on insert, the column left alone on update); after a `;`, only the ones
/// named (a table whose other functions do more than these). `stamped Values`: the table has
/// the four stamp columns (`created_by`, `modified_by`, `created`, `modified`), and `insert`
/// and `update` take the write's stamps; `timed Values`: it has only `created` and
/// `modified`, and they take the time.
#[macro_export]
#[doc(hidden)]
macro_rules! row_functions {
    ($table:ident, $row:ident, $stamps:ident $values:ident) => {
        $crate::row_functions!($table, $row, $stamps $values; find, insert, update, delete);
    };
    ($table:ident, $row:ident, $stamps:ident $values:ident; $($function:ident),+) => {
        $($crate::row_functions!(@$function $table, $row, $stamps $values);)+
    };
    (@find $table:ident, $row:ident $($other:tt)*) => {
        #[doc = concat!("Finds a row of `", stringify!($table), "` by primary key.")]
        pub fn find(conn: &mut $crate::DbConnection, id: i64) -> $crate::StorageResult<$row> {
            Ok($table::table
                .find(id)
                .select($row::as_select())
                .get_result(conn)?)
        }
    };
    (@insert $table:ident, $row:ident, stamped $values:ident) => {
        #[doc = concat!(
            "Inserts a row into `", stringify!($table), "`: the given values (a `None` takes the ",
            "column's default) and the creation's stamps."
        )]
        pub fn insert(
            conn: &mut $crate::DbConnection,
            values: &$values,
            stamps: $crate::stamps::Creation,
        ) -> $crate::StorageResult<$row> {
            Ok(diesel::insert_into($table::table)
                .values((values, stamps))
                .returning($table::all_columns)
                .get_result(conn)?)
        }
    };
    (@update $table:ident, $row:ident, stamped $values:ident) => {
        /// Applies the given values (a `None` leaves a column as it is) and the change's
        /// stamps; returns the updated row.
        pub fn update(
            conn: &mut $crate::DbConnection,
            id: i64,
            values: &$values,
            stamps: $crate::stamps::Modification,
        ) -> $crate::StorageResult<$row> {
            Ok(diesel::update($table::table.find(id))
                .set((
                    values,
                    $table::modified_by.eq(stamps.by),
                    $table::modified.eq(stamps.at),
                ))
                .returning($table::all_columns)
                .get_result(conn)?)
        }
    };
    (@insert $table:ident, $row:ident, timed $values:ident) => {
        #[doc = concat!(
            "Inserts a row into `", stringify!($table), "` made at `now`: the given values (a ",
            "`None` takes the column's default)."
        )]
        pub fn insert(
            conn: &mut $crate::DbConnection,
            values: &$values,
            now: $crate::Timestamp,
        ) -> $crate::StorageResult<$row> {
            Ok(diesel::insert_into($table::table)
                .values((values, $table::created.eq(now), $table::modified.eq(now)))
                .returning($table::all_columns)
                .get_result(conn)?)
        }
    };
    (@update $table:ident, $row:ident, timed $values:ident) => {
        /// Applies the given values (a `None` leaves a column as it is), changed at `now`;
        /// returns the updated row.
        pub fn update(
            conn: &mut $crate::DbConnection,
            id: i64,
            values: &$values,
            now: $crate::Timestamp,
        ) -> $crate::StorageResult<$row> {
            Ok(diesel::update($table::table.find(id))
                .set((values, $table::modified.eq(now)))
                .returning($table::all_columns)
                .get_result(conn)?)
        }
    };
    (@delete $table:ident, $row:ident $($other:tt)*) => {
        /// Deletes a row; false if there was none.
        pub fn delete(conn: &mut $crate::DbConnection, id: i64) -> $crate::StorageResult<bool> {
            Ok(diesel::delete($table::table.find(id)).execute(conn)? > 0)
        }
    };
}
