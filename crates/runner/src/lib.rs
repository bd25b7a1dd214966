//! The job runner of ACS: runs jobs, project updates and inventory updates (contract §6).
//!
//! Its public surface: [`start`] a run (its row `pending`), [`fail_unfinished`] at a node's
//! start, [`RunQueue`] (this node's places, and the [`Place`] a launch takes in it), the
//! [`Host`] a server hands it (database, settings, keys, places); a run is canceled through
//! its row (`acs_storage::unified_jobs::request_cancel`), which the runner reads every second,
//! and it reports back through its row too: status, explanation, output lines and result code.
//!
//! A launch takes a [`Place`] in the node's queue ([`RunQueue::reserve`], refused when as
//! many runs wait as may), creates a `pending` row and calls [`start`], which runs the work on
//! a thread of its own: prepare a private directory (0700) with the injected files (0600),
//! start the executable in its own process group with a clean environment, watch it (cancel
//! requests are read from the database, so a cancel sent to any node reaches it; the deadline
//! comes from `DEFAULT_JOB_TIMEOUT`), store its output, end the row, and remove the directory
//! whatever happened. Anything that stops a run from starting ends it as `error` with an
//! explanation.
//! A node that starts ends its own unfinished runs as `error`: no process outlives its server.

mod builtin;
mod cgroup;
mod credentials;
mod environment;
mod git_checkout;
mod hand_over;
mod inventory_update;
mod isolate;
mod job;
mod network;
mod private_dir;
mod process;
mod project_copy;
mod project_lock;
mod project_update;
mod queue;
mod sandbox;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use acs_app::settings::Settings;
use acs_credential_types::InputCipher;
use acs_storage::unified_jobs::{RunKind, RunOutcome, RunStatus, UnifiedJob};
use acs_storage::{Database, DbConnection, Pool, StorageError, StorageResult};
use ring::rand::SecureRandom;

pub use job::NO_DIRECTORY;
pub use queue::{Place, QueueFull, RunQueue};

use process::Ending;

/// What a server hands the runner: its database, settings, keys and places. `acs-api`'s
/// state is one.
pub trait Host: Send + Sync + 'static {
    /// The server's connection pool (connections are held only around database work).
    fn pool(&self) -> &Pool;
    /// The settings at `revision`, read from the database only when they changed.
    fn settings(&self, conn: &mut DbConnection, revision: i64) -> StorageResult<Arc<Settings>>;
    /// The cipher of the secret keys in force.
    fn cipher(&self) -> Arc<InputCipher>;
    /// The secure random source (private directories' names).
    fn rng(&self) -> &dyn SecureRandom;
    /// The data directory: runs' private directories go in `runs/` there, and runs never see
    /// it.
    fn data_dir(&self) -> &Path;
    /// The secret key file: runs never see it, nor a next key beside it.
    fn secret_key_file(&self) -> &Path;
    /// The database: an SQLite file is hidden from runs.
    fn database(&self) -> &Database;
    /// This node's runs, executing and waiting.
    fn runs(&self) -> &RunQueue;
}

/// Why a run ended as `error` before or around its process: the text shown as
/// `job_explanation`.
#[derive(Debug)]
pub(crate) struct Explained(String);

impl Explained {
    /// An explanation.
    pub(crate) fn new(text: impl Into<String>) -> Self {
        Explained(text.into())
    }
}

impl From<StorageError> for Explained {
    fn from(error: StorageError) -> Self {
        Explained(format!("The database failed during the run: {error}"))
    }
}

impl From<std::io::Error> for Explained {
    fn from(error: std::io::Error) -> Self {
        Explained(format!("The run's files could not be prepared: {error}"))
    }
}

/// The most output kept for one run; the rest is cut with a note.
const MAX_STDOUT_BYTES: usize = 8 << 20;
/// How often a running run's cancel flag is read and its output so far stored.
const WATCH_EVERY: Duration = Duration::from_secs(1);
/// What a node says of the runs it finds unfinished when it starts.
const LOST_EXPLANATION: &str =
    "The server running this stopped before it finished; the run did not complete.";

