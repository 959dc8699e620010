//! Every report format on one set of scenarios: a scenario per rule family, several migration
//! files, several tables in one run, a parse error, a finding with no place in the text, and a
//! new table. Each (scenario, format) pair is an insta snapshot in `tests/snapshots/`.
//!
//! The judgements come from the library (the same `judge` the commands run) so a run can hold
//! several tables, which `lint` cannot produce. Paths are relative to the package root, where
//! cargo runs integration tests, so snapshots hold no machine paths; time is fixed.
//!
//! With `FIELDGATE_SARIF_OUT=DIR` set, every SARIF document is also written to `DIR/<scenario>.sarif`
//! for `.ci/run` to validate with Microsoft's SARIF Multitool.

use std::path::PathBuf;

use fieldgate::cli::ProposalArgs;
use fieldgate::failure::Failure;
use fieldgate::finding::{Finding, Severity};
use fieldgate::judge::Settings;
use fieldgate::report::{Format, Run, TableRun, reporter};
use fieldgate::session::applied::AppliedMigration;
use fieldgate::session::plan::settings::resolve;
use fieldgate::session::table::locate_related;
use fieldgate::session::table::{Judgement, judge};
use serde_json::Value;

/// 2026-03-01T00:00:00Z: suppressions and new tables see the same day in every run.
const NOW_MS: i64 = 1_772_323_200_000;

const FORMATS: [(&str, Format); 7] = [
    (
        "human",
        Format::Human {
            colour: false,
            width: 100,
        },
    ),
    ("json", Format::Json),
    ("github", Format::Github),
    ("sarif", Format::Sarif),
    ("markdown", Format::Markdown),
    ("gitlab", Format::Gitlab),
    ("junit", Format::Junit),
];

fn args(files: &[&str], metadata: Option<&str>, mapping: Option<&str>) -> ProposalArgs {
    ProposalArgs {
        files: files.iter().map(PathBuf::from).collect(),
        metadata: metadata.map(PathBuf::from),
        table: None,
        dialect: None,
        config: None,
        mapping: mapping.map(str::to_string),
        compatibility: None,
    }
}

fn judged(args: &ProposalArgs) -> (Judgement, Settings) {
    let mut judgement = match judge(args, "/warehouse/db/clicks".into(), NOW_MS) {
        Ok(judgement) => judgement,
        Err(failure) => panic!("the scenario should judge: {failure:?}"),
    };
    locate_related(&mut judgement);
    let settings = resolve(args)
        .unwrap_or_else(|f| panic!("{f:?}"))
        .settings_for(&judgement.table);
    (judgement, settings)
}

fn fixture(name: &str) -> String {
    format!("tests/fixtures/reports/{name}")
}

fn table(name: &str) -> String {
    format!("tests/fixtures/tables/{name}")
}

fn render(run: &Run<'_>, format: Format) -> String {
    let mut out = Vec::new();
    reporter(format)
        .write(run, &mut out)
        .expect("rendering into memory cannot fail");
    String::from_utf8(out).expect("reports are UTF-8")
}

/// Snapshots `run` in every format; SARIF's catalogue and version are checked once elsewhere.
fn snapshot_all(scenario: &str, run: &Run<'_>) {
    for (name, format) in FORMATS {
        let mut text = render(run, format);
        if name == "sarif" {
            if let Some(dir) = std::env::var_os("FIELDGATE_SARIF_OUT") {
                let path = PathBuf::from(dir).join(format!("{scenario}.sarif"));
                std::fs::write(&path, &text).expect("the SARIF output directory is writable");
            }
            text = redact_sarif(&text);
        }
        insta::assert_snapshot!(format!("{scenario}__{name}"), text);
    }
}

fn redact_sarif(text: &str) -> String {
    let mut sarif: Value = serde_json::from_str(text).expect("SARIF is JSON");
    let driver = &mut sarif["runs"][0]["tool"]["driver"];
    let rules = driver["rules"].as_array().map_or(0, Vec::len);
    driver["rules"] = Value::from(format!("[the catalogue: {rules} rules]"));
    driver["version"] = Value::from("[version]");
    driver["semanticVersion"] = Value::from("[version]");
    serde_json::to_string_pretty(&sarif).expect("JSON serialises") + "\n"
}

/// One table, one scenario.
fn scenario(name: &str, args: &ProposalArgs) {
    let (judgement, settings) = judged(args);
    let run = Run::judged(vec![TableRun::new(&judgement, &settings)], Severity::Error);
    snapshot_all(name, &run);
}

#[test]
fn structure_problems() {
    // unknown-field, duplicate-name, nested-structure-change: changes Iceberg cannot express.
    scenario(
        "structure",
        &args(
            &["tests/proposals/broken.sql"],
            Some(&table("events")),
            None,
        ),
    );
}

#[test]
fn type_changes() {
    // type-narrowing, with the committed declaration as a related place in the metadata.
    scenario(
        "types",
        &args(&[&fixture("types.sql")], Some(&table("orders")), None),
    );
}

