//! The rows that hold sealed secrets, read in key order and rewritten only where unchanged.
//!
//! A key rotation (`rotate_secret_key`) walks them while servers keep writing: it reads a
//! batch outside any transaction, seals the values again, and writes each row back in one
//! transaction with a compare-and-set (`WHERE … = <what was read>`). A row a server changed in
//! between is left as the server wrote it (sealed under whichever key the server held), and
//! the rotation's next pass takes it. So no write of a server is ever lost.

use diesel::connection::{AnsiTransactionManager, TransactionManager};
use diesel::prelude::*;

use crate::schema::{credential_types, credentials, settings, sso_states};
use crate::{DbConnection, StorageResult};

/// A credential's stored inputs, and its type.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct CredentialInputs {
    /// The credential.
    pub id: i64,
    /// Its type, which says which inputs are secret.
    pub credential_type_id: i64,
    /// The inputs JSON, secret values sealed.
    pub inputs: String,
}

/// The credentials after id `after`, at most `limit` of them, in id order.
pub fn credential_inputs_after(
    conn: &mut DbConnection,
    after: i64,
    limit: i64,
) -> StorageResult<Vec<CredentialInputs>> {
    Ok(credentials::table
        .filter(credentials::id.gt(after))
        .order(credentials::id)
        .limit(limit)
        .select((
            credentials::id,
            credentials::credential_type_id,
            credentials::inputs,
        ))
        .load(conn)?)
}

/// `(inputs JSON, managed)` of a credential type; `None` when it is gone.
pub fn credential_type_inputs(
    conn: &mut DbConnection,
    id: i64,
) -> StorageResult<Option<(String, bool)>> {
    Ok(credential_types::table
        .find(id)
        .select((credential_types::inputs, credential_types::managed))
        .get_result(conn)
        .optional()?)
}

/// A credential's inputs to replace: `(id, the inputs read, the new inputs)`.
pub type InputsReplacement<'a> = (i64, &'a str, &'a str);

/// Replaces the inputs of each credential of `replacements` whose inputs are still those
/// read; returns the ids replaced. The credentials' `modified` times stay: their inputs mean
/// the same.
pub fn replace_credential_inputs(
    conn: &mut DbConnection,
    replacements: &[InputsReplacement<'_>],
) -> StorageResult<Vec<i64>> {
    match conn {
        // One statement for the whole batch: a statement per row costs a round trip each,
        // which bounded a rotation at 4 000 values/s (100 000 credentials: 25 s, where SQLite,
        // whose statements are function calls, took 2.4 s).
        DbConnection::Postgres(pg) => {
            use diesel::sql_types::{Array, BigInt, Text};
            #[derive(QueryableByName)]
            struct Replaced {
                #[diesel(sql_type = BigInt)]
                id: i64,
            }
            let ids: Vec<i64> = replacements.iter().map(|row| row.0).collect();
            let read: Vec<&str> = replacements.iter().map(|row| row.1).collect();
            let new: Vec<&str> = replacements.iter().map(|row| row.2).collect();
            let replaced: Vec<Replaced> = diesel::sql_query(
                "UPDATE credentials AS c SET inputs = v.new \
                 FROM unnest($1, $2, $3) AS v(id, read, new) \
                 WHERE c.id = v.id AND c.inputs = v.read RETURNING c.id",
            )
            .bind::<Array<BigInt>, _>(ids)
            .bind::<Array<Text>, _>(read)
            .bind::<Array<Text>, _>(new)
            .load(pg)?;
            Ok(replaced.into_iter().map(|row| row.id).collect())
        }
        DbConnection::Sqlite(_) => {
            let mut replaced = Vec::with_capacity(replacements.len());
            for &(id, read, new) in replacements {
                let target = credentials::table
                    .filter(credentials::id.eq(id))
                    .filter(credentials::inputs.eq(read));
                if diesel::update(target)
                    .set(credentials::inputs.eq(new))
                    .execute(conn)?
                    > 0
                {
                    replaced.push(id);
                }
            }
            Ok(replaced)
        }
    }
}

/// Replaces a stored setting's JSON text if it is still `expected`; true when replaced. The
/// settings counter moves (a trigger), so every server reloads it.
pub fn replace_setting(
    conn: &mut DbConnection,
    key: &str,
    expected: &str,
    value: &str,
) -> StorageResult<bool> {
    let target = settings::table
        .filter(settings::key.eq(key))
        .filter(settings::value.eq(expected));
    Ok(diesel::update(target)
        .set(settings::value.eq(value))
        .execute(conn)?
        > 0)
}

/// The sealed parts of a sign-in in progress.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct SignInSecrets {
    /// The row.
    pub id: i64,
    /// The sealed nonce.
    pub nonce: String,
    /// The sealed PKCE verifier.
    pub pkce_verifier: String,
}

/// The sign-ins in progress after id `after`, at most `limit` of them, in id order.
pub fn sign_in_secrets_after(
    conn: &mut DbConnection,
    after: i64,
    limit: i64,
) -> StorageResult<Vec<SignInSecrets>> {
    Ok(sso_states::table
        .filter(sso_states::id.gt(after))
        .order(sso_states::id)
        .limit(limit)
        .select((sso_states::id, sso_states::nonce, sso_states::pkce_verifier))
        .load(conn)?)
}

/// Replaces a sign-in's sealed values if they are still `expected`; true when replaced (a
/// sign-in that completed meanwhile is gone, and that is fine).
pub fn replace_sign_in_secrets(
    conn: &mut DbConnection,
    expected: &SignInSecrets,
    nonce: &str,
    pkce_verifier: &str,
) -> StorageResult<bool> {
    let target = sso_states::table
        .filter(sso_states::id.eq(expected.id))
        .filter(sso_states::nonce.eq(&expected.nonce))
        .filter(sso_states::pkce_verifier.eq(&expected.pkce_verifier));
    Ok(diesel::update(target)
        .set((
            sso_states::nonce.eq(nonce),
            sso_states::pkce_verifier.eq(pkce_verifier),
        ))
        .execute(conn)?
        > 0)
}

/// Row counts of the tables that hold sealed values: `(credentials, settings, sign-ins)`.
pub fn row_counts(conn: &mut DbConnection) -> StorageResult<(i64, i64, i64)> {
    Ok((
        credentials::table.count().get_result(conn)?,
        settings::table.count().get_result(conn)?,
        sso_states::table.count().get_result(conn)?,
    ))
}

/// Runs `work` in one write transaction taken by a process beside the servers: on SQLite it
/// takes the write lock first (`BEGIN IMMEDIATE`, waiting out the busy timeout), so a server's
/// commit in between cannot make it fail half-way.
pub fn in_write_transaction<T, E>(
    conn: &mut DbConnection,
    work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    match conn {
        DbConnection::Sqlite(inner) => {
            AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE")?;
        }
        DbConnection::Postgres(inner) => AnsiTransactionManager::begin_transaction(inner)?,
    }
    match work(conn) {
        Ok(value) => {
            crate::with_backend!(conn, |inner| AnsiTransactionManager::commit_transaction(
                inner
            ))?;
            Ok(value)
        }
        Err(error) => {
            // The work's error is the news; a failed rollback leaves the connection broken,
            // which the next use reports.
            let _ = crate::with_backend!(conn, |inner| {
                AnsiTransactionManager::rollback_transaction(inner)
            });
            Err(error)
        }
    }
}
