//! The files of `crates/api/src` import one another without a circle (issue 66): a file that
//! needs something of a file that needs it back is a sign that one of them holds what belongs
//! in a leaf (the caches, the principal, the OpenAPI document as served).
//!
//! Read from the sources: every `crate::…`, `super::…` and `self::…` path, in `use` items
//! (braced groups included) and in code, names the file of the longest module prefix it has;
//! a parent module declaring its children is not an import. Unit tests (`mod tests` at a
//! file's end) and comments are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path below the crate root (`["auth", "bearer"]`), one per file.
type Module = Vec<String>;

/// The module of the file at `relative` (to `src`), and whether it is a `mod.rs`/`lib.rs`.
fn module_of(relative: &Path) -> (Module, bool) {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let is_parent = matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    );
    if is_parent {
        parts.pop();
    }
    (parts, is_parent)
}

/// The source without its unit tests and line comments.
fn code_of(source: &str) -> String {
    let source = source
        .find("#[cfg(test)]\nmod tests")
        .map_or(source, |at| &source[..at]);
    source
        .lines()
        .map(|line| line.split_once("//").map_or(line, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A path a file names, as module segments from the crate root.
#[derive(Debug)]
struct Named {
    path: Module,
    /// Named by a `pub use`: the file re-exports it (as this name).
    reexported_as: Option<String>,
}

/// Every path of `code` (the file of `module`) that starts at `crate`, `super`, `self` or a
/// child module in `known`, braced `use` groups expanded.
fn paths_in(module: &Module, is_parent: bool, code: &str, known: &BTreeSet<Module>) -> Vec<Named> {
    let here: Module = if is_parent {
        module.clone()
    } else {
        module[..module.len().saturating_sub(1)].to_vec()
    };
    let mut found = Vec::new();
    for statement in code.split_inclusive(';') {
        let trimmed = statement.trim_start();
        let reexport = ["pub use ", "pub(crate) use "]
            .iter()
            .any(|start| trimmed.starts_with(start));
        scan(statement, &here, known, reexport, &mut found);
    }
    found
}

fn scan(
    code: &str,
    here: &Module,
    known: &BTreeSet<Module>,
    reexport: bool,
    found: &mut Vec<Named>,
) {
    let start = |word: &str| -> Option<Module> {
        match word {
            "crate" => Some(Vec::new()),
            "self" => Some(here.clone()),
            "super" => Some(here[..here.len().saturating_sub(1)].to_vec()),
            child => {
                let mut path = here.clone();
                path.push(child.to_owned());
                known.contains(&path).then_some(path)
            }
        }
    };
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let chars: Vec<char> = code.chars().collect();
    let segment_at = |from: usize| -> (String, usize) {
        let end = (from..chars.len())
            .find(|&i| !is_ident(chars[i]))
            .unwrap_or(chars.len());
        (chars[from..end].iter().collect(), end)
    };
    let alias_after = |from: usize| -> Option<String> {
        let rest: String = chars[from..].iter().take(80).collect();
        let rest = rest.trim_start().strip_prefix("as ")?;
        Some(
            rest.trim_start()
                .chars()
                .take_while(|c| is_ident(*c))
                .collect(),
        )
    };
    let push = |found: &mut Vec<Named>, path: Module, alias: Option<String>| {
        let name = alias.or_else(|| path.last().cloned());
        found.push(Named {
            path,
            reexported_as: if reexport { name } else { None },
        });
    };
    let mut at = 0;
    while at < chars.len() {
        if !is_ident(chars[at]) || (at > 0 && (is_ident(chars[at - 1]) || chars[at - 1] == ':')) {
            at += 1;
            continue;
        }
        let (word, end) = segment_at(at);
        let followed = chars.get(end..end + 2) == Some(&[':', ':'][..]);
        let Some(mut path) = start(&word)
            .filter(|_| followed || matches!(word.as_str(), "crate" | "self" | "super"))
        else {
            at = end;
            continue;
        };
        let mut next = end;
        loop {
            if chars.get(next..next + 2) != Some(&[':', ':'][..]) {
                push(found, path, alias_after(next));
                break;
            }
            next += 2;
            if chars.get(next) == Some(&'{') {
                let close = (next..chars.len())
                    .find(|&i| chars[i] == '}')
                    .unwrap_or(chars.len());
                let group: String = chars[next + 1..close].iter().collect();
                for item in group.split(',') {
                    let (item, alias) = match item.split_once(" as ") {
                        Some((item, alias)) => (item, Some(alias.trim().to_owned())),
                        None => (item, None),
                    };
                    let mut full = path.clone();
                    full.extend(
                        item.split("::")
                            .map(str::trim)
                            .filter(|segment| !segment.is_empty() && *segment != "self")
                            .map(str::to_owned),
                    );
                    push(found, full, alias);
                }
                next = close;
                break;
            }
            let (segment, segment_end) = segment_at(next);
            match segment.as_str() {
                "super" => {
                    path.pop();
                }
                "self" => {}
                _ => path.push(segment),
            }
            next = segment_end;
        }
        at = next.max(end);
    }
}

/// Which files each file imports, by module. A path through a module that re-exports the
/// next name (`pub use child::Item`) leads to the file it came from; a module re-exporting
/// its own children does not import them.
fn imports(files: &[(Module, bool, String)]) -> BTreeMap<Module, BTreeSet<Module>> {
    let known: BTreeSet<Module> = files.iter().map(|(module, _, _)| module.clone()).collect();
    let named: Vec<(Module, Vec<Named>)> = files
        .iter()
        .map(|(module, is_parent, source)| {
            (
                module.clone(),
                paths_in(module, *is_parent, &code_of(source), &known),
            )
        })
        .collect();
    let reexports: BTreeMap<&Module, BTreeMap<&str, &Module>> = named
        .iter()
        .map(|(module, paths)| {
            let names = paths
                .iter()
                .filter_map(|named| Some((named.reexported_as.as_deref()?, &named.path)))
                .collect();
            (module, names)
        })
        .collect();
    let file_of = |path: &Module| -> Option<Module> {
        let mut path = path.clone();
        for _ in 0..8 {
            let len = (0..=path.len())
                .rev()
                .find(|len| known.contains(&path[..*len]))?;
            let through = path.get(len).and_then(|next| {
                reexports
                    .get(&path[..len].to_vec())?
                    .get(next.as_str())
                    .copied()
            });
            match through {
                Some(origin) if *origin != path => path = origin.clone(),
                _ => return Some(path[..len].to_vec()),
            }
        }
        None
    };
    named
        .iter()
        .map(|(module, paths)| {
            let targets = paths
                .iter()
                .filter_map(|named| file_of(&named.path))
                .filter(|target| !target.starts_with(module))
                .collect();
            (module.clone(), targets)
        })
        .collect()
}

/// The groups of files that import one another, each in a circle (the strongly connected
/// components of more than one file, by Tarjan's algorithm), sorted.
fn circles(imports: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    #[derive(Default)]
    struct Walk {
        next: usize,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        found: Vec<Vec<String>>,
    }
    fn visit(module: &Module, imports: &BTreeMap<Module, BTreeSet<Module>>, walk: &mut Walk) {
        walk.index.insert(module.clone(), walk.next);
        walk.low.insert(module.clone(), walk.next);
        walk.next += 1;
        walk.stack.push(module.clone());
        for target in imports.get(module).into_iter().flatten() {
            if !walk.index.contains_key(target) {
                visit(target, imports, walk);
                let low = walk.low[module].min(walk.low[target]);
                walk.low.insert(module.clone(), low);
            } else if walk.stack.contains(target) {
                let low = walk.low[module].min(walk.index[target]);
                walk.low.insert(module.clone(), low);
            }
        }
        if walk.low[module] == walk.index[module] {
            let at = walk
                .stack
                .iter()
                .position(|on| on == module)
                .unwrap_or_default();
            let group: Vec<Module> = walk.stack.split_off(at);
            if group.len() > 1 {
                let mut names: Vec<String> = group.iter().map(|m| m.join("/")).collect();
                names.sort();
                walk.found.push(names);
            }
        }
    }
    let mut walk = Walk::default();
    for module in imports.keys() {
        if !walk.index.contains_key(module) {
            visit(module, imports, &mut walk);
        }
    }
    walk.found.sort();
    walk.found
}

fn sources(root: &Path) -> Vec<(Module, bool, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let relative = path.strip_prefix(root).expect("under the root");
                let (module, is_parent) = module_of(relative);
                let source = std::fs::read_to_string(&path).expect("a source file");
                files.push((module, is_parent, source));
            }
        }
    }
    files
}