/// Runs `run_id` on a thread of its own, or once one of this node's places is free (see
/// [`RunQueue`]), in the `place` its launch took before writing it. The row must be `pending`.
pub fn start(host: Arc<dyn Host>, run_id: i64, place: Place) {
    if !host.runs().admit(run_id, place) {
        let (executing, waiting) = host.runs().load();
        tracing::info!(
            run = run_id,
            executing,
            waiting,
            "run waits for a free place"
        );
        return;
    }
    let mut next = Some(run_id);
    while let Some(run_id) = next {
        let worker = host.clone();
        let spawned = std::thread::Builder::new()
            .name("run".into())
            .spawn(move || {
                let mut next = Some(run_id);
                while let Some(run_id) = next {
                    execute(&*worker, run_id);
                    next = worker.runs().next();
                }
            });
        let Err(error) = spawned else {
            return;
        };
        tracing::error!(run = run_id, %error, "no thread for a run");
        let explanation = format!("No thread could be started for the run: {error}");
        end_unstarted(&*host, run_id, &explanation);
        // The place is this caller's until a thread takes it or nothing waits for it.
        next = host.runs().next();
    }
}

/// Ends a run that never started as `error` with `explanation`.
fn end_unstarted(host: &dyn Host, run_id: i64, explanation: &str) {
    let outcome = RunOutcome {
        status: RunStatus::Error,
        explanation: explanation.to_owned(),
        stdout: String::new(),
        result_code: None,
    };
    let finished = host
        .pool()
        .write(|conn| acs_storage::unified_jobs::finish(conn, run_id, &outcome, now()));
    if let Err(error) = finished {
        tracing::error!(run = run_id, %error, "a run's end could not be stored");
    }
}

/// Ends as `error` the unfinished runs of this node (called once at start).
pub fn fail_unfinished(conn: &mut DbConnection, node: &str) -> Result<usize, StorageError> {
    let now = chrono::SubsecRound::trunc_subsecs(chrono::Utc::now().naive_utc(), 6);
    acs_storage::unified_jobs::fail_unfinished(conn, node, LOST_EXPLANATION, now)
}

/// What preparing a run reads: the database, the host, the settings in force, the run's row
/// and its private directory.
pub(crate) struct Preparing<'a> {
    pub conn: &'a mut DbConnection,
    pub host: &'a dyn Host,
    pub settings: &'a Settings,
    pub row: &'a UnifiedJob,
    pub dir: &'a private_dir::PrivateDir,
    /// A job's copy of its project.
    pub project_copy: Option<&'a project_copy::ProjectCopy>,
}

/// What a prepared run executes and records.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The processes, run one after the other until one fails.
    pub steps: Vec<process::Invocation>,
    /// Text written to the output before the first process (what the run decided and why).
    pub preamble: String,
    /// The environment as recorded (secrets masked).
    pub recorded_env: std::collections::BTreeMap<String, String>,
    /// Where stdout (and stderr, unless `errors` is set) goes.
    pub output: std::path::PathBuf,
    /// Where stderr goes when it is kept apart (inventory updates read stdout as JSON).
    pub errors: Option<std::path::PathBuf>,
    /// The secret input values of the run's credentials: the stored output never shows them,
    /// whatever the process printed (`ansible-config dump` prints content-source tokens).
    pub secrets: Vec<String>,
    /// The run's project directory, and what the run may write in it.
    pub project: Option<(std::path::PathBuf, ProjectAccess)>,
    /// The steps run inside bwrap (`isolate::apply`).
    pub sandboxed: bool,
}

/// What a run may write in its project directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProjectAccess {
    /// Nothing (a job, an inventory update).
    Read,
    /// Its `collections/` and `roles/`, where requirements are installed (a local project's
    /// update).
    Requirements,
    /// All of it (a git project's update checks the repository out there).
    Checkout,
}

impl ProjectAccess {
    /// Whether the run writes in the directory at all.
    pub(crate) fn writable(self) -> bool {
        self != ProjectAccess::Read
    }
}

impl Prepared {
    /// The output so far, secrets replaced by `**********`.
    fn output(&self) -> String {
        scrub(read_output(&self.output), &self.secrets)
    }

    /// The kept-apart error output, scrubbed likewise.
    fn error_output(&self) -> String {
        self.errors
            .as_deref()
            .map(|path| scrub(read_output(path), &self.secrets))
            .unwrap_or_default()
    }
}

/// `text` with every occurrence of each secret (longest first) replaced.
fn scrub(mut text: String, secrets: &[String]) -> String {
    for secret in secrets {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), acs_injectors::HIDDEN_VALUE);
        }
    }
    text
}

