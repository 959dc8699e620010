//! Counts in messages as English writes them: "1 row", "2 rows", "0 errors".

/// `n` and `noun`, plural unless `n` is 1 (every noun fieldgate counts takes an `s`). Any
/// integer type: rows are `u64`, lengths `usize`.
pub fn counted(n: impl std::fmt::Display, noun: &str) -> String {
    let n = n.to_string();
    if n == "1" {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(1, "row"), "1 row");
        assert_eq!(counted(0, "error"), "0 errors");
        assert_eq!(counted(12, "data file"), "12 data files");
        assert_eq!(counted(1u64, "row"), "1 row");
        assert_eq!(counted(10u64, "row"), "10 rows");
    }
}
