//! "Did you mean": the known name closest to a misspelt one, for every message that refuses a
//! name (fields, rules, configuration keys, severities).

/// Names longer than this are not typos of anything; comparing them would only cost time.
const MAX_SUGGESTED_LEN: usize = 256;

/// The most edit-distance cells (one name's length times the other's) one suggestion computes:
/// every column of a table of 10,000 short names, yet a few milliseconds, so a table of
/// thousands of long names does not make each unknown name cost most of a second. Past it, the
/// closest candidate found so far is the suggestion.
const MAX_CELLS: usize = 4_000_000;

/// The candidate closest to `wanted` by edit distance, if it is close enough to be a typo: at
/// most a third of the longer name's length apart (and at least one edit allowed).
pub fn closest<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    closest_within(wanted, candidates, MAX_CELLS).0
}

/// [`closest`] computing at most about `budget` cells; also the cells it computed.
fn closest_within<'a>(
    wanted: &str,
    candidates: impl Iterator<Item = &'a str>,
    budget: usize,
) -> (Option<String>, usize) {
    if wanted.len() > MAX_SUGGESTED_LEN {
        return (None, 0);
    }
    let wanted_lower = wanted.to_lowercase();
    let mut cells = 0;
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if cells >= budget {
            break;
        }
        let allowed = (c.len().max(wanted.len()) / 3).max(1);
        // The distance is at least the difference in length: skip hopeless candidates early.
        if c.len().abs_diff(wanted.len()) > allowed {
            continue;
        }
        cells += wanted.len().max(1) * c.len().max(1);
        let distance = edit_distance(&wanted_lower, &c.to_lowercase());
        if distance <= allowed && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, c));
        }
    }
    (best.map(|(_, c)| c.to_string()), cells)
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

/// The candidate closest to `wanted` (ignoring case), if it is close enough to be a typo: one
/// edit (a transposition counts as one) per three characters of `wanted`, at least one, and
/// never every character (`c` is no typo of `a`). The schema file reader's suggestion, for keys,
/// mappings, transforms, type names and columns; stricter than [`closest`] on short names
/// and kinder to swapped letters (`nmae` is `name`).
pub fn closest_key<'c>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let wanted_lower = wanted.to_lowercase();
    let len = wanted.chars().count();
    let limit = (len / 3).max(1).min(len.saturating_sub(1));
    candidates
        .into_iter()
        .map(|c| (osa_distance(&wanted_lower, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Optimal-string-alignment distance: insertions, deletions, substitutions and transpositions
/// of neighbours each cost one.
fn osa_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::{MAX_CELLS, closest, closest_within};

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

    #[test]
    fn thousands_of_long_names_cost_a_bounded_search() {
        let names: Vec<String> = (0..20_000).map(|i| format!("{i:0>250}")).collect();
        let wanted = format!("{:0>250}", "x");
        let (_, cells) = closest_within(&wanted, names.iter().map(String::as_str), MAX_CELLS);
        // Without the budget: 20,000 names of 250 characters, 1.25 billion cells.
        assert!(cells <= MAX_CELLS + 250 * 250, "{cells}");
        // A typo early in a long list is still found.
        let near = format!("{:0>249}7", "");
        assert_eq!(
            closest(&near, names.iter().map(String::as_str)),
            Some(format!("{:0>250}", 7))
        );
    }
}
