//! What `--metadata` and the proposal paths accept: local files and table directories. An
//! object-store path or a web address is said to be one, not reported as a missing file; a REST
//! catalog's LoadTableResult saved to a file is read as the table metadata it holds; a path to
//! write that is a URL is refused before anything is written.

use std::fs;
use std::path::Path;

use serde_json::Value;

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

/// The example table's current metadata file wrapped as a REST catalog's LoadTableResult (what
/// `GET /v1/namespaces/lake_prod/tables/dim_users` answers), the file's text kept verbatim.
fn load_table_result(dir: &Path) -> String {
    let current = root().join(DIM_USERS).join("metadata/v4.metadata.json");
    let metadata = fs::read_to_string(current).unwrap();
    let wrapped = format!(
        "{{\n  \"metadata-location\": \"s3://lake/lake_prod/dim_users/metadata/v4.metadata.json\",\n  \"metadata\": {},\n  \"config\": {{\"token\": \"t\"}}\n}}\n",
        metadata.trim_end()
    );
    let path = dir.join("dim_users.load-table.json");
    fs::write(&path, wrapped).unwrap();
    path.to_str().unwrap().to_string()
}

fn without_last_updated(text: &str) -> Value {
    let mut value: Value = serde_json::from_str(text).unwrap();
    value.as_object_mut().unwrap().remove("last-updated-ms");
    value
}

#[test]
fn a_catalogs_load_table_result_is_read_as_the_table_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let wrapped = load_table_result(dir.path());
    let current = format!("{DIM_USERS}/metadata/v4.metadata.json");

    let lint = |metadata: &str| {
        fieldgate_in(
            &root(),
            &["lint", ADD_VIP_LEVEL, "--metadata", metadata],
            &[],
        )
    };
    let (from_result, from_file) = (lint(&wrapped), lint(&current));
    assert_eq!(
        from_result.status.code(),
        Some(0),
        "{}",
        text(&from_result.stderr)
    );
    assert_eq!(text(&from_result.stdout), text(&from_file.stdout));
    assert!(text(&from_result.stdout).contains("add vip_level (id 5): int"));

    // apply writes the table's next metadata file: the one the result holds, patched.
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (metadata, written) in [
        (&wrapped, out("from_result.json")),
        (&current, out("from_file.json")),
    ] {
        let applied = fieldgate_in(
            &root(),
            &[
                "apply",
                ADD_VIP_LEVEL,
                "--metadata",
                metadata,
                "-o",
                &written,
            ],
            &[],
        );
        assert_eq!(applied.status.code(), Some(0), "{}", text(&applied.stderr));
    }
    let read = |name: &str| fs::read_to_string(dir.path().join(name)).unwrap();
    // The same metadata, but the result says where the catalog keeps the file it holds, so the
    // next file logs it, as a commit does; the example's copy is not where its table keeps it.
    let mut from_result = without_last_updated(&read("from_result.json"));
    let logged = from_result["metadata-log"]
        .as_array_mut()
        .and_then(Vec::pop)
        .unwrap();
    assert_eq!(
        logged["metadata-file"],
        "s3://lake/lake_prod/dim_users/metadata/v4.metadata.json"
    );
    let current_file: Value =
        serde_json::from_str(&fs::read_to_string(root().join(&current)).unwrap()).unwrap();
    assert_eq!(logged["timestamp-ms"], current_file["last-updated-ms"]);
    assert_eq!(from_result, without_last_updated(&read("from_file.json")));
    assert!(!read("from_result.json").contains("\"metadata-location\""));
}

#[test]
fn an_object_store_path_to_write_is_refused_before_anything_is_written() {
    for (args, path) in [
        (
            vec![
                "apply",
                ADD_VIP_LEVEL,
                "--metadata",
                DIM_USERS,
                "-o",
                "s3://lake/dim_users.metadata.json",
            ],
            "s3://lake/dim_users.metadata.json",
        ),
        (
            vec!["check", "--summary", "gs://reports/summary.md"],
            "gs://reports/summary.md",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut args = args;
        let metadata = root().join(DIM_USERS);
        let migration = root().join(ADD_VIP_LEVEL);
        for arg in args.iter_mut() {
            if *arg == DIM_USERS {
                *arg = metadata.to_str().unwrap();
            } else if *arg == ADD_VIP_LEVEL {
                *arg = migration.to_str().unwrap();
            }
        }
        let output = fieldgate_in(dir.path(), &args, &[]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("`{path}` is "))
                && stderr.contains("fieldgate writes local files only"),
            "{stderr}"
        );
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            0,
            "nothing is written"
        );
    }
}
