//! Closed loops driven by `wrk` (Debian package `wrk`, installed by the project's set-up), the
//! load generator the bench's figures must hold against: the bench's own generator, sharing
//! two cores with the server, drove a bare handler at about half of wrk's rate, and every
//! share computed against it came out doubled. wrk sends exactly the bytes the scenarios
//! prepared (a Lua script returns them from `request()`), so both generators measure the same
//! requests. Open loops at a set rate stay with the bench's generator (wrk has none).

use std::fmt::Write as _;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::load::{ChainTemplate, Load, Measurement, Workload};
use crate::Result;

/// The program, looked up on `PATH`.
pub const PROGRAM: &str = "wrk";
/// What a response may take before wrk counts it as a timeout.
const TIMEOUT: &str = "10s";
/// The summary line the script's `done()` prints.
const SUMMARY: &str = "ACS-WRK ";

/// Applies `load` (a closed loop: `load.rate` must be `None`) with `workload` and measures it;
/// answers of status `refusal`, when given, are counted apart (see [`Measurement::refused`]).
/// A chained workload (single-use credentials) has no separate warm-up: its first requests
/// can be sent once only.
pub fn run(load: Load, workload: &Workload, refusal: Option<u16>) -> Result<Measurement> {
    if load.rate.is_some() {
        return Err("wrk runs closed loops only".into());
    }
    let script = ScriptFile::write(&script(workload, refusal))?;
    let chained = matches!(workload, Workload::Chain { .. });
    if !load.warmup.is_zero() && !chained {
        drive(&load, &script, load.warmup)?;
    }
    let summary = drive(&load, &script, load.duration)?;
    Ok(Measurement::summarised(
        summary.duration,
        summary.requests,
        summary.errors,
        summary.latencies,
    )
    .with_refused(summary.refused))
}

/// What the script's `done()` printed.
#[derive(Debug, PartialEq)]
struct Summary {
    duration: Duration,
    requests: u64,
    /// Socket errors and non-2xx/3xx answers, refusals included.
    errors: u64,
    /// Answers of the refusal status.
    refused: u64,
    /// p50 and p99, in milliseconds.
    latencies: (f64, f64),
}

/// First requests a chained workload needs beyond one per connection: wrk calls `request()`
/// once on its first thread before any connection opens (to count pipelined requests), which
/// takes a first request that is never sent. Without a spare, a connection would be left to
/// resend a used credential.
pub const SPARE_CHAINS: usize = 2;

/// Threads: two as `wrk -t2` is run by hand on these machines, never more than connections.
fn threads(load: &Load) -> usize {
    load.connections.clamp(1, 2)
}

/// One wrk run of `duration` (whole seconds, at least one); its summary.
fn drive(load: &Load, script: &ScriptFile, duration: Duration) -> Result<Summary> {
    let seconds = duration.as_secs().max(1);
    let threads = threads(load);
    let output = Command::new(PROGRAM)
        .args([
            format!("--threads={threads}"),
            format!("--connections={}", load.connections.max(threads)),
            format!("--duration={seconds}s"),
            format!("--timeout={TIMEOUT}"),
            format!("--script={}", script.0.display()),
            format!("http://{}/", load.addr),
            "--".to_owned(),
            threads.to_string(),
        ])
        .output()
        .map_err(|error| {
            format!("cannot run {PROGRAM} (scripts/setup-test-env.sh installs it): {error}")
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("{PROGRAM} failed ({}): {stdout}{stderr}", output.status).into());
    }
    // The first failures of a chain, for whoever reads a row with errors.
    for failed in stdout
        .lines()
        .filter(|line| line.starts_with("ACS-WRK-FAILED"))
    {
        eprintln!("bench: {failed}");
    }
    parse_summary(&stdout).ok_or_else(|| format!("{PROGRAM} printed no summary: {stdout}").into())
}

