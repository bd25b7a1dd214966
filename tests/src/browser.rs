//! End-to-end tests in a real browser: headless Debian Chromium driven through WebDriver.
//!
//! Each [`Browser`] runs its own chromedriver (which starts its own Chromium with a fresh
//! profile) and is bound to one [`TestServer`]. The API is synchronous like the rest of the
//! harness: a private current-thread tokio runtime runs fantoccini's futures.
//!
//! The programs come from `ACS_CHROMIUM_BIN`, `ACS_CHROMEDRIVER_BIN` and `ACS_AXE_JS`
//! (`scripts/setup-test-env.sh` installs them, `scripts/test-all.sh` sets the variables). A
//! missing program fails the test; it never skips it.

use std::future::Future;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};
use tokio::runtime::Runtime;

use crate::TestServer;

/// How long `text`, `click` and `fill` wait for their element, and `click` for the next page.
const ELEMENT_WAIT: Duration = Duration::from_secs(5);
/// How long one WebDriver command may take before the test fails (axe on a big page is slow).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(100);
const SETUP_HINT: &str = "run scripts/setup-test-env.sh (or scripts/test-all.sh, which runs it)";
/// The rule sets of WCAG 2.0 and 2.1, levels A and AA.
const AXE_TAGS: [&str; 4] = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/// One headless Chromium, driven through its own chromedriver process, bound to one
/// [`TestServer`].
pub struct Browser {
    base: String,
    artifacts: PathBuf,
    runtime: Runtime,
    client: Option<Client>,
    driver: Driver,
    // Chromium's profile and chromedriver's log; declared after `driver` so that it is
    // removed once both processes are gone.
    _scratch: tempfile::TempDir,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("base", &self.base)
            .field("chromedriver_pid", &self.driver.0.id())
            .field("artifacts", &self.artifacts)
            .finish_non_exhaustive()
    }
}

