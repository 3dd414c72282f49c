//! The repository's own rules, checked as tests (in the manner of rust-analyzer's
//! `xtask/src/tidy.rs`): every source file says what it owns; the crates depend on each other
//! exactly as `ARCHITECTURE.md`'s table says, and never reach what it forbids; production code
//! has no module cycles; the clock is read in one place; the `/v1` handlers read and answer the
//! document's types, and write only through `dunning-app`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, skipping build output, installed tools and generated
/// snapshots.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if matches!(
                name.as_str(),
                "target" | "node_modules" | ".git" | ".venv" | ".venvs" | "snapshots"
            ) {
                continue;
            }
            out.extend(rust_files(&path));
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn every_source_file_opens_with_what_it_owns() {
    let missing: Vec<String> = rust_files(&root())
        .into_iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            !text.starts_with("//!")
        })
        .map(|path| path.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without an opening `//!`: {missing:?}"
    );
}

/// One row of `ARCHITECTURE.md`'s table of crates.
#[derive(Debug)]
struct Rule {
    path: String,
    /// The workspace crates it depends on (normal dependencies), exactly.
    uses: BTreeSet<String>,
    /// Crates it must not reach, directly or through others.
    never: BTreeSet<String>,
}

/// The names in backticks of a table cell (`none` and prose are left out).
fn names(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The table under "## Crates and what each may depend on": `| crate | path | owns | uses |
/// never reaches |`.
fn rules() -> BTreeMap<String, Rule> {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("## Crates and what each may depend on")
        .nth(1)
        .expect("ARCHITECTURE.md has the crates section");
    let mut rules = BTreeMap::new();
    for line in section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, krate, path, _owns, uses, never, ..] = cells.as_slice() else {
            panic!("a row of the crates table has too few cells: {line}");
        };
        let krate = names(krate).into_iter().next().expect("a crate name");
        rules.insert(
            krate,
            Rule {
                path: names(path).into_iter().next().expect("a path"),
                uses: names(uses),
                never: names(never),
            },
        );
    }
    rules
}

/// `cargo metadata` of the workspace, resolved for this machine's platform (which needs no
/// download: every package of it was built already).
fn metadata() -> Value {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc runs");
    let host = String::from_utf8_lossy(&version.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc names its host");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .args(["--filter-platform", &host])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_crates_depend_on_each_other_as_the_architecture_says() {
    let rules = rules();
    let metadata = metadata();
    let members: BTreeSet<&str> = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    let packages: BTreeMap<&str, &Value> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p))
        .collect();
    let name_of = |id: &str| packages[id]["name"].as_str().unwrap().to_string();
    let workspace: BTreeSet<String> = members.iter().map(|id| name_of(id)).collect();
    assert_eq!(
        rules.keys().cloned().collect::<BTreeSet<_>>(),
        workspace,
        "ARCHITECTURE.md's table lists every workspace crate, and only those"
    );
    // Normal dependencies (not dev, not build) of every package, by id.
    let mut normal: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for node in metadata["resolve"]["nodes"].as_array().unwrap() {
        let deps = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k["kind"].is_null())
            })
            .map(|d| d["pkg"].as_str().unwrap())
            .collect();
        normal.insert(node["id"].as_str().unwrap(), deps);
    }
    let mut faults = Vec::new();
    for id in &members {
        let name = name_of(id);
        let rule = &rules[&name];
        let manifest = packages[id]["manifest_path"].as_str().unwrap();
        let expected = root().join(&rule.path).join("Cargo.toml");
        if Path::new(manifest) != expected {
            faults.push(format!(
                "{name} lives at {manifest}, the table says {}",
                rule.path
            ));
        }
        let uses: BTreeSet<String> = normal[id]
            .iter()
            .map(|dep| name_of(dep))
            .filter(|dep| workspace.contains(dep))
            .collect();
        if uses != rule.uses {
            faults.push(format!(
                "{name} uses {uses:?}, the table says {:?}",
                rule.uses
            ));
        }
        let mut reached = BTreeSet::new();
        let mut todo: Vec<&str> = normal[id].clone();
        while let Some(dep) = todo.pop() {
            if reached.insert(name_of(dep)) {
                todo.extend(normal.get(dep).cloned().unwrap_or_default());
            }
        }
        for forbidden in rule.never.intersection(&reached) {
            faults.push(format!(
                "{name} reaches {forbidden}, which the table forbids"
            ));
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
}

/// A crate's production code as modules (`a`, `a::b`): its files, with test modules and
/// comments taken out.
fn modules(src: &Path) -> BTreeMap<Vec<String>, String> {
    let mut out = BTreeMap::new();
    for path in rust_files(src) {
        let relative = path.strip_prefix(src).unwrap().with_extension("");
        let mut module: Vec<String> = relative
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        out.insert(module, without_comments(&without_tests(&text)));
    }
    out
}

/// The text without `#[cfg(test)] mod x { ... }` blocks.
fn without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        if !trimmed.starts_with("mod ") {
            rest = after;
            continue;
        }
        let Some(open) = trimmed.find('{') else {
            rest = after;
            continue;
        };
        let mut depth = 0usize;
        let mut end = trimmed.len();
        for (i, c) in trimmed[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &trimmed[end..];
    }
    out.push_str(rest);
    out
}

