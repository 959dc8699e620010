//! The layout's rules, measured from the source: layers import downwards only, no non-test
//! function over 100 lines, at most a dozen over 60, no non-test file over 600 lines.
//!
//! Where the code does not meet a rule yet, the debt is listed below with its size when it was
//! recorded: a listed item may shrink but never grow past it, a new offender fails at once, and
//! so does an entry that no longer offends (delete it: the list only gets shorter).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const FUNCTION_LIMIT: usize = 100;
const LONG_FUNCTION: usize = 60;
const FILE_LIMIT: usize = 600;

/// Functions over [`FUNCTION_LIMIT`] lines today: `file::name`, lines.
const LONG_FUNCTIONS: &[(&str, usize)] = &[];

/// How many functions are over [`LONG_FUNCTION`] lines today (the aim is at most a dozen).
const OVER_SIXTY: usize = 17;

/// Files over [`FILE_LIMIT`] lines of non-test code today.
const LONG_FILES: &[(&str, usize)] = &[];

/// Imports that break a layer today: `file`, the module it reaches up to.
const UPWARD_IMPORTS: &[(&str, &str)] = &[];

/// Which top modules each low layer may import: nothing above itself.
const LAYERS: &[(&str, &[&str])] = &[
    ("iceberg", &["iceberg", "json", "yaml", "span"]),
    ("json", &["json"]),
    ("limits", &["limits"]),
    ("yaml", &["yaml", "json"]),
];

