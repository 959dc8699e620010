//! The session of `fieldgate check`: the CI gate over a git repository with `fieldgate.yaml`.
//!
//! The base is a commit (the merge base of HEAD with the base branch); the proposals are the
//! files matching `proposals` that were added or changed since it, in path order; each statement
//! goes to the configured table it names. Only the tables a proposal names or whose metadata
//! changed are loaded, their base metadata read from git objects, never from the working tree.
//! Each is judged with its metadata file's git history (who dropped which field when), and the
//! metadata committed in the working tree must be what `apply` makes of base and proposals; a
//! table with `sample:` has its sample data files (from the working tree) read under the new
//! schema once its rules pass.

use std::cell::RefCell;
use std::env;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::change::{Origin, Source, SourceFile, Span, Statement, StatementKind};
use crate::cli::CheckArgs;
use crate::evolve::new_table::new_table;
use crate::failure::{Failure, LocatedError};
use crate::finding::{Finding, Severity};
use crate::frontend::ddl::Dialect;
use crate::iceberg::metadata::TableMetadata;
use crate::judge::Settings;
use crate::plural::counted;
use crate::proposal::Proposal;
use crate::repo::config::{CONFIG_FILE, Config, SampleKind, TableConfig, repo_path};
use crate::repo::git::{Base, Repo};
use crate::repo::glob;
use crate::repo::location::{Files, LocateError, first_metadata_file, locate_in};
use crate::repo::work_tree::RepoWorkTree;
use crate::session::catalog_source::CatalogSource;
use crate::session::drift::{self, Drift, failure_text, stale_help};
use crate::session::input::{
    ReadProposal, describe, parse_metadata, parse_proposal, schema_file_failure,
};
use crate::session::live::{Catalogs, drift_finding, trusted_config};
use crate::session::plan::edits::{Base as MergedBase, RULE as EDIT_RULE, edited_migrations};
use crate::session::plan::links::Reached;
use crate::session::plan::policy::Policy;
use crate::session::plan::repo_config::{both, load_repo_config};
use crate::session::plan::routing::{
    Item, is_proposal, metadata_outside, parse_all, route, slashed,
};
use crate::session::source::{GitBase, TableSource};
use crate::session::table::Judgement;
use crate::session::table::{creates_existing, judge_from, locate_related, read_in_order};
use crate::session::verification;

/// What `check` judged, for the command to report.
pub struct Gated {
    /// Each touched table's judgement, with the settings it was judged by.
    pub judged: Vec<(Judgement, Settings)>,
    /// Findings about the change rather than a table (`policy-relaxation`, `migration-edit`).
    pub policy: Vec<Finding>,
    /// The human report's first lines: the base, the proposals, the tables touched.
    pub header: String,
}

