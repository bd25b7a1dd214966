//! A closed-loop HTTP/1.1 load generator.
//!
//! Each connection is a task that writes one pre-built request, reads the whole response and
//! writes the request again, over one keep-alive connection. The request is serialised once
//! and the response is only framed (status, `Content-Length`), so the generator spends as
//! little CPU as possible: on a small machine it shares the cores with the server it measures.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// A head longer than this means the peer does not speak HTTP/1.1 as expected.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// How long a connection may still wait for its last response once the run is over, and how
/// long a set-up request may take: beyond it the server is stuck and the bench is meaningless.
const STUCK_AFTER: Duration = Duration::from_secs(10);
/// Per-connection latency buffers are sized for this total rate, so recording never
/// reallocates in the measured loop on the machines this runs on (it still grows past it).
const EXPECTED_MAX_RPS: u64 = 200_000;

/// One measurement to take.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub addr: SocketAddr,
    pub connections: usize,
    /// Load applied but not recorded: connections open and caches fill first.
    pub warmup: Duration,
    pub duration: Duration,
    /// Open loop at this many requests per second in all, spread evenly over the connections;
    /// `None` for a closed loop (each connection sends again once answered).
    pub rate: Option<f64>,
}

/// What a measurement found.
#[derive(Debug)]
pub struct Measurement {
    duration: Duration,
    /// Every exchange of the window, errors included.
    requests: u64,
    /// Non-2xx responses plus exchanges the connection failed in, refusals excepted.
    pub errors: u64,
    /// Answers of the refusal the scenario expects when the server is full by design (a
    /// launch beyond the waiting runs: 503): neither speed nor errors.
    pub refused: u64,
    p50_ms: f64,
    p99_ms: f64,
    /// Every latency of the window in µs, ascending, where the generator gave them (the
    /// bench's own does, wrk gives its percentiles only).
    sorted_us: Vec<u32>,
}

impl Measurement {
    /// From one latency per request of the window, in µs, sorted ascending.
    pub fn from_latencies(duration: Duration, errors: u64, sorted_us: Vec<u32>) -> Self {
        Measurement {
            duration,
            requests: sorted_us.len() as u64,
            errors,
            refused: 0,
            p50_ms: percentile_ms(&sorted_us, 0.50),
            p99_ms: percentile_ms(&sorted_us, 0.99),
            sorted_us,
        }
    }

    /// From a generator's own summary (wrk's).
    pub fn summarised(
        duration: Duration,
        requests: u64,
        errors: u64,
        (p50_ms, p99_ms): (f64, f64),
    ) -> Self {
        Measurement {
            duration,
            requests,
            errors,
            refused: 0,
            p50_ms,
            p99_ms,
            sorted_us: Vec::new(),
        }
    }

    /// The same window with `refused` of its errors counted as refusals instead.
    pub fn with_refused(self, refused: u64) -> Self {
        Measurement {
            errors: self.errors.saturating_sub(refused),
            refused,
            ..self
        }
    }

    /// Several windows of one load as one: requests, errors and time added up, and the
    /// percentiles of every window's latencies together, so that the worst window counts as
    /// much as its requests do (none is dropped). `None` for no window, or for windows
    /// without their latencies (wrk's).
    pub fn pooled(windows: &[Measurement]) -> Option<Measurement> {
        if windows.is_empty()
            || windows
                .iter()
                .any(|window| window.sorted_us.len() as u64 != window.requests)
        {
            return None;
        }
        let mut sorted_us: Vec<u32> = windows
            .iter()
            .flat_map(|window| window.sorted_us.iter().copied())
            .collect();
        sorted_us.sort_unstable();
        let duration = windows.iter().map(|window| window.duration).sum();
        let errors = windows.iter().map(|window| window.errors).sum();
        Some(Measurement::from_latencies(duration, errors, sorted_us))
    }

