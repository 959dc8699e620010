//! The globs of `fieldgate.yaml`'s `proposals`, as gitignore-style tools read them: `*` and `?`
//! match within one path segment, `[abc]`/`[a-z]`/`[!x]` one character of a class, and `**` as a
//! whole segment any number of segments (none included). Paths use `/` whatever the platform.

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
    use super::matches;

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