fn execute(host: &dyn Host, run_id: i64) {
    let outcome = match run(host, run_id) {
        Ok(outcome) => outcome,
        Err(Explained(explanation)) => RunOutcome {
            status: RunStatus::Error,
            explanation,
            stdout: String::new(),
            result_code: None,
        },
    };
    let finished = host
        .pool()
        .write(|conn| acs_storage::unified_jobs::finish(conn, run_id, &outcome, now()));
    match finished {
        Ok(_) => tracing::info!(run = run_id, status = outcome.status.as_str(), "run ended"),
        Err(error) => tracing::error!(run = run_id, %error, "a run's end could not be stored"),
    }
    RUNS_ENDED.announce();
}

/// How many runs this node has ended: a job waiting for its project's update (which runs on
/// this node unless it was joined from another) looks again as soon as one ends.
static RUNS_ENDED: EndedRuns = EndedRuns {
    count: std::sync::Mutex::new(0),
    changed: std::sync::Condvar::new(),
};

struct EndedRuns {
    count: std::sync::Mutex<u64>,
    changed: std::sync::Condvar,
}

impl EndedRuns {
    fn seen(&self) -> u64 {
        *self
            .count
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn announce(&self) {
        *self
            .count
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
        self.changed.notify_all();
    }

    /// Waits until a run ends after `seen`, or `at_most` passes.
    fn wait_after(&self, seen: u64, at_most: Duration) {
        let count = self
            .count
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = self
            .changed
            .wait_timeout_while(count, at_most, |count| *count == seen);
    }
}

/// How often a job waiting for its project's update looks at it (in case it runs on another
/// node), and at its own cancel.
const UPDATE_LOOKED_AT_EVERY: Duration = Duration::from_millis(250);

/// Waits, holding no connection between looks, for project update `update` that job `row`
/// was launched behind (`scm_update_on_launch`) to end: `None` when it succeeded and the job
/// may run, else how the job ends without starting (failed behind a failed update, as the
/// reference says it; canceled on request while waiting).
fn wait_for_update(
    host: &dyn Host,
    row: &UnifiedJob,
    update: i64,
) -> Result<Option<RunOutcome>, Explained> {
    let ended = |status: RunStatus, explanation: String| RunOutcome {
        status,
        explanation,
        stdout: String::new(),
        result_code: None,
    };
    loop {
        let seen = RUNS_ENDED.seen();
        {
            let mut conn = host.pool().get()?;
            let update = acs_storage::unified_jobs::find(&mut conn, update)?;
            if update.is_finished() {
                return Ok((update.status != RunStatus::Successful.as_str()).then(|| {
                    let explanation = acs_app::update_on_launch::previous_task_failed(&update);
                    ended(RunStatus::Failed, explanation)
                }));
            }
            if acs_storage::unified_jobs::cancel_requested(&mut conn, row.id)? {
                return Ok(Some(ended(
                    RunStatus::Canceled,
                    "Canceled on request.".to_owned(),
                )));
            }
        }
        RUNS_ENDED.wait_after(seen, UPDATE_LOOKED_AT_EVERY);
    }
}

fn now() -> acs_storage::Timestamp {
    chrono::SubsecRound::trunc_subsecs(chrono::Utc::now().naive_utc(), 6)
}

fn run(host: &dyn Host, run_id: i64) -> Result<RunOutcome, Explained> {
    // Connections are held only around database work, never while a process runs: a run can
    // take hours, and each held connection is one fewer for the server's requests.
    let mut conn = host.pool().get()?;
    let row = acs_storage::unified_jobs::find(&mut conn, run_id)?;
    // One update of a project at a time, held to the end of the run; waited for without a
    // connection.
    if let (true, Some(update)) = (row.kind == RunKind::Job.as_str(), row.project_update_id) {
        drop(conn);
        if let Some(outcome) = wait_for_update(host, &row, update)? {
            return Ok(outcome);
        }
        conn = host.pool().get()?;
    }
    let mut _project_lock = None;
    if let (true, Some(project)) = (row.kind == RunKind::ProjectUpdate.as_str(), row.project_id) {
        drop(conn);
        _project_lock = Some(project_lock::ProjectLock::update(project));
        conn = host.pool().get()?;
    }
    let revision = acs_storage::revisions::current(&mut conn)?.settings;
    let settings = host.settings(&mut conn, revision)?;
    let dir = private_dir::PrivateDir::create(&host.data_dir().join("runs"), run_id, host.rng())?;
    // A job runs from a copy of its project, made without holding a connection (it waits
    // for an update of the project to end).
    let mut project_copy = None;
    if row.kind == RunKind::Job.as_str() {
        let source = job::project_directory(&mut conn, &settings, row.project_id)?;
        drop(conn);
        let project = row.project_id.unwrap_or_default();
        project_copy = Some(project_copy::copy_into(source, &dir, project)?);
        conn = host.pool().get()?;
    }
    let preparing = Preparing {
        conn: &mut conn,
        host,
        settings: &settings,
        row: &row,
        dir: &dir,
        project_copy: project_copy.as_ref(),
    };
    let prepared = match row.kind.as_str() {
        kind if kind == RunKind::Job.as_str() => job::prepare(preparing)?,
        kind if kind == RunKind::InventoryUpdate.as_str() => inventory_update::prepare(preparing)?,
        _ => project_update::prepare(preparing)?,
    };
    drop(conn);
    std::fs::write(&prepared.output, &prepared.preamble)?;
    // What the run asked for is recorded, not the sandbox around it (which names the
    // server's own paths).
    let recorded_args = recorded_args(&prepared.steps);
    let prepared = isolate::apply(host, &settings, &row, &dir, prepared)?;
    let ending = execute_steps(host, &settings, &row, &prepared, &recorded_args)?;
    let mut outcome = outcome_of(ending, prepared.output());
    if prepared.sandboxed && outcome.status == RunStatus::Failed && outcome.explanation.is_empty() {
        let errors = prepared.errors.as_deref().map(|path| read_from(path, 0));
        let said = [Some(outcome.stdout.as_str()), errors.as_deref()];
        if let Some(explanation) = isolate::limit_reached(&settings, said.into_iter().flatten()) {
            outcome.explanation = explanation;
        }
    }
    if let Some((project_dir, ProjectAccess::Checkout)) = &prepared.project
        && outcome.status == RunStatus::Successful
        && let (Some(project), Some(revision)) =
            (row.project_id, git_checkout::revision(project_dir))
    {
        host.pool()
            .write(|conn| acs_storage::projects::record_revision(conn, project, &revision))?;
    }
    if row.kind == RunKind::InventoryUpdate.as_str() && outcome.status == RunStatus::Successful {
        let mut conn = host.pool().get()?;
        outcome = inventory_update::import(host.pool(), &mut conn, &row, &prepared, outcome)?;
    }
    drop(dir);
    Ok(outcome)
}

/// Records the start and runs the processes, storing the output so far about every second.
fn execute_steps(
    host: &dyn Host,
    settings: &Settings,
    row: &UnifiedJob,
    prepared: &Prepared,
    recorded_args: &str,
) -> Result<Ending, Explained> {
    let started = acs_storage::unified_jobs::start(
        &mut *host.pool().get()?,
        row.id,
        recorded_args,
        &prepared
            .steps
            .first()
            .map(|step| step.cwd.display().to_string())
            .unwrap_or_default(),
        &serde_json::to_string(&prepared.recorded_env).unwrap_or_default(),
        now(),
    )?;
    if !started {
        return Ok(Ending::Canceled);
    }
    // A job's own timeout, else the setting's.
    let seconds = match row.timeout {
        0 => settings.value("DEFAULT_JOB_TIMEOUT").as_i64().unwrap_or(0),
        own => i64::from(own),
    };
    let timeout = u64::try_from(seconds)
        .ok()
        .filter(|seconds| *seconds > 0)
        .map(Duration::from_secs);
    let deadline = timeout.map(|limit| std::time::Instant::now() + limit);
    let mut ending = Ending::Exited(Some(0));
    let mut recorded = RecordedOutput::default();
    for step in &prepared.steps {
        let left = deadline.map(|at| at.saturating_duration_since(std::time::Instant::now()));
        let watch = || {
            // A connection for this look only; an unreachable database does not stop the run.
            let Ok(mut conn) = host.pool().get() else {
                return false;
            };
            recorded.record(&mut conn, row.id, prepared);
            acs_storage::unified_jobs::cancel_requested(&mut conn, row.id).unwrap_or(false)
        };
        // Where this step's own words start: bwrap's complaint, if any, comes first.
        let said_from = file_len(prepared.errors.as_deref().unwrap_or(&prepared.output));
        ending = process::run(
            step,
            &prepared.output,
            prepared.errors.as_deref(),
            left,
            WATCH_EVERY,
            watch,
        )
        .map_err(|failure| sandbox_failure(prepared, row.id, failure.to_string()))?;
        if prepared.sandboxed && ending == Ending::Exited(Some(1)) {
            let said = read_from(
                prepared.errors.as_deref().unwrap_or(&prepared.output),
                said_from,
            );
            if let Some(complaint) = sandbox::failure_of(&said) {
                return Err(sandbox_failure(prepared, row.id, complaint.to_owned()));
            }
        }
        if ending != Ending::Exited(Some(0)) {
            break;
        }
    }
    Ok(ending)
}

/// Why a step could not start, said as a sandbox failure when the step was sandboxed (bwrap
/// missing, or unable to build the view) and logged as such.
fn sandbox_failure(prepared: &Prepared, run: i64, reason: String) -> Explained {
    if !prepared.sandboxed {
        return Explained(reason);
    }
    tracing::error!(run, %reason, "a run's sandbox could not start");
    Explained(format!(
        "The run's sandbox could not start, and JOB_ISOLATION_ENABLED forbids running without it: {reason}"
    ))
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |meta| meta.len())
}

