//! A real OpenLDAP directory for the directory-login tests.
//!
//! Each [`Directory`] runs its own `slapd` as a foreground child process on a free loopback
//! port, with its `slapd.conf`, its MDB database and its log in a temporary directory. The
//! database is seeded with `slapadd` before `slapd` starts:
//!
//! ```text
//! dc=acs,dc=test                          (admin: cn=admin,dc=acs,dc=test, the rootdn)
//! ├── ou=people     users: uid=<uid>,ou=people,dc=acs,dc=test (inetOrgPerson)
//! ├── ou=groups     groups: cn=<cn>,ou=groups,dc=acs,dc=test (groupOfNames or posixGroup)
//! └── ou=services
//!     └── cn=reader (the service account a server binds as to search)
//! ```
//!
//! Access: the reader reads everything but passwords; every entry reads itself; anyone may
//! bind (simple bind against `userPassword`, stored in clear, which `slapd` compares);
//! anonymous users see nothing. The admin (rootdn) is above the access rules.
//!
//! While the directory runs, the test changes it with the OpenLDAP command-line tools
//! (`ldapmodify`, `ldapdelete`, `ldapwhoami`, `ldapsearch` from Debian's `ldap-utils` in
//! `/usr/bin`), bound as the admin.
//!
//! The programs come from `ACS_SLAPD_BIN` and `ACS_SLAPADD_BIN` (`scripts/setup-test-env.sh`
//! installs Debian's `slapd` and `ldap-utils`, `scripts/test-all.sh` sets the variables). A
//! missing program fails the test; it never skips it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const SETUP_HINT: &str = "run scripts/setup-test-env.sh (or scripts/test-all.sh, which runs it and \
                          sets ACS_SLAPD_BIN=/usr/sbin/slapd and ACS_SLAPADD_BIN=/usr/sbin/slapadd)";
/// Where Debian's `ldap-utils` puts the client tools.
const TOOLS_DIR: &str = "/usr/bin";
/// Where Debian's `slapd` puts its schema files and modules.
const SCHEMA_DIR: &str = "/etc/ldap/schema";
const MODULE_DIR: &str = "/usr/lib/ldap";

const BASE_DN: &str = "dc=acs,dc=test";
const PEOPLE_DN: &str = "ou=people,dc=acs,dc=test";
const GROUPS_DN: &str = "ou=groups,dc=acs,dc=test";
const SERVICES_DN: &str = "ou=services,dc=acs,dc=test";
const READER_DN: &str = "cn=reader,ou=services,dc=acs,dc=test";
const ADMIN_DN: &str = "cn=admin,dc=acs,dc=test";

/// How long `slapd` may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How many ports are tried when `slapd` cannot bind the one picked (another process took
/// it between the pick and slapd's bind).
const START_ATTEMPTS: usize = 3;
/// Connect timeout of the client tools (`-o nettimeout`), in seconds.
const TOOL_NET_TIMEOUT: &str = "nettimeout=10";
/// How long a client tool may run.
const TOOL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the first admin bind may take before the port is taken for another process's.
const READY_TOOL_TIMEOUT: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(20);

/// `ldap_bind: Invalid credentials (49)`: the exit status of a tool whose bind failed.
const INVALID_CREDENTIALS: i32 = 49;
/// `No such object (32)`: also what a search gets whose base it may not see.
const NO_SUCH_OBJECT: i32 = 32;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn unique_suffix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    )
}

/// One entry of a search result, values decoded from LDIF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry's DN as the server wrote it.
    pub dn: String,
    /// `(attribute, value)` pairs in the server's order; attribute names as the server wrote
    /// them (use [`Entry::values`] to look one up case-insensitively).
    pub attributes: Vec<(String, String)>,
}

impl Entry {
    /// The values of `attribute` (case-insensitive), in order.
    pub fn values(&self, attribute: &str) -> Vec<&str> {
        self.attributes
            .iter()
            .filter(|(name, _)| name.eq_ignore_ascii_case(attribute))
            .map(|(_, value)| value.as_str())
            .collect()
    }

    /// The only value of `attribute`; panics when it has none or several.
    #[track_caller]
    pub fn value(&self, attribute: &str) -> &str {
        match self.values(attribute).as_slice() {
            [one] => one,
            other => panic!(
                "{} has {} values of {attribute}: {other:?}",
                self.dn,
                other.len()
            ),
        }
    }
}