/// Judges every table the change touches; `fail_on` decides whether verification still runs.
pub fn gate(args: &CheckArgs, fail_on: Severity) -> Result<Gated, Failure> {
    let cwd = env::current_dir()
        .map_err(|e| Failure::Message(format!("cannot read the current directory: {e}")))?;
    let repo = Repo::discover(&cwd)?;
    let root = repo.root().to_path_buf();
    let work_tree = RepoWorkTree::new(&root)?;
    let (head, config_dir) = load_repo_config(args.config.as_deref(), &cwd, &root)?;
    let ci_base = env::var("GITHUB_BASE_REF").ok();
    let base = repo.base(args.base.as_deref(), ci_base.as_deref())?;
    let base_files = repo.files_at(base.commit)?;
    let policy = Policy::load(args.policy, &head, &base_files, &base.info.id)?;
    policy.admit(&head, &config_dir, &base_files, &root)?;
    let dropped = policy.dropped(&head);
    // The tables judged: the change's, and under `--policy base` those whose entry it removes.
    let mut config = head.clone();
    config
        .tables
        .extend(dropped.iter().flat_map(|r| r.tables.iter().cloned()));

    let globs = both(&head, dropped.as_ref(), |c| c.proposal_globs(&config_dir))?;
    let prefixes: Vec<PathBuf> = globs.iter().map(|g| glob::literal_prefix(g)).collect();
    // A table reached through a link also changes where the link resolves.
    let reached = Reached::new(&config, &config_dir, &root, &work_tree, &base_files);
    let watched = &reached.watched;
    let changed = repo.changed_files(base.commit, &prefixes, watched)?;
    let mut proposals: Vec<&PathBuf> = changed
        .iter()
        .filter(|file| is_proposal(&globs, watched, file))
        .collect();
    let edits = edited_migrations(
        &mut proposals,
        &root,
        &MergedBase::new(&repo, base.commit, &base_files),
        |file| Ok(work_tree.resolve(file)?),
        policy.change_severity(&head, EDIT_RULE),
    )?;
    let dialect = config.dialect.unwrap_or(Dialect::Spark);
    let parsed = parse_all(&proposals, dialect, |file| Ok(work_tree.resolve(file)?))?;
    let routed = route(&config, parsed)?;
    // A table this change creates may have no metadata anywhere yet: its metadata-drift finding
    // says how to write it, which helps more than a configuration error.
    let created = created_paths(&config, &routed, &config_dir);
    // The working tree first: a stat, where a path lookup in the base commit parses every tree
    // on the way, and a directory of 10,000 tables is one large tree.
    let exists = |path: &Path| {
        root.join(path).exists()
            || created.iter().any(|c| c == path)
            || base_files.is_file(path)
            || base_files.is_dir(path)
    };
    let locations = both(&head, dropped.as_ref(), |c| {
        c.locations(&config_dir, &exists)
    })?;

    let now = super::now_ms();
    let mut judged: Vec<(Judgement, Settings)> = Vec::new();
    let mut catalogs = Catalogs::default();
    for ((table, path), items) in config.tables.iter().zip(&locations).zip(&routed) {
        let touched = path.as_ref().is_some_and(|p| reached.touched(&changed, p));
        if items.is_empty() && !touched {
            continue;
        }
        let at = TableAt {
            repo: &repo,
            base: &base,
            base_files: &base_files,
            root: &root,
            work_tree: &work_tree,
            policy: &policy,
            head: &head,
            table,
            path: path.as_deref(),
            dialect,
        };
        let checks = LaterChecks {
            live: args.live,
            fail_on,
            config_dir: &config_dir,
        };
        if let Some(table_judged) = at.judge_and_check(items, now, &checks, &mut catalogs)? {
            judged.push(table_judged);
        }
    }

    let header = header(
        &base,
        &policy,
        proposals.len(),
        judged.len(),
        config.tables.len(),
    );
    Ok(Gated {
        policy: [policy.findings(&head), edits].concat(),
        judged,
        header,
    })
}

/// The metadata paths of the tables whose first routed item creates them.
fn created_paths(config: &Config, routed: &[Vec<Item>], config_dir: &Path) -> Vec<PathBuf> {
    config
        .tables
        .iter()
        .zip(routed)
        .filter(|(_, items)| items.first().is_some_and(Item::may_create))
        .filter_map(|(table, _)| repo_path(config_dir, table.metadata.as_deref()?).ok())
        .collect()
}

/// The human report's first lines: the base, how many proposals, how many tables touched.
fn header(base: &Base, policy: &Policy, proposals: usize, touched: usize, tables: usize) -> String {
    let policy_line = policy
        .header()
        .map(|l| format!("{l}\n"))
        .unwrap_or_default();
    format!(
        "base: {} (merge base with `{}`, {}); {}; {touched} of {} touched\n{policy_line}",
        base.info.id,
        base.against,
        base.info.date,
        counted(proposals, "proposal file"),
        counted(tables, "table"),
    )
}

/// One configured table, and where to read it.
struct TableAt<'a> {
    repo: &'a Repo,
    base: &'a Base,
    base_files: &'a dyn Files,
    root: &'a Path,
    work_tree: &'a RepoWorkTree,
    policy: &'a Policy,
    /// The change's configuration.
    head: &'a Config,
    table: &'a TableConfig,
    /// The table's metadata file or directory, relative to the root; `None` for a table that
    /// lives only in its catalog, judged against the live table.
    path: Option<&'a Path>,
    dialect: Dialect,
}

/// What a judged table goes through after its rules: `check --live`'s drift and verification.
struct LaterChecks<'a> {
    live: bool,
    fail_on: Severity,
    config_dir: &'a Path,
}