/// The text of `path` from byte `from` on, at most a few KiB (enough for bwrap's one line).
fn read_from(path: &Path, from: u64) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let mut text = Vec::new();
    if let Ok(mut file) = std::fs::File::open(path)
        && file.seek(SeekFrom::Start(from)).is_ok()
    {
        let _ = file.take(4096).read_to_end(&mut text);
    }
    String::from_utf8_lossy(&text).into_owned()
}

/// How much of a running run's output is stored: its complete lines are added as they come
/// (the last, unfinished line waits), and the run's end stores the whole output again.
#[derive(Debug, Default)]
struct RecordedOutput {
    /// Bytes of output seen at the last look: a quiet run costs one file read a second.
    seen: usize,
    /// Lines stored.
    lines: usize,
}

impl RecordedOutput {
    fn record(&mut self, conn: &mut DbConnection, run: i64, prepared: &Prepared) {
        let output = prepared.output();
        if output.len() == self.seen {
            return;
        }
        self.seen = output.len();
        let lines: Vec<&str> = acs_storage::unified_job_lines::lines_of(&output)
            .skip(self.lines)
            .filter(|line| line.ends_with('\n'))
            .collect();
        if lines.is_empty() {
            return;
        }
        match acs_storage::unified_job_lines::append(conn, run, self.lines, &lines) {
            Ok(()) => self.lines += lines.len(),
            Err(error) => tracing::warn!(run, %error, "a run's output could not be stored yet"),
        }
    }
}

