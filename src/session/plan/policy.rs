//! Whose `fieldgate.yaml` decides `check`'s verdict. A pull request controls its working tree,
//! `fieldgate.yaml` included, so by default (`--policy base`) the policy — rule severities and
//! options, compatibility, mappings — is read from the base commit, and a table the base
//! configures stays judged when the change removes its entry. What the change adds (tables,
//! proposals, samples) comes from its own file. Either way, every edit that relaxes the gate is
//! a `policy-relaxation` finding at its line, with the severity the base gives that rule, so
//! the change cannot silence the report of its own relaxation.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::change::{Origin, SourceFile, Span};
use crate::cli::PolicyArg;
use crate::failure::{Failure, LocatedError};
use crate::finding::{Finding, Severity};
use crate::judge::Settings;
use crate::repo::config::{Config, TableConfig, place};
use crate::repo::git::CommitFiles;
use crate::repo::location::Files;
use crate::repo::relaxation::relaxations;
use crate::session::plan::moves::refuse_moves;

pub const RULE: &str = "policy-relaxation";

pub struct Policy {
    mode: PolicyArg,
    /// The configuration at the base commit: `None` when the base has none (the change adds
    /// it), or, under `--policy head`, when the base's cannot be read.
    base: Option<Config>,
    /// Whether the change edits the configuration.
    edited: bool,
    /// The base commit, as reports name it.
    base_id: String,
}

impl Policy {
    /// The base's configuration, read from git at the path the change's has.
    pub fn load(
        mode: PolicyArg,
        head: &Config,
        base_files: &CommitFiles<'_>,
        base_id: &str,
    ) -> Result<Policy, Failure> {
        let path = PathBuf::from(&head.source.name);
        if !base_files.is_file(&path) {
            return Ok(Policy {
                mode,
                base: None,
                edited: true,
                base_id: base_id.to_string(),
            });
        }
        let text = base_files.read_to_string(&path).map_err(Failure::Message)?;
        let edited = text != head.source.text;
        let source = Arc::new(SourceFile {
            name: format!("{} (at the base, {base_id})", head.source.name),
            text,
        });
        let base = match (Config::parse(source.clone()), mode) {
            (Ok(config), _) => Some(config),
            (Err(_), PolicyArg::Head) => None,
            (Err(errors), PolicyArg::Base) => {
                return Err(Failure::Located(
                    errors
                        .into_iter()
                        .map(|e| {
                            LocatedError::new(
                                &source,
                                e.span,
                                format!("invalid configuration at the base: {}", e.message),
                                Some(
                                    "the base's configuration sets the policy of `check`: fix it on the base branch, or run with `--policy head`".into(),
                                ),
                            )
                        })
                        .collect(),
                ));
            }
        };
        let base_id = base_id.to_string();
        Ok(Policy {
            mode,
            base,
            edited,
            base_id,
        })
    }

    /// The configuration whose policy applies.
    fn deciding<'a>(&'a self, head: &'a Config) -> &'a Config {
        match (&self.base, self.mode) {
            (Some(base), PolicyArg::Base) => base,
            _ => head,
        }
    }

    /// Before any table is read: sets the run's limits from the configuration whose policy
    /// applies (so that under `--policy base` a change cannot raise the limits it is read
    /// within), and refuses a change that moves a table's metadata or deletes its version hint.
    pub fn admit(
        &self,
        head: &Config,
        config_dir: &Path,
        base_files: &CommitFiles<'_>,
        root: &Path,
    ) -> Result<(), Failure> {
        crate::limits::configure(self.deciding(head).limits.clone());
        let base = self.base.as_ref();
        refuse_moves(base, head, config_dir, base_files, &self.base_id, root)
    }

    /// The severity the deciding configuration's globals give `rule`, for findings about the
    /// change rather than one table.
    pub fn change_severity(&self, head: &Config, rule: &str) -> Option<Severity> {
        self.deciding(head).global_settings().severity(rule)
    }