    /// Several windows of one closed loop measured by wrk, which gives percentiles only: the
    /// counts and times added up, and each percentile the worst window's (an upper bound;
    /// no window is dropped). `None` for no window.
    pub fn worst_of(windows: &[Measurement]) -> Option<Measurement> {
        let worst = |percentile: fn(&Measurement) -> f64| {
            windows.iter().map(percentile).max_by(f64::total_cmp)
        };
        let errors: u64 = windows.iter().map(|window| window.errors).sum();
        let refused: u64 = windows.iter().map(|window| window.refused).sum();
        Some(
            Measurement::summarised(
                windows.iter().map(|window| window.duration).sum(),
                windows.iter().map(|window| window.requests).sum(),
                errors + refused,
                (worst(Measurement::p50_ms)?, worst(Measurement::p99_ms)?),
            )
            .with_refused(refused),
        )
    }

    /// Every exchange, errors included.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// Expected answers per second: neither an error nor a refusal is counted as speed.
    pub fn requests_per_sec(&self) -> f64 {
        let answered = self.requests.saturating_sub(self.errors + self.refused);
        answered as f64 / self.duration.as_secs_f64()
    }

    /// The median latency, in milliseconds.
    pub fn p50_ms(&self) -> f64 {
        self.p50_ms
    }

    /// The 99th percentile of latency, in milliseconds.
    pub fn p99_ms(&self) -> f64 {
        self.p99_ms
    }
}

/// The value at quantile `q` (0 to 1) of `sorted_us` (µs, ascending) in milliseconds, by
/// nearest rank; 0 if there is none.
pub fn percentile_ms(sorted_us: &[u32], q: f64) -> f64 {
    let n = sorted_us.len();
    if n == 0 {
        return 0.0;
    }
    let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
    f64::from(sorted_us[rank - 1]) / 1000.0
}

/// Serialises a request once, so the measured loop only writes bytes.
pub fn request(
    method: &str,
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\n");
    for (name, value) in headers {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    if !body.is_empty() {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// A chained request as a template: `request` holds `placeholder` where the credential goes,
/// taken from the JSON string field `field` of the previous response. The placeholder is as
/// long as the credentials, so `Content-Length` holds.
#[derive(Debug, Clone)]
pub struct ChainTemplate {
    pub request: Vec<u8>,
    pub placeholder: &'static str,
    pub field: &'static str,
}

/// Builds a connection's next request from the body of its last (successful) response.
pub type NextRequest = Arc<dyn Fn(&[u8]) -> Result<Vec<u8>, String> + Send + Sync>;

/// What the connections send.
#[derive(Clone)]
pub enum Workload {
    /// The same request on every connection, every time.
    Repeat(Arc<[u8]>),
    /// Single-use credentials: each response yields the connection's next request (a refresh
    /// token answers with its successor). One first request per connection, used in turn.
    Chain {
        first: Vec<Vec<u8>>,
        next: NextRequest,
        /// The same as `next` for a generator that cannot run it (wrk's Lua): the next request
        /// is this template with its placeholder replaced by the response's credential.
        template: ChainTemplate,
    },
    /// These requests in turn on every connection (the pages of a list), each connection
    /// starting at its own, so that all of them are asked for all along. Never empty (see
    /// [`Workload::cycle`]).
    Cycle(Arc<[Vec<u8>]>),
    /// For each request one of many credentials drawn at random (wrk's Lua builds it, so no
    /// list of them is held): the request is `before`, then the credential of a number `n`
    /// from 1 to `count` (`prefix` and `n` zero-padded to `digits`), then `after`. Never for
    /// the bench's own generator.
    Drawn(Drawn),
    /// For each request one of these drawn at random (credentials that cannot be built by
    /// formatting a number: Basic's base64). Never empty; never for the bench's own generator.
    Shuffled(Arc<[Vec<u8>]>),
}

/// See [`Workload::Drawn`].
#[derive(Debug, Clone)]
pub struct Drawn {
    pub before: Vec<u8>,
    /// The credential of draw `n`: this prefix and `n` zero-padded to `digits`.
    pub prefix: &'static str,
    pub digits: usize,
    pub count: u64,
    pub after: Vec<u8>,
}

impl std::fmt::Debug for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Workload::Repeat(request) => write!(f, "Repeat({} bytes)", request.len()),
            Workload::Chain { first, .. } => write!(f, "Chain({} chains)", first.len()),
            Workload::Cycle(requests) => write!(f, "Cycle({} requests)", requests.len()),
            Workload::Drawn(drawn) => write!(f, "Drawn(one of {})", drawn.count),
            Workload::Shuffled(requests) => write!(f, "Shuffled(one of {})", requests.len()),
        }
    }
}

