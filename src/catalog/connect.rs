//! From a `catalogs:` entry to a client: every `${VAR}` resolved from the environment (each
//! secret remembered by the redactor before anything can print it), the auth chosen as
//! pyiceberg chooses it, and `GET /v1/config` fetched.

use std::time::Duration;

use crate::catalog::auth::{Auth, ClientCredentials};
use crate::catalog::config::{CatalogConfig, is_secret};
use crate::catalog::http::{Http, UreqHttp};
use crate::catalog::redact::Redactor;
use crate::catalog::rest::{CatalogError, ErrorKind, RestClient};

const DEFAULT_TIMEOUT_MS: u64 = 30_000;
const DEFAULT_RETRIES: u32 = 3;
/// The property families that configure object storage rather than the catalog.
const STORAGE_FAMILIES: &[&str] = &["s3.", "client.", "gcs.", "adls."];

/// The catalog's properties with their references resolved.
pub struct Resolved {
    pub name: String,
    pub properties: Vec<(String, String)>,
    pub redactor: Redactor,
}

impl Resolved {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Resolves `catalog`'s values from `env`; a variable that is not set is an error naming it.
pub fn resolve(
    catalog: &CatalogConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Resolved, CatalogError> {
    let mut redactor = Redactor::default();
    let mut properties = Vec::new();
    for property in &catalog.properties {
        let value = property.value.resolve(env).map_err(|why| CatalogError {
            kind: ErrorKind::Other,
            message: format!("catalog `{}`, `{}`: {why}", catalog.name, property.key),
        })?;
        if is_secret(&property.key) {
            redactor.add(&value);
        }
        properties.push((property.key.clone(), value));
    }
    Ok(Resolved {
        name: catalog.name.clone(),
        properties,
        redactor,
    })
}

/// A client over HTTP for `resolved`, its configuration fetched.
pub fn connect(resolved: Resolved) -> Result<RestClient<UreqHttp>, CatalogError> {
    let timeout = number(&resolved, "timeout-ms", DEFAULT_TIMEOUT_MS)?;
    let http = UreqHttp::new(Duration::from_millis(timeout));
    let mut client = client(resolved, http)?;
    client.fetch_config()?;
    Ok(client)
}

/// The client for `resolved` over `http`, before `GET /v1/config`.
pub fn client<H: Http>(resolved: Resolved, http: H) -> Result<RestClient<H>, CatalogError> {
    let uri = resolved
        .get("uri")
        .unwrap_or_default()
        .trim_end_matches('/')
        .to_string();
    if !(uri.starts_with("https://") || uri.starts_with("http://")) {
        return Err(CatalogError {
            kind: ErrorKind::Other,
            message: format!(
                "catalog `{}`: `uri` must be an http:// or https:// address, found `{}`",
                resolved.name,
                resolved.redactor.clean(&uri)
            ),
        });
    }
    if resolved.get("rest.sigv4-enabled") == Some("true") {
        return Err(CatalogError {
            kind: ErrorKind::Other,
            message: format!(
                "catalog `{}`: `rest.sigv4-enabled` (AWS SigV4 signing for Glue and S3 Tables) is not supported yet",
                resolved.name
            ),
        });
    }
    let auth = auth(&resolved, &uri);
    let retries = number(&resolved, "retries", u64::from(DEFAULT_RETRIES))?;
    let headers = resolved
        .properties
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("header.")?.to_string(), v.clone())))
        .collect();
    let storage = resolved
        .properties
        .iter()
        .filter(|(k, _)| STORAGE_FAMILIES.iter().any(|f| k.starts_with(f)))
        .cloned()
        .collect();
    Ok(RestClient {
        http,
        name: resolved.name.clone(),
        uri,
        warehouse: resolved.get("warehouse").map(str::to_string),
        prefix: resolved.get("prefix").map(str::to_string),
        separator: "\u{1f}".to_string(),
        auth,
        headers,
        redactor: resolved.redactor,
        storage,
        retries: u32::try_from(retries).unwrap_or(u32::MAX).min(10),
        backoff: Duration::from_millis(200),
    })
}

/// `token` is a bearer token; `credential` is exchanged for one at `oauth2-server-uri`, else
/// at the catalog's own (deprecated) `v1/oauth/tokens`. pyiceberg prefers `token` too.
fn auth(resolved: &Resolved, uri: &str) -> Auth {
    if let Some(token) = resolved.get("token") {
        return Auth::Bearer(token.to_string());
    }
    let Some(credential) = resolved.get("credential") else {
        return Auth::None;
    };
    let token_uri = resolved
        .get("oauth2-server-uri")
        .map_or_else(|| format!("{uri}/v1/oauth/tokens"), str::to_string);
    let scope = resolved.get("scope").unwrap_or("catalog").to_string();
    let mut credentials = ClientCredentials::new(credential, scope, token_uri);
    for key in ["audience", "resource"] {
        if let Some(value) = resolved.get(key) {
            credentials.extra.push((key.to_string(), value.to_string()));
        }
    }
    Auth::ClientCredentials(credentials)
}

fn number(resolved: &Resolved, key: &str, default: u64) -> Result<u64, CatalogError> {
    match resolved.get(key) {
        None => Ok(default),
        Some(text) => text.trim().parse().map_err(|_| CatalogError {
            kind: ErrorKind::Other,
            message: format!(
                "catalog `{}`: `{key}` must be a whole number, found `{text}`",
                resolved.name
            ),
        }),
    }
}