/// The `slapd` process, killed and reaped when dropped, also when `start` panics.
struct Slapd(Child);

impl Drop for Slapd {
    fn drop(&mut self) {
        // SIGKILL: the database is thrown away with the temporary directory, so nothing is
        // lost by not letting slapd flush it.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One running OpenLDAP `slapd` with its own configuration and database. Stopped, and its
/// files removed, when dropped.
pub struct Directory {
    port: u16,
    admin_password: String,
    reader_password: String,
    slapd: Slapd,
    // Declared after `slapd` so it is removed once the process is gone.
    dir: tempfile::TempDir,
}

impl std::fmt::Debug for Directory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Directory")
            .field("uri", &self.uri())
            .field("slapd_pid", &self.slapd.0.id())
            .field("dir", &self.dir.path())
            .finish_non_exhaustive()
    }
}

/// The program named by `variable`, which must be set and exist.
#[track_caller]
fn program_from_env(variable: &str, what: &str) -> PathBuf {
    let path = std::env::var_os(variable).unwrap_or_else(|| {
        panic!("{variable} is not set: the LDAP tests need OpenLDAP's {what}; {SETUP_HINT}")
    });
    PathBuf::from(path)
}

#[track_caller]
fn require_program(path: &Path, what: &str) {
    assert!(
        path.is_file(),
        "OpenLDAP's {what} not found at {}; {SETUP_HINT}",
        path.display()
    );
}

fn tool(name: &str) -> PathBuf {
    let path = Path::new(TOOLS_DIR).join(name);
    require_program(&path, &format!("{name} (Debian package ldap-utils)"));
    path
}

/// A command with no configuration files read (`/etc/ldap/ldap.conf`, `~/.ldaprc`).
fn command(program: &Path) -> Command {
    let mut command = Command::new(program);
    command.env("LDAPNOINIT", "1").stdin(Stdio::null());
    command
}

fn describe(output: &Output) -> String {
    format!(
        "{}; stdout: {}; stderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout).trim(),
        String::from_utf8_lossy(&output.stderr).trim()
    )
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free loopback port")
}

impl Directory {
    /// Starts a directory with `slapd` from `ACS_SLAPD_BIN` and `slapadd` from
    /// `ACS_SLAPADD_BIN`, seeded with the base entries and the reader, and waits until it
    /// answers binds (at most 20 s).
    ///
    /// Panics, naming the variable and the setup script, if a program is missing.
    #[track_caller]
    pub fn start() -> Directory {
        let slapd = program_from_env("ACS_SLAPD_BIN", "slapd");
        let slapadd = program_from_env("ACS_SLAPADD_BIN", "slapadd");
        Self::start_with_programs(&slapd, &slapadd)
    }

    /// [`Directory::start`] with the given `slapd` and `slapadd` programs.
    #[track_caller]
    pub fn start_with_programs(slapd: &Path, slapadd: &Path) -> Directory {
        require_program(slapd, "slapd (Debian package slapd)");
        require_program(slapadd, "slapadd (Debian package slapd)");
        for name in ["ldapmodify", "ldapdelete", "ldapwhoami", "ldapsearch"] {
            tool(name);
        }
        let mut dir = tempfile::tempdir().expect("a temporary directory for slapd");
        let suffix = unique_suffix();
        let admin_password = format!("Admin-{suffix}");
        let reader_password = format!("Reader-{suffix}");

        let config = dir.path().join("slapd.conf");
        std::fs::write(&config, slapd_conf(dir.path(), &admin_password))
            .expect("writing slapd.conf");
        std::fs::create_dir(dir.path().join("db")).expect("creating the database directory");
        let seed = dir.path().join("seed.ldif");
        std::fs::write(&seed, seed_ldif(&reader_password)).expect("writing seed.ldif");
        let output = command(slapadd)
            .arg("-q")
            .arg("-f")
            .arg(&config)
            .arg("-l")
            .arg(&seed)
            .output()
            .unwrap_or_else(|error| panic!("running {}: {error}", slapadd.display()));
        assert!(
            output.status.success(),
            "{} -f {} -l {} failed: {}",
            slapadd.display(),
            config.display(),
            seed.display(),
            describe(&output)
        );

        let log_path = dir.path().join("slapd.log");
        let mut failures = Vec::new();
        for attempt in 1..=START_ATTEMPTS {
            let port = free_port();
            let log = std::fs::File::create(&log_path).expect("creating slapd.log");
            // `-d none`, not `-d 0`: both keep slapd in the foreground, but level 0 also
            // silences its fatal errors (a port in use, a bad configuration).
            let child = command(slapd)
                .arg("-d")
                .arg("none")
                .arg("-f")
                .arg(&config)
                .arg("-h")
                .arg(format!("ldap://127.0.0.1:{port}/"))
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap_or_else(|error| panic!("starting {}: {error}", slapd.display()));
            let mut directory = Directory {
                port,
                admin_password: admin_password.clone(),
                reader_password: reader_password.clone(),
                slapd: Slapd(child),
                dir,
            };
            match directory.wait_until_ready() {
                Ok(()) => return directory,
                Err(failure) => {
                    failures.push(format!("attempt {attempt}, port {port}: {failure}"));
                    // Stop this slapd, keep the directory for the next attempt.
                    let Directory {
                        slapd, dir: kept, ..
                    } = directory;
                    drop(slapd);
                    dir = kept;
                }
            }
        }
        panic!(
            "slapd ({}) did not start with {}:\n{}",
            slapd.display(),
            config.display(),
            failures.join("\n")
        );
    }

