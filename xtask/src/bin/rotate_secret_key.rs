//! `rotate_secret_key [--check | --prepare] [--settle SECONDS]`: moves every sealed value in the database
//! (credential inputs, secret settings, sign-ins in progress) to a new random secret key while
//! servers keep running, then replaces the key in `ACS_SECRET_KEY_FILE` with it; the old key is
//! gone. Killed at any point, it resumes when run again. `--check` only counts the values each
//! key seals; `--prepare` only writes the next key, for deployments that copy it to each node. Prints key ids and counts, never a key or a value.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use acs_app::key_rotation::{self, Event, Rotation, RotationError};
use acs_app::sealed_values::{self, Kind};
use acs_app::secret_key::{KeyFiles, SecretKey};
use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ring::rand::SystemRandom;
use xtask::management::database::{Location, open_existing};
use xtask::management::{CommandError, exit};

/// Rotate the secret key (reads ACS_DATABASE_URL, ACS_DATA_DIR and ACS_SECRET_KEY_FILE like
/// acs-server).
#[derive(Debug, Parser)]
#[command(name = "rotate_secret_key")]
struct Args {
    /// Only report how many values each key seals; change nothing.
    #[arg(long, conflicts_with = "prepare")]
    check: bool,
    /// Only write the next key beside the key file (or keep the one there), to be copied to
    /// every node of a deployment before the rotation goes on.
    #[arg(long)]
    prepare: bool,
    /// Seconds between the first and the second pass, for requests that read the key files
    /// just before the rotation began.
    #[arg(long, value_name = "SECONDS", default_value_t = key_rotation::DEFAULT_SETTLE.as_secs())]
    settle: u64,
}

