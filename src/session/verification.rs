//! Reader verification in `apply` and `check`: which data files a table's verification reads
//! (`apply`'s `--sample N` / `--verify FILE`, else the table's `sample:` in fieldgate.yaml), and
//! running it once the rules pass, so its findings join the judgement before it is reported and
//! before anything is written.

use std::path::{Path, PathBuf};

use crate::change::{Origin, Source, Span};
use crate::failure::{Failure, LocatedError};
use crate::finding::Severity;
use crate::judge::Settings;
use crate::repo::config::{Sample, SampleKind};
use crate::repo::git::Repo;
use crate::repo::sample as sample_paths;
use crate::session::input::LoadedTable;
use crate::session::live::LiveTable;
use crate::session::plan::settings::config_failure_in;
use crate::session::table::Judgement;
use crate::verify::gate::{RULE, SampleFile, from_manifests, looked_up, verify};
use crate::verify::sample::{Locator, ManifestError, local_path, table_dir};

/// What a table's verification reads.
pub enum Requested {
    /// Up to N data files of the table's current snapshot. Asked on the command line (`origin`
    /// is `None`), a table without Iceberg metadata is an error; configured, a table the change
    /// creates has no files yet.
    FromManifests {
        n: usize,
        origin: Option<Origin>,
        root: TableRoot,
    },
    /// Files named by path, looked up in the manifests of the table as `fieldgate verify FILES`
    /// looks them up.
    Files {
        files: Vec<SampleFile>,
        root: TableRoot,
    },
    /// `sample: N` of a catalog table under `check --live`: N data files of the live table's
    /// current snapshot, read where the catalog keeps them (object storage or a file: warehouse).
    Live {
        n: usize,
        origin: Origin,
        table: Box<LiveTable>,
    },
}

/// What the table's metadata path is relative to, and so where its manifests may be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableRoot {
    /// The current directory (`apply`): manifests are read where the user's metadata points.
    CurrentDirectory,
    /// The repository (`check`): manifest lists, manifests and the data files they name must
    /// really be inside it, since committed metadata could point anywhere on the CI runner.
    Repository { root: PathBuf, canonical: PathBuf },
}

impl TableRoot {
    fn repository(root: &Path) -> TableRoot {
        TableRoot::Repository {
            root: root.to_path_buf(),
            canonical: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
        }
    }

    fn dir(&self) -> &Path {
        match self {
            TableRoot::CurrentDirectory => Path::new(""),
            TableRoot::Repository { root, .. } => root,
        }
    }

    fn confinement(&self) -> Option<&Path> {
        match self {
            TableRoot::CurrentDirectory => None,
            TableRoot::Repository { canonical, .. } => Some(canonical),
        }
    }
}

impl Requested {
    /// The same request, for a table whose metadata path is relative to the current directory.
    fn with_table_in_cwd(self) -> Requested {
        let root = TableRoot::CurrentDirectory;
        match self {
            Requested::FromManifests { n, origin, .. } => {
                Requested::FromManifests { n, origin, root }
            }
            Requested::Files { files, .. } => Requested::Files { files, root },
            live @ Requested::Live { .. } => live,
        }
    }
}

