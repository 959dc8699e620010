//! The globs of `fieldgate.yaml`'s `proposals` and `sample`, as gitignore-style tools read them:
//! `*` and `?` match within one path segment, `[abc]`/`[a-z]`/`[!x]` one character of a class,
//! and `**` as a whole segment any number of segments (none included). Paths use `/` whatever the
//! platform.
//!
//! Matching is globset's, which compiles a pattern to a regular expression and so runs in time
//! linear in the path whatever the pattern: a pull request controls `fieldgate.yaml`, and a
//! backtracking matcher spins for hours on `x/*a*a*a*a*a*a*a*b.sql` or a dozen `**/`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

/// `pattern`, written relative to `dir` (the configuration's directory, relative to the
/// repository root), as a pattern relative to the root. Leading `..` segments climb out of
/// `dir`. A pattern that is absolute or climbs above the root could only match files outside
/// the repository, which no change holds and `check` never reads: an error, not a silent
/// nothing. So is `..` after a wildcard, which no path can match segment by segment.
pub fn from_dir(dir: &Path, pattern: &str) -> Result<String, String> {
    if pattern.starts_with('/') || pattern.starts_with('\\') || Path::new(pattern).is_absolute() {
        return Err(format!(
            "`{pattern}` is an absolute path: write it relative to fieldgate.yaml, inside the repository"
        ));
    }
    let mut out: Vec<String> = dir
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for segment in pattern.split('/').filter(|s| !s.is_empty() && *s != ".") {
        if segment != ".." {
            out.push(segment.to_string());
        } else if out.last().is_some_and(|s| s.contains(['*', '?', '['])) {
            return Err(format!(
                "`{pattern}` has `..` after a wildcard: write the directories it climbs out of first"
            ));
        } else if out.pop().is_none() {
            return Err(format!("`{pattern}` points outside the repository"));
        }
    }
    let joined = out.join("/");
    compile(&joined)?;
    Ok(joined)
}

/// Whether `path` (relative, `/`-separated) matches `pattern`. An invalid pattern (which
/// `from_dir` rejects for `proposals`) matches nothing.
pub fn matches(pattern: &str, path: &str) -> bool {
    thread_local! {
        // Each pattern is compiled once: the same few are matched against every changed file.
        static COMPILED: RefCell<HashMap<String, Option<GlobMatcher>>> = RefCell::default();
    }
    let path = path.trim_start_matches("./");
    COMPILED.with(|compiled| {
        let mut compiled = compiled.borrow_mut();
        let matcher = compiled
            .entry(pattern.to_string())
            .or_insert_with(|| compile(pattern).ok());
        matcher.as_ref().is_some_and(|m| m.is_match(path))
    })
}

fn compile(pattern: &str) -> Result<GlobMatcher, String> {
    let normalised: Vec<&str> = pattern
        .trim_start_matches("./")
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    GlobBuilder::new(&normalised.join("/"))
        .literal_separator(true)
        .backslash_escape(false)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| format!("`{pattern}` is not a valid glob: {}", e.kind()))
}

/// The segments of `pattern` before its first wildcard: every path it matches lies under them.
pub fn literal_prefix(pattern: &str) -> PathBuf {
    pattern
        .trim_start_matches("./")
        .split('/')
        .filter(|s| !s.is_empty())
        .take_while(|s| !s.contains(['*', '?', '[', '{']))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{from_dir, literal_prefix, matches};

    #[test]
    fn patterns_are_made_relative_to_the_root_and_kept_inside_it() {
        let dir = Path::new("lake/config");
        assert_eq!(
            from_dir(dir, "migrations/**/*.sql").unwrap(),
            "lake/config/migrations/**/*.sql"
        );
        assert_eq!(
            from_dir(dir, "./../../schemas/*.yaml").unwrap(),
            "schemas/*.yaml"
        );
        assert_eq!(from_dir(Path::new(""), "*.sql").unwrap(), "*.sql");
        let outside = from_dir(dir, "../../../elsewhere/*.sql").unwrap_err();
        assert!(
            outside.contains("points outside the repository"),
            "{outside}"
        );
        let absolute = from_dir(dir, "/etc/*.sql").unwrap_err();
        assert!(absolute.contains("is an absolute path"), "{absolute}");
        let wild = from_dir(dir, "*/../x.sql").unwrap_err();
        assert!(wild.contains("after a wildcard"), "{wild}");
    }

    #[test]
    fn the_literal_prefix_holds_every_match() {
        let cases = [
            ("migrations/**/*.sql", "migrations"),
            ("lake/db/v[12]/*.yaml", "lake/db"),
            ("./schemas/users.yaml", "schemas/users.yaml"),
            ("*.sql", ""),
            ("a?/b.sql", ""),
        ];
        for (pattern, prefix) in cases {
            assert_eq!(literal_prefix(pattern), Path::new(prefix), "{pattern}");
        }
    }

    #[test]
    fn stars_stay_in_a_segment_and_double_stars_cross_them() {
        assert!(matches("migrations/*.sql", "migrations/0001_init.sql"));
        assert!(!matches("migrations/*.sql", "migrations/db/0001.sql"));
        assert!(matches("migrations/**/*.sql", "migrations/0001.sql"));
        assert!(matches("migrations/**/*.sql", "migrations/a/b/0001.sql"));
        assert!(!matches("migrations/**/*.sql", "other/0001.sql"));
        assert!(matches("**/*.yaml", "schemas/users.yaml"));
        assert!(matches("./schemas/*.y?ml", "schemas/users.yaml"));
        assert!(!matches("schemas/*.yaml", "schemas/users.yml"));
    }

    #[test]
    fn classes() {
        assert!(matches("m/[0-9]*.sql", "m/7_x.sql"));
        assert!(!matches("m/[!0-9]*.sql", "m/7_x.sql"));
        assert!(matches("m/[]x].sql", "m/].sql"));
        assert!(!matches("m/[ab.sql", "m/[ab.sql"));
        assert!(from_dir(Path::new(""), "m/[ab.sql").is_err());
    }

    #[test]
    fn hostile_patterns_match_in_linear_time() {
        let started = std::time::Instant::now();
        let stars = format!("x/{}b.sql", "*a".repeat(40));
        let name = format!("x/{}.sql", "a".repeat(5000));
        assert!(!matches(&stars, &name));
        let deep = format!("{}z.sql", "**/".repeat(14));
        let path = format!("{}y.sql", "d/".repeat(200));
        assert!(!matches(&deep, &path));
        assert!(matches(&deep, "d/d/z.sql"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
