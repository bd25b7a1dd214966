//! The LDAP harness itself (`acs_tests::ldap`): each test starts a real OpenLDAP `slapd` and
//! checks what later directory-login tests rely on, through the OpenLDAP client tools.

use std::path::Path;
use std::time::{Duration, Instant};

use acs_tests::ldap::Directory;

fn start() -> Directory {
    let started = Instant::now();
    let directory = Directory::start();
    eprintln!(
        "Directory::start took {:?} ({})",
        started.elapsed(),
        directory.uri()
    );
    directory
}

#[test]
fn a_user_binds_with_its_password_only() {
    let directory = start();
    directory.add_user(
        "alice",
        "Alice-pass-1",
        "Alice",
        "Liddell",
        "alice@example.com",
    );
    let dn = directory.user_dn("alice");
    assert_eq!(dn, "uid=alice,ou=people,dc=acs,dc=test");

    let output = directory.whoami(&dn, "Alice-pass-1");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("dn:{dn}")
    );
    assert!(directory.can_bind(&dn, "Alice-pass-1"));
    assert!(!directory.can_bind(&dn, "Alice-pass-2"));
    assert!(!directory.can_bind(&dn, "alice-pass-1"));
    let wrong = directory.whoami(&dn, "wrong");
    assert_eq!(wrong.status.code(), Some(49), "{wrong:?}");
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("Invalid credentials"),
        "{wrong:?}"
    );
    // The service accounts bind too; nobody binds as someone who does not exist.
    assert!(directory.can_bind(directory.reader_dn(), directory.reader_password()));
    assert!(directory.can_bind(directory.admin_dn(), directory.admin_password()));
    assert!(!directory.can_bind(&directory.user_dn("nobody"), "Alice-pass-1"));
}

#[test]
fn the_reader_finds_users_and_anonymous_finds_nothing() {
    let directory = start();
    directory.add_user(
        "alice",
        "Alice-pass-1",
        "Alice",
        "Liddell",
        "alice@example.com",
    );
    // Values outside ASCII travel base64-encoded both ways.
    directory.add_user("zoe", "Zoë-pässword", "Zoë", "Ångström", "zoe@example.com");

    let found = directory.search_as_reader("(uid=alice)", &["mail", "givenName", "sn", "cn"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].dn, "uid=alice,ou=people,dc=acs,dc=test");
    assert_eq!(found[0].value("mail"), "alice@example.com");
    assert_eq!(found[0].value("givenName"), "Alice");
    assert_eq!(found[0].value("sn"), "Liddell");
    assert_eq!(found[0].value("cn"), "Alice Liddell");

    let zoe = directory.search_as_reader("(mail=zoe@example.com)", &[]);
    assert_eq!(zoe.len(), 1, "{zoe:?}");
    assert_eq!(zoe[0].value("givenName"), "Zoë");
    assert_eq!(zoe[0].value("sn"), "Ångström");
    assert_eq!(zoe[0].value("uid"), "zoe");
    assert!(directory.can_bind(&directory.user_dn("zoe"), "Zoë-pässword"));

    // The reader never sees passwords, even when it asks for them.
    let people = directory.search_as_reader("(objectClass=inetOrgPerson)", &["*", "userPassword"]);
    assert_eq!(people.len(), 2, "{people:?}");
    assert!(
        people
            .iter()
            .all(|entry| entry.values("userPassword").is_empty()),
        "{people:?}"
    );

    // Anonymous users see nothing; a user sees itself and nobody else (not even the base
    // entry, so its searches start at its own entry).
    assert_eq!(directory.search(None, "(uid=alice)", &["mail"]), Vec::new());
    let zoe_dn = directory.user_dn("zoe");
    let as_zoe = Some((zoe_dn.as_str(), "Zoë-pässword"));
    assert!(
        directory
            .search(as_zoe, "(uid=alice)", &["mail"])
            .is_empty()
    );
    assert!(directory.search(as_zoe, "(uid=zoe)", &["mail"]).is_empty());
    let alice_dn = directory.user_dn("alice");
    assert!(
        directory
            .search_in(as_zoe, &alice_dn, "(objectClass=*)", &["mail"])
            .is_empty()
    );
    let own = directory.search_in(as_zoe, &zoe_dn, "(objectClass=*)", &["mail"]);
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(own[0].value("mail"), "zoe@example.com");
}

#[test]
fn set_password_changes_what_binds() {
    let directory = start();
    directory.add_user("bob", "Bob-old", "Bob", "Builder", "bob@example.com");
    let dn = directory.user_dn("bob");
    assert!(directory.can_bind(&dn, "Bob-old"));

    directory.set_password("bob", "Bob-new");
    assert!(directory.can_bind(&dn, "Bob-new"));
    assert!(!directory.can_bind(&dn, "Bob-old"));
    // The rest of the entry is untouched.
    let found = directory.search_as_reader("(uid=bob)", &["mail"]);
    assert_eq!(found[0].value("mail"), "bob@example.com");
}

