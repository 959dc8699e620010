//! Merging what the user typed with `fieldgate.yaml` into the settings each table is judged with.
//! Flags win over the table's entry, which wins over the file's globals.

use std::fs;
use std::path::{Path, PathBuf};

use crate::change::Source;
use crate::cli::{DialectArg, ProposalArgs};
use crate::failure::{Failure, LocatedError};
use crate::frontend::ddl::Dialect;
use crate::judge::Settings;
use crate::repo::config::{CONFIG_FILE, Config, ConfigError, place};
use crate::repo::git::Repo;
use crate::rules::{Compatibility, Mapping};
use crate::session::input::read_source;
use crate::session::plan::repo_config::repo_config_path;

pub struct Resolved {
    pub config: Option<Config>,
    /// Where `config` was read from.
    pub config_path: Option<PathBuf>,
    pub dialect: DialectArg,
    mapping: Option<Mapping>,
    compatibility: Option<Compatibility>,
}

impl Resolved {
    /// [`Resolved::settings_for`], with `stated` (a schema file's `mapping`) deciding how readers
    /// find columns when neither `--mapping` nor the table's configuration does.
    pub fn settings_with_mapping(&self, table: &str, stated: Option<Mapping>) -> Settings {
        let mut settings = self.settings_for(table);
        let configured = self
            .config
            .as_ref()
            .and_then(|c| c.table(table))
            .and_then(|t| t.mapping);
        if self.mapping.is_none()
            && configured.is_none()
            && let Some(mapping) = stated
        {
            settings.mapping = mapping;
        }
        settings
    }

    /// The table of `fieldgate.yaml` whose metadata `metadata` (a `--metadata` path) is, so a
    /// statement naming another table is refused instead of judged against the wrong table.
    pub fn table_at(&self, metadata: &Path) -> Option<&str> {
        let config = self.config.as_ref()?;
        let dir = self
            .config_path
            .as_deref()?
            .parent()
            .unwrap_or(Path::new(""));
        let given = table_dir(metadata)?;
        let last = given.file_name()?.to_str()?;
        config
            .tables
            .iter()
            // The entry's own spelling first: a resolved path is only worth a lookup for an
            // entry whose table directory has the given one's name.
            .filter(|t| place(t).is_some_and(|at| at.rsplit('/').next() == Some(last)))
            .find(|t| {
                let path = t.metadata.as_deref().map(|m| dir.join(m));
                path.and_then(|p| table_dir(&p)).as_ref() == Some(&given)
            })
            .map(|t| t.name.as_str())
    }

    pub fn settings_for(&self, table: &str) -> Settings {
        let mut settings = match &self.config {
            Some(config) => config.settings_for(table),
            None => Settings::new(Mapping::FieldId, Compatibility::BACKWARD),
        };
        if let Some(mapping) = self.mapping {
            settings.mapping = mapping;
        }
        if let Some(compatibility) = self.compatibility {
            settings.compatibility = compatibility;
        }
        settings
    }
}

pub fn resolve(args: &ProposalArgs) -> Result<Resolved, Failure> {
    let config_path = match &args.config {
        Some(path) => Some(path.clone()),
        None if Path::new(CONFIG_FILE).is_file() => Some(PathBuf::from(CONFIG_FILE)),
        None => None,
    };
    let config = config_path.as_deref().map(load_config).transpose()?;
    Ok(resolve_with(args, config, config_path))
}

/// [`resolve`] with the configuration already found and read from `config_path`.
pub fn resolve_with(
    args: &ProposalArgs,
    config: Option<Config>,
    config_path: Option<PathBuf>,
) -> Resolved {
    if let Some(config) = &config {
        crate::limits::configure(config.limits.clone());
    }
    let dialect = args
        .dialect
        .unwrap_or(match config.as_ref().and_then(|c| c.dialect) {
            Some(Dialect::Trino) => DialectArg::Trino,
            Some(Dialect::Hive) => DialectArg::Hive,
            _ => DialectArg::Spark,
        });
    Resolved {
        config,
        config_path,
        dialect,
        mapping: args.mapping.as_deref().and_then(Mapping::parse),
        compatibility: args.compatibility.as_deref().and_then(Compatibility::parse),
    }
}

/// For a command that reads no tables of `fieldgate.yaml` (`verify`): the run's limits from the
/// configuration `--config` names, else `./fieldgate.yaml`, else the one at the root of the git
/// repository around `cwd`, as `lint` finds it; the defaults when there is none. A configuration
/// that does not parse is an error, as in every other command.
pub fn configure_limits(given: Option<&Path>, cwd: &Path) -> Result<(), Failure> {
    let root = Repo::discover(cwd).map_or(cwd.to_path_buf(), |git| git.root().to_path_buf());
    let path = repo_config_path(given, cwd, &root);
    if given.is_none() && !path.is_file() {
        return Ok(());
    }
    crate::limits::configure(load_config(&path)?.limits);
    Ok(())
}

/// The table directory a metadata path stands for, resolved: a metadata file in a table's
/// `metadata/` directory stands for the table, as `fieldgate.yaml`'s entries are read.
fn table_dir(path: &Path) -> Option<PathBuf> {
    let real = fs::canonicalize(path).ok()?;
    let parent = real.parent();
    let in_metadata_dir =
        real.is_file() && parent.and_then(Path::file_name) == Some("metadata".as_ref());
    match parent.and_then(Path::parent) {
        Some(table) if in_metadata_dir => Some(table.to_path_buf()),
        _ => Some(real),
    }
}

pub fn load_config(path: &Path) -> Result<Config, Failure> {
    let source = read_source(path)?;
    Config::parse(source.clone()).map_err(|errors| config_failure_in(&source, errors))
}

/// The configuration's errors, located in `source` (the file they were read from).
pub fn config_failure_in(source: &Source, errors: Vec<ConfigError>) -> Failure {
    Failure::Located(
        errors
            .into_iter()
            .map(|e| {
                LocatedError::new(
                    source,
                    e.span,
                    format!("invalid configuration: {}", e.message),
                    e.help,
                )
            })
            .collect(),
    )
}
