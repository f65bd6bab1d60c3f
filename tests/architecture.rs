//! The library's layering, checked on its source: data flows one way.
//!
//! Layers, lowest first: `workload`, `units`, `suggest`, `sim` (the core), `policy`,
//! `measures`, `report`, `run`, `lang`, `store`, `results`, `suite`
//! (`results` reads stores, so it sits above `store`). A file may name only its own layer
//! and the layers below it, and no two files may import each other through
//! any chain (a module's own submodules excepted: a parent declares and
//! re-exports its children). The command line (`src/bin`) is above all and
//! not checked here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: [&str; 12] = [
    "workload", "units", "suggest", "sim", "policy", "measures", "report", "run", "lang", "store",
    "results", "suite",
];

/// Module path (e.g. `["policy", "search", "traverse"]`) of every library
/// file under `src/`, `src/bin` excluded.
fn modules() -> BTreeMap<Vec<String>, PathBuf> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                if prefix.is_empty() && name == "bin" {
                    continue;
                }
                let mut sub = prefix.to_vec();
                sub.push(name);
                walk(&p, &sub, out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let mut path = prefix.to_vec();
                if stem != "mod" && stem != "lib" && stem != "main" {
                    path.push(stem.to_string());
                }
                out.insert(path, p);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut out,
    );
    out
}

/// The code of a file without comments, string contents and the items
/// under `#[cfg(test)]` (tests may use anything), so that only what the
/// library itself names counts.
fn code(text: &str) -> String {
    without_test_items(&without_comments_and_strings(text))
}