/// The script's summary line.
fn parse_summary(stdout: &str) -> Option<Summary> {
    let line = stdout.lines().find_map(|line| line.strip_prefix(SUMMARY))?;
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [requests, duration_us, errors, p50_us, p99_us, refused] = fields.as_slice() else {
        return None;
    };
    Some(Summary {
        duration: Duration::from_micros(duration_us.parse().ok()?),
        requests: requests.parse().ok()?,
        errors: errors.parse().ok()?,
        refused: refused.parse().ok()?,
        latencies: (
            p50_us.parse::<f64>().ok()? / 1000.0,
            p99_us.parse::<f64>().ok()? / 1000.0,
        ),
    })
}

/// `bytes` as a Lua string literal (every byte outside plain printable ASCII escaped, so line
/// ends stay `\r\n`).
fn lua_string(bytes: &[u8]) -> String {
    let mut literal = String::with_capacity(bytes.len() + 2);
    literal.push('"');
    for &byte in bytes {
        if byte.is_ascii_alphanumeric() || b" /:.,-_=&%?+;()[]{}<>@!*'#$|~^`".contains(&byte) {
            literal.push(char::from(byte));
        } else {
            let _ = write!(literal, "\\{byte:03}");
        }
    }
    literal.push('"');
    literal
}

/// The Lua script that sends `workload`'s requests: the same request (`repeat`), the list in
/// turn from a start of each thread's own (`cycle`), or each response's credential in the
/// template (`chain`: each thread starts with its share of the first requests). `done()`
/// prints the summary: requests, duration in µs, errors (socket errors and non-2xx/3xx
/// answers), median and 99th percentile latency in µs, and the answers of status `refusal`
/// (each thread counts its own; wrk reads bodies only where a `response()` is defined, so
/// only a chain or a refusal defines one).
fn script(workload: &Workload, refusal: Option<u16>) -> String {
    let (mode, requests, template) = match workload {
        Workload::Repeat(request) => ("repeat", vec![request.to_vec()], None),
        Workload::Cycle(requests) => ("cycle", requests.to_vec(), None),
        Workload::Shuffled(requests) => ("shuffled", requests.to_vec(), None),
        Workload::Drawn(drawn) => (
            "drawn",
            vec![drawn.before.clone(), drawn.after.clone()],
            None,
        ),
        Workload::Chain {
            first, template, ..
        } => ("chain", first.clone(), Some(template)),
    };
    let list: Vec<String> = requests.iter().map(|request| lua_string(request)).collect();
    let (drawn_format, drawn_count) = match workload {
        Workload::Drawn(drawn) => (format!("{}%0{}d", drawn.prefix, drawn.digits), drawn.count),
        _ => (String::new(), 0),
    };
    let mut lua = format!(
        r#"local mode = "{mode}"
local drawn_format, drawn_count = {}, {drawn_count}
math.randomseed(os.time())
local requests = {{ {} }}
local counter, threads = 0, {{}}
refused = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  threads[#threads + 1] = thread
end
local queue, at, last = {{}}, 1, requests[1]
function init(args)
  local threads = tonumber(args[1]) or 1
  at = id % #requests + 1
  if mode == "chain" then
    for i = id + 1, #requests, threads do queue[#queue + 1] = requests[i] end
  end
end
function request()
  if mode == "repeat" then return requests[1] end
  if mode == "drawn" then
    return requests[1] .. string.format(drawn_format, math.random(drawn_count)) .. requests[2]
  end
  if mode == "shuffled" then return requests[math.random(#requests)] end
  if mode == "cycle" then
    local request = requests[at]
    at = at % #requests + 1
    return request
  end
  local next_request = table.remove(queue, 1)
  if next_request then last = next_request end
  return last
end
function done(summary, latency, requests)
  local e, refusals = summary.errors, 0
  for _, thread in ipairs(threads) do refusals = refusals + (thread:get("refused") or 0) end
  io.write(string.format("{SUMMARY}%d %d %d %.1f %.1f %d\n", summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), refusals))
end
"#,
        lua_string(drawn_format.as_bytes()),
        list.join(",\n  ")
    );
    if template.is_none() && refusal.is_none() {
        return lua;
    }
    // With a `response`, wrk reads every body: only a chain or a refusal defines one.
    let _ = write!(
        lua,
        r#"local refusal, failures = {}, 0
function response(status, headers, body)
  if status == refusal then
    refused = refused + 1
    return
  end
  if (status < 200 or status > 299) and failures < 3 then
    failures = failures + 1
    io.write("ACS-WRK-FAILED " .. status .. " " .. (body or ""):sub(1, 200) .. "\n")
  end
  follow(body)
end
"#,
        refusal.map_or(-1, i32::from)
    );
    match template {
        Some(ChainTemplate {
            request,
            placeholder,
            field,
        }) => {
            let _ = write!(
                lua,
                r#"local template, placeholder = {}, "{placeholder}"
function follow(body)
  local credential = body and body:match('"{field}"%s*:%s*"([^"]+)"')
  if credential and #credential == #placeholder then
    local next_request = template:gsub(placeholder, credential, 1)
    queue[#queue + 1] = next_request
  end
end
"#,
                lua_string(request)
            );
        }
        None => lua.push_str("function follow(body) end\n"),
    }
    lua
}

/// The script on disk for wrk's `--script`, removed when dropped.
struct ScriptFile(std::path::PathBuf);

impl ScriptFile {
    fn write(script: &str) -> Result<Self> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "acs-bench-{}-{}.lua",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, script)
            .map_err(|error| format!("writing {}: {error}", path.display()))?;
        Ok(ScriptFile(path))
    }
}

impl Drop for ScriptFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_keep_every_byte_in_lua() {
        assert_eq!(
            lua_string(b"GET / HTTP/1.1\r\nX: \"a\\b\"\r\n\r\n"),
            r#""GET / HTTP/1.1\013\010X: \034a\092b\034\013\010\013\010""#
        );
    }

    #[test]
    fn the_summary_line_is_read_among_wrk_s_own_output() {
        let stdout = "Running 1s test @ http://127.0.0.1:1/\n  2 threads\nACS-WRK 1500 1002000 3 120.0 2500.5 2\n";
        assert_eq!(
            parse_summary(stdout),
            Some(Summary {
                duration: Duration::from_micros(1_002_000),
                requests: 1500,
                errors: 3,
                refused: 2,
                latencies: (0.12, 2.5005),
            })
        );
        assert!(parse_summary("no summary").is_none());
    }

    #[test]
    fn a_drawn_workload_writes_its_credential_between_the_halves() {
        let drawn = super::super::load::Drawn {
            before: b"GET / HTTP/1.1\r\nAuthorization: Bearer ".to_vec(),
            prefix: "benchCold",
            digits: 34,
            count: 100_000,
            after: b"\r\n\r\n".to_vec(),
        };
        assert_eq!(super::super::dataset::cold_token(7).len(), 43);
        assert_eq!(
            super::super::dataset::cold_token(7),
            "benchCold0000000000000000000000000000000007"
        );
        let lua = script(&Workload::Drawn(drawn), None);
        assert!(
            lua.contains(r#"local drawn_format, drawn_count = "benchCold%034d", 100000"#),
            "{lua}"
        );
        assert!(lua.contains(r#"local mode = "drawn""#));
    }

    #[test]
    fn only_a_chain_or_a_refusal_reads_bodies() {
        let request = || Workload::repeat(b"GET / HTTP/1.1\r\n\r\n".to_vec());
        let repeat = script(&request(), None);
        assert!(repeat.contains(r#"local mode = "repeat""#));
        assert!(!repeat.contains("function response"));
        let refusable = script(&request(), Some(503));
        assert!(
            refusable.contains("local refusal, failures = 503, 0"),
            "{refusable}"
        );
        assert!(
            refusable.contains("function follow(body) end"),
            "{refusable}"
        );
    }
}