/// Each line without what follows `//` (a comment names modules without depending on them).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules a module's text names: `crate::a::b`, and `super::x` (a sibling).
fn named(module: &[String], text: &str) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    // `a::b::C;` → a, b, C: each part's identifier, up to the first part with more after it.
    let words = |from: &str| -> Vec<String> {
        let mut out = Vec::new();
        for part in from.split("::") {
            let word: String = part
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let whole = word.len() == part.len();
            if !word.is_empty() {
                out.push(word);
            }
            if !whole || out.is_empty() {
                break;
            }
        }
        out
    };
    for (at, _) in text.match_indices("crate::") {
        if text[..at].ends_with('$') {
            continue;
        }
        out.insert(words(&text[at + "crate::".len()..]));
    }
    if let Some((_, parent)) = module.split_last() {
        for (at, _) in text.match_indices("super::") {
            let mut target = parent.to_vec();
            target.extend(words(&text[at + "super::".len()..]).into_iter().take(1));
            out.insert(target);
        }
    }
    out
}

/// The strongly connected components of more than one node (Tarjan).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        found: Vec<Vec<String>>,
    }
    fn visit(w: &mut Walk<'_>, v: &str) {
        let i = w.index.len();
        w.index.insert(v.to_string(), i);
        w.low.insert(v.to_string(), i);
        w.stack.push(v.to_string());
        for next in w.edges.get(v).into_iter().flatten() {
            if !w.index.contains_key(next) {
                visit(w, next);
                let low = w.low[v].min(w.low[next]);
                w.low.insert(v.to_string(), low);
            } else if w.stack.contains(next) {
                let low = w.low[v].min(w.index[next]);
                w.low.insert(v.to_string(), low);
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = Vec::new();
            loop {
                let w_node = w.stack.pop().unwrap();
                let done = w_node == v;
                component.push(w_node);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                w.found.push(component);
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v) {
            visit(&mut walk, v);
        }
    }
    walk.found
}

/// The module cycles of a crate: among its top-level modules, and among the modules inside
/// each top-level module.
fn module_cycles(src: &Path) -> Vec<String> {
    let modules = modules(src);
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut inner: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, text) in &modules {
        for target in named(module, text) {
            match (module.as_slice(), target.as_slice()) {
                ([a, ..], [b, ..]) if a != b && modules.contains_key(&vec![b.clone()]) => {
                    top.entry(a.clone()).or_default().insert(b.clone());
                }
                ([a, x, ..], [b, y, ..]) if a == b && x != y => {
                    inner
                        .entry(a.clone())
                        .or_default()
                        .entry(x.clone())
                        .or_default()
                        .insert(y.clone());
                }
                _ => {}
            }
        }
    }
    let mut out: Vec<String> = cycles(&top).into_iter().map(|c| c.join(" -> ")).collect();
    for (parent, edges) in &inner {
        out.extend(
            cycles(edges)
                .into_iter()
                .map(|c| format!("{parent}: {}", c.join(" -> "))),
        );
    }
    out
}