#[test]
fn drops_of_partition_and_sort_sources() {
    // column-drop, partition-source-drop (related: the partition field), sort-source-drop
    // (related: the sort field).
    scenario(
        "drops",
        &args(&[&fixture("drops.sql")], Some(&table("orders")), None),
    );
}

#[test]
fn names_reused_and_renamed() {
    // name-reuse (related: the dropped field in an old schema), column-rename.
    let names = args(&[&fixture("names.sql")], Some(&table("orders")), None);
    scenario("names", &names);
    // The related place is the dropped field's name in the schema that last had it.
    let (judgement, _) = judged(&names);
    let reuse = judgement
        .findings
        .iter()
        .find(|f| f.rule == "name-reuse")
        .expect("name-reuse fires");
    let origin = reuse.related[0]
        .origin
        .as_ref()
        .expect("located in the metadata");
    assert!(origin.source.name.ends_with("v5.metadata.json"));
    assert_eq!(
        &origin.source.text[origin.focus.offset..origin.focus.end()],
        "\"status\""
    );
}

#[test]
fn nullability() {
    // nullability-tightening, required-column-add.
    scenario(
        "nullability",
        &args(&[&fixture("nullability.sql")], Some(&table("users")), None),
    );
}

#[test]
fn position_mapped_readers() {
    // position-shift on a table read by position.
    scenario(
        "readers",
        &args(
            &[&fixture("readers.sql")],
            Some(&table("legacy")),
            Some("position"),
        ),
    );
}

#[test]
fn suppressions() {
    // A silenced column-drop with its reason, and a suppression that silences nothing.
    scenario(
        "suppression",
        &args(&[&fixture("suppression.sql")], Some(&table("events")), None),
    );
}

#[test]
fn several_migration_files() {
    // A name dropped in one file and re-added in the next: the finding is in the second file,
    // its related place in the first.
    let files = [
        fixture("multi_file/0001_drop_status.sql"),
        fixture("multi_file/0002_shipping.sql"),
        fixture("multi_file/0003_rename.sql"),
    ];
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    scenario("multi_file", &args(&files, Some(&table("events")), None));
}

#[test]
fn migrations_left_out_as_applied_are_listed_where_a_machine_reads() {
    // What routed `lint` reports after leaving out the migrations HEAD has applied: the one
    // still to apply judged, the applied ones listed (a file of two tables once, with both).
    let lake = "examples/lake/warehouse/lake_prod";
    let users = args(
        &["examples/lake/migrations/dim_users/0002_rename_phone.sql"],
        Some(&format!("{lake}/dim_users")),
        None,
    );
    let (judgement, settings) = judged(&users);
    let left_out = |path: &str, table: &str| AppliedMigration {
        path: PathBuf::from(path),
        table: table.into(),
    };
    let applied = [
        left_out(
            "migrations/fact_orders/0001_widen.sql",
            "lake_prod.fact_orders",
        ),
        left_out(
            "migrations/both/0001_two_tables.sql",
            "lake_prod.fact_orders",
        ),
        left_out(
            "migrations/dim_users/0001_add_vip_level.sql",
            "lake_prod.dim_users",
        ),
        left_out("migrations/both/0001_two_tables.sql", "lake_prod.dim_users"),
    ];
    let run = Run::judged(vec![TableRun::new(&judgement, &settings)], Severity::Error)
        .with_applied(&applied);
    snapshot_all("applied", &run);
}

#[test]
fn a_new_table() {
    scenario("new_table", &args(&[&fixture("new_table.sql")], None, None));
}

#[test]
fn several_tables_in_one_run() {
    // What `check` reports on examples/lake: findings of both tables in one order, a field table
    // per table, and the suppression of one table's migrations.
    let lake = "examples/lake/warehouse/lake_prod";
    let users = args(
        &[
            "examples/lake/migrations/dim_users/0001_add_vip_level.sql",
            "examples/lake/migrations/dim_users/0002_rename_phone.sql",
        ],
        Some(&format!("{lake}/dim_users")),
        None,
    );
    let orders = args(
        &["examples/lake/bad/fact_orders_drop_region.sql"],
        Some(&format!("{lake}/fact_orders")),
        None,
    );
    let (u, u_settings) = judged(&users);
    let (o, o_settings) = judged(&orders);
    let run = Run::judged(
        vec![
            TableRun::new(&u, &u_settings),
            TableRun::new(&o, &o_settings),
        ],
        Severity::Error,
    );
    assert!(!run.passed, "the fact_orders drop fails the run");
    snapshot_all("multi_table", &run);
}

