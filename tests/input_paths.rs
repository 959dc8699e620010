//! What `--metadata` and the proposal paths accept: local files and table directories. An
//! object-store path or a web address is said to be one, not reported as a missing file.

use std::path::Path;

mod common;
use common::{fieldgate_in, root, text};

const DIM_USERS: &str = "examples/lake/warehouse/lake_prod/dim_users";
const ADD_VIP_LEVEL: &str = "examples/lake/migrations/dim_users/0001_add_vip_level.sql";

fn lint(args: &[&str]) -> (i32, String) {
    let output = fieldgate_in(&root(), args, &[]);
    (output.status.code().unwrap_or(-1), text(&output.stderr))
}

#[test]
fn an_object_store_path_or_a_url_says_it_is_one() {
    for (path, what) in [
        ("s3://lake/warehouse/lake_prod/dim_users", "an S3 object"),
        (
            "gs://lake/dim_users/metadata/v2.metadata.json",
            "a Google Cloud Storage object",
        ),
        (
            "https://catalog.example/v1/tables/dim_users",
            "a web address",
        ),
    ] {
        let (code, stderr) = lint(&["lint", ADD_VIP_LEVEL, "--metadata", path]);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "`{path}` is {what}: fieldgate reads local files only, not object stores or URLs"
            )),
            "{stderr}"
        );
        assert!(!stderr.contains("No such file"), "{stderr}");
    }
    let proposal = "s3://lake/migrations/0001_add_vip_level.sql";
    let (code, stderr) = lint(&["lint", proposal, "--metadata", DIM_USERS]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!("`{proposal}` is an S3 object")),
        "{stderr}"
    );
}

#[test]
fn a_missing_local_file_is_still_reported_as_missing() {
    let missing = Path::new("examples/lake/no_such_table");
    let (code, stderr) = lint(&[
        "lint",
        ADD_VIP_LEVEL,
        "--metadata",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("cannot read `examples/lake/no_such_table`"),
        "{stderr}"
    );
}