fn main() -> ExitCode {
    exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<(), CommandError> {
    let location = Location::from_env();
    let files = KeyFiles::new(&location.secret_key_file());
    let rng = SystemRandom::new();
    if args.prepare {
        let (keys, resumed) = key_rotation::prepare(&files, &rng).map_err(refused)?;
        let next = keys.next.as_ref().map(SecretKey::id);
        let verb = if resumed { "was already" } else { "is now" };
        println!(
            "The next key {} {verb} in {}: copy it (mode 0600) beside ACS_SECRET_KEY_FILE on \
             every node, then run rotate_secret_key.",
            next.map(|id| id.to_string()).unwrap_or_default(),
            files.next_path().display()
        );
        return Ok(());
    }
    let mut conn = open_existing(&location)?;
    if args.check {
        return check(&mut conn, &files);
    }
    let rotation = Rotation {
        files: &files,
        rng: &rng,
        settle: Duration::from_secs(args.settle),
        now: chrono::Utc::now().naive_utc(),
    };
    let rows = acs_storage::sealed::row_counts(&mut conn)?;
    let mut progress = Progress::new(u64::try_from(rows.0 + rows.1 + rows.2).unwrap_or(0));
    let mut fault = FaultPoint::from_env();
    let outcome = key_rotation::rotate(&mut conn, &rotation, &mut |event| {
        fault.reached(&event);
        progress.event(event);
    });
    progress.finish();
    match outcome {
        Ok(rotated) => {
            println!(
                "Re-encrypted {} under key {}; the old key {} is retired.",
                rotated.resealed, rotated.to, rotated.from
            );
            Ok(())
        }
        Err(RotationError::Storage(error)) => Err(CommandError::Refused(format!(
            "database error: {error}. Every value still opens; run rotate_secret_key again \
             to finish the rotation"
        ))),
        Err(error) => Err(CommandError::Refused(error.to_string())),
    }
}

fn refused(error: impl ToString) -> CommandError {
    CommandError::Refused(error.to_string())
}

/// `--check`: the values each key seals, the key files' keys named.
fn check(conn: &mut acs_storage::DbConnection, files: &KeyFiles) -> Result<(), CommandError> {
    let keys = files.read().map_err(refused)?;
    let current = keys.current.id();
    let next = keys.next.as_ref().map(SecretKey::id);
    let census = sealed_values::census(conn, &keys.cipher())?;
    let sealed_by = |id| census.by_key.get(&Some(id)).copied().unwrap_or_default();
    println!("Key {current} (the key file's): {}", sealed_by(current));
    if let Some(next) = next {
        println!(
            "Key {next} (the next key: a rotation is under way): {}",
            sealed_by(next)
        );
    }
    for (key, counts) in &census.by_key {
        match key {
            Some(key) if *key == current || Some(*key) == next => {}
            Some(key) => println!("Key {key} (not held): {counts}"),
            None => println!("Sealed before values named their key: {counts}"),
        }
    }
    if census.unreadable.is_empty() {
        Ok(())
    } else {
        let places: Vec<String> = census.unreadable.iter().map(ToString::to_string).collect();
        Err(CommandError::Refused(format!(
            "{} cannot be opened under any key held: {}",
            acs_app::housekeeping::counted(places.len(), "sealed value", "sealed values"),
            places.join("; ")
        )))
    }
}

/// Progress on stderr: a bar per pass on a terminal, a line a second otherwise.
struct Progress {
    bar: Option<ProgressBar>,
    rows: u64,
    pass: u8,
    read: u64,
    resealed: sealed_values::Counts,
    last_line: Instant,
}

impl Progress {
    fn new(rows: u64) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(rows), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{msg} [{bar:30}] {pos}/{len} rows ({elapsed}, {eta} left)",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style.progress_chars("=> "));
            bar
        });
        Progress {
            bar,
            rows,
            pass: 0,
            read: 0,
            resealed: sealed_values::Counts::default(),
            last_line: Instant::now(),
        }
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Began { from, to, resumed } => {
                let verb = if resumed { "Resuming" } else { "Starting" };
                self.say(&format!("{verb} the rotation from key {from} to key {to}."));
            }
            Event::Pass(pass) => {
                self.end_pass();
                self.pass = pass;
                self.read = 0;
                self.resealed = sealed_values::Counts::default();
                if let Some(bar) = &self.bar {
                    bar.set_position(0);
                    bar.set_message(format!("pass {pass}"));
                }
            }
            Event::Batch(kind, rows, values) => {
                self.read += rows as u64;
                self.resealed.add(kind, values);
                if let Some(bar) = &self.bar {
                    bar.set_position(self.read.min(self.rows));
                } else if self.last_line.elapsed() >= Duration::from_secs(1) {
                    self.line(kind);
                }
            }
            Event::Settling(pause) => {
                self.end_pass();
                self.say(&format!(
                    "Waiting {}s for requests that read the old key, then a second pass.",
                    pause.as_secs()
                ));
            }
            Event::KeyReplaced => {
                self.end_pass();
                self.say("The new key replaced the old one in the key file; a last pass.");
            }
            Event::Retiring => {
                self.end_pass();
                self.say("The old key is marked retired; counting what it still seals.");
            }
        }
    }

    /// A progress line (no terminal).
    fn line(&mut self, kind: Kind) {
        self.last_line = Instant::now();
        self.say(&format!(
            "pass {}: {} of about {} rows read ({}); re-encrypted {}",
            self.pass,
            self.read,
            self.rows,
            match kind {
                Kind::CredentialInputs => "credentials",
                Kind::Settings => "settings",
                Kind::SignIns => "sign-ins",
            },
            self.resealed
        ));
    }

    fn end_pass(&mut self) {
        if self.pass > 0 {
            self.say(&format!(
                "Pass {}: {} rows read, re-encrypted {}.",
                self.pass, self.read, self.resealed
            ));
            self.pass = 0;
        }
    }

    fn say(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            // A closed stderr (a pipe whose reader left) must not stop the rotation.
            None => {
                let _ = writeln!(std::io::stderr(), "{text}");
            }
        }
    }

    fn finish(mut self) {
        self.end_pass();
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Debug builds only (the tests' builds): `ACS_TEST_ROTATION_EXIT_AT=<step>` ends the process
/// at once, without clean-up, as a kill would, when the rotation reaches `step`: `began` (the
/// next key written), `pass-1`, `batch-1` (the first batch of pass 1 written), `settling`,
/// `pass-2`, `batch-2`, `key-replaced`, `pass-3`, `batch-3`, `retiring`. Release builds
/// have no such variable.
struct FaultPoint {
    at: Option<String>,
    pass: u8,
}

/// The exit status of a process ended at a fault point.
const FAULT_EXIT: i32 = 86;

impl FaultPoint {
    fn from_env() -> Self {
        let at = if cfg!(debug_assertions) {
            std::env::var("ACS_TEST_ROTATION_EXIT_AT").ok()
        } else {
            None
        };
        FaultPoint { at, pass: 0 }
    }

    fn reached(&mut self, event: &Event) {
        let Some(at) = &self.at else {
            return;
        };
        let step = match event {
            Event::Began { .. } => "began".to_owned(),
            Event::Pass(pass) => {
                self.pass = *pass;
                format!("pass-{pass}")
            }
            Event::Batch(..) => format!("batch-{}", self.pass),
            Event::Settling(_) => "settling".to_owned(),
            Event::KeyReplaced => "key-replaced".to_owned(),
            Event::Retiring => "retiring".to_owned(),
        };
        if *at == step {
            std::process::exit(FAULT_EXIT);
        }
    }
}