#[test]
fn the_api_crates_files_import_one_another_without_a_circle() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../crates/api/src"));
    let files = sources(root);
    assert!(
        files.len() > 100,
        "only {} files under {}",
        files.len(),
        root.display()
    );
    let imports = imports(&files);
    let edges: usize = imports.values().map(BTreeSet::len).sum();
    assert!(
        edges > 300,
        "only {edges} imports read: the reading is broken"
    );
    let circles = circles(&imports);
    assert!(
        circles.is_empty(),
        "files that import one another, in a circle: {circles:#?}"
    );
}

#[test]
fn the_check_sees_circles_through_groups_super_reexports_and_paths_in_code() {
    let file = |module: &str, is_parent: bool, source: &str| {
        let module = module
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        (module, is_parent, source.to_owned())
    };
    let circle_of = |files: &[(Module, bool, String)]| circles(&imports(files)).pop();
    let mut files = vec![
        file(
            "",
            true,
            "pub mod a;\npub mod b;\npub mod c;\npub mod state;",
        ),
        file("a", true, "pub mod inner;"),
        file("a/inner", false, "use super::super::{b::Thing, other};"),
        file(
            "b",
            false,
            "fn f() { crate::state::State::new(); } // crate::a::inner",
        ),
        file(
            "state",
            false,
            "use crate::a::inner as alias;\n#[cfg(test)]\nmod tests { use crate::b; }",
        ),
        file("c", true, "mod leaf;\npub use leaf::{Cache, Other};"),
        file("c/leaf", false, "pub struct Cache;"),
    ];
    assert_eq!(
        circle_of(&files),
        Some(vec!["a/inner".to_owned(), "b".into(), "state".into()])
    );
    // Without the path in `b`'s code, nothing closes it: the comment and the unit test do not
    // count.
    files[3].2 = "fn f() {} // crate::state".into();
    assert_eq!(circle_of(&files), None);
    // A name re-exported by a parent leads to the child that holds it, and the parent's
    // re-export is not an import of its own.
    files[6].2 = "use crate::state::State;\npub struct Cache;".into();
    assert_eq!(circle_of(&files), None, "nothing names the cache yet");
    files[4].2 = "use crate::c::Cache;".into();
    assert_eq!(
        circle_of(&files),
        Some(vec!["c/leaf".to_owned(), "state".into()])
    );
}
