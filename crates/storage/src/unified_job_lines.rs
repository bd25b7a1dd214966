//! A run's output, one row per line (`text` keeps its line end, so the lines joined in order
//! are the output). The events endpoint reads one page of rows; lists of runs carry none.

use diesel::prelude::*;

use crate::list::Lookup;
use crate::schema::unified_job_lines;
use crate::{Backend, DbConnection, StorageResult};

/// Rows per `INSERT`: well under SQLite's limit of bound values per statement.
const ROWS_PER_INSERT: usize = 500;

/// The lines of `text`, each with its line end (the last may have none).
pub fn lines_of(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive('\n')
}

/// Adds `lines` to run `run`'s output, the first of them numbered `first`.
pub fn append(
    conn: &mut DbConnection,
    run: i64,
    first: usize,
    lines: &[&str],
) -> StorageResult<()> {
    for (chunk_index, chunk) in lines.chunks(ROWS_PER_INSERT).enumerate() {
        let start = first + chunk_index * ROWS_PER_INSERT;
        let rows: Vec<_> = chunk
            .iter()
            .enumerate()
            .map(|(offset, text)| {
                (
                    unified_job_lines::unified_job_id.eq(run),
                    unified_job_lines::line.eq(line_number(start + offset)),
                    unified_job_lines::text.eq(*text),
                )
            })
            .collect();
        // One statement per chunk, on the backend's own connection: the multi-backend
        // connection cannot run a multi-row insert.
        let insert = diesel::insert_into(unified_job_lines::table).values(rows);
        match conn {
            DbConnection::Sqlite(inner) => insert.execute(inner)?,
            DbConnection::Postgres(inner) => insert.execute(inner)?,
        };
    }
    Ok(())
}

/// Makes `text` the whole output of run `run`.
pub fn replace(conn: &mut DbConnection, run: i64, text: &str) -> StorageResult<()> {
    diesel::delete(unified_job_lines::table.filter(unified_job_lines::unified_job_id.eq(run)))
        .execute(conn)?;
    let lines: Vec<&str> = lines_of(text).collect();
    append(conn, run, 0, &lines)
}

/// The whole output of run `run`.
pub fn text(conn: &mut DbConnection, run: i64) -> StorageResult<String> {
    let lines: Vec<String> = unified_job_lines::table
        .filter(unified_job_lines::unified_job_id.eq(run))
        .order(unified_job_lines::line.asc())
        .select(unified_job_lines::text)
        .load(conn)?;
    Ok(lines.concat())
}

/// A condition on line numbers (`start_line__gte=3`): `Exact`, `Gt`, `Gte`, `Lt` or `Lte`.
pub type LineFilter = (Lookup, usize);

type LinesQuery<'a> = unified_job_lines::BoxedQuery<'a, Backend>;

/// Run `run`'s lines that `filters` keep.
fn filtered<'a>(run: i64, filters: &[LineFilter]) -> LinesQuery<'a> {
    let mut query = unified_job_lines::table
        .into_boxed()
        .filter(unified_job_lines::unified_job_id.eq(run));
    for (lookup, value) in filters {
        let value = line_number(*value);
        query = match lookup {
            Lookup::Gt => query.filter(unified_job_lines::line.gt(value)),
            Lookup::Gte => query.filter(unified_job_lines::line.ge(value)),
            Lookup::Lt => query.filter(unified_job_lines::line.lt(value)),
            Lookup::Lte => query.filter(unified_job_lines::line.le(value)),
            _ => query.filter(unified_job_lines::line.eq(value)),
        };
    }
    query
}

/// How many lines of run `run` the filters keep, and the page of them (number, text) at
/// `offset`, `limit` long, in ascending or descending order: only the page's rows are read.
pub fn page(
    conn: &mut DbConnection,
    run: i64,
    filters: &[LineFilter],
    descending: bool,
    offset: i64,
    limit: i64,
) -> StorageResult<(i64, Vec<(i32, String)>)> {
    let count = filtered(run, filters).count().get_result(conn)?;
    let order = filtered(run, filters);
    let ordered = if descending {
        order.order(unified_job_lines::line.desc())
    } else {
        order.order(unified_job_lines::line.asc())
    };
    let rows = ordered
        .select((unified_job_lines::line, unified_job_lines::text))
        .offset(offset)
        .limit(limit)
        .load(conn)?;
    Ok((count, rows))
}

/// A line number as stored; outputs are cut at 8 MiB, far below `i32::MAX` lines.
fn line_number(line: usize) -> i32 {
    i32::try_from(line).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use diesel::connection::SimpleConnection;

    use super::*;
    use crate::{Database, run_migrations};

    fn database_with_a_run() -> DbConnection {
        let mut conn = Database::Sqlite(":memory:".into())
            .connect()
            .expect("an in-memory database");
        run_migrations(&mut conn).expect("migrated");
        conn.batch_execute(
            "INSERT INTO unified_jobs (id, kind, name, status, created, modified) \
             VALUES (7, 'job', 'run', 'running', '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
        )
        .expect("a run");
        conn
    }

    #[test]
    fn pages_count_every_kept_line_and_hold_only_their_own() {
        let mut conn = database_with_a_run();
        replace(&mut conn, 7, "zero\none\ntwo\nthree\nfour").expect("stored");
        /// (name, filters, descending, offset, limit, count, lines of the page)
        type Row = (&'static str, Vec<LineFilter>, bool, i64, i64, i64, Vec<i32>);
        #[rustfmt::skip]
        let rows: [Row; 7] = [
            ("first page", vec![], false, 0, 2, 5, vec![0, 1]),
            ("second page", vec![], false, 2, 2, 5, vec![2, 3]),
            ("last, short page", vec![], false, 4, 2, 5, vec![4]),
            ("past the end", vec![], false, 9, 2, 5, vec![]),
            ("descending", vec![], true, 0, 2, 5, vec![4, 3]),
            ("descending, last page", vec![], true, 4, 2, 5, vec![0]),
            ("filtered", vec![(Lookup::Gte, 3)], false, 0, 10, 2, vec![3, 4]),
        ];
        for (name, filters, descending, offset, limit, count, expected) in rows {
            let (total, page) =
                page(&mut conn, 7, &filters, descending, offset, limit).expect(name);
            let lines: Vec<i32> = page.iter().map(|(line, _)| *line).collect();
            assert_eq!((total, lines), (count, expected), "{name}");
        }
        let (_, one) = page(&mut conn, 7, &[], false, 1, 1).expect("one line");
        assert_eq!(one, vec![(1, "one\n".to_owned())]);
    }

    #[test]
    fn appended_lines_then_a_replacement_keep_the_output_as_it_was() {
        let mut conn = database_with_a_run();
        append(&mut conn, 7, 0, &["a\n", "b\n"]).expect("appended");
        append(&mut conn, 7, 2, &["c\n"]).expect("appended");
        assert_eq!(text(&mut conn, 7).expect("text"), "a\nb\nc\n");
        let long: String = (0..1234).map(|i| format!("line {i}\n")).collect();
        let final_output = format!("{long}no end");
        replace(&mut conn, 7, &final_output).expect("replaced");
        assert_eq!(text(&mut conn, 7).expect("text"), final_output);
        let (count, _) = page(&mut conn, 7, &[], false, 0, 1).expect("count");
        assert_eq!(count, 1235);
    }
}
