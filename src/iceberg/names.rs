//! Comparing column names as Spark resolves them: case-insensitively, with the JVM's
//! `String.equalsIgnoreCase` (Spark's default resolver is exactly that call).
//!
//! `equalsIgnoreCase` compares character by character, each through Java's one-to-one case
//! mappings: two characters match when their upper cases are equal or the lower cases of their
//! upper cases are. That is wider than ASCII folding (`ſ`, U+017F, matches `s`; the Kelvin sign
//! matches `k`) and narrower than Unicode case folding (`ß` does not match `ss`: a one-to-one
//! mapping cannot turn one character into two). A gate that folded differently from Spark would
//! let a confusable spelling re-add a dropped column, or add a sibling Spark cannot tell apart.

/// Whether Spark's resolver takes `a` and `b` for the same name.
pub fn same_name(a: &str, b: &str) -> bool {
    a == b
        || (a.encode_utf16().count() == b.encode_utf16().count()
            && a.chars().count() == b.chars().count()
            && a.chars().zip(b.chars()).all(|(x, y)| fold(x) == fold(y)))
}

/// Java's `Character.toLowerCase(Character.toUpperCase(c))`: the class of `c` under
/// `equalsIgnoreCase`.
fn fold(c: char) -> char {
    simple_lower(simple_upper(c))
}

/// Java's case mappings are one-to-one; Rust's are the full ones, which map a few characters to
/// several (`ß` to `SS`). For each of those, Java's simple upper case is either the character
/// itself or a titlecase-like letter whose lower case is the character again (`ᾀ`, `ᾈ`), so
/// keeping `c` folds to the same class as Java does.
fn simple_upper(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(one), None) => one,
        _ => c,
    }
}

/// The only character whose full lower case is several (`İ` to `i̇`) has `i` as its simple one.
fn simple_lower(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(one), None) => one,
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_as_java_equals_ignore_case() {
        assert!(same_name("id", "ID"));
        assert!(same_name("name", "NAME"));
        // Long s and the Kelvin sign fold to ASCII letters in Java.
        assert!(same_name("ſtatus", "status"));
        assert!(same_name("\u{212A}ey", "key"));
        assert!(same_name("ÉTÉ", "été"));
        // Dotless and dotted i: upper cases of `ı` and `i` are both `I`.
        assert!(same_name("ı", "i"));
        assert!(same_name("İd", "id"));
        // One-to-one only: `ß` is not `ss`, and lengths must agree.
        assert!(!same_name("straße", "strasse"));
        assert!(!same_name("a", "ab"));
        assert!(!same_name("data", "date"));
    }
}
