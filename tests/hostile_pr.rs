//! Hostile pull requests, run the way the Action runs the gate: a scratch git repository with a
//! base branch and a `pr` branch whose author controls every file (migrations and their names,
//! `fieldgate.yaml`, table metadata, manifests), then `fieldgate check` in the formats the
//! Action shows (`github` in the log, the Markdown summary that is also the PR comment) and the
//! terminal's `human`. Each case asserts the verdict and that nothing live reaches the output;
//! every run is under a wall-time and a memory cap (prlimit), so a hang or a runaway
//! allocation fails the test instead of the machine.
//!
//! The summary is rendered by cmark-gfm, GitHub's own Markdown renderer, when
//! `FIELDGATE_GFM_PYTHON` names a Python with `cmarkgfm` (`.ci/run` installs it; under `CI` the
//! renderer is required), and the HTML must hold no element or link from the input.

use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{commit_all, fixture_version, git, main_and_branch, text};

/// The caps every run is held to: far above what a real check of these repositories needs.
const WALL: Duration = Duration::from_secs(60);
const MEMORY_BYTES: u64 = 2 << 30;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `fieldgate args` in `dir` under the caps; a run that exceeds the wall time is killed and
/// fails the test.
fn capped(dir: &Path, args: &[&str]) -> Run {
    let mut child = Command::new("prlimit")
        .arg(format!("--as={MEMORY_BYTES}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_fieldgate"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_BASE_REF")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit runs fieldgate");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > WALL {
            child.kill().unwrap();
            panic!("fieldgate {args:?} ran over {WALL:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    Run {
        code: status.code(),
        stdout: text(&stdout),
        stderr: text(&stderr),
    }
}

/// A repository with `db.orders` (pyiceberg's fixture) committed on `main`, `pr` checked out.
fn repo(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    fs::write(path.join("fieldgate.yaml"), config).unwrap();
    fixture_version(path, "orders", 5, "warehouse/db/orders");
    main_and_branch(path, "tables", "pr");
    dir
}

const CONFIG: &str = "tables:\n  db.orders:\n    metadata: warehouse/db/orders\nproposals:\n  - migrations/**/*.sql\n";

/// What a hostile author puts in names and reasons: a workflow command after a line break, the
/// older `##[` command syntax, HTML and a link after backticks, a mention, a terminal escape
/// sequence (an OSC 52 clipboard write) and a lone CR.
const PAYLOAD: &str = "x``\n::add-mask::s3cret ##[add-mask]s3cret <img src=x onerror=alert(1)> [a](https://evil.example) @everyone \u{1b}]52;c;ZXZpbA==\u{7}\rover";

fn payload_without_newline() -> String {
    PAYLOAD.replace('\n', " ")
}

/// Every line a `github` report prints is one of its own commands or plain lines.
fn assert_no_injected_workflow_command(log: &str) {
    for line in log.lines() {
        let ours = [
            "::error ",
            "::warning ",
            "::notice ",
            "suppressed ",
            "fieldgate ",
        ]
        .iter()
        .any(|p| line.starts_with(p));
        assert!(
            ours,
            "a line fieldgate did not mean to print: {line:?}\n{log}"
        );
        assert!(!line.contains("##["), "{line:?}");
        assert!(!line.contains('\r') && !line.contains('\u{1b}'), "{line:?}");
    }
}

fn assert_terminal_safe(output: &str) {
    assert!(!output.contains('\u{1b}'), "a raw escape: {output:?}");
    assert!(!output.contains('\u{7}'), "a raw BEL: {output:?}");
    assert!(
        !output.replace("\r\n", "\n").contains('\r'),
        "a lone CR: {output:?}"
    );
}

/// The summary as GitHub renders it holds no element or link from the input.
fn assert_summary_inert(markdown: &str) {
    let python = std::env::var("FIELDGATE_GFM_PYTHON").ok();
    let Some(python) = python.filter(|p| !p.is_empty()) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI renders the summary with cmark-gfm: set FIELDGATE_GFM_PYTHON"
        );
        return;
    };
    let mut child = Command::new(python)
        .args([
            "-c",
            "import sys, cmarkgfm\nfrom cmarkgfm.cmark import Options\nsys.stdout.write(cmarkgfm.github_flavored_markdown_to_html(sys.stdin.read(), options=Options.CMARK_OPT_UNSAFE))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the cmark-gfm Python runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(markdown.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let html = text(&output.stdout);
    assert!(html.contains("<table>"), "{html}");
    for live in ["<img", "<a ", "href=", "<script"] {
        assert!(
            !html.contains(live),
            "{live} in the rendered summary:\n{html}"
        );
    }
}

/// The Action's run: `github` to the log and the Markdown summary to a file.
fn check_as_the_action(dir: &Path) -> (Run, String) {
    let run = capped(
        dir,
        &["check", "--format", "github", "--summary", "summary.md"],
    );
    let summary = fs::read_to_string(dir.join("summary.md")).unwrap_or_default();
    (run, summary)
}

#[test]
fn names_reasons_and_file_names_from_the_pull_request_are_never_live() {
    let dir = repo(CONFIG);
    let path = dir.path();
    let name = payload_without_newline().replace('`', "``");
    let migration = format!(
        "-- fieldgate: allow column-rename -- {}\nALTER TABLE db.orders RENAME COLUMN customer_id TO `{name}`;\nALTER TABLE db.orders DROP COLUMN region;\n",
        payload_without_newline()
    );
    // The file name holds the line break: the "suppressed ... at FILE:LINE" line names it.
    let file = format!("migrations/{}.sql", PAYLOAD.replace(['/', '\u{0}'], "_"));
    fs::create_dir_all(path.join("migrations")).unwrap();
    fs::write(path.join(&file), migration).unwrap();
    commit_all(path, "hostile");

    let (run, summary) = check_as_the_action(path);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("partition-source-drop"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("suppressed column-rename"),
        "{}",
        run.stdout
    );
    assert_no_injected_workflow_command(&run.stdout);
    // Mid-line, `::add-mask::` is text: the runner reads commands only at a line's start.
    assert!(
        run.stdout.lines().all(|l| !l.starts_with("::add-mask")),
        "{}",
        run.stdout
    );
    assert_summary_inert(&summary);

    let human = capped(path, &["check"]);
    assert_eq!(human.code, Some(1));
    assert_terminal_safe(&human.stdout);
    assert_terminal_safe(&human.stderr);
    assert!(human.stdout.contains("\\u{1b}]52"), "{}", human.stdout);
}

#[test]
fn backtracking_globs_in_the_pull_requests_configuration_finish() {
    let stars = "*a".repeat(30);
    let config = format!(
        "tables:\n  db.orders:\n    metadata: warehouse/db/orders\nproposals:\n  - 'x/{stars}b.sql'\n  - '{}y.sql'\n",
        "**/".repeat(14)
    );
    let dir = repo(&config);
    let path = dir.path();
    let deep = path.join("d/".repeat(40));
    fs::create_dir_all(&deep).unwrap();
    fs::write(deep.join("z.sql"), "-- nothing\n").unwrap();
    fs::create_dir_all(path.join("x")).unwrap();
    fs::write(
        path.join(format!("x/{}.sql", "a".repeat(200))),
        "-- nothing\n",
    )
    .unwrap();
    commit_all(path, "globs");
    let (run, summary) = check_as_the_action(path);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_no_injected_workflow_command(&run.stdout);
    assert!(summary.contains("passed"), "{summary}");
}

/// A pull request that deletes the table's entry and adds it again under another name, at the
/// same place, then drops a column the base's entry made an error to drop: the renamed entry is
/// the same table, judged by the base's entry, so the drop still fails. Under `--policy head`
/// the change's own (renamed, laxer) entry decides, and the relaxation is reported either way.
#[test]
fn a_table_whose_entry_is_renamed_is_still_judged_as_the_base_judged_it() {
    let strict = "tables:\n  db.orders:\n    metadata: warehouse/db/orders\n    rules:\n      column-drop: error\nproposals:\n  - migrations/**/*.sql\n";
    let dir = repo(strict);
    let path = dir.path();
    fs::write(
        path.join("fieldgate.yaml"),
        "tables:\n  db.orders_v2:\n    metadata: warehouse/db/orders/\nproposals:\n  - migrations/**/*.sql\n",
    )
    .unwrap();
    fs::create_dir_all(path.join("migrations")).unwrap();
    fs::write(
        path.join("migrations/0001_drop.sql"),
        "ALTER TABLE db.orders_v2 DROP COLUMN total_units;\n",
    )
    .unwrap();
    let args = [
        "apply",
        "--write",
        "--no-verify",
        "--metadata",
        "warehouse/db/orders",
        "migrations/0001_drop.sql",
    ];
    let applied = capped(path, &args);
    assert_eq!(
        applied.code,
        Some(0),
        "{}{}",
        applied.stdout,
        applied.stderr
    );
    commit_all(path, "orders renamed in the gate, and a drop");

    let judged = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["check", "--format", "json"];
        args.extend_from_slice(extra);
        let run = capped(path, &args);
        let report: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
        assert_eq!(report["passed"], run.code == Some(0), "{report:#}");
        report
    };
    let found = |report: &serde_json::Value| -> Vec<(String, String, String)> {
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
                (s("rule"), s("severity"), s("message"))
            })
            .collect()
    };

    let report = judged(&[]);
    let diagnostics = found(&report);
    assert!(
        diagnostics
            .iter()
            .any(|(rule, severity, _)| rule == "column-drop" && severity == "error"),
        "{report:#}"
    );
    // One table, judged once: no second judgement of the old name, no drift.
    assert!(
        diagnostics
            .iter()
            .all(|(rule, _, _)| rule != "metadata-drift"),
        "{report:#}"
    );
    assert!(
        diagnostics.iter().any(|(rule, _, message)| rule == "policy-relaxation"
            && message.contains("`column-drop` is lowered from error to warning for `db.orders_v2` (the table of `db.orders` at the base)")),
        "{report:#}"
    );
    assert!(
        diagnostics
            .iter()
            .all(|(_, _, m)| !m.contains("is removed")),
        "{report:#}"
    );
    let (run, summary) = check_as_the_action(path);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert_no_injected_workflow_command(&run.stdout);
    assert!(summary.contains("column-drop"), "{summary}");

    // Judged by the change's own file, the drop is its warning; the relaxation is still shown.
    let report = judged(&["--policy", "head"]);
    let diagnostics = found(&report);
    assert!(
        diagnostics
            .iter()
            .any(|(rule, severity, _)| rule == "column-drop" && severity == "warning"),
        "{report:#}"
    );
    assert!(
        diagnostics
            .iter()
            .any(|(rule, _, _)| rule == "policy-relaxation"),
        "{report:#}"
    );
}