/// `code` with each item under `#[cfg(test)]` left out: up to its `;`
/// (`mod testing;`) or its block's closing brace, whichever ends it. The
/// library code after such an item is kept.
fn without_test_items(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

fn without_comments_and_strings(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_str && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            } else if !in_str {
                kept.push(c);
            }
            prev = c;
            i += 1;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// Every path a file names, `use` trees expanded, relative paths made
/// absolute from module `here`.
fn named_paths(here: &[String], text: &str) -> Vec<Vec<String>> {
    let code = code(text);
    let mut paths = Vec::new();
    let tokens = tokenize(&code);
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "use" {
            let end = tokens[i..]
                .iter()
                .position(|t| t == ";")
                .map_or(tokens.len(), |p| i + p);
            expand(&tokens[i + 1..end], &mut Vec::new(), &mut paths);
            i = end;
        } else if matches!(tokens[i].as_str(), "crate" | "super")
            && tokens.get(i + 1).map(String::as_str) == Some("::")
        {
            let mut p = vec![tokens[i].clone()];
            let mut j = i + 1;
            while tokens.get(j).map(String::as_str) == Some("::")
                && tokens.get(j + 1).is_some_and(|t| is_ident(t))
            {
                p.push(tokens[j + 1].clone());
                j += 2;
            }
            paths.push(p);
            i = j;
        } else {
            i += 1;
        }
    }
    paths
        .into_iter()
        .filter_map(|p| absolute(here, &p))
        .collect()
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

fn tokenize(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// Expands a `use` tree (`a::{b, c::d}`) into its paths.
fn expand(tokens: &[String], prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut i = 0;
    let start_len = prefix.len();
    let mut any = false;
    while i < tokens.len() {
        let t = &tokens[i];
        if t == "{" {
            // Find the matching brace and split its contents at top-level commas.
            let mut depth = 0;
            let mut j = i;
            let mut parts = Vec::new();
            let mut part_start = i + 1;
            while j < tokens.len() {
                match tokens[j].as_str() {
                    "{" => depth += 1,
                    "}" => {
                        depth -= 1;
                        if depth == 0 {
                            parts.push(&tokens[part_start..j]);
                            break;
                        }
                    }
                    "," if depth == 1 => {
                        parts.push(&tokens[part_start..j]);
                        part_start = j + 1;
                    }
                    _ => {}
                }
                j += 1;
            }
            for part in parts {
                expand(part, prefix, out);
            }
            prefix.truncate(start_len);
            return;
        } else if is_ident(t) && t != "as" && t != "pub" {
            if i > 0 && tokens[i - 1] == "as" {
                i += 1;
                continue;
            }
            prefix.push(t.clone());
            any = true;
        }
        i += 1;
    }
    if any {
        out.push(prefix.clone());
    }
    prefix.truncate(start_len);
}

/// An absolute module path (`["policy", "order", "Order"]`) for a path
/// named in module `here`; `None` for paths outside the crate.
fn absolute(here: &[String], p: &[String]) -> Option<Vec<String>> {
    let mut rest = p;
    let mut base: Vec<String> = match p.first().map(String::as_str) {
        Some("crate") => {
            rest = &p[1..];
            Vec::new()
        }
        Some("super") | Some("self") => {
            // `super` of module `a::b` (file `a/b.rs` or `a/b/mod.rs`) is `a`.
            let mut b = here.to_vec();
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "super" => {
                        b.pop()?;
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            b
        }
        // A child module declared in this file (`pub use order::Order` in
        // policy/mod.rs).
        Some(_) => here.to_vec(),
        None => return None,
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The library file a path points into: its longest module prefix.
fn target(modules: &BTreeMap<Vec<String>, PathBuf>, p: &[String]) -> Option<Vec<String>> {
    (1..=p.len())
        .rev()
        .map(|n| p[..n].to_vec())
        .find(|m| modules.contains_key(m))
}

fn edges() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = modules();
    let mut graph = BTreeMap::new();
    for (here, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let mut to = BTreeSet::new();
        for p in named_paths(here, &text) {
            let Some(t) = target(&modules, &p) else {
                continue;
            };
            // A parent names its own children (declares, re-exports).
            if t.len() > here.len() && t.starts_with(here) {
                continue;
            }
            if &t != here && !t.is_empty() {
                to.insert(t);
            }
        }
        graph.insert(here.clone(), to);
    }
    graph
}

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "lib".into()
    } else {
        m.join("::")
    }
}

#[test]
fn layers_import_only_downwards() {
    let rank = |m: &[String]| m.first().and_then(|l| LAYERS.iter().position(|x| x == l));
    let mut wrong = Vec::new();
    for (from, tos) in edges() {
        let Some(r) = rank(&from) else { continue };
        for to in tos {
            if let Some(t) = rank(&to) {
                if t > r {
                    wrong.push(format!("{} imports {}", name(&from), name(&to)));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_import_loop_between_files() {
    let graph = edges();
    // Depth-first search for a back edge; report the loop it closes.
    fn visit(
        m: &Vec<String>,
        graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
        loops: &mut Vec<String>,
    ) {
        state.insert(m.clone(), 1);
        stack.push(m.clone());
        for n in graph.get(m).into_iter().flatten() {
            match state.get(n).copied().unwrap_or(0) {
                0 => visit(n, graph, state, stack, loops),
                1 => {
                    let from = stack.iter().position(|s| s == n).unwrap_or(0);
                    let mut cycle: Vec<String> = stack[from..].iter().map(|s| name(s)).collect();
                    cycle.push(name(n));
                    loops.push(cycle.join(" -> "));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.clone(), 2);
    }
    let mut state = BTreeMap::new();
    let mut loops = Vec::new();
    for m in graph.keys() {
        if state.get(m).copied().unwrap_or(0) == 0 {
            visit(m, &graph, &mut state, &mut Vec::new(), &mut loops);
        }
    }
    assert!(loops.is_empty(), "import loops:\n{}", loops.join("\n"));
}

#[test]
fn the_checker_sees_real_imports() {
    // The scan must find what is plainly there, or the tests above prove
    // nothing.
    let graph = edges();
    let of = |m: &str| graph.get(&m.split("::").map(String::from).collect::<Vec<_>>());
    let sim = of("sim").expect("sim/mod.rs is scanned");
    assert!(sim.contains(&vec!["workload".to_string()]), "{sim:?}");
    let run = of("run::execute").expect("run/execute.rs is scanned");
    assert!(run.iter().any(|m| m[0] == "measures"), "{run:?}");
    // Its `use` lines come after `#[cfg(test)] mod testing;`: only that
    // item is left out, not the rest of the file.
    let policy = of("policy").expect("policy/mod.rs is scanned");
    assert!(policy.iter().any(|m| m[0] == "sim"), "{policy:?}");
}

#[test]
fn only_the_items_under_cfg_test_are_left_out() {
    let text = "use a::b;\n#[cfg(test)]\nmod testing;\nuse c::d;\n\
                #[cfg(test)]\nmod tests { fn f() { use e::f; } }\nuse g::h;\n";
    let kept = code(text);
    for (path, seen) in [("a", true), ("c", true), ("e", false), ("g", true)] {
        assert_eq!(
            kept.contains(&format!("use {path}::")),
            seen,
            "{path}: {kept}"
        );
    }
}
