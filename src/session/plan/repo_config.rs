//! Finding and reading the `fieldgate.yaml` of a repository, as `check` and `lint` without
//! `--metadata` read it: `--config`, else the current directory's, else the repository root's;
//! always inside the repository.

use std::fs;
use std::path::{Path, PathBuf};

use crate::failure::Failure;
use crate::repo::config::{CONFIG_FILE, Config, ConfigError};
use crate::repo::git::Repo;
use crate::session::input::read_source_named;
use crate::session::plan::settings::config_failure_in;

/// `fieldgate.yaml` as routing needs it.
pub struct RepoConfig {
    pub config: Config,
    /// The git repository around the current directory, if any.
    pub git: Option<Repo>,
    /// The configuration's directory, relative to `root`.
    pub dir: PathBuf,
    /// The repository root (the configuration's directory outside git).
    pub root: PathBuf,
    /// The configuration file itself, canonical, so it is never taken for a proposal.
    pub file: PathBuf,
}

/// The configuration `lint` routes by: `--config`, else `./fieldgate.yaml`, else the one at the
/// root of the git repository around `cwd`. `None` when there is none.
pub fn find_config(given: Option<&Path>, cwd: &Path) -> Result<Option<RepoConfig>, Failure> {
    let git = Repo::discover(cwd).ok();
    let path = repo_config_path(given, cwd, git.as_ref().map_or(cwd, Repo::root));
    if given.is_none() && !path.is_file() {
        return Ok(None);
    }
    let root = match &git {
        Some(git) => git.root().to_path_buf(),
        None => path.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    let (config, dir) = load_repo_config(given, cwd, &root)?;
    let file = fs::canonicalize(&path)
        .map_err(|e| Failure::Message(format!("cannot resolve `{}`: {e}", path.display())))?;
    Ok(Some(RepoConfig {
        config,
        git,
        dir,
        root,
        file,
    }))
}

/// Where the configuration is: `--config`, else `./fieldgate.yaml`, else the repository root's.
pub fn repo_config_path(given: Option<&Path>, cwd: &Path, root: &Path) -> PathBuf {
    match given {
        Some(path) => cwd.join(path),
        None if cwd.join(CONFIG_FILE).is_file() => cwd.join(CONFIG_FILE),
        None => root.join(CONFIG_FILE),
    }
}

/// The configuration and its directory relative to the repository root.
pub fn load_repo_config(
    given: Option<&Path>,
    cwd: &Path,
    root: &Path,
) -> Result<(Config, PathBuf), Failure> {
    let path = repo_config_path(given, cwd, root);
    if !path.is_file() {
        return Err(Failure::Message(format!(
            "no {CONFIG_FILE} at `{}`: `fieldgate check` (and `lint` and `apply` without --metadata) needs one that lists the tables (run `fieldgate init` to write one)",
            path.display()
        )));
    }
    let canonical = |p: &Path| {
        std::fs::canonicalize(p)
            .map_err(|e| Failure::Message(format!("cannot resolve `{}`: {e}", p.display())))
    };
    let relative = canonical(&path)?
        .strip_prefix(canonical(root)?)
        .map(Path::to_path_buf)
        .map_err(|_| {
            Failure::Message(format!(
                "`{}` is outside the repository at `{}`",
                path.display(),
                root.display()
            ))
        })?;
    let source = read_source_named(&path, relative.display().to_string())?;
    let config =
        Config::parse(source.clone()).map_err(|errors| config_failure_in(&source, errors))?;
    let dir = relative.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok((config, dir))
}

pub fn config_failure(config: &Config, errors: Vec<ConfigError>) -> Failure {
    config_failure_in(&config.source, errors)
}

/// `read` of the change's configuration, then of the entries `--policy base` keeps judging
/// though the change removed them; each one's errors located in its own file.
pub fn both<T>(
    head: &Config,
    dropped: Option<&Config>,
    read: impl Fn(&Config) -> Result<Vec<T>, Vec<ConfigError>>,
) -> Result<Vec<T>, Failure> {
    let mut all = read(head).map_err(|errors| config_failure(head, errors))?;
    if let Some(dropped) = dropped {
        all.extend(read(dropped).map_err(|errors| config_failure(dropped, errors))?);
    }
    Ok(all)
}
