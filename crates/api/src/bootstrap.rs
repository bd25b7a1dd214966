//! What happens once at start: the data directory, the secret key, migrations, settings
//! seeded from the environment, and the first superuser.

use acs_storage::DbConnection;
use ring::rand::SecureRandom;

use crate::config::Config;
use acs_app::settings::registry;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A file or directory could not be created or read.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The database is unreachable or migrations failed.
    #[error("database: {0}")]
    Storage(#[from] acs_storage::StorageError),
    /// An `ACS_<SETTING>` variable is invalid.
    #[error("environment variable ACS_{name}: {reason}")]
    Setting {
        /// The setting.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The secret key files cannot be read or created.
    #[error("secret key: {0}")]
    SecretKey(#[from] acs_app::secret_key::KeyFileError),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> StartError {
    let what = what.into();
    move |source| StartError::Io { what, source }
}

/// Creates the data directory (SQLite only needs it, but the secret key lives there too).
pub fn data_dir(config: &Config) -> Result<(), StartError> {
    std::fs::create_dir_all(&config.data_dir)
        .map_err(io(format!("creating {}", config.data_dir.display())))
}

/// Stores the settings given as `ACS_<NAME>` variables; the environment wins at start.
pub fn seed_settings(
    conn: &mut DbConnection,
    overrides: &[(String, String)],
    cipher: &acs_credential_types::InputCipher,
    rng: &dyn SecureRandom,
) -> Result<(), StartError> {
    if overrides.is_empty() {
        return Ok(());
    }
    let now = chrono::Utc::now().naive_utc();
    let mut validated = Vec::new();
    for (name, raw) in overrides {
        let def = registry::find(name).ok_or_else(|| StartError::Setting {
            name: name.clone(),
            reason: "unknown setting".into(),
        })?;
        let text = (def.validate)(&registry::parse_environment_value(raw))
            .and_then(|value| {
                acs_app::settings::stored_text(def, &value, &serde_json::Value::Null, cipher, rng)
            })
            .map_err(|reason| StartError::Setting {
                name: name.clone(),
                reason,
            })?;
        validated.push((def.name, text));
    }
    let sealed = validated
        .iter()
        .any(|(name, _)| acs_app::settings::may_seal(name));
    diesel::Connection::transaction(conn, |conn| {
        for (name, text) in &validated {
            acs_storage::settings::store(conn, name, text, now)?;
        }
        if sealed {
            acs_app::secret_key::refuse_retired(conn, cipher.current_key_id())?;
        }
        Ok::<_, acs_app::secret_key::SealRefused>(())
    })
    .map_err(|error| match error {
        acs_app::secret_key::SealRefused::Storage(error) => StartError::Storage(error),
        refused => StartError::Other(refused.to_string()),
    })?;
    tracing::info!(
        count = validated.len(),
        "settings taken from the environment"
    );
    Ok(())
}

/// Creates the first superuser when none exists. A generated password is printed once on
/// stderr and nowhere else.
pub fn first_superuser(
    conn: &mut DbConnection,
    config: &Config,
    rng: &dyn SecureRandom,
) -> Result<(), StartError> {
    if acs_storage::users::any_superuser(conn)? {
        return Ok(());
    }
    if acs_storage::users::find_by_username(conn, &config.admin_username)?.is_some() {
        return Err(StartError::Other(format!(
            "no superuser exists and the user '{}' exists without superuser status; set ACS_ADMIN_USERNAME to a free name",
            config.admin_username
        )));
    }
    let (password, generated) = match &config.admin_password {
        Some(password) => (password.clone(), false),
        None => {
            let secret =
                acs_oauth2::generate_secret(rng).map_err(|e| StartError::Other(e.to_string()))?;
            (secret.into_inner(), true)
        }
    };
    let hash = acs_oauth2::hash_password(&password, config.password_iterations, rng)
        .map_err(|e| StartError::Other(e.to_string()))?;
    let now = chrono::Utc::now().naive_utc();
    let values = acs_storage::users::UserValues {
        username: Some(config.admin_username.clone()),
        password: Some(hash),
        first_name: Some(String::new()),
        last_name: Some(String::new()),
        email: Some(String::new()),
        is_superuser: Some(true),
        is_system_auditor: Some(false),
        is_active: Some(true),
        external_account: Some(None),
    };
    acs_storage::users::insert(conn, &values, now)?;
    if generated {
        eprintln!(
            "ACS: created superuser '{}' with generated password: {password}\nACS: this password is shown only once.",
            config.admin_username
        );
    }
    tracing::info!(username = %config.admin_username, "created the first superuser");
    Ok(())
}

/// Creates the managed credential types, or brings them up to date after an upgrade. Nodes
/// starting together may race to create them; the loser's transaction fails on the unique
/// namespace and is retried once, finding them present.
pub fn managed_credential_types(conn: &mut DbConnection) -> Result<(), StartError> {
    let types = acs_credential_types::managed_types();
    let texts: Vec<(String, String)> = types
        .iter()
        .map(|t| (t.inputs.to_string(), t.injectors.to_string()))
        .collect();
    let definitions: Vec<acs_storage::credential_types::ManagedDefinition<'_>> = types
        .iter()
        .zip(&texts)
        .map(
            |(t, (inputs, injectors))| acs_storage::credential_types::ManagedDefinition {
                namespace: t.namespace,
                name: t.name,
                description: t.description,
                kind: t.kind.as_str(),
                inputs,
                injectors,
            },
        )
        .collect();
    let now = chrono::Utc::now().naive_utc();
    let upsert = |conn: &mut DbConnection| {
        diesel::Connection::transaction(conn, |conn| {
            acs_storage::credential_types::upsert_managed(conn, &definitions, now)
        })
    };
    let outcome = match upsert(conn) {
        Err(acs_storage::StorageError::Conflict(_)) => upsert(conn)?,
        other => other?,
    };
    if outcome.created > 0 || outcome.updated > 0 {
        tracing::info!(
            created = outcome.created,
            updated = outcome.updated,
            "managed credential types brought up to date"
        );
    }
    Ok(())
}
