//! How requests prove who sends them: nothing, a bearer token, or OAuth2 client credentials
//! exchanged for a token at the token endpoint, fetched again when it expires or the catalog
//! answers 401.

use std::cell::RefCell;
use std::time::{Duration, Instant};

/// A token is fetched again this long before it would expire, so a request does not race it.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

#[derive(Debug)]
pub enum Auth {
    None,
    Bearer(String),
    ClientCredentials(ClientCredentials),
}

#[derive(Debug)]
pub struct ClientCredentials {
    /// `None` when `credential` holds only a secret (pyiceberg sends no client id then).
    pub client_id: Option<String>,
    pub client_secret: String,
    pub scope: String,
    pub token_uri: String,
    /// Extra form fields pyiceberg sends when set (`audience`, `resource`).
    pub extra: Vec<(String, String)>,
    pub token: RefCell<Option<Token>>,
}

#[derive(Debug, Clone)]
pub struct Token {
    pub value: String,
    pub expires: Option<Instant>,
}

impl Token {
    pub fn fresh(&self, now: Instant) -> bool {
        self.expires.is_none_or(|at| now + EXPIRY_MARGIN < at)
    }
}

impl ClientCredentials {
    /// From `credential` (`client_id:client_secret`, or a secret alone).
    pub fn new(credential: &str, scope: String, token_uri: String) -> ClientCredentials {
        let (client_id, client_secret) = match credential.split_once(':') {
            Some((id, secret)) => (Some(id.to_string()), secret.to_string()),
            None => (None, credential.to_string()),
        };
        ClientCredentials {
            client_id,
            client_secret,
            scope,
            token_uri,
            extra: Vec::new(),
            token: RefCell::new(None),
        }
    }

    /// The form of the token request (RFC 6749 section 4.4).
    pub fn form(&self) -> String {
        let mut pairs = vec![("grant_type", "client_credentials")];
        if let Some(id) = &self.client_id {
            pairs.push(("client_id", id));
        }
        pairs.push(("client_secret", &self.client_secret));
        pairs.push(("scope", &self.scope));
        for (key, value) in &self.extra {
            pairs.push((key, value));
        }
        pairs
            .iter()
            .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

fn form_encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// The token of a token endpoint's JSON answer, with its expiry counted from `now`.
pub fn token_from_reply(body: &[u8], now: Instant) -> Option<Token> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let token = value.get("access_token")?.as_str()?.to_string();
    let expires = value
        .get("expires_in")
        .and_then(|v| v.as_u64())
        .map(|s| now + Duration::from_secs(s));
    Some(Token {
        value: token,
        expires,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_is_what_pyiceberg_sends() {
        let credentials = ClientCredentials::new("id 1:s&c=t", "catalog".into(), "u".into());
        assert_eq!(
            credentials.form(),
            "grant%5Ftype=client%5Fcredentials&client%5Fid=id%201&client%5Fsecret=s%26c%3Dt&scope=catalog"
        );
        let secret_only = ClientCredentials::new("only", "catalog".into(), "u".into());
        assert!(!secret_only.form().contains("client%5Fid"));
    }

    #[test]
    fn tokens_expire_with_a_margin() {
        let now = Instant::now();
        let token =
            token_from_reply(br#"{"access_token":"t","expires_in":60}"#, now).expect("token");
        assert!(token.fresh(now));
        assert!(!token.fresh(now + Duration::from_secs(40)));
        let lasting = token_from_reply(br#"{"access_token":"t"}"#, now).expect("token");
        assert!(lasting.fresh(now + Duration::from_secs(1_000_000)));
        assert!(token_from_reply(b"{}", now).is_none());
    }
}
