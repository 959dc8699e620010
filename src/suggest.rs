//! "Did you mean": the known name closest to a misspelt one, for every message that refuses a
//! name (fields, rules, configuration keys, severities).

/// Names longer than this are not typos of anything; comparing them would only cost time.
const MAX_SUGGESTED_LEN: usize = 256;

/// The candidate closest to `wanted` by edit distance, if it is close enough to be a typo: at
/// most a third of the longer name's length apart (and at least one edit allowed).
pub fn closest<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    if wanted.len() > MAX_SUGGESTED_LEN {
        return None;
    }
    let wanted_lower = wanted.to_lowercase();
    candidates
        .filter_map(|c| {
            let allowed = (c.len().max(wanted.len()) / 3).max(1);
            // The distance is at least the difference in length: skip hopeless candidates early.
            if c.len().abs_diff(wanted.len()) > allowed {
                return None;
            }
            let distance = edit_distance(&wanted_lower, &c.to_lowercase());
            (distance <= allowed).then_some((distance, c))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggests_near_misses_only() {
        let names = ["column-drop", "column-rename", "type-narrowing"];
        assert_eq!(
            closest("colum-drop", names.into_iter()),
            Some("column-drop".into())
        );
        assert_eq!(
            closest("TYPE-NAROWING", names.into_iter()),
            Some("type-narrowing".into())
        );
        assert_eq!(closest("partition", names.into_iter()), None);
        assert_eq!(closest(&"x".repeat(1 << 20), names.into_iter()), None);
    }
}
