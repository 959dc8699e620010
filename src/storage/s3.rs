//! S3 GetObject, signed with AWS SigV4 as a presigned URL (rusty-s3 signs; our blocking HTTP
//! client sends), configured as pyiceberg and Java's S3FileIO read their properties:
//! `s3.endpoint`, `s3.region` (or `client.region`), `s3.access-key-id`, `s3.secret-access-key`,
//! `s3.session-token` (or the `client.*` forms), `s3.path-style-access` (Java) and
//! `s3.force-virtual-addressing` (pyiceberg), `s3.request-timeout` in seconds. What they leave
//! unset comes from `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`, `AWS_REGION` /
//! `AWS_DEFAULT_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, and
//! then from the AWS profile (`AWS_PROFILE` in `~/.aws/config` and `~/.aws/credentials`).

use std::time::Duration;

use rusty_s3::{Bucket, S3Action, UrlStyle};

use crate::aws::profile::{Credentials, Profile};
use crate::catalog::http::{Http, Method, Request, UreqHttp};
use crate::catalog::redact::Redactor;

/// How long a signed URL stays valid: long enough for one download, no longer.
const SIGNED_FOR: Duration = Duration::from_secs(300);
const DEFAULT_TIMEOUT_S: u64 = 60;

pub struct S3 {
    endpoint: Option<String>,
    region: String,
    credentials: Option<rusty_s3::Credentials>,
    path_style: bool,
    http: UreqHttp,
}

/// The first of `keys` set in `properties` (the last value of a key wins, as a table's config
/// overrides its catalog's), else of `vars` in the environment.
fn setting(
    properties: &[(String, String)],
    env: &dyn Fn(&str) -> Option<String>,
    keys: &[&str],
    vars: &[&str],
) -> Option<String> {
    let from_properties = keys.iter().find_map(|key| {
        properties
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    });
    from_properties
        .or_else(|| vars.iter().find_map(|var| env(var)))
        .filter(|v| !v.trim().is_empty())
}

/// Where the objects are and as whom they are read.
struct Target {
    endpoint: Option<String>,
    region: String,
    credentials: Option<Credentials>,
}