impl TableAt<'_> {
    fn judge_and_check(
        &self,
        items: &[Item],
        now: i64,
        checks: &LaterChecks,
        catalogs: &mut Catalogs,
    ) -> Result<Option<(Judgement, Settings)>, Failure> {
        let Some((mut judgement, settings)) = self.judge(items, now, catalogs)? else {
            return Ok(None);
        };
        self.live_drift(checks.live, catalogs, &settings, &mut judgement)?;
        locate_related(&mut judgement);
        let table = self.table;
        verification::run(&mut judgement, &settings, checks.fail_on, |_| {
            let Some(sample) = table.sample.as_ref() else {
                return Ok(None);
            };
            // A live-only table has no other snapshot to sample than the live one.
            let live = checks.live || self.path.is_none();
            if let (true, Some(_), SampleKind::Count(n)) = (live, &table.catalog, &sample.kind) {
                let entry = self.catalog_entry();
                let config = trusted_config(self.policy.base_config(), entry)?;
                let live = catalogs.live_table(config, entry)?;
                return Ok(Some(verification::live(sample, &table.source, *n, live)));
            }
            verification::listed(
                sample,
                &table.source,
                checks.config_dir,
                self.root,
                self.root,
            )
            .map(Some)
        })?;
        Ok(Some((judgement, settings)))
    }

    /// Under `check --live`, a table with a `catalog:` gets the `live-drift` finding, if any,
    /// unless its settings turn the rule off.
    fn live_drift(
        &self,
        live: bool,
        catalogs: &mut Catalogs,
        settings: &Settings,
        judgement: &mut Judgement,
    ) -> Result<(), Failure> {
        if !live || self.table.catalog.is_none() || self.path.is_none() {
            return Ok(());
        }
        let Some(severity) = settings.severity("live-drift") else {
            return Ok(());
        };
        let base = judgement.base.as_ref().map(|b| &b.source);
        let trusted = self.policy.base_config();
        let entry = (self.table, self.catalog_entry());
        let finding = drift_finding(catalogs, trusted, entry, base, severity)?;
        judgement.findings.extend(finding);
        judgement.judged_by_some.push("live-drift");
        Ok(())
    }

    /// Judges the table's proposals, in order, against its base metadata, with its file history,
    /// and compares the committed metadata with the result. `None`: a table new in this change
    /// with no proposal, so there is nothing to judge.
    fn judge(
        &self,
        items: &[Item],
        now: i64,
        catalogs: &mut Catalogs,
    ) -> Result<Option<(Judgement, Settings)>, Failure> {
        let mut settings = self.policy.settings_for(self.head, self.table);
        let source = self.source(catalogs)?;
        let base = source.load()?;
        let mut items: Vec<Item> = items.to_vec();
        let mut read: Vec<ReadProposal> = Vec::new();
        let start: TableMetadata = match &base {
            Some(loaded) => {
                let statements = items.iter().flat_map(|item| match item {
                    Item::Ddl { statements, .. } => statements.as_slice(),
                    Item::SchemaFile { .. } => &[],
                });
                let held = match self.path {
                    Some(path) => format!(" at the base (`{}`)", path.display()),
                    None => " in its catalog".into(),
                };
                let help = "change an existing table with ALTER TABLE statements";
                let creates = creates_existing(statements, &self.table.name, &held, help);
                if !creates.is_empty() {
                    return Err(Failure::Located(creates));
                }
                loaded.metadata.clone()
            }
            None => match self.path {
                Some(path) => match self.created(path, &mut items, &mut read, now)? {
                    Some(metadata) => metadata,
                    None => return Ok(None),
                },
                None => return Ok(None),
            },
        };
        // Each proposal against the table as the ones before it left it, as `apply` would go.
        read.extend(read_in_order(&items, self.dialect, Some(&start))?);
        if base.is_some() {
            settings.file_history = source.history(&settings.options)?;
        }
        drop(source);
        let files: Vec<String> = read.iter().map(|r| slashed(&r.path)).collect();
        let existed = base.is_some();
        let mut judgement =
            judge_from(self.table.name.clone(), base, &start, read, &settings, now)?;
        self.metadata_drift(&mut judgement, &settings, (&start, existed), &files)?;
        Ok(Some((judgement, settings)))
    }

    /// The `metadata-drift` finding, if any, once the proposals applied without a problem,
    /// unless the settings turn the rule off or the table lives only in its catalog (with no
    /// metadata in the repository to drift).
    fn metadata_drift(
        &self,
        judgement: &mut Judgement,
        settings: &Settings,
        start: (&TableMetadata, bool),
        files: &[String],
    ) -> Result<(), Failure> {
        let (Some(path), Some(severity)) = (self.path, settings.severity("metadata-drift")) else {
            return Ok(());
        };
        if !judgement.evolution.problems.is_empty() {
            return Ok(());
        }
        let alters: Vec<&Statement> = judgement
            .statements
            .iter()
            .filter(|s| matches!(s.kind, StatementKind::Alter(_)))
            .collect();
        let expected = &judgement.evolution.metadata;
        let drift = self.drift(path, start, files, &alters, expected, severity)?;
        let drift = drift.map(|d| drift::after_failing_rules(d, &judgement.findings));
        judgement.findings.extend(drift);
        judgement.judged_by_some.push("metadata-drift");
        Ok(())
    }

    /// A table with no metadata at the base: the first proposal must create it, with CREATE
    /// TABLE (taken out of its item) or a schema file describing it (judged along as the first
    /// proposal). `None` when there is no proposal at all.
    fn created(
        &self,
        path: &Path,
        items: &mut Vec<Item>,
        read: &mut Vec<ReadProposal>,
        now: i64,
    ) -> Result<Option<TableMetadata>, Failure> {
        let location = self.root.join(path).display().to_string();
        let no_base = |source: &Source, span: Span| {
            Failure::Located(vec![LocatedError::new(
                source,
                span,
                format!(
                    "`{}` has no metadata at the base ({}): `{}` is not in that commit",
                    self.table.name,
                    self.base.info.id,
                    path.display()
                ),
                Some(
                    "a new table's first proposal creates it: CREATE TABLE, or a schema file without ids".into(),
                ),
            )])
        };
        let Some(first) = items.first_mut() else {
            return Ok(None);
        };
        match first {
            Item::Ddl { statements, .. } => {
                let Some(statement) = statements.first() else {
                    return Ok(None);
                };
                let StatementKind::CreateTable(create) = &statement.kind else {
                    return Err(no_base(&statement.source, statement.table_span));
                };
                let metadata = new_table(create, location, now).map_err(|e| {
                    Failure::Located(vec![LocatedError::new(
                        &statement.source,
                        statement.span,
                        e.message,
                        None,
                    )])
                })?;
                statements.remove(0);
                Ok(Some(metadata))
            }
            Item::SchemaFile {
                path,
                source,
                table_span,
                ..
            } => {
                let proposal = parse_proposal(source.clone(), self.dialect, None)?;
                let Proposal::SchemaFile(file) = &proposal else {
                    return Err(no_base(source, *table_span));
                };
                let mut metadata = describe(&file.file)
                    .map_err(|e| schema_file_failure(source, e))?
                    .metadata;
                metadata.location = location;
                metadata.last_updated_ms = now;
                read.push(ReadProposal {
                    path: path.clone(),
                    proposal,
                    schema_after: Some(metadata.current_schema().clone()),
                });
                items.remove(0);
                Ok(Some(metadata))
            }
        }
    }

    /// The entry that says which catalog table this is: the base's, when it has one with a
    /// `catalog:`, so a pull request cannot point the gate at another table (to pass
    /// `live-drift` or be judged against a table it chose); else the change's own.
    fn catalog_entry(&self) -> &TableConfig {
        let trusted = self.policy.base_config();
        trusted
            .and_then(|c| c.table(&self.table.name))
            .filter(|t| t.catalog.is_some())
            .unwrap_or(self.table)
    }

    /// The table as of the base commit, read from git objects; a live-only table from its
    /// catalog, the one the base's configuration defines.
    fn source<'s>(
        &'s self,
        catalogs: &'s mut Catalogs,
    ) -> Result<Box<dyn TableSource + 's>, Failure> {
        let Some(path) = self.path else {
            let table = self.catalog_entry();
            return Ok(Box::new(CatalogSource {
                catalogs: RefCell::new(catalogs),
                config: trusted_config(self.policy.base_config(), table)?,
                table,
                log_files: crate::limits::get().metadata_log_files,
            }));
        };
        Ok(Box::new(GitBase {
            repo: self.repo,
            base: self.base,
            files: self.base_files,
            table: self.table,
            path,
        }))
    }

    /// The metadata the working tree commits for the table (named `path`), read inside the
    /// repository only; the inner error when there is none to read.
    fn committed(&self, at: &Path, path: &str) -> Result<Result<TableMetadata, Failure>, Failure> {
        Ok(match locate_in(self.work_tree, at) {
            Err(LocateError::Outside(message)) => {
                return Err(metadata_outside(self.table, message));
            }
            Err(LocateError::NotATable(message)) => Err(Failure::Message(message)),
            Ok(location) => self
                .work_tree
                .read_metadata(&location.metadata_file)
                .map_err(Failure::Message)
                .and_then(|text| {
                    parse_metadata(&Arc::new(SourceFile {
                        name: path.to_string(),
                        text,
                    }))
                }),
        })
    }

    /// The command that writes the metadata the migrations give: over the table's metadata when
    /// it existed, else into a new metadata file.
    fn apply_command(&self, at: &Path, existed: bool, files: &[String]) -> String {
        let path = slashed(at);
        if existed {
            format!(
                "fieldgate apply --write --metadata {path} {}",
                files.join(" ")
            )
        } else {
            format!(
                "fieldgate apply -o {} {}",
                first_metadata_file(at).display(),
                files.join(" ")
            )
        }
    }

    /// A `metadata-drift` finding when the committed metadata is not what the proposals give.
    fn drift(
        &self,
        at: &Path,
        (start, existed): (&TableMetadata, bool),
        files: &[String],
        alters: &[&Statement],
        expected: &TableMetadata,
        severity: Severity,
    ) -> Result<Option<Finding>, Failure> {
        let path = slashed(at);
        let apply = self.apply_command(at, existed, files);
        let restore = format!("git checkout {} -- {path}", self.base.info.id);
        let committed = self.committed(at, &path)?;
        let table = &self.table.name;
        let (message, help) = match committed {
            // A table nothing proposes and nothing had: nothing to judge.
            Err(_) if files.is_empty() && !existed => return Ok(None),
            // Removed, truncated, hand-broken, pointed at a missing version: never a pass, or a
            // pull request could blind the gate to a table by breaking its metadata.
            Err(why) if files.is_empty() => (
                format!(
                    "{table}: the change leaves `{path}` without readable Iceberg metadata: {}",
                    failure_text(&why)
                ),
                format!(
                    "a table's metadata is written by `fieldgate apply`: restore it with `{restore}`, or remove the table from {CONFIG_FILE} in a change of its own"
                ),
            ),
            Err(why) => (
                format!(
                    "{table}: the change has no committed metadata: `{path}` holds no readable Iceberg metadata in the working tree ({})",
                    failure_text(&why)
                ),
                format!("run `{apply}` and commit the metadata it writes"),
            ),
            Ok(committed) => match drift::compare(start, alters, expected, &committed) {
                None => return Ok(None),
                Some(Drift::Missing) if !existed => return Ok(None),
                Some(Drift::Missing) => (
                    format!(
                        "{table}: the committed metadata does not include this change: `{path}` is still at schema {} (last-column-id {}), the migrations give schema {} (last-column-id {})",
                        committed.current_schema_id,
                        committed.last_column_id,
                        expected.current_schema_id,
                        expected.last_column_id
                    ),
                    format!("run `{apply}` and commit the metadata it writes"),
                ),
                Some(Drift::Stale { applied }) => {
                    let help = stale_help(alters, applied, &path, &apply, &restore);
                    (
                        format!(
                            "{table}: the committed metadata is stale: it holds the first {applied} of {} statements (schema {}), the migrations give schema {}",
                            alters.len(),
                            committed.current_schema_id,
                            expected.current_schema_id
                        ),
                        help,
                    )
                }
                Some(Drift::Differs(differences)) if files.is_empty() => (
                    format!(
                        "{table}: `{path}` changed, but no migration in this change says so: {}",
                        differences.join("; ")
                    ),
                    format!(
                        "add the migration that makes this change (where `proposals` in {CONFIG_FILE} looks), or restore the metadata with `{restore}`"
                    ),
                ),
                Some(Drift::Differs(differences)) => (
                    format!(
                        "{table}: the committed metadata differs from what the migrations give: {}",
                        differences.join("; ")
                    ),
                    format!(
                        "metadata is written by `fieldgate apply`, not by hand: restore the base's metadata (`{restore}`), run `{apply}` and commit the metadata it writes"
                    ),
                ),
            },
        };
        let origin = alters.last().map(|s| Origin {
            source: s.source.clone(),
            statement: s.span,
            focus: s.table_span,
        });
        Ok(Some(Finding {
            rule: "metadata-drift",
            severity,
            message,
            table: table.clone(),
            field: None,
            field_id: None,
            origin,
            help: Some(help),
            related: Vec::new(),
        }))
    }
}