/// The recorded command line: the program and arguments of each step, steps joined by `&&`.
/// Arguments hold paths and names, never secrets (those travel in files and the environment).
fn recorded_args(steps: &[process::Invocation]) -> String {
    let mut words: Vec<&str> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        if index > 0 {
            words.push("&&");
        }
        words.push(&step.program);
        words.extend(step.args.iter().map(String::as_str));
    }
    serde_json::to_string(&words).unwrap_or_default()
}

fn outcome_of(ending: Ending, stdout: String) -> RunOutcome {
    let (status, explanation, result_code) = match ending {
        Ending::Exited(Some(0)) => (RunStatus::Successful, String::new(), Some(0)),
        Ending::Exited(code) => (RunStatus::Failed, String::new(), code),
        Ending::Canceled => (RunStatus::Canceled, "Canceled on request.".to_owned(), None),
        Ending::TimedOut => (
            RunStatus::Failed,
            "Job terminated due to timeout".to_owned(),
            None,
        ),
    };
    RunOutcome {
        status,
        explanation,
        stdout,
        result_code,
    }
}

/// The output file as text (lossy UTF-8), cut at [`MAX_STDOUT_BYTES`].
fn read_output(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    if bytes.len() <= MAX_STDOUT_BYTES {
        return String::from_utf8_lossy(&bytes).into_owned();
    }
    let mut text = String::from_utf8_lossy(&bytes[..MAX_STDOUT_BYTES]).into_owned();
    text.push_str("\n[output truncated]\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrub_masks_every_secret_longest_first() {
        let secrets = vec!["tok-one-long".to_owned(), "tok-one".to_owned()];
        let text = "a tok-one-long b tok-one c".to_owned();
        assert_eq!(scrub(text, &secrets), "a ********** b ********** c");
    }
}
