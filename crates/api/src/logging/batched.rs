//! The log's writer: lines are appended to a shared buffer where they happen, and a thread of
//! its own writes the buffer out a few milliseconds after the first line of a batch arrived.
//!
//! Why not a channel with a writer thread woken per line (`tracing-appender`): at an access
//! line per request, the writer was woken every 70 µs and slept between lines, so the other
//! core flipped between it and idle. Linux skips pulling work onto a core whose idle spells are
//! that short, and a `perf sched` trace showed an HTTP worker waiting up to 6 ms in the busy
//! core's run queue while the other core alternated between the writer and idle. Woken once a
//! batch, the writer runs at most every [`BATCH_DELAY`] and leaves the core truly idle in
//! between.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// How long the writer waits after the first line of a batch before writing the batch: the
/// most a line waits to be written, and the least time between two wake-ups of the writer.
pub const BATCH_DELAY: Duration = Duration::from_millis(5);

/// Bytes formatted but not yet written, at most, before logging waits for the writer; the
/// writer never drops a line.
pub const BUFFER_LIMIT: usize = 2 * 1024 * 1024;

#[derive(Debug, Default)]
struct Pending {
    bytes: Vec<u8>,
    /// Set by the guard: write what is left and stop.
    closing: bool,
    /// The writer sleeps until a batch starts; only then does a line have to wake it.
    writer_idle: bool,
}

#[derive(Debug, Default)]
struct Shared {
    pending: Mutex<Pending>,
    /// Signalled when a batch starts or the log closes (the writer waits on it).
    batch_started: Condvar,
    /// Signalled when the writer took a batch (a line waiting for room waits on it).
    room: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // A panic while holding the lock leaves plain bytes behind: still fine to write.
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn append(&self, line: &[u8]) {
        let mut pending = self.lock();
        while pending.bytes.len() >= BUFFER_LIMIT && !pending.closing {
            pending = self
                .room
                .wait(pending)
                .unwrap_or_else(PoisonError::into_inner);
        }
        pending.bytes.extend_from_slice(line);
        if pending.writer_idle {
            pending.writer_idle = false;
            self.batch_started.notify_one();
        }
    }
}

/// The writer handed to the log subscriber; cheap to clone.
#[derive(Debug, Clone)]
pub struct BatchedWriter {
    shared: Arc<Shared>,
}

/// Keeps the writer thread running; dropping it writes what is buffered and stops the thread.
#[derive(Debug)]
pub struct BatchGuard {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// Starts the writer thread, named `thread_name`, writing to `output`.
pub fn start<W: Write + Send + 'static>(
    output: W,
    thread_name: &str,
) -> io::Result<(BatchedWriter, BatchGuard)> {
    let shared = Arc::new(Shared::default());
    let thread = {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name(thread_name.into())
            .spawn(move || write_batches(&shared, output))?
    };
    Ok((
        BatchedWriter {
            shared: shared.clone(),
        },
        BatchGuard {
            shared,
            thread: Some(thread),
        },
    ))
}

fn write_batches<W: Write>(shared: &Shared, mut output: W) {
    let mut batch = Vec::new();
    loop {
        let closing = {
            let mut pending = shared.lock();
            while pending.bytes.is_empty() && !pending.closing {
                pending.writer_idle = true;
                pending = shared
                    .batch_started
                    .wait(pending)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            pending.closing
        };
        if !closing {
            std::thread::sleep(BATCH_DELAY);
        }
        let closing = {
            let mut pending = shared.lock();
            // The emptied buffer of the last batch takes the next one: no allocation per batch.
            std::mem::swap(&mut pending.bytes, &mut batch);
            shared.room.notify_all();
            pending.closing
        };
        // A log that cannot be written has nowhere to report it; the lines are dropped.
        let _ = output.write_all(&batch).and_then(|()| output.flush());
        batch.clear();
        if closing && shared.lock().bytes.is_empty() {
            return;
        }
    }
}

impl Drop for BatchGuard {
    fn drop(&mut self) {
        {
            let mut pending = self.shared.lock();
            pending.closing = true;
            self.shared.batch_started.notify_one();
            self.shared.room.notify_all();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Write for BatchedWriter {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        self.shared.append(line);
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for BatchedWriter {
    type Writer = BatchedWriter;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Output shared with the test, counting the writes it received.
    #[derive(Clone, Default)]
    struct Recorded(Arc<Mutex<(Vec<u8>, usize)>>);

    impl Write for Recorded {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let mut recorded = self.0.lock().unwrap();
            recorded.0.extend_from_slice(bytes);
            recorded.1 += 1;
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_arrive_in_order_in_few_writes_and_all_are_written_at_the_end() {
        let output = Recorded::default();
        let (writer, guard) = start(output.clone(), "test-log-writer").unwrap();
        let mut expected = Vec::new();
        for n in 0..10_000 {
            let line = format!("line {n}\n");
            writer.make_writer().write_all(line.as_bytes()).unwrap();
            expected.extend_from_slice(line.as_bytes());
        }
        drop(guard);
        let (bytes, writes) = std::mem::take(&mut *output.0.lock().unwrap());
        assert_eq!(bytes, expected);
        assert!(writes < 100, "{writes} writes for 10 000 lines");
    }

    #[test]
    fn a_line_is_written_within_the_batch_delay_without_more_lines() {
        let output = Recorded::default();
        let (writer, _guard) = start(output.clone(), "test-log-writer").unwrap();
        writer.make_writer().write_all(b"alone\n").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while output.0.lock().unwrap().0.is_empty() {
            assert!(std::time::Instant::now() < deadline, "never written");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(output.0.lock().unwrap().0, b"alone\n");
    }

    #[test]
    fn a_full_buffer_makes_logging_wait_instead_of_dropping_lines() {
        let output = Recorded::default();
        let (writer, guard) = start(output.clone(), "test-log-writer").unwrap();
        let line = vec![b'x'; 64 * 1024];
        let lines = 3 * BUFFER_LIMIT / line.len();
        for _ in 0..lines {
            writer.make_writer().write_all(&line).unwrap();
            assert!(writer.shared.lock().bytes.len() <= BUFFER_LIMIT + line.len());
        }
        drop(guard);
        assert_eq!(output.0.lock().unwrap().0.len(), lines * line.len());
    }
}
