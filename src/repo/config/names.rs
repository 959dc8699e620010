//! Table names as statements and `fieldgate.yaml` write them: identifier parts split at dots
//! outside quotes, quoted parts (`` `db`.`t` ``, Trino's `"db"."t"`) unquoted, so a quoted
//! spelling names the table its parts name, and `` `db.t` `` (one part holding a dot) does not
//! name `db.t`, as Spark resolves it.

/// Two spellings name the same table when their parts are equal ignoring case, or one is a
/// qualified form of the other (`db.users` and `users`, `cat.db.users` and `db.users`).
pub fn same_table(a: &str, b: &str) -> bool {
    let (a, b) = (parts(a), parts(b));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    !short.is_empty()
        && long[long.len() - short.len()..]
            .iter()
            .zip(&short)
            .all(|(x, y)| x.eq_ignore_ascii_case(y))
}

/// The lowercased last part, which any two names of the same table share.
pub(super) fn last_segment(name: &str) -> String {
    parts(name).pop().unwrap_or_default().to_ascii_lowercase()
}

/// The identifier parts of `name`; inside quotes, a doubled quote stands for one.
fn parts(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut part = String::new();
    let mut chars = name.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q && chars.peek() == Some(&q) => {
                chars.next();
                part.push(q);
            }
            Some(q) if c == q => quote = None,
            Some(_) => part.push(c),
            None if c == '`' || c == '"' => quote = Some(c),
            None if c == '.' => out.push(std::mem::take(&mut part)),
            None => part.push(c),
        }
    }
    out.push(part);
    out
}

#[cfg(test)]
mod tests {
    use super::{last_segment, same_table};

    #[test]
    fn quoted_parts_name_the_table_their_parts_name() {
        assert!(same_table("`db`.`t`", "db.t"));
        assert!(same_table("\"DB\".\"T\"", "db.t"));
        assert!(same_table("`t`", "db.t"));
        assert!(same_table("cat.`db`.t", "db.t"));
        assert!(same_table("`we``ird`", "db.`we``ird`"));
        assert_eq!(last_segment("db.`T.x`"), "t.x");
    }

    #[test]
    fn a_dot_inside_quotes_is_part_of_the_name() {
        assert!(!same_table("`db.t`", "db.t"));
        assert!(same_table("`db.t`", "`db.t`"));
        assert!(!same_table("other.t", "db.t"));
        assert!(!same_table("db.t", "db.tt"));
        assert!(!same_table("db.t", "xdb.t"));
    }
}
