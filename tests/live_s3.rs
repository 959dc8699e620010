//! A catalog table whose lake is in S3 (moto's server, written by pyiceberg through the REST
//! catalog's SqlCatalog): `check --live` samples the live table's current snapshot, reading the
//! manifest list, manifests and Parquet files from S3 with the credentials the catalog vends in
//! LoadTable's `config` (none are configured or in the environment), and a file that cannot be
//! read is a clear exit 2 that names it and prints no secret.

mod catalog;
mod common;

use catalog::moto::Moto;
use catalog::{Catalog, TOKEN, fieldgate, reviewed, tool};
use common::text;

const VENDED_KEY: &str = "AKIAVENDED00000001";
const VENDED_SECRET: &str = "v3nded-s3cret-2c9b41";

#[test]
fn check_live_samples_the_live_table_from_s3_with_vended_credentials() {
    let Some(moto) = Moto::start() else {
        return;
    };
    let endpoint = moto.endpoint.as_str();
    let writer = moto.lake_bucket();
    let vend = [
        "--vend",
        "s3.endpoint",
        endpoint,
        "--vend",
        "s3.region",
        "us-east-1",
        "--vend",
        "s3.access-key-id",
        VENDED_KEY,
        "--vend",
        "s3.secret-access-key",
        VENDED_SECRET,
    ];
    let Some(catalog) = Catalog::start_in(Some("s3://lake/warehouse"), &writer, &vend) else {
        return;
    };
    let repo = reviewed(&catalog, "    sample: 2\n");
    let dir = repo.path();

    let check = ["check", "--live", "--base", "main", "--format", "json"];
    let live = fieldgate(dir, &check);
    let stdout = text(&live.stdout);
    assert_eq!(
        live.status.code(),
        Some(0),
        "{stdout}{}",
        text(&live.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let verification = &report["tables"][0]["verification"];
    assert_eq!(verification["passed"], true, "{stdout}");
    let files = verification["files"].as_array().expect("files");
    assert_eq!(files.len(), 2, "{stdout}");
    for file in files {
        let path = file["path"].as_str().unwrap_or_default();
        assert!(path.starts_with("s3://lake/warehouse/"), "{stdout}");
    }
    assert!(verification["rows"].as_u64().unwrap_or(0) > 0, "{stdout}");

    // The data gone from the bucket: the sampled file is named, the vended secret is not.
    tool(&[
        "delete-dir",
        "--endpoint",
        endpoint,
        "lake/warehouse/db/events/data",
    ]);
    let gone = fieldgate(dir, &check);
    let (stdout, stderr) = (text(&gone.stdout), text(&gone.stderr));
    assert_eq!(gone.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("s3://lake/warehouse/db/events/data/"),
        "{stderr}"
    );
    assert!(stderr.contains("no such object (HTTP 404"), "{stderr}");
    for secret in [VENDED_SECRET, TOKEN] {
        assert!(
            !stdout.contains(secret) && !stderr.contains(secret),
            "{stderr}"
        );
    }
}