/// Verifies the sample under the judgement's new schema and adds its findings, when the rule is
/// on, the change could be applied, and no finding fails the gate yet (`fail_on`): the data is
/// read only for a change the rules let through. `request` is asked only then.
pub fn run(
    judgement: &mut Judgement,
    settings: &Settings,
    fail_on: Severity,
    request: impl FnOnce(&Judgement) -> Result<Option<Requested>, Failure>,
) -> Result<(), Failure> {
    let Some(severity) = settings.severity(RULE) else {
        return Ok(());
    };
    let rules_passed = judgement.evolution.problems.is_empty()
        && judgement.findings.iter().all(|f| f.severity < fail_on);
    if !rules_passed {
        return Ok(());
    }
    let mut live = None;
    let files = match request(judgement)? {
        None => return Ok(()),
        Some(Requested::Files { files, root }) => match &judgement.base {
            Some(base) => {
                let dir = root.dir().join(table_dir(&base.location.metadata_file));
                looked_up(
                    files,
                    &base.source.text,
                    &base.metadata,
                    &locator(base, &dir, &root),
                )
                .map_err(|e| manifest_failure(base, e))?
            }
            None => files,
        },
        Some(Requested::FromManifests {
            origin: Some(_), ..
        }) if judgement.base.is_none() => {
            return Ok(());
        }
        Some(Requested::FromManifests { n, origin, root }) => {
            manifest_sample(judgement.base.as_ref(), n, origin.as_ref(), &root)?
        }
        // Kept until the files are read: its reader's temporary directory holds their copies.
        Some(Requested::Live { n, origin, table }) => live_sample(live.insert(table), n, &origin)?,
    };
    let (verification, findings) = verify(
        &judgement.table,
        &judgement.evolution.metadata,
        &files,
        severity,
    )
    .map_err(|e| Failure::Message(e.to_string()))?;
    judgement.findings.extend(findings);
    judgement.verification = Some(verification);
    judgement.judged_by_some.push(RULE);
    Ok(())
}

/// `--sample N` or `sample: N`: the table's own data files, found through its manifests, read
/// from the working tree.
fn manifest_sample(
    base: Option<&LoadedTable>,
    n: usize,
    origin: Option<&Origin>,
    root: &TableRoot,
) -> Result<Vec<SampleFile>, Failure> {
    let Some(base) = base.filter(|b| b.description.is_none()) else {
        return Err(Failure::Message(
            "a sample of N data files comes from the table's Iceberg manifests, and this table has no Iceberg metadata yet: name the files to verify instead".into(),
        ));
    };
    let dir = root.dir().join(table_dir(&base.location.metadata_file));
    from_manifests(
        &base.source.text,
        &base.metadata,
        &locator(base, &dir, root),
        n,
        origin,
    )
    .map_err(|e| manifest_failure(base, e))
}

/// The live table's files: the paths come from the catalog the base's configuration trusts, so
/// they are read where they point.
fn live_sample(table: &LiveTable, n: usize, origin: &Origin) -> Result<Vec<SampleFile>, Failure> {
    let locator = Locator {
        location: &table.metadata.location,
        table_dir: Path::new(""),
        inside: None,
        remote: Some(&table.objects),
    };
    from_manifests(
        &table.source.text,
        &table.metadata,
        &locator,
        n,
        Some(origin),
    )
    .map_err(|e| Failure::Message(format!("{}: {e}", table.source.name)))
}

/// The request of a catalog table's `sample: N` under `check --live`.
pub fn live(sample: &Sample, config: &Source, n: usize, table: LiveTable) -> Requested {
    Requested::Live {
        n,
        origin: Origin {
            source: config.clone(),
            statement: sample.span,
            focus: sample.span,
        },
        table: Box::new(table),
    }
}

/// Where the table's manifests and data files are found: under `dir`, the table directory, and
/// only inside the repository when `root` is one.
fn locator<'a>(base: &'a LoadedTable, dir: &'a Path, root: &'a TableRoot) -> Locator<'a> {
    Locator {
        location: &base.metadata.location,
        table_dir: dir,
        inside: root.confinement(),
        remote: None,
    }
}

/// A path that leads out of the repository is located at the current snapshot's manifest list in
/// the table's metadata, where the chain of paths starts; other manifest errors name the file.
fn manifest_failure(base: &LoadedTable, error: ManifestError) -> Failure {
    match error {
        ManifestError::Outside(message) => Failure::Located(vec![LocatedError::new(
            &base.source,
            manifest_list_span(base),
            format!("invalid table metadata: {message}"),
            Some(
                "`check` reads manifests and data files only inside the repository: commit the table's manifests and data under its directory, or point `sample:` at files in the repository".into(),
            ),
        )]),
        ManifestError::Unreadable(message) => Failure::Message(format!(
            "{}: {message}",
            base.location.metadata_file.display()
        )),
    }
}

