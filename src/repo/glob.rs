//! The globs of `fieldgate.yaml`'s `proposals`, as gitignore-style tools read them: `*` and `?`
//! match within one path segment, `[abc]`/`[a-z]`/`[!x]` one character of a class, and `**` as a
//! whole segment any number of segments (none included). Paths use `/` whatever the platform.

use std::path::{Path, PathBuf};

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
    Ok(out.join("/"))
}

/// Whether `path` (relative, `/`-separated) matches `pattern`.
pub fn matches(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern
        .trim_start_matches("./")
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let path: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segments(&pattern, &path)
}

/// The segments of `pattern` before its first wildcard: every path it matches lies under them.
pub fn literal_prefix(pattern: &str) -> PathBuf {
    pattern
        .trim_start_matches("./")
        .split('/')
        .filter(|s| !s.is_empty())
        .take_while(|s| !s.contains(['*', '?', '[']))
        .collect()
}

fn segments(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| segments(rest, &path[skip..])),
        Some((first, rest)) => match path.split_first() {
            Some((name, tail)) => {
                segment(first.as_bytes(), name.as_bytes()) && segments(rest, tail)
            }
            None => false,
        },
    }
}

/// One segment: `*`, `?`, classes and literal bytes (UTF-8 multi-byte characters match as
/// literals; `?` and classes see bytes, which is exact for the ASCII names migrations have).
fn segment(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len()).any(|skip| segment(rest, &name[skip..])),
        Some((b'?', rest)) => !name.is_empty() && segment(rest, &name[1..]),
        Some((b'[', rest)) => match (class(rest), name.split_first()) {
            (Some((matcher, after)), Some((c, tail))) => matcher(*c) && segment(after, tail),
            (None, Some((c, tail))) => *c == b'[' && segment(rest, tail),
            (_, None) => false,
        },
        Some((c, rest)) => name.first() == Some(c) && segment(rest, &name[1..]),
    }
}

type ClassMatcher<'a> = Box<dyn Fn(u8) -> bool + 'a>;

/// A `[...]` class after its `[`: the matcher and the pattern after `]`; `None` when unclosed.
fn class(pattern: &[u8]) -> Option<(ClassMatcher<'_>, &[u8])> {
    let (negated, body) = match pattern.first() {
        Some(b'!' | b'^') => (true, &pattern[1..]),
        _ => (false, pattern),
    };
    // A `]` right after the `[` is a literal member.
    let end = body.iter().skip(1).position(|c| *c == b']')? + 1;
    let members = &body[..end];
    let matcher = move |c: u8| {
        let mut i = 0;
        let mut hit = false;
        while i < members.len() {
            if i + 2 < members.len() && members[i + 1] == b'-' {
                hit |= (members[i]..=members[i + 2]).contains(&c);
                i += 3;
            } else {
                hit |= members[i] == c;
                i += 1;
            }
        }
        hit != negated
    };
    Some((Box::new(matcher), &body[end + 1..]))
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
        assert!(matches("m/[ab.sql", "m/[ab.sql"));
    }
}
