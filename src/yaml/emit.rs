//! Writing YAML text: the one scalar form fieldgate writes into users' YAML files (ids and types
//! filled into a schema file), so what it writes reads back as the same string.

use super::node::YamlValue;
use super::scalar::resolve_plain;

/// `text` as a scalar that is safe anywhere, flow collections included: plain when it is a
/// simple word that reads back as this string (`long`, `user_id`, `timestamptz`), otherwise
/// double-quoted with JSON's escapes, which YAML's double-quoted style shares
/// (`"decimal(10, 2)"`, `"fixed[16]"`, `"true"`, `"12"`).
pub fn flow_scalar(text: &str) -> String {
    let simple = text
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    // YAML 1.1 readers (still common) take these for booleans; quoting costs nothing.
    let yaml_1_1_bool = matches!(
        text.to_ascii_lowercase().as_str(),
        "yes" | "no" | "on" | "off" | "y" | "n"
    );
    if simple && !yaml_1_1_bool && matches!(resolve_plain(text), YamlValue::String(_)) {
        text.to_string()
    } else {
        serde_json::Value::String(text.to_string()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_only_when_it_reads_back_as_the_same_string() {
        assert_eq!(flow_scalar("long"), "long");
        assert_eq!(flow_scalar("user_id"), "user_id");
        assert_eq!(flow_scalar("decimal(10, 2)"), "\"decimal(10, 2)\"");
        assert_eq!(flow_scalar("fixed[16]"), "\"fixed[16]\"");
        assert_eq!(flow_scalar("true"), "\"true\"");
        assert_eq!(flow_scalar("null"), "\"null\"");
        assert_eq!(flow_scalar("NO"), "\"NO\"");
        assert_eq!(flow_scalar("12"), "\"12\"");
        assert_eq!(flow_scalar("a: b"), "\"a: b\"");
        assert_eq!(flow_scalar("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert_eq!(flow_scalar(""), "\"\"");
    }
}
