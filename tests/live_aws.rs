//! The standard AWS configuration against real parts: S3 (moto's server) read with credentials,
//! region and endpoint that only an AWS profile file holds, and a REST catalog that requires AWS
//! SigV4 (`rest_server.py --sigv4`), whose every request is checked by botocore's own signer, so
//! the signature is botocore's verdict, not ours. Nothing here comes from the environment the
//! tests run in: each fieldgate runs with the AWS variables removed and its own HOME.

mod catalog;
mod common;

use std::path::Path;
use std::process::{Command, Output};

use catalog::moto::{self, Moto};
use catalog::{Catalog, EVENTS, PINNED, lake_config};
use common::{assert_exit, text, write};

const PROFILE_KEY: &str = "AKIAPROFILE0000001";
const PROFILE_SECRET: &str = "pr0file-s3cret-81fd0c";
const SESSION_TOKEN: &str = "pr0file-session-token-77e2";

const AWS_VARS: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
];

/// fieldgate in `dir` with `home` as HOME and only `env` of the AWS variables.
fn fieldgate(dir: &Path, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fieldgate"));
    command
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("HOME", home)
        .env_remove("GITHUB_BASE_REF");
    for var in AWS_VARS {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    command.output().expect("fieldgate runs")
}

/// A home directory whose `~/.aws` holds `config` and `credentials`.
fn home(config: &str, credentials: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("dir");
    write(home.path(), ".aws/config", config);
    write(home.path(), ".aws/credentials", credentials);
    home
}

fn no_secret(output: &Output, secrets: &[&str]) {
    let shown = format!("{}{}", text(&output.stdout), text(&output.stderr));
    for secret in secrets {
        assert!(!shown.contains(secret), "`{secret}` shown: {shown}");
    }
}

#[test]
fn s3_samples_are_read_with_what_the_aws_profile_says() {
    let Some(moto) = Moto::start() else {
        return;
    };
    let endpoint = moto.endpoint.as_str();
    let writer = moto.lake_bucket();
    // The catalog vends nothing and fieldgate.yaml sets no `s3.*`: the profile is all there is.
    let Some(catalog) = Catalog::start_in(Some("s3://lake/warehouse"), &writer, &[]) else {
        return;
    };
    let repo = catalog::reviewed(&catalog, "    sample: 2\n");
    let dir = repo.path();
    let config = format!(
        "[default]\nregion = eu-west-1\n\n[profile lake]\nregion = us-east-1\nservices = local-s3\n\n[services local-s3]\ns3 =\n  endpoint_url = {endpoint}\n"
    );
    let credentials = format!(
        "# written by `aws configure`\n[lake]\naws_access_key_id = {PROFILE_KEY}\naws_secret_access_key = {PROFILE_SECRET}\n"
    );
    let home = home(&config, &credentials);
    let check = ["check", "--live", "--base", "main", "--format", "json"];
    let env = [("LAKE_TOKEN", catalog::TOKEN), ("AWS_PROFILE", "lake")];

    let live = fieldgate(dir, home.path(), &check, &env);
    assert_exit(&live, 0);
    let report: serde_json::Value = serde_json::from_slice(&live.stdout).expect("json");
    let verification = &report["tables"][0]["verification"];
    assert_eq!(verification["passed"], true, "{report}");
    assert_eq!(verification["files"].as_array().map(Vec::len), Some(2));

    // A profile whose credentials come from a process fieldgate does not run: said, not guessed.
    let process =
        format!("{config}[profile sso]\nservices = local-s3\ncredential_process = /bin/false\n");
    let home_sso = self::home(&process, "");
    let sso = fieldgate(
        dir,
        home_sso.path(),
        &check,
        &[env[0], ("AWS_PROFILE", "sso")],
    );
    assert_exit(&sso, 2);
    assert!(
        text(&sso.stderr)
            .contains("the AWS profile `sso` gets its credentials through `credential_process`"),
        "{}",
        text(&sso.stderr)
    );

    // A malformed credentials file: its name and line, and not the line (a secret).
    let broken = self::home(
        &config,
        &format!("[lake]\naws_secret_access_key {PROFILE_SECRET}\n"),
    );
    let malformed = fieldgate(dir, broken.path(), &check, &env);
    assert_exit(&malformed, 2);
    let stderr = text(&malformed.stderr);
    assert!(
        stderr.contains(".aws/credentials`, line 2: expected `name = value`"),
        "{stderr}"
    );
    for output in [&live, &sso, &malformed] {
        no_secret(output, &[PROFILE_SECRET, catalog::TOKEN]);
    }
}

/// A catalog that accepts only requests signed for `PROFILE_KEY` (with `token`, when given) in
/// eu-west-1 for the service `glue`, checked by botocore.
fn signing_catalog(token: Option<&str>) -> Option<Catalog> {
    let python = moto::python()?;
    let python = python.to_string_lossy().into_owned();
    let mut args = vec![
        "--sigv4",
        PROFILE_KEY,
        PROFILE_SECRET,
        "eu-west-1",
        "glue",
        "--sigv4-python",
        &python,
    ];
    if let Some(token) = token {
        args.extend(["--sigv4-session-token", token]);
    }
    Catalog::start(&args)
}

const SIGV4: &str = "    rest.sigv4-enabled: true\n    rest.signing-name: glue\n";

#[test]
fn a_sigv4_catalog_accepts_what_fieldgate_signs_with_the_profiles_credentials() {
    let Some(catalog) = signing_catalog(None) else {
        return;
    };
    let repo = tempfile::tempdir().expect("dir");
    let dir = repo.path();
    write(
        dir,
        "fieldgate.yaml",
        &lake_config(&catalog.uri, SIGV4, EVENTS),
    );
    let credentials = format!(
        "[default]\naws_access_key_id = {PROFILE_KEY}\naws_secret_access_key = {PROFILE_SECRET}\n"
    );
    let home = home("[default]\nregion = eu-west-1\n", &credentials);

    let pulled = fieldgate(dir, home.path(), &["pull"], &[]);
    assert_exit(&pulled, 0);
    assert!(dir.join(PINNED).is_file());
    // GET /v1/config and LoadTable, each signed and accepted.
    let requests: serde_json::Value = serde_json::from_str(&catalog.requests()).expect("json");
    let signed: Vec<&serde_json::Value> = requests
        .as_array()
        .expect("requests")
        .iter()
        .filter(|r| r["path"].as_str().is_some_and(|p| p.starts_with("/v1/")))
        .collect();
    assert_eq!(signed.len(), 2, "{requests}");
    assert!(signed.iter().all(|r| r["signed"] == true), "{requests}");

    // A commit (a POST with a body) is signed too: push the applied migration.
    write(
        dir,
        "m.sql",
        "ALTER TABLE db.events ADD COLUMN country string;\n",
    );
    let applied = fieldgate(
        dir,
        home.path(),
        &["apply", "--write", "--metadata", PINNED, "m.sql"],
        &[],
    );
    assert_exit(&applied, 0);
    let pushed = fieldgate(dir, home.path(), &["push"], &[]);
    assert_exit(&pushed, 0);
    let check = fieldgate(dir, home.path(), &["pull", "--check"], &[]);
    assert_exit(&check, 0);

    // The wrong secret: the server's 403, a clear exit 2, and neither secret printed.
    let wrong = fieldgate(
        dir,
        home.path(),
        &["pull", "--check"],
        &[
            ("AWS_ACCESS_KEY_ID", PROFILE_KEY),
            ("AWS_SECRET_ACCESS_KEY", "wr0ng-s3cret-0000"),
        ],
    );
    assert_exit(&wrong, 2);
    let stderr = text(&wrong.stderr);
    assert!(stderr.contains("403"), "{stderr}");
    assert!(
        stderr.contains("SigV4 check failed: the signature does not match"),
        "{stderr}"
    );
    // The region the signature is scoped to comes from `rest.signing-region` first.
    let config = lake_config(
        &catalog.uri,
        &format!("{SIGV4}    rest.signing-region: us-east-2\n"),
        EVENTS,
    );
    write(dir, "fieldgate.yaml", &config);
    let scoped = fieldgate(dir, home.path(), &["pull", "--check"], &[]);
    assert_exit(&scoped, 2);
    assert!(
        text(&scoped.stderr).contains("/us-east-2/glue/aws4_request"),
        "{}",
        text(&scoped.stderr)
    );
    for output in [&pulled, &pushed, &check, &wrong, &scoped] {
        no_secret(output, &[PROFILE_SECRET, "wr0ng-s3cret-0000"]);
    }
}

#[test]
fn a_sigv4_catalog_gets_the_session_token_of_the_environment() {
    let Some(catalog) = signing_catalog(Some(SESSION_TOKEN)) else {
        return;
    };
    let repo = tempfile::tempdir().expect("dir");
    let dir = repo.path();
    write(
        dir,
        "fieldgate.yaml",
        &lake_config(&catalog.uri, SIGV4, EVENTS),
    );
    let empty = tempfile::tempdir().expect("home");
    let env = [
        ("AWS_ACCESS_KEY_ID", PROFILE_KEY),
        ("AWS_SECRET_ACCESS_KEY", PROFILE_SECRET),
        ("AWS_SESSION_TOKEN", SESSION_TOKEN),
        ("AWS_REGION", "eu-west-1"),
    ];
    let pulled = fieldgate(dir, empty.path(), &["pull"], &env);
    assert_exit(&pulled, 0);

    // No session token: refused by the server, and said so.
    let without = fieldgate(
        dir,
        empty.path(),
        &["pull", "--check"],
        &[env[0], env[1], env[3]],
    );
    assert_exit(&without, 2);
    assert!(
        text(&without.stderr).contains("the session token is missing or wrong"),
        "{}",
        text(&without.stderr)
    );

    // No credentials anywhere: exit 2 before any request, saying where they are looked for.
    let none = fieldgate(
        dir,
        empty.path(),
        &["pull", "--check"],
        &[("AWS_REGION", "eu-west-1")],
    );
    assert_exit(&none, 2);
    assert!(
        text(&none.stderr).contains("no AWS credentials were found"),
        "{}",
        text(&none.stderr)
    );
    for output in [&pulled, &without, &none] {
        no_secret(output, &[PROFILE_SECRET, SESSION_TOKEN]);
    }
}