#[test]
fn delete_user_makes_the_bind_fail() {
    let directory = start();
    directory.add_user(
        "carol",
        "Carol-pass",
        "Carol",
        "Danvers",
        "carol@example.com",
    );
    directory.add_user("dave", "Dave-pass", "Dave", "Lister", "dave@example.com");
    assert!(directory.can_bind(&directory.user_dn("carol"), "Carol-pass"));

    directory.delete_user("carol");
    assert!(!directory.can_bind(&directory.user_dn("carol"), "Carol-pass"));
    assert!(directory.search_as_reader("(uid=carol)", &[]).is_empty());
    // Others stay.
    assert!(directory.can_bind(&directory.user_dn("dave"), "Dave-pass"));
    // The uid can be used again.
    directory.add_user(
        "carol",
        "Carol-2",
        "Carol",
        "Vorderman",
        "carol2@example.com",
    );
    assert!(directory.can_bind(&directory.user_dn("carol"), "Carol-2"));
}

#[test]
fn groups_list_their_members() {
    let directory = start();
    for uid in ["erin", "frank", "grace"] {
        directory.add_user(uid, "pw", uid, "Test", &format!("{uid}@example.com"));
    }
    directory.add_group("admins", &["erin", "frank"]);
    directory.add_posix_group("operators", 5000, &["grace"]);

    let admins = directory.search_as_reader("(cn=admins)", &["member", "objectClass"]);
    assert_eq!(admins.len(), 1, "{admins:?}");
    assert_eq!(admins[0].dn, directory.group_dn("admins"));
    assert_eq!(
        admins[0].values("member"),
        [directory.user_dn("erin"), directory.user_dn("frank")]
    );
    // A server looks groups up by member.
    let filter = format!(
        "(&(objectClass=groupOfNames)(member={}))",
        directory.user_dn("erin")
    );
    assert_eq!(directory.search_as_reader(&filter, &["cn"]).len(), 1);

    directory.add_group_member("admins", "grace");
    directory.remove_group_member("admins", "erin");
    let admins = directory.search_as_reader("(cn=admins)", &["member"]);
    assert_eq!(
        admins[0].values("member"),
        [directory.user_dn("frank"), directory.user_dn("grace")]
    );

    let operators = directory.search_as_reader("(&(objectClass=posixGroup)(memberUid=grace))", &[]);
    assert_eq!(operators.len(), 1, "{operators:?}");
    assert_eq!(operators[0].value("gidNumber"), "5000");

    directory.delete_group("admins");
    assert!(directory.search_as_reader("(cn=admins)", &[]).is_empty());
}

#[test]
fn uids_that_need_dn_escaping_work() {
    let directory = start();
    let uid = "o'brien, jr+1";
    directory.add_user(uid, "Pass word", "Miles", "O'Brien", "miles@example.com");
    let dn = directory.user_dn(uid);
    assert_eq!(dn, "uid=o'brien\\, jr\\+1,ou=people,dc=acs,dc=test");
    assert!(directory.can_bind(&dn, "Pass word"));
    let found = directory.search_as_reader("(uid=o'brien, jr+1)", &["uid"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].value("uid"), uid);
}

#[test]
fn directories_started_in_parallel_do_not_collide() {
    let threads: Vec<_> = (0..3)
        .map(|i| {
            std::thread::spawn(move || {
                let directory = start();
                directory.add_user(
                    "same",
                    &format!("pass-{i}"),
                    "Same",
                    "User",
                    "s@example.com",
                );
                directory
            })
        })
        .collect();
    let directories: Vec<Directory> = threads
        .into_iter()
        .map(|thread| thread.join().expect("a directory"))
        .collect();
    let mut ports: Vec<u16> = directories.iter().map(Directory::port).collect();
    ports.sort_unstable();
    ports.dedup();
    assert_eq!(ports.len(), 3, "{directories:?}");
    assert_ne!(
        directories[0].admin_password(),
        directories[1].admin_password()
    );
    assert_ne!(
        directories[0].reader_password(),
        directories[1].reader_password()
    );
    for (i, directory) in directories.iter().enumerate() {
        let dn = directory.user_dn("same");
        for j in 0..3 {
            assert_eq!(
                directory.can_bind(&dn, &format!("pass-{j}")),
                i == j,
                "directory {i} with the password of {j}"
            );
        }
    }
}

#[test]
fn dropping_the_directory_stops_slapd_and_removes_its_files() {
    let directory = start();
    let pid = directory.pid();
    let path = directory.path().to_owned();
    let port = directory.port();
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    assert!(path.join("slapd.conf").is_file());
    assert!(path.join("db/data.mdb").is_file());
    assert!(path.join("slapd.pid").is_file());
    let log = directory.log();
    assert!(log.contains("slapd starting"), "{log}");
    // Operation logging (`conn=N op=M BIND dn=…`) is off. A busy slapd still says that it
    // deferred an operation (`conn=N deferring operation`), whatever its log level: that line
    // names no entry and is not an operation log.
    assert!(!log.contains(" op="), "slapd logs no operations: {log}");

    drop(directory);
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "slapd {pid} still exists"
    );
    assert!(!path.exists(), "{} still exists", path.display());
    assert!(
        std::net::TcpStream::connect_timeout(
            &std::net::SocketAddr::from(([127, 0, 0, 1], port)),
            Duration::from_secs(1)
        )
        .is_err(),
        "port {port} still accepts connections"
    );
}

#[test]
#[should_panic(expected = "not found at /nonexistent/slapd")]
fn a_missing_slapd_fails_the_test() {
    let slapadd =
        std::env::var("ACS_SLAPADD_BIN").unwrap_or_else(|_| "/usr/sbin/slapadd".to_owned());
    Directory::start_with_programs(Path::new("/nonexistent/slapd"), Path::new(&slapadd));
}