    /// Waits until slapd has written its pid file (it does so only after binding its
    /// listener), accepts connections and lets the admin bind, which proves the port is this
    /// slapd's and not another process's.
    fn wait_until_ready(&mut self) -> Result<(), String> {
        let started = Instant::now();
        let address = SocketAddr::from(([127, 0, 0, 1], self.port));
        let pidfile = self.dir.path().join("slapd.pid");
        let pid = self.slapd.0.id().to_string();
        loop {
            if let Some(status) = self.slapd.0.try_wait().expect("slapd's status") {
                return Err(format!(
                    "slapd exited with {status}; its log:\n{}",
                    self.log()
                ));
            }
            let started_up =
                std::fs::read_to_string(&pidfile).is_ok_and(|content| content.trim() == pid);
            if started_up && TcpStream::connect_timeout(&address, Duration::from_secs(1)).is_ok() {
                break;
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(format!(
                    "slapd did not accept connections within {START_TIMEOUT:?} (pid file \
                     written: {started_up}); its log:\n{}",
                    self.log()
                ));
            }
            std::thread::sleep(POLL);
        }
        let bound = self.run_tool(
            "ldapwhoami",
            &["-D", ADMIN_DN, "-w", &self.admin_password],
            None,
            READY_TOOL_TIMEOUT,
        );
        let alive = self.slapd.0.try_wait().expect("slapd's status").is_none();
        match bound {
            Ok(output) if output.status.success() && alive => Ok(()),
            other => Err(format!(
                "the port accepts connections but the admin bind gave {} (slapd {}); slapd's \
                 log:\n{}",
                other.map_or_else(|error| error, |output| describe(&output)),
                if alive { "running" } else { "exited" },
                self.log()
            )),
        }
    }

    /// `ldap://127.0.0.1:<port>`.
    pub fn uri(&self) -> String {
        format!("ldap://127.0.0.1:{}", self.port)
    }

    /// The port slapd listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The process id of slapd.
    pub fn pid(&self) -> u32 {
        self.slapd.0.id()
    }

