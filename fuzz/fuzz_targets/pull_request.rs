//! A whole pull request on arbitrary bytes: everything the gate reads that a pull request
//! controls, judged as `lint` judges a repository's files (`session::routed::judge_sources`, the
//! routing, reading and judging `check` shares), then compared as `check` compares what it
//! commits (`drift`, `relaxation`) and written in every report format.
//!
//! The input is the first byte (which kind of proposal file: a migration, a YAML or a JSON
//! schema file), then up to four texts separated by a line `%%`: `fieldgate.yaml`, the table's
//! committed metadata (the base), the proposal, and the metadata the pull request commits. The
//! base is written to `warehouse/db/t` in a scratch directory, so a configuration that names
//! another place reads nothing there. Every input must end in judgements or an error, never a
//! panic, a hang or an unbounded allocation.
#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use fieldgate::change::{SourceFile, Statement, StatementKind};
use fieldgate::cli::ProposalArgs;
use fieldgate::finding::Severity;
use fieldgate::iceberg::metadata::TableMetadata;
use fieldgate::repo::config::Config;
use fieldgate::report::{Format, Run, TableRun, reporter};
use fieldgate::session::drift;
use fieldgate::session::plan::repo_config::RepoConfig;
use fieldgate::session::plan::settings::resolve_with;
use fieldgate::session::routed::{TablesFrom, judge_sources};
use libfuzzer_sys::fuzz_target;

const PROPOSALS: [&str; 3] = [
    "migrations/0001_change.sql",
    "schemas/t.yaml",
    "schemas/t.json",
];

/// What the base's `fieldgate.yaml` is in every run, for the policy comparison.
const BASE_CONFIG: &str =
    "tables:\n  db.t:\n    metadata: warehouse/db/t\nproposals:\n  - migrations/*.sql\n  - schemas/*\n";

/// The scratch repository, made once, and its canonical root.
fn repository() -> &'static (tempfile::TempDir, PathBuf) {
    static REPO: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    REPO.get_or_init(|| {
        // The fuzzed `limits:` are parsed and checked, but the run keeps the defaults: the
        // first input's limits would otherwise hold for the whole process.
        fieldgate::limits::configure(fieldgate::limits::Limits::default());
        let dir = tempfile::tempdir().expect("a scratch directory");
        for sub in ["warehouse/db/t/metadata", "migrations", "schemas"] {
            fs::create_dir_all(dir.path().join(sub)).expect("a directory");
        }
        let root = dir.path().canonicalize().expect("the scratch root");
        (dir, root)
    })
}

fn config(name: &str, text: &str) -> Option<Config> {
    Config::parse(Arc::new(SourceFile {
        name: name.into(),
        text: text.into(),
    }))
    .ok()
}

/// Every report format of the run, into a buffer.
fn report(run: &Run<'_>) {
    let formats = [
        Format::Human {
            colour: false,
            width: 80,
        },
        Format::Json,
        Format::Github,
        Format::Sarif,
        Format::Markdown,
        Format::Gitlab,
        Format::Junit,
    ];
    for format in formats {
        let mut out = Vec::new();
        let _ = reporter(format).write(run, &mut out);
    }
}

fn write(root: &Path, path: &str, text: &str) {
    let _ = fs::write(root.join(path), text);
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let mut parts = text.splitn(4, "\n%%\n");
    let (config_text, base, proposal) = match (parts.next(), parts.next(), parts.next()) {
        (Some(c), Some(b), Some(p)) => (c, b, p),
        _ => return,
    };
    let committed = parts.next();
    let (_, root) = repository();
    fieldgate::limits::new_run();
    let Some(head) = config("fieldgate.yaml", config_text) else {
        return;
    };
    if let Some(base_config) = config("fieldgate.yaml (at the base)", BASE_CONFIG) {
        let _ = fieldgate::repo::relaxation::relaxations(&base_config, &head);
    }
    write(root, "fieldgate.yaml", config_text);
    write(root, "warehouse/db/t/metadata/v1.metadata.json", base);
    write(root, "warehouse/db/t/metadata/version-hint.text", "1\n");
    let name = PROPOSALS[usize::from(kind) % PROPOSALS.len()];
    for other in PROPOSALS.iter().filter(|p| **p != name) {
        let _ = fs::remove_file(root.join(other));
    }
    write(root, name, proposal);

    let args = ProposalArgs {
        files: vec![PathBuf::from(name)],
        metadata: None,
        table: None,
        dialect: None,
        config: None,
        mapping: None,
        compatibility: None,
    };
    let file = root.join("fieldgate.yaml");
    let resolved = resolve_with(&args, Some(head.clone()), Some(file.clone()));
    let repo = RepoConfig {
        config: head,
        git: None,
        dir: PathBuf::new(),
        root: root.clone(),
        file,
    };
    let source = Arc::new(SourceFile {
        name: name.into(),
        text: proposal.into(),
    });
    let sources = vec![(PathBuf::from(name), source)];
    // As `lint` reads tables (no repository here, so the working tree's copy).
    match judge_sources(&repo, &resolved, None, sources, root, 0, TablesFrom::Head) {
        Ok(routed) => {
            for (judgement, _) in &routed.judged {
                compare(judgement, committed);
            }
            let tables = routed
                .judged
                .iter()
                .map(|(judgement, settings)| TableRun::new(judgement, settings))
                .collect();
            report(&Run::judged(tables, Severity::Error));
        }
        Err(failure) => report(&Run::failed(&failure, Severity::Error)),
    }
});

/// `check`'s comparison of the metadata the pull request commits with what the proposals give.
fn compare(judgement: &fieldgate::session::table::Judgement, committed: Option<&str>) {
    let (Some(start), Some(text)) = (judgement.before(), committed) else {
        return;
    };
    let Ok(root) = fieldgate::json::parse(text) else {
        return;
    };
    let Ok(committed) = TableMetadata::from_json(&root) else {
        return;
    };
    let alters: Vec<&Statement> = judgement
        .statements
        .iter()
        .filter(|s| matches!(s.kind, StatementKind::Alter(_)))
        .collect();
    // As `check`: drift is judged only where every proposal applied.
    if judgement.evolution.problems.is_empty() {
        let _ = drift::compare(start, &alters, &judgement.evolution.metadata, &committed);
    }
}