    /// The base commit's configuration, whatever the mode: where `check --live` finds the
    /// catalogs it may send credentials to.
    pub fn base_config(&self) -> Option<&Config> {
        self.base.as_ref()
    }

    /// The settings `table` is judged with. Under `--policy base`, the base's entry for the table
    /// decides: the one of its name, else the one at its place, so a change that renames a
    /// table's entry (or adds a second name for it) is judged as the table always was.
    pub fn settings_for(&self, head: &Config, table: &TableConfig) -> Settings {
        match (&self.base, self.mode) {
            (Some(base), PolicyArg::Base) => base.settings_of(base.counterpart(table)),
            _ => head.settings_for(&table.name),
        }
    }

    /// What the base's configuration lists and the change's no longer does, which `--policy base`
    /// keeps: tables (still judged, with the base's entry) and `proposals` globs (files they match
    /// are still proposals). A table whose entry the change renames (another name, the same
    /// place) is not dropped: it is judged under its new name with the base's entry. A
    /// configuration of its own, so errors point at the base's file.
    pub fn dropped(&self, head: &Config) -> Option<Config> {
        let base = self
            .base
            .as_ref()
            .filter(|_| self.mode == PolicyArg::Base)?;
        let mut dropped = base.clone();
        let head_tables = head.table_index();
        let head_places = head.by_place();
        dropped.tables.retain(|t| {
            let renamed = place(t).is_some_and(|at| head_places.contains_key(&at));
            head_tables.table(&t.name).is_none() && !renamed
        });
        let (proposals, spans) = base
            .proposals
            .iter()
            .zip(&base.proposal_spans)
            .filter(|(glob, _)| !head.proposals.contains(glob))
            .map(|(glob, span)| (glob.clone(), *span))
            .unzip();
        (dropped.proposals, dropped.proposal_spans) = (proposals, spans);
        (!dropped.tables.is_empty() || !dropped.proposals.is_empty()).then_some(dropped)
    }

    /// A `policy-relaxation` finding for each way the change's configuration is more lenient
    /// than the base's, located in the change's file.
    pub fn findings(&self, head: &Config) -> Vec<Finding> {
        let Some(base) = &self.base else {
            return Vec::new();
        };
        let (judged_by, help) = match self.mode {
            PolicyArg::Base => (
                "this run keeps the base's setting; the change applies once merged",
                "`check` judges by the base's fieldgate.yaml (`--policy base`), so the relaxation does not help this change: review it as a change to the gate itself, best on its own",
            ),
            PolicyArg::Head => (
                "this run judges by it (`--policy head`)",
                "the change's own fieldgate.yaml decided this run: review the relaxation before merging, or judge by the base's with `--policy base`",
            ),
        };
        relaxations(base, head)
            .into_iter()
            .filter_map(|relaxation| {
                let table = relaxation.table.unwrap_or_default();
                let settings = if table.is_empty() {
                    base.global_settings()
                } else {
                    base.settings_for(&table)
                };
                let severity = settings.severity(RULE)?;
                let span = relaxation.span.unwrap_or(Span::new(0, 0));
                Some(Finding {
                    rule: RULE,
                    severity,
                    message: format!(
                        "{} relaxes the gate: {}; {judged_by}",
                        head.source.name, relaxation.message
                    ),
                    table,
                    field: None,
                    field_id: None,
                    origin: Some(Origin {
                        source: head.source.clone(),
                        statement: span,
                        focus: span,
                    }),
                    help: Some(help.into()),
                    related: Vec::new(),
                })
            })
            .collect()
    }

    /// What the human report says about the policy, when the change edits the configuration.
    pub fn header(&self) -> Option<String> {
        if !self.edited {
            return None;
        }
        Some(match (&self.base, self.mode) {
            (None, PolicyArg::Base) => "policy: the change's fieldgate.yaml (the base has none)",
            (Some(_), PolicyArg::Base) => {
                "policy: the base's fieldgate.yaml (the change edits it; its edits apply once merged)"
            }
            (_, PolicyArg::Head) => "policy: the change's fieldgate.yaml (`--policy head`)",
        }
        .into())
    }
}
