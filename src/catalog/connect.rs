//! From a `catalogs:` entry to a client: every `${VAR}` resolved from the environment (each
//! secret remembered by the redactor before anything can print it), the auth chosen as
//! pyiceberg chooses it, AWS SigV4 signing with the standard AWS credentials when
//! `rest.sigv4-enabled`, and `GET /v1/config` fetched.

use std::time::Duration;

use crate::aws::profile::{Credentials, Profile};
use crate::aws::sigv4::Signer;
use crate::aws::{env_credentials, env_region};
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
    /// With `rest.sigv4-enabled: true`, what signs every request.
    pub signer: Option<Signer>,
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
    let mut resolved = Resolved {
        name: catalog.name.clone(),
        properties,
        redactor,
        signer: None,
    };
    let sigv4 = resolved.get("rest.sigv4-enabled");
    if sigv4.is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        let signer = signer(&resolved, env).map_err(|why| CatalogError {
            kind: ErrorKind::Other,
            message: format!("catalog `{}`, `rest.sigv4-enabled`: {why}", catalog.name),
        })?;
        resolved.redactor.add(&signer.credentials.secret_access_key);
        if let Some(token) = &signer.credentials.session_token {
            resolved.redactor.add(token);
        }
        resolved.signer = Some(signer);
    }
    Ok(resolved)
}

/// The SigV4 signer: the credentials of `rest.access-key-id` / `rest.secret-access-key` /
/// `rest.session-token` (Iceberg Java's names), else `client.*` (pyiceberg's), else the AWS
/// environment, else the AWS profile; the region of `rest.signing-region`, else `client.region`,
/// else the environment's, else the profile's; the service of `rest.signing-name`, else
/// `execute-api` (pyiceberg's and Java's default).
fn signer(resolved: &Resolved, env: &dyn Fn(&str) -> Option<String>) -> Result<Signer, String> {
    let mut explicit = None;
    for family in ["rest", "client"] {
        let get = |name: &str| resolved.get(&format!("{family}.{name}"));
        explicit = match (get("access-key-id"), get("secret-access-key")) {
            (Some(key), Some(secret)) => Some(Credentials {
                access_key_id: key.to_string(),
                secret_access_key: secret.to_string(),
                session_token: get("session-token").map(str::to_string),
            }),
            (None, None) => continue,
            _ => {
                return Err(format!(
                    "set both `{family}.access-key-id` and `{family}.secret-access-key`, or neither"
                ));
            }
        };
        break;
    }
    let mut credentials = explicit.or_else(|| env_credentials(env));
    let mut region = resolved
        .get("rest.signing-region")
        .or_else(|| resolved.get("client.region"))
        .map(str::to_string)
        .or_else(|| env_region(env));
    if credentials.is_none() || region.is_none() {
        let profile = Profile::load(env)?;
        if credentials.is_none() {
            credentials = profile.credentials()?;
        }
        region = region.or_else(|| profile.region().map(str::to_string));
    }
    let credentials = credentials.ok_or(
        "no AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or give the AWS profile (AWS_PROFILE, ~/.aws/credentials) static keys",
    )?;
    let region = region.ok_or(
        "no AWS region was found: set `rest.signing-region` (or `client.region`), AWS_REGION, or `region` in the AWS profile",
    )?;
    Ok(Signer {
        credentials,
        region,
        service: resolved
            .get("rest.signing-name")
            .unwrap_or("execute-api")
            .to_string(),
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
        signer: resolved.signer,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(properties: &[(&str, &str)]) -> Resolved {
        Resolved {
            name: "glue".into(),
            properties: properties
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            redactor: Redactor::default(),
            signer: None,
        }
    }

    fn env(name: &str) -> Option<String> {
        match name {
            "AWS_ACCESS_KEY_ID" => Some("ENVKEY".into()),
            "AWS_SECRET_ACCESS_KEY" => Some("env-secret".into()),
            "AWS_REGION" => Some("eu-west-1".into()),
            _ => None,
        }
    }

    #[test]
    fn the_signer_takes_the_catalogs_settings_then_the_aws_environment() {
        let from_env = signer(&resolved(&[]), &env).unwrap();
        assert_eq!(from_env.credentials.access_key_id, "ENVKEY");
        assert_eq!(
            (from_env.region.as_str(), from_env.service.as_str()),
            ("eu-west-1", "execute-api")
        );
        let explicit = resolved(&[
            ("rest.access-key-id", "RESTKEY"),
            ("rest.secret-access-key", "rest-secret"),
            ("rest.session-token", "rest-token"),
            ("rest.signing-region", "us-west-2"),
            ("rest.signing-name", "s3tables"),
        ]);
        let signer = signer(&explicit, &env).unwrap();
        assert_eq!(signer.credentials.access_key_id, "RESTKEY");
        assert_eq!(
            signer.credentials.session_token.as_deref(),
            Some("rest-token")
        );
        assert_eq!(
            (signer.region.as_str(), signer.service.as_str()),
            ("us-west-2", "s3tables")
        );
    }

    #[test]
    fn signing_without_credentials_or_region_is_an_error_before_any_request() {
        let half = resolved(&[("rest.access-key-id", "K")]);
        assert!(
            super::signer(&half, &env)
                .unwrap_err()
                .contains("set both `rest.")
        );
        let pyiceberg = resolved(&[
            ("client.access-key-id", "CLIENTKEY"),
            ("client.secret-access-key", "client-secret"),
            ("client.region", "ca-central-1"),
        ]);
        let signer = super::signer(&pyiceberg, &env).unwrap();
        assert_eq!(
            (
                signer.credentials.access_key_id.as_str(),
                signer.region.as_str()
            ),
            ("CLIENTKEY", "ca-central-1")
        );
        let nothing = |_: &str| None;
        let why = super::signer(&resolved(&[]), &nothing).unwrap_err();
        assert!(why.starts_with("no AWS credentials were found"), "{why}");
        let keys_only = |name: &str| env(name).filter(|_| name != "AWS_REGION");
        let why = super::signer(&resolved(&[]), &keys_only).unwrap_err();
        assert!(why.starts_with("no AWS region was found"), "{why}");
    }

    #[test]
    fn resolving_a_signing_catalog_remembers_the_aws_secret() {
        use crate::catalog::config::{Part, Property, Template};
        let property = |key: &str, value: &str| Property {
            key: key.into(),
            value: Template {
                parts: vec![Part::Literal(value.into())],
            },
            span: crate::span::Span::default(),
        };
        let catalog = CatalogConfig {
            name: "glue".into(),
            name_span: crate::span::Span::default(),
            properties: vec![
                property("uri", "https://glue.example"),
                property("rest.sigv4-enabled", "True"),
            ],
        };
        let resolved = resolve(&catalog, &env).unwrap();
        assert_eq!(
            resolved.signer.as_ref().unwrap().credentials.access_key_id,
            "ENVKEY"
        );
        assert_eq!(resolved.redactor.clean("said env-secret"), "said ***");
        let nothing = |_: &str| None;
        let refused = resolve(&catalog, &nothing).err().unwrap();
        assert!(
            refused
                .message
                .starts_with("catalog `glue`, `rest.sigv4-enabled`: no AWS credentials"),
            "{}",
            refused.message
        );
    }
}