impl Workload {
    /// The same request, repeated.
    pub fn repeat(request: Vec<u8>) -> Self {
        Workload::Repeat(request.into())
    }

    /// `requests` in turn; there must be at least one.
    pub fn cycle(requests: Vec<Vec<u8>>) -> io::Result<Self> {
        if requests.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a cycle of no request",
            ));
        }
        Ok(Workload::Cycle(requests.into()))
    }

    /// What connection `index` sends first, and how it goes on; `None` for what only wrk
    /// sends.
    fn for_connection(&self, index: usize) -> Option<Requests> {
        Some(match self {
            Workload::Drawn(_) | Workload::Shuffled(_) => return None,
            Workload::Repeat(request) => Requests::new(request.to_vec(), Next::Same),
            Workload::Chain { first, next, .. } => Requests::new(
                first[index % first.len().max(1)].clone(),
                Next::Chain(Arc::clone(next)),
            ),
            Workload::Cycle(requests) => Requests::new(
                Vec::new(),
                Next::Cycle {
                    requests: Arc::clone(requests),
                    at: index % requests.len(),
                },
            ),
        })
    }
}

/// Applies `load` with `workload` on every connection and measures it.
pub fn run(load: Load, workload: &Workload) -> io::Result<Measurement> {
    // Two threads are enough to saturate a server with this little work per request; on a
    // machine with few cores one, so that the server measured keeps the rest.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(if cores >= 4 { 2 } else { 1 })
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let start = Instant::now();
        let tasks: Vec<tokio::task::JoinHandle<_>> = (0..load.connections)
            .map(|index| {
                // Connections start their schedules spread over one interval, not all at once.
                let offset = interval(&load).map_or(Duration::ZERO, |interval| {
                    interval.mul_f64(index as f64 / load.connections.max(1) as f64)
                });
                let requests = workload.for_connection(index).ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::Unsupported,
                        "requests drawn at random are sent by wrk only",
                    )
                })?;
                Ok(tokio::spawn(connection(load, requests, start + offset)))
            })
            .collect::<io::Result<_>>()?;
        let mut latencies_us = Vec::new();
        let mut errors = 0;
        for task in tasks {
            let stats = task.await.map_err(io::Error::other)??;
            latencies_us.extend_from_slice(&stats.latencies_us);
            errors += stats.errors;
        }
        latencies_us.sort_unstable();
        Ok(Measurement::from_latencies(
            load.duration,
            errors,
            latencies_us,
        ))
    })
}

/// The time between two requests of one connection in an open loop.
fn interval(load: &Load) -> Option<Duration> {
    let rate = load.rate.filter(|rate| *rate > 0.0)?;
    Some(Duration::from_secs_f64(
        load.connections.max(1) as f64 / rate,
    ))
}

/// What one connection recorded.
#[derive(Debug)]
struct Stats {
    latencies_us: Vec<u32>,
    errors: u64,
}

/// One connection's closed loop, with the deadline that turns a hung server into an error.
async fn connection(load: Load, requests: Requests, start: Instant) -> io::Result<Stats> {
    let per_connection =
        EXPECTED_MAX_RPS * load.duration.as_secs().max(1) / load.connections.max(1) as u64;
    let mut stats = Stats {
        latencies_us: Vec::with_capacity(usize::try_from(per_connection).unwrap_or(usize::MAX)),
        errors: 0,
    };
    let end = start + load.warmup + load.duration;
    tokio::time::timeout_at(end + STUCK_AFTER, drive(load, requests, start, &mut stats))
        .await
        .map_err(|_| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                format!("a request got no response within {STUCK_AFTER:?} of the run's end"),
            )
        })??;
    Ok(stats)
}

