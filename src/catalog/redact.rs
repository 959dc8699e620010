//! Secrets out of every message: each resolved secret, as given and as it would appear in a
//! query string or a form, is replaced by `***` in any text that leaves the catalog client,
//! including what a server echoes back.

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};

#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// Remembers `secret` and its parts (a client credential `id:secret` is also redacted when
    /// a server echoes only one half).
    pub fn add(&mut self, secret: &str) {
        let pieces = std::iter::once(secret).chain(secret.split(':'));
        for piece in pieces.filter(|p| p.len() >= 4) {
            for form in [
                piece.to_string(),
                utf8_percent_encode(piece, NON_ALPHANUMERIC).to_string(),
            ] {
                if !self.secrets.contains(&form) {
                    self.secrets.push(form);
                }
            }
        }
        // Longest first, so a secret's half never breaks the replacement of the whole.
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    /// `text` without any secret, and with control characters (terminal escapes a hostile
    /// server could send) shown as `?`.
    pub fn clean(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in &self.secrets {
            out = out.replace(secret.as_str(), "***");
        }
        out.chars()
            .map(|c| if c.is_control() && c != '\n' { '?' } else { c })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_their_halves_and_encodings_are_replaced() {
        let mut redactor = Redactor::default();
        redactor.add("client-one:p@ss/word");
        assert_eq!(
            redactor.clean("bad client-one:p@ss/word, p%40ss%2Fword\u{1b}[2J"),
            "bad ***, ***?[2J"
        );
        assert_eq!(redactor.clean("unknown client-one"), "unknown ***");
    }

    #[test]
    fn short_pieces_are_not_treated_as_secrets() {
        let mut redactor = Redactor::default();
        redactor.add("ab:longsecret");
        assert_eq!(
            redactor.clean("ab is fine, longsecret is not"),
            "ab is fine, *** is not"
        );
    }
}
