//! Migrations the base already holds that the change edits or deletes (`migration-edit`). A
//! merged migration is history: the table's committed metadata already holds its changes, and
//! every environment that ran it ran the old text, so an edit changes nothing there and a new
//! environment built from the migrations gets another table than the one in production. So a
//! merged migration is never a proposal of the change, edited or not: judged against the
//! base's table, which already holds what it did, it could only fail as a repeat ("name already
//! exists"), whatever the edit. What an edit did to the table's metadata, `metadata-drift` sees.

use std::fs;
use std::path::{Path, PathBuf};

use git2::Oid;

use crate::change::{Origin, Span};
use crate::failure::Failure;
use crate::finding::{Finding, Severity};
use crate::repo::git::{CommitFiles, Repo};
use crate::repo::location::Files;
use crate::session::input::read_source_named;
use crate::session::plan::routing::slashed;

pub const RULE: &str = "migration-edit";

const HELP: &str = "leave merged migrations as they are and write the change as a new migration after them; to undo a merged one, write the statements that reverse it";

/// The base commit the change is judged against, where merged migrations are looked up.
pub struct Base<'a, 'r> {
    pub git: &'a Repo,
    pub commit: Oid,
    pub files: &'a CommitFiles<'r>,
}

impl<'a, 'r> Base<'a, 'r> {
    pub fn new(git: &'a Repo, commit: Oid, files: &'a CommitFiles<'r>) -> Base<'a, 'r> {
        Base { git, commit, files }
    }
}

/// A `migration-edit` finding at `severity` for each `.sql` migration of `proposals` (files the
/// change adds, modifies or deletes, relative to `root`, that the globs match) that the base
/// commit already holds; a modified one points at its first changed line. Each says the commit
/// and date that merged the base's text. Left in `proposals`: the files to judge, so neither
/// those migrations, whatever the severity, nor a deleted file (listed when it was a table's or a
/// migration, it proposes nothing).
pub fn edited_migrations(
    proposals: &mut Vec<&PathBuf>,
    root: &Path,
    base: &Base<'_, '_>,
    read_from: impl Fn(&Path) -> Result<PathBuf, Failure>,
    severity: Option<Severity>,
) -> Result<Vec<Finding>, Failure> {
    let out = match severity {
        Some(severity) => findings(proposals, root, base, read_from, severity)?,
        None => Vec::new(),
    };
    proposals.retain(|file| {
        fs::symlink_metadata(root.join(file)).is_ok() && !merged_migration(file, base.files)
    });
    Ok(out)
}

/// The findings of [`edited_migrations`], each at `severity`.
fn findings(
    changed: &[&PathBuf],
    root: &Path,
    base: &Base<'_, '_>,
    read_from: impl Fn(&Path) -> Result<PathBuf, Failure>,
    severity: Severity,
) -> Result<Vec<Finding>, Failure> {
    let mut out = Vec::new();
    for file in changed.iter().filter(|f| merged_migration(f, base.files)) {
        let name = slashed(file);
        let merged = match base.git.merged_in(base.commit, file)? {
            Some(commit) => format!("`{name}` was merged in {} on {}", commit.id, commit.date),
            None => format!("`{name}` was merged before this change"),
        };
        let (message, origin) = if fs::symlink_metadata(root.join(file)).is_err() {
            let message = format!(
                "migrations are append-only: {merged}, and this change deletes it; add a new migration instead (the tables it changed keep its changes, but a table built from the migrations no longer gets them)"
            );
            (message, None)
        } else {
            let source = read_source_named(&read_from(file)?, name.clone())?;
            let was = base.files.read_to_string(file).unwrap_or_default();
            if was == source.text {
                continue;
            }
            let at = first_change(&was, &source.text);
            let message = format!(
                "migrations are append-only: {merged}, and this change edits it; add a new migration instead (every table and environment that ran it keeps what the old text did)"
            );
            let origin = Origin {
                source,
                statement: at,
                focus: at,
            };
            (message, Some(origin))
        };
        out.push(Finding {
            rule: RULE,
            severity,
            message,
            table: String::new(),
            field: None,
            field_id: None,
            origin,
            help: Some(HELP.into()),
            related: Vec::new(),
        });
    }
    Ok(out)
}

/// Whether `file` (a changed proposal, relative to the root) is a `.sql` migration the base
/// commit holds: history, reported by `migration-edit` and never judged as a proposal. A schema
/// file states the table as it should be, so editing it is how it proposes.
fn merged_migration(file: &Path, base: &CommitFiles<'_>) -> bool {
    let migration = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("sql"));
    migration && base.is_file(file)
}

/// The first line of `now` that differs from `was` (the end of `now` when it only drops lines).
fn first_change(was: &str, now: &str) -> Span {
    let mut offset = 0;
    let mut old_lines = was.split_inclusive('\n');
    for line in now.split_inclusive('\n') {
        if old_lines.next() != Some(line) {
            return Span::new(offset, line.trim_end_matches(['\n', '\r']).len());
        }
        offset += line.len();
    }
    Span::new(now.len(), 0)
}

#[cfg(test)]
mod tests {
    use super::first_change;
    use crate::change::Span;

    #[test]
    fn the_first_changed_line_is_pointed_at() {
        let was = "ALTER TABLE t ADD COLUMN a int;\nALTER TABLE t ADD COLUMN b int;\n";
        let now = "ALTER TABLE t ADD COLUMN a int;\nALTER TABLE t ADD COLUMN c int;\n";
        assert_eq!(first_change(was, now), Span::new(32, 31));
        assert_eq!(first_change(was, &was[..32]), Span::new(32, 0));
        assert_eq!(first_change("", "x"), Span::new(0, 1));
    }
}