/// A connection's current request and how its next one follows.
struct Requests {
    /// The request of a repeat or a chain; a cycle reads its own list instead.
    current: Vec<u8>,
    next: Next,
}

/// How a connection's next request follows from the last.
enum Next {
    /// The same again.
    Same,
    /// Made from the last response's body.
    Chain(NextRequest),
    /// The next of these, `at` being the one just sent.
    Cycle { requests: Arc<[Vec<u8>]>, at: usize },
}

impl Requests {
    fn new(current: Vec<u8>, next: Next) -> Self {
        Requests { current, next }
    }

    fn current(&self) -> &[u8] {
        match &self.next {
            Next::Cycle { requests, at } => &requests[*at],
            Next::Same | Next::Chain(_) => &self.current,
        }
    }

    /// Moves on after a response whose body is `body` (`None` when the exchange failed).
    fn advance(&mut self, body: Option<&[u8]>) -> io::Result<()> {
        match &mut self.next {
            Next::Same => {}
            Next::Chain(next) => {
                if let Some(body) = body {
                    self.current = (*next)(body)
                        .map_err(|error| invalid(format!("a chain cannot go on: {error}")))?;
                }
            }
            Next::Cycle { requests, at } => *at = (*at + 1) % requests.len(),
        }
        Ok(())
    }
}

/// Sends requests in a loop until the run ends. A response completing inside the measured
/// window is recorded, whenever it was sent. A failed exchange (reset, early close) counts as
/// an error and reconnects; a malformed response or a refused connection aborts the run, and
/// so does a chain that cannot go on (its credential is spent).
async fn drive(
    load: Load,
    mut requests: Requests,
    start: Instant,
    stats: &mut Stats,
) -> io::Result<()> {
    let measure_from = start + load.warmup;
    let end = measure_from + load.duration;
    let interval = interval(&load);
    let mut scheduled = start;
    loop {
        let mut stream = connect(load.addr).await?;
        let mut reader = ResponseReader::default();
        loop {
            // In an open loop, a request the server's last answer made late counts from when it
            // was due, so a server that falls behind shows its queueing delay (no coordinated
            // omission); one sent on time counts from its sending, not charging the server
            // with the timer's millisecond granularity.
            let sent = match interval {
                Some(interval) => {
                    let due = scheduled;
                    scheduled += interval;
                    if Instant::now() > due {
                        due
                    } else {
                        tokio::time::sleep_until(due).await;
                        Instant::now()
                    }
                }
                None => Instant::now(),
            };
            if sent >= end {
                return Ok(());
            }
            let outcome = exchange(&mut stream, &mut reader, requests.current()).await;
            let done = Instant::now();
            let (ok, reconnect) = match outcome {
                Ok(head) => ((200..300).contains(&head.status), head.close),
                Err(error) if error.kind() == io::ErrorKind::InvalidData => return Err(error),
                Err(_) => (false, true),
            };
            if done >= measure_from && done < end {
                let micros = u32::try_from((done - sent).as_micros()).unwrap_or(u32::MAX);
                stats.latencies_us.push(micros);
                stats.errors += u64::from(!ok);
            }
            let body = outcome
                .as_ref()
                .ok()
                .map(|head| &reader.message()[head.len..]);
            requests.advance(body)?;
            if reconnect {
                break;
            }
        }
    }
}

async fn connect(addr: SocketAddr) -> io::Result<TcpStream> {
    let stream = TcpStream::connect(addr).await?;
    // Each request is one write; without this the kernel may hold the next one back.
    stream.set_nodelay(true)?;
    Ok(stream)
}

async fn exchange(
    stream: &mut TcpStream,
    reader: &mut ResponseReader,
    request: &[u8],
) -> io::Result<Head> {
    stream.write_all(request).await?;
    reader.read(stream).await
}