/// The chromedriver process, killed and reaped when dropped, also when `open` panics.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        // Chromium outlives a killed chromedriver. Closing the session normally quits it; if
        // that failed, its browser process is still chromedriver's child: end it first.
        let _ = Command::new("pkill")
            .args(["-KILL", "-P", &self.0.id().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The program named by `variable` (or `default`), which must exist.
fn program(variable: &str, default: &str, what: &str) -> PathBuf {
    let path = PathBuf::from(std::env::var(variable).unwrap_or_else(|_| default.to_owned()));
    assert!(
        path.is_file(),
        "{what} not found at {} ({variable}); {SETUP_HINT}, or set {variable}",
        path.display()
    );
    path
}

impl Browser {
    /// Starts chromedriver (`ACS_CHROMEDRIVER_BIN`, default `/usr/bin/chromedriver`) on a free
    /// loopback port, waits for its `/status`, and opens a session with a headless Chromium
    /// (`ACS_CHROMIUM_BIN`, default `/usr/bin/chromium`) in a 1280×900 window with a fresh
    /// profile. `test_name` names the directory of the screenshots.
    ///
    /// Panics, naming the variable and the setup script, if a program is missing.
    #[track_caller]
    pub fn open(server: &TestServer, test_name: &str) -> Browser {
        let chromedriver = program(
            "ACS_CHROMEDRIVER_BIN",
            "/usr/bin/chromedriver",
            "chromedriver",
        );
        let chromium = program("ACS_CHROMIUM_BIN", "/usr/bin/chromium", "Chromium");
        let scratch = tempfile::tempdir().expect("a temporary directory for Chromium");
        let log = scratch.path().join("chromedriver.log");
        // Port 0: chromedriver picks a free port itself and prints it, so parallel tests
        // cannot race for one.
        let mut driver = Driver(
            Command::new(&chromedriver)
                .arg("--port=0")
                .arg(format!("--log-path={}", log.display()))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|error| {
                    panic!("starting {}: {error}; {SETUP_HINT}", chromedriver.display())
                }),
        );
        let stdout = driver.0.stdout.take().expect("chromedriver's stdout");
        let (tx, rx) = mpsc::channel();
        // Reads the port, then keeps draining stdout so chromedriver never blocks on it.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(port) = line
                    .split_once("started successfully on port ")
                    .and_then(|(_, rest)| rest.trim_end_matches('.').parse::<u16>().ok())
                {
                    let _ = tx.send(port);
                }
            }
        });
        let port = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(port) => port,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!(
                "{} did not report its port within 30 s",
                chromedriver.display()
            ),
            // Its output ended first: it exited. Say how, with its log, rather than guess.
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = driver
                    .0
                    .wait()
                    .map_or_else(|e| e.to_string(), |s| s.to_string());
                let log = std::fs::read_to_string(&log).unwrap_or_default();
                panic!(
                    "{} ended before it reported its port ({status}); its log:\n{log}",
                    chromedriver.display()
                )
            }
        };
        let webdriver = format!("http://127.0.0.1:{port}");
        wait_for_status(&webdriver);

        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let profile = scratch.path().join("profile");
        let capabilities = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new",
                    // Tests run as root, where Chromium's sandbox refuses to start.
                    "--no-sandbox",
                    "--disable-dev-shm-usage",
                    "--disable-gpu",
                    "--window-size=1280,900",
                    "--lang=en-US",
                    "--no-first-run",
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
        });
        let Value::Object(capabilities) = capabilities else {
            unreachable!()
        };
        let mut builder = ClientBuilder::new(HttpConnector::new());
        builder.capabilities(capabilities);
        let failure = match within(&runtime, COMMAND_TIMEOUT, builder.connect(&webdriver)) {
            Some(Ok(client)) => Ok(client),
            Some(Err(error)) => Err(error.to_string()),
            None => Err(format!("no answer within {COMMAND_TIMEOUT:?}")),
        };
        let client = failure.unwrap_or_else(|error| {
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            panic!(
                "no WebDriver session with {} through {}: {error}\nchromedriver log (end):\n{}",
                chromium.display(),
                chromedriver.display(),
                lines[lines.len().saturating_sub(30)..].join("\n")
            )
        });
        let backend = format!("{:?}", server.backend).to_lowercase();
        Browser {
            base: server.base.clone(),
            artifacts: Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("artifacts/browser")
                .join(backend)
                .join(test_name),
            runtime,
            client: Some(client),
            driver,
            _scratch: scratch,
        }
    }

    fn client(&self) -> &Client {
        self.client.as_ref().expect("the session is open")
    }

    /// Runs one WebDriver future to completion; panics with `what` if it fails or hangs.
    #[track_caller]
    fn run<T, E: std::fmt::Debug>(
        &self,
        what: &str,
        future: impl Future<Output = Result<T, E>>,
    ) -> T {
        match within(&self.runtime, COMMAND_TIMEOUT, future) {
            Some(Ok(value)) => value,
            Some(Err(error)) => panic!("browser: {what} failed: {error:?}"),
            None => panic!("browser: {what} took longer than {COMMAND_TIMEOUT:?}"),
        }
    }

    /// Like [`Browser::run`], for polling: `None` instead of a panic.
    fn attempt<T, E>(&self, future: impl Future<Output = Result<T, E>>) -> Option<T> {
        within(&self.runtime, COMMAND_TIMEOUT, future).and_then(Result::ok)
    }

    /// Opens `path` (relative to the server's base, e.g. `/api/login/`) and waits for the load.
    #[track_caller]
    pub fn goto(&self, path: &str) {
        let url = format!("{}{path}", self.base);
        self.run(&format!("goto {url}"), self.client().goto(&url));
    }

    /// The current URL in full (the page may be on another origin than the server's).
    #[track_caller]
    pub fn url(&self) -> String {
        self.run("current_url", self.client().current_url())
            .to_string()
    }

    /// The current URL's path, plus `?` and the query if there is one.
    #[track_caller]
    pub fn path(&self) -> String {
        let url = self.run("current_url", self.client().current_url());
        match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        }
    }

    /// The first element matching `css`, waited for up to [`ELEMENT_WAIT`].
    #[track_caller]
    fn element(&self, css: &str) -> fantoccini::elements::Element {
        let deadline = Instant::now() + ELEMENT_WAIT;
        loop {
            if let Some(element) = self.attempt(self.client().find(Locator::Css(css))) {
                return element;
            }
            if Instant::now() >= deadline {
                let source = self.source();
                let snippet: String = source.chars().take(2000).collect();
                panic!(
                    "browser: no element matches {css:?} on {} after {ELEMENT_WAIT:?}; the page begins:\n{snippet}",
                    self.path()
                );
            }
            std::thread::sleep(POLL);
        }
    }

    /// Waits until the document (the next one, after a navigation) has loaded.
    fn wait_until_ready(&self) {
        let deadline = Instant::now() + ELEMENT_WAIT;
        // Fails while a navigation swaps documents; that is one more reason to poll.
        while Instant::now() < deadline {
            let state = self.attempt(self.client().execute("return document.readyState", vec![]));
            if state == Some(json!("complete")) {
                return;
            }
            std::thread::sleep(POLL);
        }
        panic!(
            "browser: {} did not finish loading within {ELEMENT_WAIT:?}",
            self.path()
        );
    }

    /// Clears the input matching `css`, then types `value` into it.
    #[track_caller]
    pub fn fill(&self, css: &str, value: &str) {
        let element = self.element(css);
        self.run(&format!("clear {css}"), element.clear());
        self.run(&format!("type into {css}"), element.send_keys(value));
    }

    /// Clicks the element matching `css`, then waits until the document is ready again
    /// (chromedriver waits for a navigation the click starts; this covers the load).
    #[track_caller]
    pub fn click(&self, css: &str) {
        let element = self.element(css);
        self.run(&format!("click {css}"), element.click());
        self.wait_until_ready();
    }

    /// Clicks the link or submit button matching `css` and waits for the page it leads to: a
    /// mark left in the current document must be gone (a form post answered by a redirect
    /// may still show the old, complete document right after the click), and the new one
    /// loaded.
    #[track_caller]
    pub fn click_through(&self, css: &str) {
        let element = self.element(css);
        self.execute("window.acsOldPage = true", vec![]);
        self.run(&format!("click {css}"), element.click());
        let deadline = Instant::now() + ELEMENT_WAIT;
        loop {
            let gone = self.attempt(self.client().execute(
                "return window.acsOldPage !== true && document.readyState === 'complete'",
                vec![],
            ));
            if gone == Some(json!(true)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "browser: clicking {css:?} on {} led to no new page within {ELEMENT_WAIT:?}",
                self.path()
            );
            std::thread::sleep(POLL);
        }
    }

    /// Submits the form matching `css` as its submit button would (`requestSubmit`, so
    /// validation and submit handlers run), then waits for the next page.
    #[track_caller]
    pub fn submit_form(&self, css: &str) {
        self.element(css);
        self.execute(
            "document.querySelector(arguments[0]).requestSubmit()",
            vec![json!(css)],
        );
        self.wait_until_ready();
    }

    /// The visible text of the first element matching `css` (waited for).
    #[track_caller]
    pub fn text(&self, css: &str) -> String {
        let element = self.element(css);
        self.run(&format!("text of {css}"), element.text())
    }

    /// The `value` property of the input matching `css` (waited for).
    #[track_caller]
    pub fn value(&self, css: &str) -> String {
        let element = self.element(css);
        self.run(&format!("value of {css}"), element.prop("value"))
            .unwrap_or_default()
    }

    /// Whether an element matches `css` now (no waiting).
    #[track_caller]
    pub fn exists(&self, css: &str) -> bool {
        self.count(css) > 0
    }

    /// How many elements match `css` now.
    #[track_caller]
    pub fn count(&self, css: &str) -> usize {
        self.run(
            &format!("find all {css}"),
            self.client().find_all(Locator::Css(css)),
        )
        .len()
    }

    /// The page's HTML as the browser has it now.
    #[track_caller]
    pub fn source(&self) -> String {
        self.run("page source", self.client().source())
    }

    /// The value of cookie `name` for the current page, if set.
    #[track_caller]
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.run("cookies", self.client().get_all_cookies())
            .into_iter()
            .find(|cookie| cookie.name() == name)
            .map(|cookie| cookie.value().to_owned())
    }

    /// Runs `script` as a function body in the page (`arguments` are `args`) and returns its
    /// result. WebDriver scripts are not subject to the page's Content-Security-Policy.
    #[track_caller]
    pub fn execute(&self, script: &str, args: Vec<Value>) -> Value {
        self.run("execute script", self.client().execute(script, args))
    }

    /// Resizes the window, e.g. to a phone's 390×844.
    #[track_caller]
    pub fn set_window_size(&self, width: u32, height: u32) {
        self.run(
            "set window size",
            self.client().set_window_size(width, height),
        );
    }

    /// Saves a PNG of the viewport as
    /// `tests/artifacts/browser/<backend>/<test_name>/<label>.png`, prints and returns its path.
    #[track_caller]
    pub fn screenshot(&self, label: &str) -> PathBuf {
        let png = self.run("screenshot", self.client().screenshot());
        std::fs::create_dir_all(&self.artifacts)
            .unwrap_or_else(|error| panic!("creating {}: {error}", self.artifacts.display()));
        let path = self.artifacts.join(format!("{label}.png"));
        std::fs::write(&path, png)
            .unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
        println!("screenshot: {}", path.display());
        path
    }

    /// Runs axe-core (the file at `ACS_AXE_JS`) on the current page with the WCAG 2.0 and 2.1
    /// A and AA rules; one line per violated rule:
    /// `<rule id> (<impact>): <help> — <targets of the first nodes>`.
    #[track_caller]
    pub fn accessibility_violations(&self) -> Vec<String> {
        let axe_path = std::env::var("ACS_AXE_JS").unwrap_or_else(|_| {
            panic!("ACS_AXE_JS is not set (the path of axe-core's axe.min.js); {SETUP_HINT}, which installs it into node_modules/")
        });
        let axe = std::fs::read_to_string(&axe_path)
            .unwrap_or_else(|error| panic!("ACS_AXE_JS={axe_path}: {error}; {SETUP_HINT}"));
        // Injected as a WebDriver script, which the page's `default-src 'none'` CSP does not
        // govern (a <script> element would be refused). The script defines `window.axe`.
        if self.execute("return typeof window.axe", vec![]) != json!("object") {
            self.execute(&axe, vec![]);
        }
        // One line per violated rule, formatted in the page: "<id> (<impact>): <help> — <targets>".
        let result = self.run(
            "axe.run",
            self.client().execute_async(
                r"const done = arguments[arguments.length - 1];
                  const line = (v) => {
                      const targets = v.nodes.map((n) => n.target.join(' '));
                      const more = targets.length > 3 ? ` (+${targets.length - 3} more)` : '';
                      return `${v.id} (${v.impact}): ${v.help} — ${targets.slice(0, 3).join(', ')}${more}`;
                  };
                  axe.run(document, {
                      runOnly: { type: 'tag', values: arguments[0] },
                      resultTypes: ['violations'],
                  }).then(
                      (r) => done({ violations: r.violations.map(line) }),
                      (e) => done({ error: String((e && e.stack) || e) }),
                  );",
                vec![json!(AXE_TAGS)],
            ),
        );
        match result["violations"].as_array() {
            Some(lines) => lines
                .iter()
                .map(|l| l.as_str().unwrap_or("?").to_owned())
                .collect(),
            None => panic!("axe.run failed on {}: {result}", self.path()),
        }
    }

    /// Whether the page is wider than the viewport, so that it scrolls sideways (for
    /// phone-size checks after [`Browser::set_window_size`]).
    #[track_caller]
    pub fn overflows_horizontally(&self) -> bool {
        let overflows = self.execute(
            "const root = document.documentElement;
             return Math.max(root.scrollWidth, document.body ? document.body.scrollWidth : 0)
                 > root.clientWidth",
            vec![],
        );
        overflows == json!(true)
    }
}

/// Runs `future` on `runtime` for at most `limit`; `None` if it takes longer. (The timer
/// needs the runtime's context, so it is made inside `block_on`.)
fn within<F: Future>(runtime: &Runtime, limit: Duration, future: F) -> Option<F::Output> {
    runtime.block_on(async { tokio::time::timeout(limit, future).await.ok() })
}

/// Polls chromedriver's `/status` until it reports ready.
fn wait_for_status(webdriver: &str) {
    let url = format!("{webdriver}/status");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ready = reqwest::blocking::get(&url)
            .and_then(|reply| reply.json::<Value>())
            .map(|status| status["value"]["ready"] == json!(true));
        if matches!(ready, Ok(true)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "chromedriver at {url} is not ready after 30 s: {ready:?}"
        );
        std::thread::sleep(POLL);
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ending the session makes chromedriver quit Chromium; errors are moot by now.
        if let Some(client) = self.client.take() {
            let _ = within(&self.runtime, Duration::from_secs(10), client.close());
        }
        // Then `driver` is dropped: chromedriver is killed and reaped.
    }
}
