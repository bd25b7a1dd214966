//! A stand-in content source (an Ansible Galaxy v3 API) on a test host (`netns::TestHost`:
//! a run's own network does not reach the host's loopback) for the project-update tests: it records every request with its `Authorization` header and, when given a
//! collection tarball, serves that one collection; otherwise it knows no collection.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::netns::TestHost;

/// One recorded request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The server's port (which content source it was).
    pub port: u16,
    /// The request path with its query.
    pub path: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

/// A collection the server offers: namespace, name, version and the built tarball.
#[derive(Debug, Clone)]
pub struct Collection {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Version.
    pub version: String,
    /// The `ansible-galaxy collection build` output.
    pub tarball: Vec<u8>,
}

/// A running stand-in; it stops with the test process.
#[derive(Debug)]
pub struct FakeGalaxy {
    /// Its base URL, `http://<test host>:<port>/`.
    pub url: String,
    port: u16,
}

impl FakeGalaxy {
    /// Starts one on `host` that records into `log` and serves `collection`, if given.
    pub fn start(
        host: &TestHost,
        log: Arc<Mutex<Vec<Recorded>>>,
        collection: Option<Collection>,
    ) -> Self {
        let listener = host.bind();
        let address = listener.local_addr().expect("an address");
        let port = address.port();
        let collection = Arc::new(collection);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (log, collection) = (log.clone(), collection.clone());
                std::thread::spawn(move || {
                    serve(stream, address, &log, collection.as_ref().as_ref())
                });
            }
        });
        FakeGalaxy {
            url: format!("http://{address}/"),
            port,
        }
    }

    /// The requests this server received, in order.
    pub fn requests(&self, log: &Mutex<Vec<Recorded>>) -> Vec<Recorded> {
        log.lock()
            .map(|entries| {
                entries
                    .iter()
                    .filter(|r| r.port == self.port)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn serve(
    stream: TcpStream,
    address: SocketAddr,
    log: &Mutex<Vec<Recorded>>,
    collection: Option<&Collection>,
) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(clone) => clone,
        Err(_) => return,
    });
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_owned();
    let mut authorization = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("authorization")
        {
            authorization = Some(value.trim().to_owned());
        }
    }
    if let Ok(mut entries) = log.lock() {
        entries.push(Recorded {
            port: address.port(),
            path: path.clone(),
            authorization,
        });
    }
    let (status, content_type, body) = answer(&path, address, collection);
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

fn answer(
    path: &str,
    address: SocketAddr,
    collection: Option<&Collection>,
) -> (&'static str, &'static str, Vec<u8>) {
    const JSON: &str = "application/json";
    let route = path
        .split('?')
        .next()
        .unwrap_or_default()
        .trim_end_matches('/');
    let found = |value: serde_json::Value| ("200 OK", JSON, value.to_string().into_bytes());
    if route == "/api" {
        return found(json!({ "available_versions": { "v3": "v3/" } }));
    }
    let Some(c) = collection else {
        return ("404 Not Found", JSON, b"{}".to_vec());
    };
    let base = format!("/api/v3/collections/{}/{}", c.namespace, c.name);
    let version_href = format!("{base}/versions/{}/", c.version);
    let file = format!("{}-{}-{}.tar.gz", c.namespace, c.name, c.version);
    if route == base {
        found(json!({
            "namespace": c.namespace, "name": c.name, "href": format!("{base}/"),
            "highest_version": { "version": c.version, "href": version_href },
        }))
    } else if route == format!("{base}/versions") {
        found(json!({
            "meta": { "count": 1 }, "links": { "next": null },
            "data": [{ "version": c.version, "href": version_href }],
        }))
    } else if route == version_href.trim_end_matches('/') {
        let digest = ring::digest::digest(&ring::digest::SHA256, &c.tarball);
        let sha256: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        found(json!({
            "href": version_href, "version": c.version,
            "namespace": { "name": c.namespace }, "collection": { "name": c.name },
            "download_url": format!("http://{address}/download/{file}"),
            "artifact": { "filename": file, "sha256": sha256, "size": c.tarball.len() },
            "metadata": { "dependencies": {} }, "signatures": [],
        }))
    } else if route == format!("/download/{file}") {
        ("200 OK", "application/octet-stream", c.tarball.clone())
    } else {
        ("404 Not Found", JSON, b"{}".to_vec())
    }
}

/// Builds collection `namespace.name` 1.0.0 with the real `ansible-galaxy` in `dir`.
pub fn build_collection(dir: &std::path::Path, namespace: &str, name: &str) -> Collection {
    let galaxy = crate::ansible::bin_dir().join("ansible-galaxy");
    let run = |args: &[&str], cwd: &std::path::Path| {
        let output = std::process::Command::new(&galaxy)
            .args(args)
            .current_dir(cwd)
            .env("HOME", dir)
            .output()
            .expect("ansible-galaxy runs");
        assert!(
            output.status.success(),
            "ansible-galaxy {args:?}: {output:?}"
        );
    };
    run(&["collection", "init", &format!("{namespace}.{name}")], dir);
    let source = dir.join(namespace).join(name);
    let manifest = source.join("galaxy.yml");
    let text = std::fs::read_to_string(&manifest).expect("galaxy.yml");
    let text: String = text
        .lines()
        .map(|line| {
            if line.starts_with("version:") {
                "version: 1.0.0"
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&manifest, text).expect("galaxy.yml written");
    run(
        &[
            "collection",
            "build",
            "--output-path",
            &dir.display().to_string(),
        ],
        &source,
    );
    let tarball =
        std::fs::read(dir.join(format!("{namespace}-{name}-1.0.0.tar.gz"))).expect("the tarball");
    Collection {
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        version: "1.0.0".to_owned(),
        tarball,
    }
}