/// A whole response, for the few requests that set a scenario up.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// The values of every header called `name` (case-insensitive), in order.
    pub fn headers<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> {
        self.headers
            .iter()
            .filter(move |(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Sends one request on a new connection and reads the whole response.
pub fn fetch(addr: SocketAddr, request: &[u8]) -> io::Result<Reply> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let reply = async {
            let mut stream = connect(addr).await?;
            let mut reader = ResponseReader::default();
            let head = exchange(&mut stream, &mut reader, request).await?;
            let (head_bytes, body) = reader.message().split_at(head.len);
            let headers = fields(head_text(head_bytes)?)
                .map(|field| field.map(|(name, value)| (name.to_owned(), value.to_owned())))
                .collect::<io::Result<_>>()?;
            Ok(Reply {
                status: head.status,
                headers,
                body: body.to_vec(),
            })
        };
        tokio::time::timeout(STUCK_AFTER, reply)
            .await
            .map_err(|_| {
                io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no response within {STUCK_AFTER:?}"),
                )
            })?
    })
}

/// The framing of a response, read from its head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Head {
    status: u16,
    /// Bytes of the head, its closing blank line included.
    len: usize,
    content_length: usize,
    /// The server will close the connection after this response.
    close: bool,
}

/// Reads responses off a stream, keeping any bytes that arrived past the current one.
#[derive(Debug)]
struct ResponseReader {
    buf: Vec<u8>,
    /// Length of the response last returned, still at the front of `buf`.
    current: usize,
}

impl Default for ResponseReader {
    fn default() -> Self {
        Self {
            buf: Vec::with_capacity(8 * 1024),
            current: 0,
        }
    }
}

impl ResponseReader {
    /// Reads the next whole response; its bytes stay in [`Self::message`] until the next call.
    async fn read<R: AsyncRead + Unpin>(&mut self, stream: &mut R) -> io::Result<Head> {
        self.buf.drain(..self.current);
        self.current = 0;
        let head = loop {
            if let Some(head) = parse_head(&self.buf)? {
                break head;
            }
            self.fill(stream).await?;
        };
        let total = head.len + head.content_length;
        self.buf.reserve(total.saturating_sub(self.buf.len()));
        while self.buf.len() < total {
            self.fill(stream).await?;
        }
        self.current = total;
        Ok(head)
    }

    fn message(&self) -> &[u8] {
        &self.buf[..self.current]
    }

    async fn fill<R: AsyncRead + Unpin>(&mut self, stream: &mut R) -> io::Result<()> {
        if stream.read_buf(&mut self.buf).await? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection before a whole response",
            ));
        }
        Ok(())
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Parses the head at the front of `buf`; `None` while its end has not arrived.
fn parse_head(buf: &[u8]) -> io::Result<Option<Head>> {
    let Some(end) = buf.windows(4).position(|window| window == b"\r\n\r\n") else {
        if buf.len() > MAX_HEAD_BYTES {
            return Err(invalid(format!(
                "a response head is longer than {MAX_HEAD_BYTES} bytes"
            )));
        }
        return Ok(None);
    };
    let text = head_text(&buf[..end + 4])?;
    let (status_line, _) = text.split_once("\r\n").unwrap_or((text, ""));
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let status = parts
        .next()
        .and_then(|code| code.parse::<u16>().ok())
        .filter(|_| version.starts_with("HTTP/1."))
        .ok_or_else(|| invalid(format!("not an HTTP/1.x status line: {status_line:?}")))?;
    // HTTP/1.0 closes after each response unless told otherwise; we never ask it not to.
    let mut close = version == "HTTP/1.0";
    let mut content_length = None;
    for field in fields(text) {
        let (name, value) = field?;
        if name.eq_ignore_ascii_case("content-length") {
            let length = value
                .parse::<usize>()
                .map_err(|_| invalid(format!("a bad Content-Length: {value:?}")))?;
            if content_length.is_some_and(|previous| previous != length) {
                return Err(invalid("conflicting Content-Length headers".into()));
            }
            content_length = Some(length);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(invalid(format!(
                "Transfer-Encoding {value:?} is not supported"
            )));
        } else if name.eq_ignore_ascii_case("connection") {
            close = value
                .split(',')
                .any(|token| token.trim().eq_ignore_ascii_case("close"));
        }
    }
    // These statuses never have a body (RFC 9110 §6.4.1), whatever their headers say.
    let bodyless = status < 200 || status == 204 || status == 304;
    let content_length = match content_length {
        _ if bodyless => 0,
        Some(length) => length,
        None => {
            return Err(invalid(format!(
                "a {status} response lacks Content-Length (other framings are not supported)"
            )));
        }
    };
    Ok(Some(Head {
        status,
        len: end + 4,
        content_length,
        close,
    }))
}

