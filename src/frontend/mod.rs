//! Front-ends turn proposal text into what the judge reads: [`crate::change::Statement`]s from
//! DDL (`ddl`) and from schema files (`schema_file`, diffed against the table), and the changes
//! of a metadata file proposed as the table's next state (`metadata_diff`).

pub mod ddl;
pub mod metadata_diff;
pub mod schema_file;

/// For each entry that has a position (its index among its siblings before the change), whether
/// it belongs to one longest strictly increasing run of positions: those fields are in order
/// already and stay where they are; the others are the fewest that move. Both diffing front-ends
/// derive moves this way, so a reorder reads the same from a schema file and from metadata.
pub(crate) fn longest_increasing(positions: &[Option<usize>]) -> Vec<bool> {
    let items: Vec<(usize, usize)> = positions
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (i, p)))
        .collect();
    // Quadratic, which is plenty for the fields of one struct. Among runs of one length the
    // latest fields stay, so a field moved to the front reads as that move (`y FIRST`), as a
    // migration would write it, rather than as everything else moving after it.
    let mut length = vec![1usize; items.len()];
    let mut previous: Vec<Option<usize>> = vec![None; items.len()];
    for j in 0..items.len() {
        for i in 0..j {
            if items[i].1 < items[j].1 && length[i] + 1 >= length[j] {
                length[j] = length[i] + 1;
                previous[j] = Some(i);
            }
        }
    }
    let mut keep = vec![false; positions.len()];
    let mut at = (0..items.len()).max_by_key(|&j| (length[j], j));
    while let Some(j) = at {
        keep[items[j].0] = true;
        at = previous[j];
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::longest_increasing;

    #[test]
    fn the_fields_already_in_order_stay() {
        // c a b -> a and b stay, c moves.
        assert_eq!(
            longest_increasing(&[Some(2), Some(0), Some(1)]),
            [false, true, true]
        );
        // New fields (no position) neither stay nor move.
        assert_eq!(
            longest_increasing(&[None, Some(0), None, Some(1)]),
            [false, true, false, true]
        );
        // y x (x was first): y moved to the front, x stays.
        assert_eq!(longest_increasing(&[Some(1), Some(0)]), [false, true]);
        // b a c: b moved to the front; a and c stay.
        assert_eq!(
            longest_increasing(&[Some(1), Some(0), Some(2)]),
            [false, true, true]
        );
        assert!(longest_increasing(&[]).is_empty());
    }
}
