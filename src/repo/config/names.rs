//! Table names as statements and `fieldgate.yaml` write them: identifier parts split at dots
//! outside quotes, quoted parts (`` `db`.`t` ``, Trino's `"db"."t"`) unquoted, so a quoted
//! spelling names the table its parts name, and `` `db.t` `` (one part holding a dot) does not
//! name `db.t`, as Spark resolves it.

/// Two spellings name the same table when their parts are equal ignoring case, or one is a
/// qualified form of the other (`db.users` and `users`, `cat.db.users` and `db.users`).
pub fn same_table(a: &str, b: &str) -> bool {
    if is_plain(a) && is_plain(b) {
        // Most names quote nothing: compared part by part from the end, with no allocation,
        // since `check` compares a name with every table sharing its last part.
        let (mut x, mut y) = (a.rsplit('.'), b.rsplit('.'));
        loop {
            match (x.next(), y.next()) {
                (Some(p), Some(q)) if p.eq_ignore_ascii_case(q) => {}
                (Some(_), Some(_)) => return false,
                _ => return true,
            }
        }
    }
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
    if is_plain(name) {
        return name
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
    }
    parts(name).pop().unwrap_or_default().to_ascii_lowercase()
}

/// `name` as a message shows it, in a code span: each part once, unquoted where Spark reads it
/// unquoted (`` `db`.`t` `` is `db.t`), in backticks where it must be (a part holding a dot,
/// a backtick or a space), and then fenced by a longer backtick run, so the quotes of a
/// statement never double the code span's.
pub fn code_name(name: &str) -> String {
    let shown = if is_plain(name) {
        name.to_string()
    } else {
        let parts: Vec<String> = parts(name).iter().map(|p| shown_part(p)).collect();
        parts.join(".")
    };
    match shown.contains('`') {
        true => format!("`` {shown} ``"),
        false => format!("`{shown}`"),
    }
}

/// One identifier part as Spark would need it written.
fn shown_part(part: &str) -> String {
    let bare = !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match bare {
        true => part.to_string(),
        false => format!("`{}`", part.replace('`', "``")),
    }
}

/// Whether `name` has no quoted part, so dots alone split it.
fn is_plain(name: &str) -> bool {
    memchr::memchr2(b'`', b'"', name.as_bytes()).is_none()
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
    use super::{code_name, last_segment, same_table};

    #[test]
    fn a_name_is_shown_once_however_it_was_quoted() {
        assert_eq!(code_name("db.t"), "`db.t`");
        assert_eq!(code_name("`db`.`t`"), "`db.t`");
        assert_eq!(code_name("\"db\".\"t\""), "`db.t`");
        assert_eq!(code_name("`db.t`"), "`` `db.t` ``");
        assert_eq!(code_name("db.`we``ird`"), "`` db.`we``ird` ``");
        assert_eq!(code_name("db.`my t`"), "`` db.`my t` ``");
    }

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
    fn plain_names_compare_part_by_part_from_the_end() {
        assert!(same_table("db.users", "USERS"));
        assert!(same_table("cat.db.users", "db.users"));
        assert!(!same_table("db.users", "xdb.users"));
        assert!(!same_table("db.users", "users2"));
        assert!(same_table("", ""));
        assert_eq!(last_segment("Db.Users"), "users");
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