/// The head as text: header values are ASCII in every response this bench reads.
fn head_text(head: &[u8]) -> io::Result<&str> {
    std::str::from_utf8(head).map_err(|_| invalid("a response head is not UTF-8".into()))
}

/// The header fields of a head (its status line skipped), as trimmed name and value.
fn fields(head: &str) -> impl Iterator<Item = io::Result<(&str, &str)>> {
    head.split("\r\n")
        .skip(1)
        .filter(|line| !line.is_empty())
        .map(|line| {
            line.split_once(':')
                .map(|(name, value)| (name.trim(), value.trim()))
                .ok_or_else(|| invalid(format!("a header line without a colon: {line:?}")))
        })
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::ReadBuf;

    use super::*;

    /// A stream that hands out at most `chunk` bytes per read, as a slow network would.
    struct Trickle<'a> {
        data: &'a [u8],
        chunk: usize,
    }

    impl AsyncRead for Trickle<'_> {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let data = self.data;
            let n = self.chunk.min(data.len()).min(buf.remaining());
            let (now, later) = data.split_at(n);
            buf.put_slice(now);
            self.data = later;
            Poll::Ready(Ok(()))
        }
    }

    async fn read_all(
        data: &[u8],
        chunk: usize,
        responses: usize,
    ) -> io::Result<Vec<(Head, Vec<u8>)>> {
        let mut stream = Trickle { data, chunk };
        let mut reader = ResponseReader::default();
        let mut read = Vec::new();
        for _ in 0..responses {
            let head = reader.read(&mut stream).await?;
            read.push((head, reader.message()[head.len..].to_vec()));
        }
        Ok(read)
    }

    const TWO: &[u8] =
        b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nContent-Type: text/plain\r\n\r\nhello\
HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";

    #[tokio::test]
    async fn reads_back_to_back_responses_split_at_every_byte() {
        for chunk in 1..=TWO.len() {
            let read = read_all(TWO, chunk, 2).await.unwrap();
            let first = Head {
                status: 200,
                len: 64,
                content_length: 5,
                close: false,
            };
            assert_eq!(read[0], (first, b"hello".to_vec()), "chunk {chunk}");
            assert_eq!(read[1].0.status, 401, "chunk {chunk}");
            assert!(read[1].0.close, "chunk {chunk}");
            assert_eq!(read[1].1, b"{}", "chunk {chunk}");
        }
    }

    #[tokio::test]
    async fn a_response_without_content_length_is_an_error() {
        let data = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello";
        let error = read_all(data, 7, 1).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(
            error.to_string().contains("lacks Content-Length"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn chunked_and_garbage_are_errors() {
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
        let error = read_all(chunked, 100, 1).await.unwrap_err();
        assert!(error.to_string().contains("Transfer-Encoding"), "{error}");
        let garbage = b"SSH-2.0-OpenSSH\r\n\r\n";
        let error = read_all(garbage, 100, 1).await.unwrap_err();
        assert!(error.to_string().contains("status line"), "{error}");
    }

    #[tokio::test]
    async fn bodyless_statuses_need_no_content_length() {
        let read = read_all(b"HTTP/1.1 204 No Content\r\n\r\n", 3, 1)
            .await
            .unwrap();
        assert_eq!(read[0].0.status, 204);
        assert!(read[0].1.is_empty());
    }

    #[tokio::test]
    async fn a_truncated_body_is_an_unexpected_eof() {
        let data = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort";
        let error = read_all(data, 4, 1).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn requests_carry_host_and_body_length() {
        let addr: SocketAddr = "127.0.0.1:8013".parse().unwrap();
        let bytes = request("POST", addr, "/api/login/", &[("X-A", "1")], b"a=b");
        assert_eq!(
            bytes,
            b"POST /api/login/ HTTP/1.1\r\nHost: 127.0.0.1:8013\r\nX-A: 1\r\nContent-Length: 3\r\n\r\na=b"
        );
    }

    #[test]
    fn a_cycle_goes_round_from_each_connection_s_own_start() {
        let pages = vec![b"1".to_vec(), b"2".to_vec(), b"3".to_vec()];
        let mut requests = Workload::cycle(pages).unwrap().for_connection(4).unwrap();
        let mut sent = Vec::new();
        for _ in 0..4 {
            sent.push(requests.current().to_vec());
            requests.advance(None).unwrap();
        }
        assert_eq!(sent, [b"2", b"3", b"1", b"2"]);
        assert!(Workload::cycle(Vec::new()).is_err());
    }

    #[test]
    fn windows_pool_their_latencies_and_errors_are_not_speed() {
        let second = Duration::from_secs(1);
        let ms = |values: std::ops::RangeInclusive<u32>| -> Vec<u32> {
            values.map(|ms| ms * 1000).collect()
        };
        // One slow window: its latencies count as its requests do.
        let windows = [
            Measurement::from_latencies(second, 0, ms(1..=100)),
            Measurement::from_latencies(second, 2, ms(1..=100)),
            Measurement::from_latencies(second, 0, ms(901..=1000)),
        ];
        let pooled = Measurement::pooled(&windows).unwrap();
        assert_eq!((pooled.requests(), pooled.errors), (300, 2));
        assert_eq!(pooled.requests_per_sec(), 298.0 / 3.0);
        assert_eq!(pooled.p50_ms(), 75.0);
        assert_eq!(pooled.p99_ms(), 997.0);
        assert!(Measurement::pooled(&[]).is_none());
        let summarised = [Measurement::summarised(second, 100, 1, (0.3, 1.0))];
        assert!(
            Measurement::pooled(&summarised).is_none(),
            "no latencies to pool"
        );
        assert_eq!(summarised[0].requests_per_sec(), 99.0);
    }

    #[test]
    fn wrk_windows_add_up_and_keep_the_worst_percentiles() {
        let second = Duration::from_secs(1);
        let windows = [
            Measurement::summarised(second, 100, 0, (0.3, 1.0)),
            Measurement::summarised(second, 110, 0, (0.5, 40.0)),
            Measurement::summarised(second, 90, 0, (0.4, 2.0)),
        ];
        let worst = Measurement::worst_of(&windows).unwrap();
        assert_eq!(worst.requests_per_sec(), 100.0);
        assert_eq!((worst.p50_ms(), worst.p99_ms()), (0.5, 40.0));
        assert!(Measurement::worst_of(&[]).is_none());
    }

    #[test]
    fn refusals_are_neither_speed_nor_errors() {
        let second = Duration::from_secs(1);
        // 100 exchanges, 30 non-2xx of which 25 were the expected refusal.
        let window = || Measurement::summarised(second, 100, 30, (0.3, 1.0)).with_refused(25);
        assert_eq!((window().errors, window().refused), (5, 25));
        assert_eq!(window().requests_per_sec(), 70.0);
        let both = Measurement::worst_of(&[window(), window()]).unwrap();
        assert_eq!((both.errors, both.refused), (10, 50));
        assert_eq!(both.requests_per_sec(), 70.0);
    }

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let latencies: Vec<u32> = (1..=100).map(|ms| ms * 1000).collect();
        let measurement = Measurement::from_latencies(Duration::from_secs(2), 0, latencies.clone());
        assert_eq!(measurement.requests_per_sec(), 50.0);
        assert_eq!(measurement.p50_ms(), 50.0);
        assert_eq!(measurement.p99_ms(), 99.0);
        assert_eq!(percentile_ms(&latencies, 1.0), 100.0);
    }
}
