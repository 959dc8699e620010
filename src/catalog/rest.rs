//! The Iceberg REST catalog protocol (the spec's `rest-catalog-open-api.yaml`): `GET /v1/config`
//! for the prefix and the namespace separator, LoadTable, CommitTable, with the spec's error
//! model told in words that name the table and carry the server's own message, retries with
//! backoff on 429 and 503 only (never a commit that may have reached the server), and every
//! message cleaned of secrets.

use std::time::{Duration, Instant};

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::Value;

use crate::aws::sigv4::Signer;
use crate::catalog::auth::{Auth, token_from_reply};
use crate::catalog::http::{Http, Method, Reply, Request, TransportError};
use crate::catalog::redact::Redactor;

/// The characters a path segment keeps as they are (RFC 3986 unreserved); everything else,
/// the namespace separator `\u{1f}` included, is percent-encoded.
pub(super) const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b':')
    .add(b';')
    .add(b'<')
    .add(b'=')
    .add(b'>')
    .add(b'?')
    .add(b'@')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}')
    .add(b'&')
    .add(b'+')
    .add(b',')
    .add(b'$')
    .add(b'!')
    .add(b'\'')
    .add(b'(')
    .add(b')')
    .add(b'*');

/// The longest a server's message is quoted.
const QUOTED: usize = 400;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// 409 on a commit: a requirement failed, nothing changed.
    Conflict,
    /// The commit may or may not have happened (5xx or no answer after sending).
    CommitUnknown,
    Other,
}

/// A catalog operation that failed, in words free of secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogError {
    pub kind: ErrorKind,
    pub message: String,
}

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What LoadTable returned.
#[derive(Debug, Clone)]
pub struct LoadedTable {
    pub metadata_location: Option<String>,
    /// The `metadata` object as the server sent it.
    pub metadata: Value,
    /// `config`: table-specific client properties, e.g. vended storage credentials.
    pub config: Vec<(String, String)>,
    /// `storage-credentials`: vended credentials, each for the locations under its `prefix`.
    pub storage_credentials: Vec<(String, Vec<(String, String)>)>,
}

impl LoadedTable {
    /// The properties object storage is read with under `location`: the catalog's `storage`
    /// properties, then the table's `config`, then the vended credential with the longest
    /// prefix of `location`, each overriding the ones before.
    pub fn storage_properties(
        &self,
        storage: &[(String, String)],
        location: &str,
    ) -> Vec<(String, String)> {
        let vended = self
            .storage_credentials
            .iter()
            .filter(|(prefix, _)| location.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, config)| config.as_slice())
            .unwrap_or_default();
        storage
            .iter()
            .chain(&self.config)
            .chain(vended)
            .cloned()
            .collect()
    }
}

