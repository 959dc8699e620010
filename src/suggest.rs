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
    closest_within(wanted, candidates, MAX_CELLS, Policy::Names)
        .0
        .map(str::to_string)
}

/// The candidate closest to `wanted` (ignoring case), if it is close enough to be a typo: one
/// edit (a transposition counts as one) per three characters of `wanted`, at least one, and
/// never every character (`c` is no typo of `a`). The schema file reader's suggestion, for keys,
/// mappings, transforms, type names and columns; stricter than [`closest`] on short names
/// and kinder to swapped letters (`nmae` is `name`). Bounded as [`closest`] is.
pub fn closest_key<'c>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    closest_within(wanted, candidates.into_iter(), MAX_CELLS, Policy::Keys).0
}

/// How a suggestion counts edits and how many it allows.
#[derive(Debug, Clone, Copy)]
enum Policy {
    /// [`closest`]: insertions, deletions and substitutions; a third of the longer name.
    Names,
    /// [`closest_key`]: transpositions too; a third of the misspelt name, never all of it.
    Keys,
}

/// The closest candidate under `policy`, computing at most about `budget` cells; also the
/// cells it computed. Of equally close candidates, the first.
fn closest_within<'a>(
    wanted: &str,
    candidates: impl Iterator<Item = &'a str>,
    budget: usize,
    policy: Policy,
) -> (Option<&'a str>, usize) {
    if wanted.len() > MAX_SUGGESTED_LEN {
        return (None, 0);
    }
    let wanted_lower = wanted.to_lowercase();
    let wanted_chars = wanted_lower.chars().count();
    let key_limit = {
        let len = wanted.chars().count();
        (len / 3).max(1).min(len.saturating_sub(1))
    };
    let mut cells = 0;
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if cells >= budget {
            break;
        }
        let distance = match policy {
            Policy::Names => {
                let allowed = (c.len().max(wanted.len()) / 3).max(1);
                // The distance is at least the difference in length: skip hopeless candidates.
                if c.len().abs_diff(wanted.len()) > allowed {
                    continue;
                }
                cells += wanted.len().max(1) * c.len().max(1);
                let distance = edit_distance(&wanted_lower, &c.to_lowercase());
                (distance <= allowed).then_some(distance)
            }
            Policy::Keys => {
                let lower = c.to_lowercase();
                let chars = lower.chars().count();
                if chars.abs_diff(wanted_chars) > key_limit {
                    continue;
                }
                cells += wanted_chars.max(1) * chars.max(1);
                let distance = osa_distance(&wanted_lower, &lower);
                (distance <= key_limit).then_some(distance)
            }
        };
        if let Some(distance) = distance
            && best.is_none_or(|(d, _)| distance < d)
        {
            best = Some((distance, c));
        }
    }
    (best.map(|(_, c)| c), cells)
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

/// Optimal-string-alignment distance: insertions, deletions, substitutions and transpositions
/// of neighbours each cost one. Three rows: the one before the previous is what a
/// transposition reads.
fn osa_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (previous[j] + 1)
                .min(row[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut row);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{MAX_CELLS, Policy, closest, closest_key, closest_within, osa_distance};

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
        let (_, cells) = closest_within(
            &wanted,
            names.iter().map(String::as_str),
            MAX_CELLS,
            Policy::Names,
        );
        // Without the budget: 20,000 names of 250 characters, 1.25 billion cells.
        assert!(cells <= MAX_CELLS + 250 * 250, "{cells}");
        // A typo early in a long list is still found.
        let near = format!("{:0>249}7", "");
        assert_eq!(
            closest(&near, names.iter().map(String::as_str)),
            Some(format!("{:0>250}", 7))
        );
    }

    #[test]
    fn keys_forgive_swapped_letters_and_stay_bounded() {
        let keys = ["id", "name", "type", "required", "doc"];
        assert_eq!(closest_key("nmae", keys), Some("name"));
        assert_eq!(closest_key("Type", keys), Some("type"));
        assert_eq!(closest_key("c", ["a", "b"]), None);
        assert_eq!(osa_distance("ab", "ba"), 1);
        assert_eq!(osa_distance("kitten", "sitting"), 3);
        assert_eq!(osa_distance("", "abc"), 3);
        // Two long names of equal length once cost their product in memory and time.
        let long = "a".repeat(50_000);
        let near = format!("{}b", "a".repeat(49_999));
        assert_eq!(closest_key(&near, [long.as_str()]), None);
        let names: Vec<String> = (0..20_000).map(|i| format!("{i:0>250}")).collect();
        let (_, cells) = closest_within(
            &format!("{:0>250}", "x"),
            names.iter().map(String::as_str),
            MAX_CELLS,
            Policy::Keys,
        );
        assert!(cells <= MAX_CELLS + 250 * 250, "{cells}");
    }
}
