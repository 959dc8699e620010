//! AWS's standard configuration, as the AWS SDKs read it: the `AWS_*` environment, then the
//! shared `config` and `credentials` files' profile; and SigV4 request signing. Object storage
//! (S3) and the REST catalog's own signing both take their credentials, region and endpoints
//! from here.

pub mod profile;
pub mod sigv4;

use crate::aws::profile::Credentials;

/// A variable of `env`, unless unset or blank.
fn var(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    env(name).filter(|v| !v.trim().is_empty())
}

/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, when the first two are
/// set.
pub fn env_credentials(env: &dyn Fn(&str) -> Option<String>) -> Option<Credentials> {
    Some(Credentials {
        access_key_id: var(env, "AWS_ACCESS_KEY_ID")?,
        secret_access_key: var(env, "AWS_SECRET_ACCESS_KEY")?,
        session_token: var(env, "AWS_SESSION_TOKEN"),
    })
}

/// `AWS_REGION`, else `AWS_DEFAULT_REGION`.
pub fn env_region(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    var(env, "AWS_REGION").or_else(|| var(env, "AWS_DEFAULT_REGION"))
}