#[test]
fn production_code_has_no_module_cycles() {
    let rules = rules();
    let mut found = Vec::new();
    for rule in rules.values() {
        let dir = root().join(&rule.path);
        let src = if dir.join("src").is_dir() {
            dir.join("src")
        } else {
            // The server package's sources are under `server/`.
            root().join("server")
        };
        for cycle in module_cycles(&src) {
            found.push(format!("{}: {cycle}", rule.path));
        }
    }
    assert!(found.is_empty(), "module cycles: {found:#?}");
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_nothing_else() {
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(str::to_string).collect()))
    .collect();
    assert_eq!(cycles(&edges), vec![vec!["a", "b", "c"]]);
    let module = vec!["api".to_string(), "charges".to_string()];
    let named = named(
        &module,
        "use super::wire;\nuse crate::http::problem::ApiError; // crate::state\n",
    );
    assert!(named.contains(&vec!["api".to_string(), "wire".to_string()]));
    assert!(named.contains(&vec![
        "http".to_string(),
        "problem".to_string(),
        "ApiError".to_string()
    ]));
}

#[test]
fn the_clock_is_read_in_one_place() {
    let clock = root().join("crates/domain/src/timestamp.rs");
    let mut sources = rust_files(&root().join("server"));
    for krate in ["domain", "store", "app", "engine"] {
        sources.extend(rust_files(&root().join("crates").join(krate).join("src")));
    }
    let readers: Vec<String> = sources
        .into_iter()
        .filter(|path| *path != clock)
        .filter(|path| {
            let text = without_comments(&without_tests(&std::fs::read_to_string(path).unwrap()));
            text.contains("now_utc()") || text.contains("SystemTime::now()")
        })
        .map(|path| path.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(
        readers.is_empty(),
        "read the time through dunning_domain::timestamp::now(), not in {readers:?}"
    );
}

/// The files of `server/api/` that hold handler code: the handlers, `charge_actions` and
/// `answers/`, each named by its path under `server/api/`. Exempt are the steps and extractors
/// that turn requests into the models (`steps/`, with the idempotency keys and rate windows
/// they keep) and the `mod.rs` files (the router, the folders' declarations).
fn handler_files() -> Vec<(String, PathBuf)> {
    let api = root().join("server/api");
    rust_files(&api)
        .into_iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(&api).unwrap().to_path_buf();
            let plumbing = relative.starts_with("steps")
                || relative.file_name().is_some_and(|name| name == "mod.rs");
            (!plumbing).then(|| (relative.display().to_string(), path))
        })
        .collect()
}

#[test]
fn the_handler_files_are_the_handlers_and_what_they_share_not_the_steps() {
    let names: Vec<String> = handler_files().into_iter().map(|(name, _)| name).collect();
    for handler_code in ["charges.rs", "charge_actions.rs", "answers/wire.rs"] {
        assert!(
            names.iter().any(|n| n == handler_code),
            "{handler_code}: {names:?}"
        );
    }
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("steps") || n.ends_with("mod.rs")),
        "{names:?}"
    );
}