/// The source with comments, strings and character literals blanked (newlines kept), so
/// braces and keywords are counted only where they are code.
fn code_only(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < bytes.len() {
                if bytes[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if bytes[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(len) = raw_string(rest) {
            blank(&mut out, i, i + len);
            i += len;
        } else if rest[0] == b'"' || rest.starts_with(b"b\"") {
            let mut j = i + if rest[0] == b'"' { 1 } else { 2 };
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, (j + 1).min(bytes.len()));
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{..}', '{'), else a lifetime.
            let end = match rest.get(1) {
                Some(b'\\') => rest[2..].iter().position(|&b| b == b'\'').map(|p| p + 3),
                Some(_) => {
                    let width = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (rest.get(1 + width) == Some(&b'\'')).then_some(width + 2)
                }
                None => None,
            };
            match end {
                Some(len) => {
                    blank(&mut out, i, i + len);
                    i += len;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The length of a raw string literal (`r"…"`, `r#"…"#`, `br#"…"#`) starting here.
fn raw_string(rest: &[u8]) -> Option<usize> {
    let start = if rest.starts_with(b"br") {
        2
    } else if rest.starts_with(b"r") {
        1
    } else {
        0
    };
    if start == 0 {
        return None;
    }
    let hashes = rest[start..].iter().take_while(|&&b| b == b'#').count();
    if rest.get(start + hashes) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = start + hashes + 1;
    let end = rest[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(body + end + close.len())
}

/// Whether `code[at..]` starts the word `word` (not inside a longer identifier).
fn word_at(code: &[u8], at: usize, word: &[u8]) -> bool {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    code[at..].starts_with(word)
        && (at == 0 || !ident(code[at - 1]))
        && code.get(at + word.len()).is_none_or(|&b| !ident(b))
}

/// The index just past the item starting at `from`: its `;`, or its closing brace.
fn item_end(code: &[u8], from: usize) -> usize {
    let mut depth = 0usize;
    for (i, &b) in code.iter().enumerate().skip(from) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
    }
    code.len()
}

/// The source with every `#[cfg(test)]` item blanked (what is left is the non-test code), and
/// how many lines those items took.
fn without_tests(code: &[u8]) -> (Vec<u8>, usize) {
    let mut out = code.to_vec();
    let mut test_lines = 0;
    let marker = b"#[cfg(test)]";
    let mut i = 0;
    while let Some(p) = out[i..].windows(marker.len()).position(|w| w == marker) {
        let start = i + p;
        let end = item_end(&out, start + marker.len());
        test_lines += line_of(&out, end) - line_of(&out, start) + 1;
        for b in &mut out[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        i = end;
    }
    (out, test_lines)
}

fn line_of(code: &[u8], at: usize) -> usize {
    code[..at].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Every function with a body: its name and its length in lines, signature to closing brace.
fn functions(code: &[u8]) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for at in 0..code.len() {
        if !word_at(code, at, b"fn") {
            continue;
        }
        let name: String = code[at + 2..]
            .iter()
            .skip_while(|b| b.is_ascii_whitespace())
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
            .map(|&b| b as char)
            .collect();
        if name.is_empty() {
            continue; // a `fn(..)` pointer type
        }
        let mut parens = 0i32;
        let mut body = None;
        for (i, &b) in code.iter().enumerate().skip(at) {
            match b {
                b'(' | b'[' => parens += 1,
                b')' | b']' => parens -= 1,
                b'{' if parens == 0 => {
                    body = Some(i);
                    break;
                }
                b';' if parens == 0 => break,
                _ => {}
            }
        }
        if let Some(open) = body {
            let close = item_end(code, open);
            found.push((name, line_of(code, close) - line_of(code, at) + 1));
        }
    }
    found
}

/// The source files of `src/`, by path relative to the crate, skipping files that are test
/// modules as a whole (`tests.rs`, `test_support.rs`).
fn source_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if name != "tests.rs" && name != "test_support.rs" {
                    out.push(path);
                }
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    walk(&root.join("src"), &mut out);
    out.into_iter()
        .map(|p| p.strip_prefix(root).map(Path::to_path_buf).unwrap_or(p))
        .collect()
}

struct Measured {
    /// `file::function` -> lines, for every non-test function.
    functions: BTreeMap<String, usize>,
    /// file -> lines of non-test code.
    files: BTreeMap<String, usize>,
    /// (file, top module) for each `crate::module` the file names.
    imports: Vec<(String, String)>,
}

fn measure() -> Measured {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut measured = Measured {
        functions: BTreeMap::new(),
        files: BTreeMap::new(),
        imports: Vec::new(),
    };
    for file in source_files() {
        let text = fs::read_to_string(root.join(&file)).expect("source files are UTF-8");
        let (code, test_lines) = without_tests(&code_only(&text));
        let name = file.display().to_string();
        let lines = text.lines().count().saturating_sub(test_lines);
        measured.files.insert(name.clone(), lines);
        for (function, length) in functions(&code) {
            let key = format!("{name}::{function}");
            let entry = measured.functions.entry(key).or_insert(0);
            *entry = (*entry).max(length);
        }
        let marker = b"crate::";
        let mut i = 0;
        while let Some(p) = code[i..].windows(marker.len()).position(|w| w == marker) {
            let at = i + p + marker.len();
            let module: String = code[at..]
                .iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
                .map(|&b| b as char)
                .collect();
            if !module.is_empty() {
                measured.imports.push((name.clone(), module));
            }
            i = at;
        }
    }
    measured.imports.sort();
    measured.imports.dedup();
    measured
}

/// Checks `found` (what offends today) against `listed` (the recorded debt).
fn against_debt(
    what: &str,
    found: &BTreeMap<String, usize>,
    listed: &[(&str, usize)],
) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, &size) in found {
        match listed.iter().find(|(n, _)| n == name) {
            None => problems.push(format!("{what} `{name}` has {size} lines: split it")),
            Some((_, was)) if size > *was => problems.push(format!(
                "{what} `{name}` grew from {was} to {size} lines: split it rather than grow it"
            )),
            Some(_) => {}
        }
    }
    for (name, _) in listed {
        if !found.contains_key(*name) {
            problems.push(format!(
                "{what} `{name}` is within the limit now: delete its entry in tests/architecture.rs"
            ));
        }
    }
    problems
}

#[test]
fn no_function_is_over_a_hundred_lines() {
    let measured = measure();
    let long: BTreeMap<String, usize> = measured
        .functions
        .iter()
        .filter(|(_, size)| **size > FUNCTION_LIMIT)
        .map(|(n, s)| (n.clone(), *s))
        .collect();
    let problems = against_debt("function", &long, LONG_FUNCTIONS);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn functions_over_sixty_lines_do_not_multiply() {
    let measured = measure();
    let over: Vec<String> = measured
        .functions
        .iter()
        .filter(|(_, size)| **size > LONG_FUNCTION)
        .map(|(n, s)| format!("{n} ({s})"))
        .collect();
    assert!(
        over.len() <= OVER_SIXTY,
        "{} functions are over {LONG_FUNCTION} lines, {OVER_SIXTY} allowed:\n{}",
        over.len(),
        over.join("\n")
    );
}

#[test]
fn no_file_is_over_six_hundred_lines() {
    let measured = measure();
    let long: BTreeMap<String, usize> = measured
        .files
        .iter()
        .filter(|(_, size)| **size > FILE_LIMIT)
        .map(|(n, s)| (n.clone(), *s))
        .collect();
    let problems = against_debt("file", &long, LONG_FILES);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn layers_import_downwards_only() {
    let measured = measure();
    let mut found = Vec::new();
    for (file, module) in &measured.imports {
        let inside =
            |m: &str| file.starts_with(&format!("src/{m}/")) || file == &format!("src/{m}.rs");
        if module == "commands" && !inside("commands") && file != "src/main.rs" {
            found.push((file.clone(), module.clone()));
        }
        for (layer, allowed) in LAYERS {
            if inside(layer) && !allowed.contains(&module.as_str()) {
                found.push((file.clone(), module.clone()));
            }
        }
    }
    let mut problems: Vec<String> = found
        .iter()
        .filter(|(f, m)| !UPWARD_IMPORTS.contains(&(f.as_str(), m.as_str())))
        .map(|(f, m)| format!("`{f}` imports `crate::{m}`, a layer above it"))
        .collect();
    for (file, module) in UPWARD_IMPORTS {
        if !found.iter().any(|(f, m)| f == file && m == module) {
            problems.push(format!(
                "`{file}` no longer imports `crate::{module}`: delete its entry in tests/architecture.rs"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_measure_sees_what_it_should() {
    let code = code_only(
        "fn a() {\n    let s = \"}\";\n    let c = '{';\n    // }\n}\nfn b<'x>(v: &'x [u8; 2]);\n",
    );
    assert_eq!(functions(&code), vec![("a".to_string(), 5)]);
    let (tested, test_lines) = without_tests(&code_only(
        "fn kept() {}\n#[cfg(test)]\nmod tests {\n    fn hidden() {\n    }\n}\n",
    ));
    assert_eq!(functions(&tested), vec![("kept".to_string(), 1)]);
    assert_eq!(test_lines, 5);
    assert_eq!(raw_string(br##"r#"a"b"#.."##), Some(8));
}