/// Each of the endpoint, region and credentials from the properties, else the environment,
/// else the AWS profile, which is read only for what the others leave unset, as the SDKs fall
/// back to it. Credentials come whole from one place.
fn target(
    properties: &[(String, String)],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Target, String> {
    let get = |keys: &[&str], vars: &[&str]| setting(properties, env, keys, vars);
    let ignore_configured = env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let endpoint_vars: &[&str] = if ignore_configured {
        &[]
    } else {
        &["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"]
    };
    let mut endpoint = get(&["s3.endpoint"], endpoint_vars);
    let mut region = get(
        &["s3.region", "client.region"],
        &["AWS_REGION", "AWS_DEFAULT_REGION"],
    );
    let key = get(
        &["s3.access-key-id", "client.access-key-id"],
        &["AWS_ACCESS_KEY_ID"],
    );
    let secret = get(
        &["s3.secret-access-key", "client.secret-access-key"],
        &["AWS_SECRET_ACCESS_KEY"],
    );
    let token = get(
        &["s3.session-token", "client.session-token"],
        &["AWS_SESSION_TOKEN"],
    );
    let mut credentials = key.zip(secret).map(|(key, secret)| Credentials {
        access_key_id: key,
        secret_access_key: secret,
        session_token: token,
    });
    if credentials.is_none() || region.is_none() || endpoint.is_none() {
        let profile = Profile::load(env)?;
        if credentials.is_none() {
            credentials = profile.credentials()?;
        }
        region = region.or_else(|| profile.region().map(str::to_string));
        if !ignore_configured {
            endpoint = endpoint.or_else(|| profile.endpoint("s3").map(str::to_string));
        }
    }
    Ok(Target {
        endpoint,
        region: region.unwrap_or_else(|| "us-east-1".into()),
        credentials,
    })
}

impl S3 {
    pub fn new(
        properties: &[(String, String)],
        env: &dyn Fn(&str) -> Option<String>,
        redactor: &mut Redactor,
    ) -> Result<S3, String> {
        let get = |keys: &[&str], vars: &[&str]| setting(properties, env, keys, vars);
        let Target {
            endpoint,
            region,
            credentials,
        } = target(properties, env)?;
        if let Some(credentials) = &credentials {
            redactor.add(&credentials.secret_access_key);
            if let Some(token) = &credentials.session_token {
                redactor.add(token);
            }
        }
        let credentials = credentials.map(|c| match c.session_token {
            Some(token) => {
                rusty_s3::Credentials::new_with_token(c.access_key_id, c.secret_access_key, token)
            }
            None => rusty_s3::Credentials::new(c.access_key_id, c.secret_access_key),
        });
        let flag = |key: &str| get(&[key], &[]).is_some_and(|v| v.eq_ignore_ascii_case("true"));
        // A custom endpoint (MinIO, a local S3) usually serves buckets by path; AWS by host.
        let path_style = flag("s3.path-style-access")
            || (endpoint.is_some() && !flag("s3.force-virtual-addressing"));
        let timeout = get(&["s3.request-timeout"], &[])
            .and_then(|t| t.trim().parse::<f64>().ok())
            .filter(|t| t.is_finite() && *t > 0.0)
            .map_or(
                Duration::from_secs(DEFAULT_TIMEOUT_S),
                Duration::from_secs_f64,
            );
        Ok(S3 {
            endpoint,
            region,
            credentials,
            path_style,
            http: UreqHttp::new(timeout),
        })
    }

    /// The object at `url` (`rest` is what follows the scheme: `bucket/key`).
    pub fn get(&self, url: &str, rest: &str) -> Result<Vec<u8>, String> {
        let Some((bucket, key)) = rest
            .split_once('/')
            .filter(|(b, k)| !b.is_empty() && !k.is_empty())
        else {
            return Err(format!("`{url}` names no object: write it s3://bucket/key"));
        };
        let endpoint = self
            .endpoint
            .clone()
            .unwrap_or_else(|| format!("https://s3.{}.amazonaws.com", self.region));
        let parsed = endpoint
            .parse()
            .map_err(|e| format!("`s3.endpoint` `{endpoint}` is not a URL: {e}"))?;
        let style = if self.path_style {
            UrlStyle::Path
        } else {
            UrlStyle::VirtualHost
        };
        let bucket = Bucket::new(parsed, style, bucket.to_string(), self.region.clone())
            .map_err(|e| format!("`{url}`: bucket `{bucket}` at `{endpoint}`: {e}"))?;
        let signed = bucket
            .get_object(self.credentials.as_ref(), key)
            .sign(SIGNED_FOR);
        let request = Request {
            method: Method::Get,
            url: signed.to_string(),
            headers: Vec::new(),
            body: None,
        };
        // The signed URL is a credential for its lifetime: it never goes into a message.
        let reply = self.http.send(&request).map_err(|e| {
            format!(
                "`{url}` could not be read from `{endpoint}`: {}",
                e.message.replace(signed.as_str(), "<signed URL>")
            )
        })?;
        match reply.status {
            200 => Ok(reply.body),
            status => Err(self.refused(url, status, &reply.body)),
        }
    }

    fn refused(&self, url: &str, status: u16, body: &[u8]) -> String {
        let text = String::from_utf8_lossy(body);
        let code = xml_element(&text, "Code");
        let message = xml_element(&text, "Message");
        let said = match (code, message) {
            (Some(c), Some(m)) => format!(": {c}: {m}"),
            (Some(c), None) => format!(": {c}"),
            (None, Some(m)) => format!(": {m}"),
            (None, None) => String::new(),
        };
        let why = match status {
            403 if self.credentials.is_none() => {
                "access denied, and no credentials were found (the catalog vended none, `s3.access-key-id` is not set, nor is AWS_ACCESS_KEY_ID, and the AWS profile has none)"
            }
            403 => "access denied to the credentials in use",
            404 => "no such object",
            301 | 307 => "the bucket is in another region or at another endpoint (set `s3.region`)",
            500..=599 => "the object store failed",
            _ => "the object store refused the request",
        };
        format!("`{url}`: {why} (HTTP {status}{said})")
    }
}

/// The text of S3's XML error element `<name>`, shortened, when the body has one.
fn xml_element(text: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&format!("</{name}>"))? + start;
    Some(text[start..end].chars().take(300).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn props(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn vended_properties_win_over_the_catalogs_and_the_environment() {
        let mut redactor = Redactor::default();
        let properties = props(&[
            ("s3.access-key-id", "CATALOGKEY"),
            ("s3.secret-access-key", "catalog-secret"),
            ("s3.access-key-id", "VENDEDKEY"),
            ("s3.secret-access-key", "vended-secret"),
            ("s3.endpoint", "http://127.0.0.1:9"),
        ]);
        let environment = env(&[("AWS_ACCESS_KEY_ID", "ENVKEY"), ("AWS_REGION", "eu-west-1")]);
        let s3 = S3::new(&properties, &environment, &mut redactor).unwrap();
        let credentials = s3.credentials.as_ref().unwrap();
        assert_eq!(credentials.key(), "VENDEDKEY");
        assert_eq!(credentials.secret(), "vended-secret");
        assert_eq!(s3.region, "eu-west-1");
        assert!(s3.path_style, "a custom endpoint is path-style by default");
        assert_eq!(redactor.clean("x vended-secret y"), "x *** y");
    }

    #[test]
    fn the_environment_fills_what_the_properties_leave_unset() {
        let mut redactor = Redactor::default();
        let environment = env(&[
            ("AWS_ACCESS_KEY_ID", "ENVKEY"),
            ("AWS_SECRET_ACCESS_KEY", "env-secret"),
            ("AWS_SESSION_TOKEN", "env-token"),
        ]);
        let s3 = S3::new(&[], &environment, &mut redactor).unwrap();
        let credentials = s3.credentials.as_ref().unwrap();
        assert_eq!(
            (credentials.key(), credentials.token()),
            ("ENVKEY", Some("env-token"))
        );
        assert_eq!(s3.region, "us-east-1");
        assert!(!s3.path_style, "AWS's own endpoint serves buckets by host");
        assert_eq!(redactor.clean("env-token"), "***");
    }

    #[test]
    fn the_aws_profile_fills_what_the_environment_leaves_unset() {
        let home = tempfile::tempdir().unwrap();
        let aws = home.path().join(".aws");
        std::fs::create_dir_all(&aws).unwrap();
        std::fs::write(
            aws.join("config"),
            "[default]\nregion = ap-south-1\nendpoint_url = http://127.0.0.1:9\n",
        )
        .unwrap();
        std::fs::write(
            aws.join("credentials"),
            "[default]\naws_access_key_id = PROFILEKEY\naws_secret_access_key = profile-secret\n",
        )
        .unwrap();
        let home_dir = home.path().display().to_string();
        let lookup = |ignore: bool, region: bool| {
            let home_dir = home_dir.clone();
            move |name: &str| match name {
                "HOME" => Some(home_dir.clone()),
                "AWS_REGION" if region => Some("eu-north-1".to_string()),
                "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS" if ignore => Some("true".to_string()),
                _ => None,
            }
        };
        let mut redactor = Redactor::default();
        let s3 = S3::new(&[], &lookup(false, true), &mut redactor).unwrap();
        assert_eq!(s3.credentials.as_ref().unwrap().key(), "PROFILEKEY");
        assert_eq!(
            s3.region, "eu-north-1",
            "the environment before the profile"
        );
        assert_eq!(s3.endpoint.as_deref(), Some("http://127.0.0.1:9"));
        assert_eq!(redactor.clean("profile-secret"), "***");
        let ignoring = S3::new(&[], &lookup(true, false), &mut redactor).unwrap();
        assert_eq!(
            (ignoring.endpoint, ignoring.region.as_str()),
            (None, "ap-south-1")
        );
        // Credentials the properties give whole: the profile's are not mixed in.
        let given = props(&[("s3.access-key-id", "K"), ("s3.secret-access-key", "S")]);
        let s3 = S3::new(&given, &lookup(false, true), &mut redactor).unwrap();
        assert_eq!(s3.credentials.as_ref().unwrap().key(), "K");
    }

    #[test]
    fn a_refusal_names_the_object_and_quotes_the_store() {
        let s3 = S3::new(&[], &|_| None, &mut Redactor::default()).unwrap();
        let body = b"<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>";
        let message = s3.refused("s3://b/k", 403, body);
        assert!(
            message.starts_with("`s3://b/k`: access denied"),
            "{message}"
        );
        assert!(message.contains("no credentials were found"), "{message}");
        assert!(message.contains("AccessDenied: Access Denied"), "{message}");
        assert!(
            s3.get("s3://b", "b")
                .unwrap_err()
                .contains("names no object"),
            "a bucket without a key is refused before any request"
        );
    }
}