#[test]
fn a_finding_with_no_place_in_the_text() {
    // What field-id-reuse reports about a proposed metadata file: the table as a whole.
    let (mut judgement, settings) = judged(&args(
        &[&fixture("no_location.sql")],
        Some(&table("events")),
        None,
    ));
    judgement.findings.push(Finding {
        rule: "field-id-reuse",
        severity: Severity::Error,
        message: "db.events: `last-column-id` goes down from 24 to 20: the next added column would get an id that old files already use".into(),
        table: "db.events".into(),
        field: None,
        field_id: None,
        origin: None,
        help: Some("keep `last-column-id` at least at its old value; ids are never handed out twice".into()),
        related: Vec::new(),
    });
    let run = Run::judged(vec![TableRun::new(&judgement, &settings)], Severity::Error);
    snapshot_all("no_location", &run);
}

#[test]
fn parse_errors_in_two_files() {
    // The exit-2 report: every located error of every file, in-band for machine formats.
    let failure = match judge(
        &args(
            &[&fixture("parse_error_1.sql"), &fixture("parse_error_2.sql")],
            Some(&table("events")),
            None,
        ),
        String::new(),
        NOW_MS,
    ) {
        Err(failure @ Failure::Located(_)) => failure,
        Err(other) => panic!("expected located errors, got {other:?}"),
        Ok(_) => panic!("malformed SQL was judged"),
    };
    snapshot_all("parse_error", &Run::failed(&failure, Severity::Error));
}

#[test]
fn an_unreadable_file_without_a_location() {
    let failure = Failure::Message(
        "cannot read `migrations/missing.sql`: No such file or directory (os error 2)".into(),
    );
    snapshot_all("unreadable", &Run::failed(&failure, Severity::Error));
}

#[test]
fn sarif_rules_are_the_catalogue() {
    let (judgement, settings) = judged(&args(
        &[&fixture("types.sql")],
        Some(&table("orders")),
        None,
    ));
    let run = Run::judged(vec![TableRun::new(&judgement, &settings)], Severity::Error);
    let sarif: Value = serde_json::from_str(&render(&run, Format::Sarif)).expect("SARIF is JSON");
    let driver = &sarif["runs"][0]["tool"]["driver"];
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    insta::assert_json_snapshot!("sarif_rules", driver["rules"]);
    // Every result's ruleIndex points at its rule.
    for result in sarif["runs"][0]["results"].as_array().into_iter().flatten() {
        let index = result["ruleIndex"].as_u64().expect("a catalogue rule") as usize;
        assert_eq!(driver["rules"][index]["id"], result["ruleId"]);
    }
}

#[test]
fn fail_on_warning_changes_the_verdict_and_junit_failures() {
    let (judgement, settings) = judged(&args(
        &[&fixture("suppression.sql")],
        Some(&table("events")),
        None,
    ));
    let strict = Run::judged(
        vec![TableRun::new(&judgement, &settings)],
        Severity::Warning,
    );
    assert!(!strict.passed, "the unused suppression is a warning");
    let junit = render(&strict, Format::Junit);
    assert!(
        junit.contains(&format!(
            "<testsuites name=\"fieldgate\" tests=\"{}\" failures=\"1\"",
            // Every rule but `policy-relaxation`, which is judged per run, not per table.
            fieldgate::rules::registry().len() - 1
        )),
        "{junit}"
    );
    assert!(junit.contains("<failure type=\"warning\""), "{junit}");
}

#[test]
fn policy_findings_count_towards_the_verdict_and_have_their_own_junit_suite() {
    let source = std::sync::Arc::new(fieldgate::change::SourceFile {
        name: "fieldgate.yaml".into(),
        text: "rules:\n  type-narrowing: off\n".into(),
    });
    let span = fieldgate::change::Span::new(9, 14);
    let relaxed = Finding {
        rule: "policy-relaxation",
        severity: Severity::Warning,
        message: "fieldgate.yaml relaxes the gate: `type-narrowing` is turned off".into(),
        table: String::new(),
        field: None,
        field_id: None,
        origin: Some(fieldgate::change::Origin {
            source,
            statement: span,
            focus: span,
        }),
        help: None,
        related: Vec::new(),
    };
    let lenient = Run::judged(Vec::new(), Severity::Error).with_policy(vec![relaxed.clone()]);
    assert!(lenient.passed);
    assert_eq!(lenient.verdict(), "passed: 0 errors, 1 warning, 0 notes");
    let junit = render(&lenient, Format::Junit);
    assert!(
        junit.contains("<testsuite name=\"policy\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\">\n    <testcase name=\"policy-relaxation\" classname=\"policy\">\n      <system-out>fieldgate.yaml:2:3: warning:"),
        "{junit}"
    );
    let github = render(&lenient, Format::Github);
    assert!(
        github.starts_with("::warning file=fieldgate.yaml,line=2,endLine=2,col=3,endColumn=17,title=policy-relaxation::"),
        "{github}"
    );

    let strict = Run::judged(Vec::new(), Severity::Warning).with_policy(vec![relaxed]);
    assert!(!strict.passed);
    let junit = render(&strict, Format::Junit);
    assert!(
        junit.contains("<testsuites name=\"fieldgate\" tests=\"1\" failures=\"1\""),
        "{junit}"
    );
    assert!(junit.contains("<failure type=\"warning\""), "{junit}");
}