/// The `/v1` handlers read and write the document's types (issue 22): no handler file reads a
/// body or query string by hand (`Bytes`, `RawQuery`, `serde_json::Value` getters) and none
/// builds an answer with `json!`. The one `json!` left is an event's payload, stored data
/// handed to `events::record` (or `record_returning_id`).
#[test]
fn the_v1_handlers_read_and_answer_the_documents_types() {
    let mut faults = Vec::new();
    for (name, path) in handler_files() {
        let text = without_comments(&without_tests(&std::fs::read_to_string(&path).unwrap()));
        for hand_read in ["RawQuery", "body: Bytes", "Input::", "Json<Value>"] {
            if text.contains(hand_read) {
                faults.push(format!("{name}: reads its input by hand ({hand_read})"));
            }
        }
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.contains("json!(") {
                continue;
            }
            let recorded = lines[i.saturating_sub(8)..=i]
                .iter()
                .any(|l| l.contains("events::record"));
            if !recorded {
                faults.push(format!(
                    "{name}:{}: a json! that is not an event's payload",
                    i + 1
                ));
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
}

/// A `/v1` handler writes only through an operation of `dunning-app` (issue 50): no handler
/// file records an event (`events::record`, `record_many`, `record_returning_id`) or calls a
/// function of `dunning-store` that writes.
#[test]
fn the_v1_handlers_write_only_through_the_application_layer() {
    let writes = store_writes();
    assert!(
        writes.contains(&("charges".to_string(), "cancel".to_string()))
            && writes.contains(&("events".to_string(), "record".to_string()))
            && !writes.contains(&("charges".to_string(), "get_in".to_string())),
        "the store's writes are not found: {writes:?}"
    );
    let mut faults = Vec::new();
    for (name, path) in handler_files() {
        let text = without_comments(&without_tests(&std::fs::read_to_string(&path).unwrap()));
        let found = direct_writes(&text, &writes);
        if !found.is_empty() {
            faults.push(format!(
                "server/api/{name} writes directly ({}); call an operation of dunning-app",
                found.join(", ")
            ));
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
}

#[test]
fn the_direct_write_finder_finds_events_and_store_writes_and_nothing_else() {
    let writes: BTreeSet<(String, String)> = [("charges", "cancel"), ("events", "record")]
        .into_iter()
        .map(|(m, f)| (m.to_string(), f.to_string()))
        .collect();
    let handler = "use dunning_store::charges::{self as store, Charge};\n\
                   use dunning_store::{events, now_text};\n\
                   fn f() { store::cancel(tx); events::record(tx); app::cancel(tx); store::get_in(tx); }";
    assert_eq!(
        direct_writes(handler, &writes),
        ["events::record", "store::cancel"]
    );
    let through_app = "use dunning_app::charges as app;\n\
                       use dunning_store::charges::{self as store};\n\
                       fn f() { app::cancel(tx); store::get_in(tx); }";
    assert!(direct_writes(through_app, &writes).is_empty());
    let by_path = "fn f() { dunning_store::charges::cancel(tx); }";
    assert_eq!(
        direct_writes(by_path, &writes),
        ["dunning_store::charges::cancel"]
    );
}

/// The functions of `dunning-store` that write, as (module, function): a top-level function
/// of `crates/store/src/<module>.rs` that runs `INSERT INTO`, `UPDATE … SET` or `DELETE FROM`,
/// or calls a function of its file that does.
fn store_writes() -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for path in rust_files(&root().join("crates/store/src")) {
        let module = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = without_comments(&without_tests(&std::fs::read_to_string(&path).unwrap()));
        // Each top-level function's text, up to the next top-level item.
        let mut functions: Vec<(String, bool, String)> = Vec::new();
        let mut current: Option<(String, bool, String)> = None;
        for line in text.lines() {
            let top = line.starts_with(|c: char| c.is_ascii_alphabetic() || c == '#');
            if top {
                functions.extend(current.take());
                let public = line.starts_with("pub ");
                if let Some(at) = line.find("fn ") {
                    let name: String = line[at + 3..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    current = Some((name, public, String::new()));
                }
            }
            if let Some((_, _, body)) = &mut current {
                body.push_str(line);
                body.push('\n');
            }
        }
        functions.extend(current);
        let mut writing: BTreeSet<String> = functions
            .iter()
            .filter(|(_, _, body)| runs_a_write(body))
            .map(|(name, _, _)| name.clone())
            .collect();
        loop {
            let more: Vec<String> = functions
                .iter()
                .filter(|(name, _, body)| {
                    !writing.contains(name) && writing.iter().any(|w| calls(body, &format!("{w}(")))
                })
                .map(|(name, _, _)| name.clone())
                .collect();
            if more.is_empty() {
                break;
            }
            writing.extend(more);
        }
        for (name, public, _) in &functions {
            if *public && writing.contains(name) {
                out.insert((module.clone(), name.clone()));
            }
        }
    }
    out
}

/// Whether SQL in `text` changes rows.
fn runs_a_write(text: &str) -> bool {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_'))
        .collect();
    text.contains("INSERT INTO")
        || text.contains("DELETE FROM")
        || words.windows(3).any(|w| w[0] == "UPDATE" && w[2] == "SET")
}

/// Whether `text` calls `call` (`name(` or `path::name(`) as a path of its own, not as the
/// tail of a longer path or a method.
fn calls(text: &str, call: &str) -> bool {
    text.match_indices(call).any(|(at, _)| {
        !text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '.')
    })
}

/// What `text` (a handler file) calls that writes: `events::record…`, and the `writes` of
/// `dunning-store` reached through its `use dunning_store::…` names or by full path.
fn direct_writes(text: &str, writes: &BTreeSet<(String, String)>) -> Vec<String> {
    let mut names = BTreeMap::new();
    for statement in text.split(';') {
        if let Some(tree) = statement.trim().strip_prefix("use dunning_store::") {
            use_names(&["dunning_store".to_string()], tree, &mut names);
        }
    }
    let mut found = BTreeSet::new();
    if calls(text, "events::record") {
        found.insert("events::record".to_string());
    }
    for (module, function) in writes {
        let by_path = format!("dunning_store::{module}::{function}");
        if calls(text, &format!("{by_path}(")) {
            found.insert(by_path);
        }
        for (name, path) in &names {
            let call = match path.as_slice() {
                [_, m] if m == module => format!("{name}::{function}"),
                [_, m, f] if m == module && f == function => name.clone(),
                _ => continue,
            };
            if calls(text, &format!("{call}(")) {
                found.insert(call);
            }
        }
    }
    found.into_iter().collect()
}

/// The names a `use` tree (after `prefix::`) brings in, each with its full path: `a::{self as
/// b, c}` names `b` (`prefix::a`) and `c` (`prefix::a::c`).
fn use_names(prefix: &[String], tree: &str, out: &mut BTreeMap<String, Vec<String>>) {
    let tree = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(open) = tree.find('{') {
        let mut path = prefix.to_vec();
        path.extend(
            tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(String::from),
        );
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let (mut depth, mut start) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_names(&path, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        use_names(&path, &inner[start..], out);
        return;
    }
    let (path_text, alias) = match tree.split_once(" as ") {
        Some((path, alias)) => (path.trim(), Some(alias.trim())),
        None => (tree.trim(), None),
    };
    if path_text.is_empty() || path_text == "*" {
        return;
    }
    let mut path = prefix.to_vec();
    path.extend(
        path_text
            .split("::")
            .filter(|p| *p != "self")
            .map(String::from),
    );
    let name = alias.map_or_else(|| path.last().cloned().unwrap_or_default(), String::from);
    out.insert(name, path);
}

/// Events are recorded from the document's types (issue 50): no call that records an event
/// or makes its data (`events::record`, `record_returning_id`, `data_of`, `to_data`) is handed
/// a `json!` in the application layer, the engine or the server; `record_many`'s events get
/// their data from `data_of`.
#[test]
fn events_are_recorded_from_the_documents_types() {
    let calls = [
        "events::record(",
        "events::record_returning_id(",
        "events::data_of(",
        "events::to_data(",
    ];
    let mut files = rust_files(&root().join("crates/app/src"));
    files.extend(rust_files(&root().join("crates/engine/src")));
    files.extend(rust_files(&root().join("server")));
    let mut seen = 0;
    let mut faults = Vec::new();
    for path in files {
        let text = without_comments(&without_tests(&std::fs::read_to_string(&path).unwrap()));
        for call in calls {
            for (at, _) in text.match_indices(call) {
                seen += 1;
                // The call's arguments: up to the parenthesis that closes it.
                let args = &text[at + call.len()..];
                let mut depth = 1;
                let end = args
                    .char_indices()
                    .find(|(_, c)| {
                        match c {
                            '(' => depth += 1,
                            ')' => depth -= 1,
                            _ => {}
                        }
                        depth == 0
                    })
                    .map_or(args.len(), |(i, _)| i);
                if args[..end].contains("json!") {
                    faults.push(format!("{}: {call}…json!…)", path.display()));
                }
            }
        }
        if text.contains("NewEvent {") && !text.contains("events::data_of(") {
            faults.push(format!("{}: a NewEvent without data_of", path.display()));
        }
    }
    assert!(seen > 50, "the event calls are not found ({seen})");
    assert!(faults.is_empty(), "{faults:#?}");
}