/// A JSON object's string members, in order; anything else is left out.
fn string_map(value: Option<&Value>) -> Vec<(String, String)> {
    value
        .and_then(Value::as_object)
        .map(|c| {
            c.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

pub struct RestClient<H: Http> {
    pub http: H,
    /// The catalog's name in `fieldgate.yaml`, for messages.
    pub name: String,
    pub uri: String,
    pub warehouse: Option<String>,
    pub prefix: Option<String>,
    pub separator: String,
    pub auth: Auth,
    pub headers: Vec<(String, String)>,
    pub redactor: Redactor,
    /// Signs every request with AWS SigV4 (`rest.sigv4-enabled`).
    pub signer: Option<Signer>,
    /// The catalog's object-storage properties (`s3.*`, `client.*`, `gcs.*`, `adls.*`), which
    /// a table's LoadTable `config` overrides.
    pub storage: Vec<(String, String)>,
    pub retries: u32,
    /// The first wait before a retry; doubled each time.
    pub backoff: Duration,
}

impl<H: Http> RestClient<H> {
    /// `GET /v1/config`: the prefix (and namespace separator) every later path uses.
    pub fn fetch_config(&mut self) -> Result<(), CatalogError> {
        let mut url = format!("{}/v1/config", self.uri);
        if let Some(warehouse) = &self.warehouse {
            url.push_str(&format!(
                "?warehouse={}",
                utf8_percent_encode(warehouse, SEGMENT)
            ));
        }
        let what = format!("the configuration of catalog `{}`", self.name);
        let reply = self.exchange(Method::Get, url, None, true)?;
        let body = self.expect_ok(&what, &reply, None)?;
        let object = body
            .as_object()
            .ok_or_else(|| self.malformed(&what, "not a JSON object"))?;
        for section in ["defaults", "overrides"] {
            let Some(values) = object.get(section).and_then(Value::as_object) else {
                continue;
            };
            if let Some(prefix) = values.get("prefix").and_then(Value::as_str) {
                self.prefix = Some(prefix.to_string()).filter(|p| !p.is_empty());
            }
            if let Some(separator) = values.get("namespace-separator").and_then(Value::as_str) {
                self.separator = separator.to_string();
            }
        }
        Ok(())
    }

    fn table_url(&self, identifier: &[String]) -> Result<String, CatalogError> {
        let Some((name, namespace)) = identifier.split_last().filter(|(_, ns)| !ns.is_empty())
        else {
            return Err(CatalogError {
                kind: ErrorKind::Other,
                message: format!(
                    "`{}` is not a catalog identifier: write it `namespace.table`",
                    identifier.join(".")
                ),
            });
        };
        Ok(format!(
            "{}/tables/{}",
            self.namespace_url(namespace),
            utf8_percent_encode(name, SEGMENT)
        ))
    }

    /// `{uri}/v1/{prefix}/namespaces`, the root of every namespace and table path.
    pub(super) fn namespaces_url(&self) -> String {
        format!(
            "{}/v1/{}namespaces",
            self.uri,
            self.prefix
                .as_ref()
                .map(|p| format!("{}/", utf8_percent_encode(p, SEGMENT)))
                .unwrap_or_default(),
        )
    }

    /// The path of `namespace`, its levels joined with the catalog's separator.
    pub(super) fn namespace_url(&self, namespace: &[String]) -> String {
        format!(
            "{}/{}",
            self.namespaces_url(),
            self.encoded_namespace(namespace)
        )
    }

    pub(super) fn encoded_namespace(&self, namespace: &[String]) -> String {
        utf8_percent_encode(&namespace.join(&self.separator), SEGMENT).to_string()
    }

    /// LoadTable, asking for vended storage credentials.
    pub fn load_table(&self, identifier: &[String]) -> Result<LoadedTable, CatalogError> {
        let url = self.table_url(identifier)?;
        let what = format!(
            "table `{}` of catalog `{}`",
            identifier.join("."),
            self.name
        );
        let reply = self.exchange(Method::Get, url, None, true)?;
        let body = self.expect_ok(&what, &reply, None)?;
        let metadata = body
            .get("metadata")
            .filter(|m| m.is_object())
            .cloned()
            .ok_or_else(|| self.malformed(&what, "LoadTableResult has no `metadata` object"))?;
        let metadata_location = body
            .get("metadata-location")
            .and_then(Value::as_str)
            .map(str::to_string);
        let storage_credentials = body
            .get("storage-credentials")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|c| {
                        let prefix = c.get("prefix")?.as_str()?.to_string();
                        Some((prefix, string_map(c.get("config"))))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(LoadedTable {
            metadata_location,
            metadata,
            config: string_map(body.get("config")),
            storage_credentials,
        })
    }

    /// CommitTable with `request` (a CommitTableRequest); the new metadata on success.
    pub fn commit_table(
        &self,
        identifier: &[String],
        request: &Value,
    ) -> Result<LoadedTable, CatalogError> {
        let url = self.table_url(identifier)?;
        let what = format!(
            "the commit to table `{}` of catalog `{}`",
            identifier.join("."),
            self.name
        );
        let body = serde_json::to_vec(request).unwrap_or_default();
        let reply = self.exchange(Method::Post, url, Some((body, "application/json")), false)?;
        let response = self.expect_ok(&what, &reply, Some(()))?;
        let metadata = response
            .get("metadata")
            .filter(|m| m.is_object())
            .cloned()
            .ok_or_else(|| CatalogError {
                kind: ErrorKind::CommitUnknown,
                message: format!("{what}: the answer holds no `metadata`, so whether the commit happened is unknown"),
            })?;
        Ok(LoadedTable {
            metadata_location: response
                .get("metadata-location")
                .and_then(Value::as_str)
                .map(str::to_string),
            metadata,
            config: Vec::new(),
            storage_credentials: Vec::new(),
        })
    }

    /// Sends with authorization, a new token once on 401, and retries on 429 (and on 503 when
    /// `retry_unavailable`, which a commit is not: its 503 leaves the outcome unknown).
    pub(super) fn exchange(
        &self,
        method: Method,
        url: String,
        body: Option<(Vec<u8>, &'static str)>,
        retry_unavailable: bool,
    ) -> Result<Reply, CatalogError> {
        let mut attempt = 0;
        let mut renewed = false;
        loop {
            let mut headers = self.headers.clone();
            headers.push((
                "X-Iceberg-Access-Delegation".into(),
                "vended-credentials".into(),
            ));
            if let Some(token) = self.token(false)? {
                headers.push(("Authorization".into(), format!("Bearer {token}")));
            }
            let mut request = Request {
                method,
                url: url.clone(),
                headers,
                body: body.clone(),
            };
            self.sign(&mut request)?;
            let reply = self
                .http
                .send(&request)
                .map_err(|e| self.unreachable(method, &e))?;
            if reply.status == 401 && !renewed && matches!(self.auth, Auth::ClientCredentials(_)) {
                renewed = true;
                self.token(true)?;
                continue;
            }
            let retryable = reply.status == 429 || (reply.status == 503 && retry_unavailable);
            if retryable && attempt < self.retries {
                let wait = reply
                    .retry_after
                    .map(|s| Duration::from_secs(s.min(30)))
                    .unwrap_or(self.backoff * 2u32.pow(attempt));
                std::thread::sleep(wait);
                attempt += 1;
                continue;
            }
            return Ok(reply);
        }
    }

    /// Adds the SigV4 headers when the catalog signs; a bearer token already there moves to
    /// `Original-Authorization`, as pyiceberg's and Java's signers move it.
    fn sign(&self, request: &mut Request) -> Result<(), CatalogError> {
        let Some(signer) = &self.signer else {
            return Ok(());
        };
        for (name, _) in &mut request.headers {
            if name.eq_ignore_ascii_case("authorization") {
                *name = "Original-Authorization".into();
            }
        }
        let mut headers = request.headers.clone();
        let (body, kind) = request.body.clone().unwrap_or_default();
        if request.body.is_some() {
            headers.push(("Content-Type".into(), kind.to_string()));
        }
        let method = match request.method {
            Method::Get => "GET",
            Method::Post => "POST",
        };
        let signed = signer
            .sign(
                method,
                &request.url,
                &headers,
                &body,
                jiff::Timestamp::now(),
            )
            .map_err(|why| CatalogError {
                kind: ErrorKind::Other,
                message: self.redactor.clean(&format!(
                    "catalog `{}`: cannot sign the request: {why}",
                    self.name
                )),
            })?;
        request.headers.extend(signed);
        Ok(())
    }

    /// The error of a request that got no reply; a commit's may have happened all the same.
    fn unreachable(&self, method: Method, e: &TransportError) -> CatalogError {
        let unknown = method == Method::Post && e.sent;
        CatalogError {
            kind: if unknown {
                ErrorKind::CommitUnknown
            } else {
                ErrorKind::Other
            },
            message: self.redactor.clean(&format!(
                "catalog `{}` at {} could not be reached: {}{}",
                self.name,
                self.uri,
                e.message,
                if unknown {
                    "; the commit may or may not have happened"
                } else {
                    ""
                }
            )),
        }
    }

    /// The bearer token to send, fetching one when there is none, it expired, or `renew`.
    fn token(&self, renew: bool) -> Result<Option<String>, CatalogError> {
        let credentials = match &self.auth {
            Auth::None => return Ok(None),
            Auth::Bearer(token) => return Ok(Some(token.clone())),
            Auth::ClientCredentials(credentials) => credentials,
        };
        let now = Instant::now();
        if !renew && let Some(token) = credentials.token.borrow().as_ref().filter(|t| t.fresh(now))
        {
            return Ok(Some(token.value.clone()));
        }
        let request = Request {
            method: Method::Post,
            url: credentials.token_uri.clone(),
            headers: self.headers.clone(),
            body: Some((
                credentials.form().into_bytes(),
                "application/x-www-form-urlencoded",
            )),
        };
        let what = format!(
            "a token for catalog `{}` from {}",
            self.name, credentials.token_uri
        );
        let reply = self.http.send(&request).map_err(|e| CatalogError {
            kind: ErrorKind::Other,
            message: self
                .redactor
                .clean(&format!("{what} could not be fetched: {}", e.message)),
        })?;
        if reply.status != 200 {
            return Err(self.status_error(&what, &reply, None));
        }
        let token = token_from_reply(&reply.body, now)
            .ok_or_else(|| self.malformed(&what, "the answer holds no `access_token`"))?;
        let value = token.value.clone();
        *credentials.token.borrow_mut() = Some(token);
        Ok(Some(value))
    }

    /// The reply's JSON when it is a 200, else the error in words.
    pub(super) fn expect_ok(
        &self,
        what: &str,
        reply: &Reply,
        commit: Option<()>,
    ) -> Result<Value, CatalogError> {
        if reply.status != 200 {
            return Err(self.status_error(what, reply, commit));
        }
        serde_json::from_slice(&reply.body).map_err(|e| {
            let mut error = self.malformed(what, &format!("the answer is not JSON ({e})"));
            if commit.is_some() {
                error.kind = ErrorKind::CommitUnknown;
                error
                    .message
                    .push_str("; whether the commit happened is unknown");
            }
            error
        })
    }

    pub(super) fn malformed(&self, what: &str, why: &str) -> CatalogError {
        CatalogError {
            kind: ErrorKind::Other,
            message: self
                .redactor
                .clean(&format!("{what}: malformed answer from the catalog: {why}")),
        }
    }

    fn status_error(&self, what: &str, reply: &Reply, commit: Option<()>) -> CatalogError {
        let status = reply.status;
        let (kind, meaning) = match status {
            400 => (
                ErrorKind::Other,
                "the catalog refused the request as malformed",
            ),
            401 => (
                ErrorKind::Other,
                "the catalog did not accept the credentials",
            ),
            403 => (
                ErrorKind::Other,
                "the credentials are not allowed to do this",
            ),
            404 => (
                ErrorKind::Other,
                "the catalog has no such table or namespace",
            ),
            409 => (ErrorKind::Conflict, "the table changed since it was read"),
            419 => (ErrorKind::Other, "the credentials have expired"),
            429 => (
                ErrorKind::Other,
                "the catalog kept refusing requests as too many",
            ),
            503 if commit.is_none() => (ErrorKind::Other, "the catalog is unavailable"),
            500..=599 if commit.is_some() => (
                ErrorKind::CommitUnknown,
                "the catalog failed; whether the commit happened is unknown",
            ),
            500..=599 => (ErrorKind::Other, "the catalog failed"),
            _ => (ErrorKind::Other, "unexpected answer"),
        };
        let quoted = server_message(&reply.body);
        CatalogError {
            kind,
            message: self.redactor.clean(&format!(
                "{what}: {meaning} (HTTP {status}){}",
                quoted.map(|m| format!(": {m}")).unwrap_or_default()
            )),
        }
    }
}

/// The server's own words: the REST error model's `type: message`, OAuth2's `error:
/// error_description`, or the start of the body.
fn server_message(body: &[u8]) -> Option<String> {
    let text = match serde_json::from_slice::<Value>(body) {
        Ok(value) => match value.get("error") {
            Some(Value::Object(error)) => {
                let kind = error.get("type").and_then(Value::as_str).unwrap_or("error");
                let message = error.get("message").and_then(Value::as_str).unwrap_or("");
                format!("{kind}: {message}")
            }
            Some(Value::String(code)) => {
                match value.get("error_description").and_then(Value::as_str) {
                    Some(description) => format!("{code}: {description}"),
                    None => code.clone(),
                }
            }
            _ => value.to_string(),
        },
        Err(_) => String::from_utf8_lossy(body).into_owned(),
    };
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    Some(match text.char_indices().nth(QUOTED) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::catalog::http::TransportError;

    /// Answers from a script, recording each request's method and URL.
    struct Scripted {
        replies: RefCell<Vec<(u16, &'static str)>>,
        seen: RefCell<Vec<String>>,
    }

    impl Http for Scripted {
        fn send(&self, request: &Request) -> Result<Reply, TransportError> {
            self.seen
                .borrow_mut()
                .push(format!("{:?} {}", request.method, request.url));
            let mut replies = self.replies.borrow_mut();
            if replies.is_empty() {
                return Err(TransportError {
                    message: "closed".into(),
                    sent: true,
                });
            }
            let (status, body) = replies.remove(0);
            Ok(Reply {
                status,
                retry_after: None,
                body: body.as_bytes().to_vec(),
            })
        }
    }

    fn client(replies: Vec<(u16, &'static str)>) -> RestClient<Scripted> {
        let mut redactor = Redactor::default();
        redactor.add("sekrit-token");
        RestClient {
            http: Scripted {
                replies: RefCell::new(replies),
                seen: RefCell::new(Vec::new()),
            },
            name: "lake".into(),
            uri: "http://c".into(),
            warehouse: Some("w h".into()),
            prefix: None,
            separator: "\u{1f}".into(),
            auth: Auth::Bearer("sekrit-token".into()),
            headers: Vec::new(),
            redactor,
            signer: None,
            storage: Vec::new(),
            retries: 2,
            backoff: Duration::from_millis(1),
        }
    }

    fn id(text: &str) -> Vec<String> {
        text.split('.').map(str::to_string).collect()
    }

    #[test]
    fn the_config_prefix_and_separator_shape_table_paths() {
        let mut c = client(vec![(
            200,
            r#"{"defaults":{"namespace-separator":"."},"overrides":{"prefix":"p/1"}}"#,
        )]);
        c.fetch_config().expect("config");
        assert_eq!(
            c.http.seen.borrow()[0],
            "Get http://c/v1/config?warehouse=w%20h"
        );
        assert_eq!(
            c.table_url(&id("a.b.t")).expect("url"),
            "http://c/v1/p%2F1/namespaces/a.b/tables/t"
        );
        c.separator = "\u{1f}".into();
        assert_eq!(
            c.table_url(&id("a.b.t")).expect("url"),
            "http://c/v1/p%2F1/namespaces/a%1Fb/tables/t"
        );
        assert!(c.table_url(&id("t")).is_err());
    }

    #[test]
    fn unavailable_is_retried_for_loads_up_to_the_limit() {
        let c = client(vec![
            (503, ""),
            (429, ""),
            (
                503,
                "{\"error\":{\"message\":\"busy sekrit-token\",\"type\":\"Busy\"}}",
            ),
        ]);
        let error = c.load_table(&id("db.t")).expect_err("gives up");
        assert_eq!(c.http.seen.borrow().len(), 3);
        assert_eq!(
            error.message,
            "table `db.t` of catalog `lake`: the catalog is unavailable (HTTP 503): Busy: busy ***"
        );
    }

    #[test]
    fn a_commit_is_not_retried_on_503_and_its_outcome_is_unknown() {
        let c = client(vec![(503, "")]);
        let error = c
            .commit_table(&id("db.t"), &serde_json::json!({}))
            .expect_err("unknown");
        assert_eq!(error.kind, ErrorKind::CommitUnknown);
        assert_eq!(c.http.seen.borrow().len(), 1);
        let c = client(vec![(
            409,
            r#"{"error":{"message":"Requirement failed","type":"CommitFailedException"}}"#,
        )]);
        let error = c
            .commit_table(&id("db.t"), &serde_json::json!({}))
            .expect_err("conflict");
        assert_eq!(error.kind, ErrorKind::Conflict);
        let c = client(Vec::new());
        let error = c
            .commit_table(&id("db.t"), &serde_json::json!({}))
            .expect_err("lost");
        assert_eq!(error.kind, ErrorKind::CommitUnknown);
    }

    #[test]
    fn a_load_table_result_without_metadata_is_malformed() {
        let c = client(vec![
            (200, r#"{"metadata-location":"x"}"#),
            (200, "not json"),
        ]);
        assert!(
            c.load_table(&id("db.t"))
                .expect_err("no metadata")
                .message
                .contains("no `metadata` object")
        );
        assert!(
            c.load_table(&id("db.t"))
                .expect_err("not json")
                .message
                .contains("not JSON")
        );
    }
}