/// The current snapshot's `manifest-list` (or `manifests`) value in the metadata text, else the
/// start of the file.
fn manifest_list_span(base: &LoadedTable) -> Span {
    let text = &base.source.text;
    let found = crate::json::parse(text).ok().and_then(|root| {
        let current = base.metadata.current_snapshot_id?;
        let snapshot = root
            .get("snapshots")?
            .as_array()?
            .iter()
            .find(|s| s.get("snapshot-id").and_then(|i| i.as_i64()) == Some(current))?;
        let list = snapshot
            .get("manifest-list")
            .or_else(|| snapshot.get("manifests"))?;
        Some(Span::new(list.span.start, list.span.len()))
    });
    found.unwrap_or(Span::new(0, 0))
}

/// The files a `sample:` list names, resolved against the repository at `root` (the
/// configuration's directory is `dir`, relative to it); paths are shown relative to `shown_from`.
pub fn listed(
    sample: &Sample,
    config: &Source,
    dir: &Path,
    root: &Path,
    shown_from: &Path,
) -> Result<Requested, Failure> {
    let origin = |focus: Span| Origin {
        source: config.clone(),
        statement: sample.span,
        focus,
    };
    let entries = match &sample.kind {
        SampleKind::Count(n) => {
            return Ok(Requested::FromManifests {
                n: *n,
                origin: Some(origin(sample.span)),
                root: TableRoot::repository(root),
            });
        }
        SampleKind::Paths(entries) => entries,
    };
    let files = sample_paths::resolve(entries, dir, root)
        .map_err(|errors| config_failure_in(config, errors))?;
    // Read through the path relative to the current directory where there is one, so a report
    // names a local copy (`read_from`) only when the file really is read from elsewhere.
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .unwrap_or_default();
    Ok(Requested::Files {
        files: files
            .into_iter()
            .map(|f| {
                let absolute = root.join(&f.path);
                let local = absolute
                    .strip_prefix(&cwd)
                    .map_or_else(|_| absolute.clone(), Path::to_path_buf);
                SampleFile::listed(
                    relative_to(&absolute, shown_from),
                    local,
                    Some(origin(f.entry)),
                )
            })
            .collect(),
        root: TableRoot::repository(root),
    })
}

/// `path` relative to `from` when it is inside, with `/` separators as reports name files.
fn relative_to(path: &Path, from: &Path) -> String {
    let relative = path.strip_prefix(from).unwrap_or(path);
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// `apply`'s request: `--no-verify` reads nothing; `--verify FILE` and `--sample N` win over the
/// table's `sample:` in the configuration at `config_path`.
pub fn for_apply(
    no_verify: bool,
    files: &[String],
    sample: Option<usize>,
    config: Option<(&Path, &Source, Option<&Sample>)>,
) -> Result<Option<Requested>, Failure> {
    if no_verify {
        return Ok(None);
    }
    if !files.is_empty() {
        let files = files
            .iter()
            .map(|f| local_path(f).map(|local| SampleFile::listed(f.clone(), local, None)))
            .collect::<Result<_, _>>()?;
        return Ok(Some(Requested::Files {
            files,
            root: TableRoot::CurrentDirectory,
        }));
    }
    if let Some(n) = sample {
        return Ok(Some(Requested::FromManifests {
            n,
            origin: None,
            root: TableRoot::CurrentDirectory,
        }));
    }
    let Some((config_path, source, Some(sample))) = config else {
        return Ok(None);
    };
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::Message(format!("cannot read the current directory: {e}")))?;
    let config_dir = cwd.join(config_path.parent().unwrap_or(Path::new("")));
    let config_dir = std::fs::canonicalize(&config_dir).unwrap_or(config_dir);
    // The repository bounds the sample as it does in `check`; outside git, the configuration's
    // directory does.
    let root: PathBuf = Repo::discover(&config_dir)
        .ok()
        .and_then(|repo| std::fs::canonicalize(repo.root()).ok())
        .unwrap_or_else(|| config_dir.clone());
    let dir = config_dir.strip_prefix(&root).unwrap_or(Path::new(""));
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    // The sample is resolved in the repository, but `apply` reads the table where `--metadata`
    // points from the current directory, so its manifests are found from there.
    listed(sample, source, dir, &root, &cwd).map(|requested| Some(requested.with_table_in_cwd()))
}