    /// The temporary directory of `slapd.conf`, the database (`db/`) and `slapd.log`.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// What slapd wrote on stderr so far: at debug level `none`, its version, `slapd
    /// starting`, and its errors (not one line per operation).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("slapd.log")).unwrap_or_default()
    }

    /// `dc=acs,dc=test`, the suffix of the one database.
    pub fn base_dn(&self) -> &'static str {
        BASE_DN
    }

    /// `ou=people,dc=acs,dc=test`, where [`Directory::add_user`] adds users.
    pub fn people_dn(&self) -> &'static str {
        PEOPLE_DN
    }

    /// `ou=groups,dc=acs,dc=test`, where [`Directory::add_group`] adds groups.
    pub fn groups_dn(&self) -> &'static str {
        GROUPS_DN
    }

    /// `ou=services,dc=acs,dc=test`, which holds the reader.
    pub fn services_dn(&self) -> &'static str {
        SERVICES_DN
    }

    /// `uid=<uid>,ou=people,dc=acs,dc=test` (the value escaped as a DN needs).
    pub fn user_dn(&self, uid: &str) -> String {
        format!("uid={},{PEOPLE_DN}", escape_dn_value(uid))
    }

    /// `cn=<cn>,ou=groups,dc=acs,dc=test` (the value escaped as a DN needs).
    pub fn group_dn(&self, cn: &str) -> String {
        format!("cn={},{GROUPS_DN}", escape_dn_value(cn))
    }

    /// `cn=reader,ou=services,dc=acs,dc=test`: the service account that may read everything
    /// but passwords (the bind DN a server is configured with).
    pub fn reader_dn(&self) -> &'static str {
        READER_DN
    }

    /// The reader's password (unique to this directory).
    pub fn reader_password(&self) -> &str {
        &self.reader_password
    }

    /// `cn=admin,dc=acs,dc=test`: the rootdn, not subject to access rules.
    pub fn admin_dn(&self) -> &'static str {
        ADMIN_DN
    }

    /// The admin's password (unique to this directory).
    pub fn admin_password(&self) -> &str {
        &self.admin_password
    }

    /// Points `server` at this directory: user search under the people, as the reader.
    pub fn configure(&self, server: &crate::TestServer) {
        use crate::Call;
        server
            .admin()
            .patch("/api/v2/settings/ldap/")
            .json(&serde_json::json!({
                "AUTH_LDAP_SERVER_URI": self.uri(),
                "AUTH_LDAP_BIND_DN": self.reader_dn(),
                "AUTH_LDAP_BIND_PASSWORD": self.reader_password(),
                "AUTH_LDAP_USER_SEARCH": [self.people_dn(), "SCOPE_SUBTREE", "(uid=%(user)s)"],
            }))
            .call()
            .expect(200);
    }

    /// The first login of directory user `uid` on `server` (HTTP Basic), which creates the
    /// external account: its id.
    pub fn first_login(&self, server: &crate::TestServer, uid: &str, password: &str) -> i64 {
        let me = server
            .anonymous()
            .with_basic(uid, password)
            .get_json("/api/v2/me/");
        me["results"][0]["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("{uid} did not log in from the directory: {me}"))
    }

    /// Adds the user `uid=<uid>,ou=people,dc=acs,dc=test` (inetOrgPerson with `uid`, `cn`
    /// "<given name> <surname>", `sn`, `givenName`, `mail` and `userPassword` in clear).
    /// Values may hold any characters (they are base64-encoded in the LDIF when needed).
    #[track_caller]
    pub fn add_user(&self, uid: &str, password: &str, given_name: &str, surname: &str, mail: &str) {
        let cn = format!("{given_name} {surname}");
        let ldif = [
            ldif_line("dn", &self.user_dn(uid)),
            ldif_line("objectClass", "inetOrgPerson"),
            ldif_line("uid", uid),
            ldif_line("cn", cn.trim()),
            ldif_line("sn", surname),
            ldif_line("givenName", given_name),
            ldif_line("mail", mail),
            ldif_line("userPassword", password),
        ]
        .concat();
        self.add_ldif(&ldif);
    }

    /// Replaces the password of user `uid`.
    #[track_caller]
    pub fn set_password(&self, uid: &str, password: &str) {
        self.replace_attribute(&self.user_dn(uid), "userPassword", &[password]);
    }

    /// Replaces every value of `attribute` of the entry `dn` (no values: removes it).
    #[track_caller]
    pub fn replace_attribute(&self, dn: &str, attribute: &str, values: &[&str]) {
        let mut ldif = [
            ldif_line("dn", dn),
            "changetype: modify\n".to_owned(),
            ldif_line("replace", attribute),
        ]
        .concat();
        for value in values {
            ldif.push_str(&ldif_line(attribute, value));
        }
        ldif.push_str("-\n");
        self.modify_ldif(&ldif);
    }

    /// Deletes user `uid`.
    #[track_caller]
    pub fn delete_user(&self, uid: &str) {
        self.delete_entry(&self.user_dn(uid));
    }

    /// Adds the group `cn=<cn>,ou=groups,dc=acs,dc=test` (groupOfNames) whose `member`s are
    /// the users `member_uids` (at least one: the schema requires a member).
    #[track_caller]
    pub fn add_group(&self, cn: &str, member_uids: &[&str]) {
        assert!(
            !member_uids.is_empty(),
            "a groupOfNames needs at least one member (group {cn})"
        );
        let mut ldif = [
            ldif_line("dn", &self.group_dn(cn)),
            ldif_line("objectClass", "groupOfNames"),
            ldif_line("cn", cn),
        ]
        .concat();
        for uid in member_uids {
            ldif.push_str(&ldif_line("member", &self.user_dn(uid)));
        }
        self.add_ldif(&ldif);
    }

    /// Adds the group `cn=<cn>,ou=groups,dc=acs,dc=test` as a posixGroup (`gidNumber`, and
    /// `memberUid` values that name users by uid; may be empty).
    #[track_caller]
    pub fn add_posix_group(&self, cn: &str, gid_number: u32, member_uids: &[&str]) {
        let mut ldif = [
            ldif_line("dn", &self.group_dn(cn)),
            ldif_line("objectClass", "posixGroup"),
            ldif_line("cn", cn),
            ldif_line("gidNumber", &gid_number.to_string()),
        ]
        .concat();
        for uid in member_uids {
            ldif.push_str(&ldif_line("memberUid", uid));
        }
        self.add_ldif(&ldif);
    }

    /// Adds user `uid` to the groupOfNames `cn`.
    #[track_caller]
    pub fn add_group_member(&self, cn: &str, uid: &str) {
        self.change_member("add", cn, uid);
    }

    /// Removes user `uid` from the groupOfNames `cn` (not its last member: the schema
    /// requires one).
    #[track_caller]
    pub fn remove_group_member(&self, cn: &str, uid: &str) {
        self.change_member("delete", cn, uid);
    }

    #[track_caller]
    fn change_member(&self, operation: &str, cn: &str, uid: &str) {
        let ldif = [
            ldif_line("dn", &self.group_dn(cn)),
            "changetype: modify\n".to_owned(),
            ldif_line(operation, "member"),
            ldif_line("member", &self.user_dn(uid)),
            "-\n".to_owned(),
        ]
        .concat();
        self.modify_ldif(&ldif);
    }

    /// Deletes group `cn`.
    #[track_caller]
    pub fn delete_group(&self, cn: &str) {
        self.delete_entry(&self.group_dn(cn));
    }

    /// Deletes the entry `dn` (which must have no children).
    #[track_caller]
    pub fn delete_entry(&self, dn: &str) {
        let output = self.admin_tool("ldapdelete", &[dn], None);
        assert!(
            output.status.success(),
            "ldapdelete {dn} failed: {}",
            describe(&output)
        );
    }

    /// Adds the entries of `ldif` (records without `changetype`), as the admin.
    #[track_caller]
    pub fn add_ldif(&self, ldif: &str) {
        let output = self.admin_tool("ldapmodify", &["-a"], Some(ldif));
        assert!(
            output.status.success(),
            "ldapmodify -a failed: {}\nLDIF:\n{ldif}",
            describe(&output)
        );
    }

    /// Applies the change records of `ldif` (`changetype: …`), as the admin.
    #[track_caller]
    pub fn modify_ldif(&self, ldif: &str) {
        let output = self.admin_tool("ldapmodify", &[], Some(ldif));
        assert!(
            output.status.success(),
            "ldapmodify failed: {}\nLDIF:\n{ldif}",
            describe(&output)
        );
    }

    /// Whether a simple bind as `dn` with `password` succeeds (`ldapwhoami`). Panics on any
    /// failure other than invalid credentials, which is also what a missing entry gives.
    #[track_caller]
    pub fn can_bind(&self, dn: &str, password: &str) -> bool {
        let output = self.whoami(dn, password);
        match output.status.code() {
            Some(0) => true,
            Some(INVALID_CREDENTIALS) => false,
            _ => panic!("ldapwhoami -D {dn} failed: {}", describe(&output)),
        }
    }

    /// `ldapwhoami -x -H <uri> -D <dn> -w <password>`, for tests that judge its output.
    pub fn whoami(&self, dn: &str, password: &str) -> Output {
        self.tool_output("ldapwhoami", &["-D", dn, "-w", password], None)
    }

    /// A subtree search of `base_dn()` bound as `bind` (`(dn, password)`; `None`:
    /// anonymous) for `filter`, returning `attributes` (none given: all user attributes).
    /// Only the reader and the admin may read the base entry: for anyone else the search
    /// gives no entries (see [`Directory::search_in`]).
    #[track_caller]
    pub fn search(
        &self,
        bind: Option<(&str, &str)>,
        filter: &str,
        attributes: &[&str],
    ) -> Vec<Entry> {
        self.search_in(bind, BASE_DN, filter, attributes)
    }

    /// A subtree search of `base` bound as `bind` (`None`: anonymous) for `filter`,
    /// returning `attributes` (none given: all user attributes). A base the binder may not
    /// see (`noSuchObject`) gives no entries; a failed bind or any other error panics. A
    /// user reads its own entry with its own DN as `base`.
    #[track_caller]
    pub fn search_in(
        &self,
        bind: Option<(&str, &str)>,
        base: &str,
        filter: &str,
        attributes: &[&str],
    ) -> Vec<Entry> {
        let mut args = vec!["-LLL", "-o", "ldif-wrap=no", "-b", base, "-s", "sub"];
        if let Some((dn, password)) = bind {
            args.extend(["-D", dn, "-w", password]);
        }
        args.push(filter);
        args.extend_from_slice(attributes);
        let output = self.tool_output("ldapsearch", &args, None);
        match output.status.code() {
            Some(0) => parse_ldif(&String::from_utf8_lossy(&output.stdout)),
            Some(NO_SUCH_OBJECT) => Vec::new(),
            _ => panic!(
                "ldapsearch -b {base} {filter} as {} failed: {}",
                bind.map_or("anonymous", |(dn, _)| dn),
                describe(&output)
            ),
        }
    }

    /// [`Directory::search`] bound as the reader.
    #[track_caller]
    pub fn search_as_reader(&self, filter: &str, attributes: &[&str]) -> Vec<Entry> {
        self.search(Some((READER_DN, &self.reader_password)), filter, attributes)
    }

    fn admin_tool(&self, name: &str, args: &[&str], stdin: Option<&str>) -> Output {
        let mut all = vec!["-D", ADMIN_DN, "-w", &self.admin_password];
        all.extend_from_slice(args);
        self.tool_output(name, &all, stdin)
    }

    /// Runs `/usr/bin/<name> -x -H <uri> -o nettimeout=10 <args>` with `stdin` on its input;
    /// panics if it takes longer than 30 s.
    #[track_caller]
    fn tool_output(&self, name: &str, args: &[&str], stdin: Option<&str>) -> Output {
        self.run_tool(name, args, stdin, TOOL_TIMEOUT)
            .unwrap_or_else(|error| panic!("{error}"))
    }

    /// Runs a tool; kills it and fails after `timeout` (`nettimeout` only bounds the
    /// connect, and a tool waits for ever for an answer that does not come).
    fn run_tool(
        &self,
        name: &str,
        args: &[&str],
        stdin: Option<&str>,
        timeout: Duration,
    ) -> Result<Output, String> {
        let program = tool(name);
        let mut command = command(&program);
        command
            .arg("-x")
            .arg("-H")
            .arg(self.uri())
            .arg("-o")
            .arg(TOOL_NET_TIMEOUT)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if stdin.is_some() {
            command.stdin(Stdio::piped());
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|error| panic!("running {}: {error}", program.display()));
        if let Some(input) = stdin {
            // LDIF for a few entries fits in the pipe; a tool that died early gives EPIPE,
            // and its own error below says more.
            let mut pipe = child.stdin.take().expect("the tool's stdin");
            let _ = pipe.write_all(input.as_bytes());
        }
        let drain = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut bytes);
                }
                bytes
            })
        };
        let stdout = drain(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let stderr = drain(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("the tool's status") {
                break Some(status);
            }
            if started.elapsed() > timeout {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let stdout = stdout.join().expect("the tool's stdout");
        let stderr = stderr.join().expect("the tool's stderr");
        match status {
            Some(status) => Ok(Output {
                status,
                stdout,
                stderr,
            }),
            None => Err(format!(
                "{name} had no answer from {} within {timeout:?}; stderr: {}",
                self.uri(),
                String::from_utf8_lossy(&stderr).trim()
            )),
        }
    }
}

/// The old-style configuration: one MDB database, passwords in clear allowed.
fn slapd_conf(dir: &Path, admin_password: &str) -> String {
    let quoted = |path: PathBuf| format!("\"{}\"", path.display());
    format!(
        "include {schema}/core.schema
include {schema}/cosine.schema
include {schema}/inetorgperson.schema
include {schema}/nis.schema

pidfile {pidfile}
argsfile {argsfile}
modulepath {MODULE_DIR}
moduleload back_mdb

database mdb
suffix \"{BASE_DN}\"
rootdn \"{ADMIN_DN}\"
rootpw {admin_password}
directory {db}

access to attrs=userPassword
  by self write
  by anonymous auth
  by * none
access to *
  by dn.exact=\"{READER_DN}\" read
  by self read
  by * none
",
        schema = SCHEMA_DIR,
        pidfile = quoted(dir.join("slapd.pid")),
        argsfile = quoted(dir.join("slapd.args")),
        db = quoted(dir.join("db")),
    )
}

fn seed_ldif(reader_password: &str) -> String {
    [
        ldif_line("dn", BASE_DN),
        ldif_line("objectClass", "dcObject"),
        ldif_line("objectClass", "organization"),
        ldif_line("dc", "acs"),
        ldif_line("o", "ACS test directory"),
        "\n".to_owned(),
        ldif_line("dn", PEOPLE_DN),
        ldif_line("objectClass", "organizationalUnit"),
        ldif_line("ou", "people"),
        "\n".to_owned(),
        ldif_line("dn", GROUPS_DN),
        ldif_line("objectClass", "organizationalUnit"),
        ldif_line("ou", "groups"),
        "\n".to_owned(),
        ldif_line("dn", SERVICES_DN),
        ldif_line("objectClass", "organizationalUnit"),
        ldif_line("ou", "services"),
        "\n".to_owned(),
        ldif_line("dn", READER_DN),
        ldif_line("objectClass", "organizationalRole"),
        ldif_line("objectClass", "simpleSecurityObject"),
        ldif_line("cn", "reader"),
        ldif_line("description", "the service account that searches"),
        ldif_line("userPassword", reader_password),
    ]
    .concat()
}

/// Escapes an attribute value for a DN (RFC 4514).
fn escape_dn_value(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    let last = value.chars().count().saturating_sub(1);
    for (index, c) in value.chars().enumerate() {
        match c {
            ',' | '+' | '"' | '\\' | '<' | '>' | ';' | '=' => {
                escaped.push('\\');
                escaped.push(c);
            }
            '#' | ' ' if index == 0 => {
                escaped.push('\\');
                escaped.push(c);
            }
            ' ' if index == last => escaped.push_str("\\ "),
            '\0' => escaped.push_str("\\00"),
            _ => escaped.push(c),
        }
    }
    escaped
}

/// `name: value\n`, or `name:: <base64>\n` when the value is not an LDIF safe string
/// (RFC 2849).
fn ldif_line(name: &str, value: &str) -> String {
    let safe = value
        .bytes()
        .all(|b| b.is_ascii() && b != 0 && b != b'\n' && b != b'\r')
        && !value.starts_with([' ', ':', '<'])
        && !value.ends_with(' ');
    if safe {
        format!("{name}: {value}\n")
    } else {
        format!("{name}:: {}\n", base64_encode(value.as_bytes()))
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(BASE64[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[track_caller]
fn base64_decode(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for c in text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
    {
        let value = BASE64
            .iter()
            .position(|&d| d == c)
            .unwrap_or_else(|| panic!("not base64: {text}"));
        buffer = (buffer << 6) | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    out
}

/// Parses `ldapsearch -LLL` output (folded lines allowed, `::` values decoded).
#[track_caller]
fn parse_ldif(text: &str) -> Vec<Entry> {
    // Unfold: a line starting with one space continues the previous one.
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        match (line.strip_prefix(' '), lines.last_mut()) {
            (Some(rest), Some(previous)) if !previous.is_empty() => previous.push_str(rest),
            _ => lines.push(line.to_owned()),
        }
    }
    let mut entries = Vec::new();
    let mut current: Option<Entry> = None;
    for line in lines {
        if line.is_empty() {
            entries.extend(current.take());
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let (name, value) = match line.split_once(':') {
            Some((name, rest)) => match rest.strip_prefix(':') {
                Some(encoded) => (
                    name.to_owned(),
                    String::from_utf8(base64_decode(encoded.trim()))
                        .unwrap_or_else(|error| panic!("{name}: not UTF-8: {error}")),
                ),
                None => (name.to_owned(), rest.trim_start().to_owned()),
            },
            None => panic!("not an LDIF line: {line:?}\nin:\n{text}"),
        };
        match &mut current {
            None if name.eq_ignore_ascii_case("dn") => {
                current = Some(Entry {
                    dn: value,
                    attributes: Vec::new(),
                });
            }
            None => panic!("LDIF line {line:?} outside an entry in:\n{text}"),
            Some(entry) => entry.attributes.push((name, value)),
        }
    }
    entries.extend(current);
    entries
}