/// A table `fieldgate.yaml` reaches through a symbolic link (inside the repository), and a pull
/// request that edits the metadata file the link resolves to, by its real path, with no
/// migration: the table is touched, and the hand edit is drift, never a pass.
#[cfg(unix)]
#[test]
fn a_change_to_the_files_a_tables_link_resolves_to_touches_the_table() {
    let config = CONFIG.replace("metadata: warehouse/db/orders", "metadata: current/orders");
    let dir = repo(&config);
    let path = dir.path();
    git(path, &["checkout", "-q", "main"]);
    fs::create_dir_all(path.join("current")).unwrap();
    std::os::unix::fs::symlink("../warehouse/db/orders", path.join("current/orders")).unwrap();
    commit_all(path, "orders through a link");
    git(path, &["checkout", "-q", "-B", "pr"]);
    let v5 = path.join("warehouse/db/orders/metadata/v5.metadata.json");
    let text = fs::read_to_string(&v5).unwrap();
    let edited = text.replacen(r#""name":"customer_id""#, r#""name":"client_id""#, 2);
    assert_ne!(edited, text);
    fs::write(&v5, edited).unwrap();
    commit_all(path, "renamed by hand, by the real path");
    let run = capped(path, &["check", "--format", "json"]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("metadata-drift"), "{}", run.stdout);
    assert!(run.stdout.contains("client_id"), "{}", run.stdout);
}
