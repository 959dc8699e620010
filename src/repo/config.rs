//! `fieldgate.yaml`, the repository configuration: which tables there are and where their
//! metadata lives, how their files are read (`mapping`), the data files to verify (`sample`), the
//! compatibility mode, rule severities globally and per table, and the run's `limits`. Everything is validated: an unknown key, rule, severity or
//! mode is a located error with a "did you mean", never silently ignored.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use crate::catalog::config::{CatalogConfig, config_catalogs, named, unknown_catalogs};
use crate::change::{Source, Span};
use crate::frontend::ddl::Dialect;
use crate::judge::Settings;
use crate::repo::glob;
use crate::rules::{Compatibility, Mapping};
use crate::suggest::closest;
use crate::yaml::{self, YamlNode};

mod limits;
mod names;
mod place;
mod rule_settings;
mod sample;

pub use limits::named as named_limits;
use names::last_segment;
pub use names::{code_name, same_table};
pub use place::place;
pub use rule_settings::{RuleOption, RuleSetting};
pub use sample::{Sample, SampleKind};

pub const CONFIG_FILE: &str = "fieldgate.yaml";

const TOP_KEYS: &[&str] = &[
    "tables",
    "proposals",
    "dialect",
    "compatibility",
    "rules",
    "catalogs",
    "limits",
];

#[derive(Debug, Clone)]
pub struct Config {
    pub source: Source,
    pub tables: Vec<TableConfig>,
    pub proposals: Vec<String>,
    /// Where each of `proposals` is written.
    pub proposal_spans: Vec<Span>,
    pub dialect: Option<Dialect>,
    pub compatibility: Option<Compatibility>,
    /// Where `compatibility` is set.
    pub compatibility_span: Option<Span>,
    pub rules: Vec<RuleSetting>,
    /// `catalogs:`, where tables with a `catalog:` live.
    pub catalogs: Vec<CatalogConfig>,
    /// `limits:`, the run's budgets (the defaults when it is left out).
    pub limits: crate::limits::Limits,
}

#[derive(Debug, Clone)]
pub struct TableConfig {
    pub name: String,
    pub name_span: Span,
    pub metadata: Option<String>,
    pub metadata_span: Span,
    pub mapping: Option<Mapping>,
    pub mapping_span: Option<Span>,
    pub compatibility: Option<Compatibility>,
    pub compatibility_span: Option<Span>,
    pub rules: Vec<RuleSetting>,
    pub sample: Option<Sample>,
    /// `catalog:`, the name of one of `catalogs:`, with its place.
    pub catalog: Option<(String, Span)>,
    /// `identifier:`, the table's name in its catalog when it differs from the entry's key.
    pub identifier: Option<(String, Span)>,
    /// The configuration file the entry is written in, where errors about it point.
    pub source: Source,
}

/// A problem in the configuration, located in its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

impl Config {
    pub fn parse(source: Source) -> Result<Config, Vec<ConfigError>> {
        let root = yaml::parse(&source.text).map_err(|e| {
            vec![ConfigError {
                span: to_span(e.span),
                message: e.to_string(),
                help: None,
            }]
        })?;
        let mut errors = Vec::new();
        let mut config = Config {
            source: source.clone(),
            tables: Vec::new(),
            proposals: Vec::new(),
            proposal_spans: Vec::new(),
            dialect: None,
            compatibility: None,
            compatibility_span: None,
            rules: Vec::new(),
            catalogs: Vec::new(),
            limits: Default::default(),
        };
        let Some(entries) = root.as_map() else {
            if !root.is_null() {
                errors.push(error(
                    &root,
                    format!(
                        "the configuration must be a mapping, found {}",
                        root.kind_name()
                    ),
                    None,
                ));
            }
            return if errors.is_empty() {
                Ok(config)
            } else {
                Err(errors)
            };
        };
        for entry in entries {
            let value = &entry.value;
            match entry.key.as_str() {
                "tables" => config.tables = tables(value, &source, &mut errors),
                "proposals" => {
                    config.proposals = strings(value, "`proposals`", &mut errors);
                    config.proposal_spans = value
                        .as_seq()
                        .unwrap_or_default()
                        .iter()
                        .filter(|item| item.as_str().is_some())
                        .map(|item| to_span(item.span))
                        .collect();
                }
                "dialect" => {
                    config.dialect = enum_value(
                        value,
                        "dialect",
                        &["spark", "trino", "hive"],
                        |s| s.parse().ok(),
                        &mut errors,
                    )
                }
                "compatibility" => {
                    config.compatibility = compatibility(value, &mut errors);
                    config.compatibility_span = Some(to_span(value.span));
                }
                "rules" => config.rules = rule_settings::rules(value, &mut errors),
                "catalogs" => config.catalogs = config_catalogs(value, &mut errors),
                "limits" => config.limits = limits::limits(value, &mut errors),
                other => errors.push(unknown_key(entry.key_span, other, TOP_KEYS)),
            }
        }
        errors.extend(unknown_catalogs(&config));
        if errors.is_empty() {
            Ok(config)
        } else {
            Err(errors)
        }
    }

    pub fn table(&self, name: &str) -> Option<&TableConfig> {
        self.tables.iter().find(|t| same_table(&t.name, name))
    }

    /// The tables indexed by name, for looking up many names: each lookup compares only the
    /// tables that share the name's last segment, not all of them.
    pub fn table_index(&self) -> TableIndex<'_> {
        let mut by_last_segment: HashMap<String, Vec<usize>> = HashMap::new();
        for (position, table) in self.tables.iter().enumerate() {
            by_last_segment
                .entry(last_segment(&table.name))
                .or_default()
                .push(position);
        }
        TableIndex {
            tables: &self.tables,
            by_last_segment,
        }
    }

    /// The settings a table is judged with: table entries over global ones over defaults.
    pub fn settings_for(&self, table: &str) -> Settings {
        self.settings_of(self.table(table))
    }

    /// The settings of a table without an entry of its own: the file's globals over defaults.
    pub fn global_settings(&self) -> Settings {
        self.settings_of(None)
    }

    /// The settings of `entry`, one of this file's tables, found already.
    pub fn settings_of(&self, entry: Option<&TableConfig>) -> Settings {
        let mut settings = Settings::new(
            entry.and_then(|t| t.mapping).unwrap_or_default(),
            entry
                .and_then(|t| t.compatibility)
                .or(self.compatibility)
                .unwrap_or(Compatibility::BACKWARD),
        );
        for setting in self
            .rules
            .iter()
            .chain(entry.into_iter().flat_map(|t| &t.rules))
        {
            if let Some(severity) = setting.severity {
                settings.severities.insert(setting.rule.clone(), severity);
            }
            for option in &setting.options {
                let options = &mut settings.options;
                match option {
                    RuleOption::WindowDays(days) => options.name_reuse_window_days = Some(*days),
                    RuleOption::RequireDeprecationDays(days) => {
                        options.require_deprecation_days = Some(*days)
                    }
                    RuleOption::DeprecationMark(mark) => options.deprecation_mark = mark.clone(),
                }
            }
        }
        settings
    }
}

/// A path of `fieldgate.yaml` made relative to the repository root: `dir` is the directory of
/// the configuration file, relative to the root. Resolved lexically, so a path that leaves the
/// repository (`../elsewhere`, `/abs/path`) is refused whether or not it exists.
pub fn repo_path(dir: &Path, path: &str) -> Result<PathBuf, String> {
    let given = Path::new(path);
    if given.is_absolute() || path.starts_with('/') || path.starts_with('\\') {
        return Err(format!(
            "`{path}` is an absolute path: write it relative to {CONFIG_FILE}, inside the repository"
        ));
    }
    let mut out = PathBuf::new();
    for component in dir.join(given).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return Err(format!("`{path}` points outside the repository"));
                }
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!("`{path}` points outside the repository"));
            }
        }
    }
    Ok(out)
}

impl Config {
    /// Where each table's metadata must be, relative to the repository root (`None` for a table
    /// that lives only in its catalog), with located errors for a missing `metadata`, a path
    /// outside the repository, or one for which `exists` (asked with the repository-relative
    /// path) says no.
    pub fn locations(
        &self,
        dir: &Path,
        exists: &dyn Fn(&Path) -> bool,
    ) -> Result<Vec<Option<PathBuf>>, Vec<ConfigError>> {
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for table in &self.tables {
            if table.live_only() {
                out.push(None);
                continue;
            }
            let Some(metadata) = &table.metadata else {
                errors.push(ConfigError {
                    span: table.name_span,
                    message: format!("`{}` has no `metadata`", table.name),
                    help: Some(
                        "give the table's `*.metadata.json` file or its table directory, or the `catalog:` it lives in".into(),
                    ),
                });
                continue;
            };
            match repo_path(dir, metadata) {
                Ok(path) if exists(&path) => out.push(Some(path)),
                Ok(path) => errors.push(ConfigError {
                    span: table.metadata_span,
                    message: format!(
                        "the metadata of `{}` is not there: `{}` does not exist",
                        table.name,
                        path.display()
                    ),
                    help: Some(
                        "give the path of a `*.metadata.json` file or an Iceberg table directory, relative to fieldgate.yaml".into(),
                    ),
                }),
                Err(message) => errors.push(ConfigError {
                    span: table.metadata_span,
                    message,
                    help: None,
                }),
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(errors)
        }
    }
}

impl Config {
    /// The `proposals` globs relative to the repository root (`dir` is the configuration's
    /// directory), with a located error for each that leaves the repository.
    pub fn proposal_globs(&self, dir: &Path) -> Result<Vec<String>, Vec<ConfigError>> {
        let mut globs = Vec::new();
        let mut errors = Vec::new();
        for (pattern, span) in self.proposals.iter().zip(&self.proposal_spans) {
            match glob::from_dir(dir, pattern) {
                Ok(glob) => globs.push(glob),
                Err(message) => errors.push(ConfigError {
                    span: *span,
                    message,
                    help: Some(
                        "`proposals` globs match files of the repository, relative to fieldgate.yaml"
                            .into(),
                    ),
                }),
            }
        }
        if errors.is_empty() {
            Ok(globs)
        } else {
            Err(errors)
        }
    }
}

/// A configuration's tables by the lowercased last segment of their names, which any two names
/// of the same table share.
pub struct TableIndex<'c> {
    tables: &'c [TableConfig],
    by_last_segment: HashMap<String, Vec<usize>>,
}

impl<'c> TableIndex<'c> {
    /// The positions of every table `name` can mean, in configuration order.
    pub fn positions(&self, name: &str) -> Vec<usize> {
        self.by_last_segment
            .get(&last_segment(name))
            .into_iter()
            .flatten()
            .copied()
            .filter(|&p| {
                self.tables
                    .get(p)
                    .is_some_and(|t| same_table(&t.name, name))
            })
            .collect()
    }

    /// The first table `name` can mean, as [`Config::table`] finds it.
    pub fn table(&self, name: &str) -> Option<&'c TableConfig> {
        self.positions(name)
            .first()
            .and_then(|&p| self.tables.get(p))
    }
}

fn to_span(span: yaml::Span) -> Span {
    Span::from_range(span.start, span.end)
}

fn error(node: &YamlNode, message: String, help: Option<String>) -> ConfigError {
    ConfigError {
        span: to_span(node.span),
        message,
        help,
    }
}

fn unknown_key(span: yaml::Span, key: &str, known: &[&str]) -> ConfigError {
    let help = closest(key, known.iter().copied())
        .map(|s| format!("did you mean `{s}`?"))
        .or_else(|| Some(format!("known keys: {}", known.join(", "))));
    ConfigError {
        span: to_span(span),
        message: format!("unknown key `{key}`"),
        help,
    }
}

fn strings(node: &YamlNode, what: &str, errors: &mut Vec<ConfigError>) -> Vec<String> {
    let Some(items) = node.as_seq() else {
        errors.push(error(
            node,
            format!(
                "{what} must be a list of strings, found {}",
                node.kind_name()
            ),
            None,
        ));
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| match item.as_str() {
            Some(s) => Some(s.to_string()),
            None => {
                errors.push(error(
                    item,
                    format!("{what} must hold strings, found {}", item.kind_name()),
                    None,
                ));
                None
            }
        })
        .collect()
}

fn enum_value<T>(
    node: &YamlNode,
    what: &str,
    known: &[&str],
    parse: impl Fn(&str) -> Option<T>,
    errors: &mut Vec<ConfigError>,
) -> Option<T> {
    let text = node.as_str();
    match text.and_then(&parse) {
        Some(value) => Some(value),
        None => {
            let shown = text.map_or_else(|| node.kind_name().to_string(), |t| format!("`{t}`"));
            let help = text
                .and_then(|t| closest(t, known.iter().copied()))
                .map(|s| format!("did you mean `{s}`?"));
            errors.push(error(
                node,
                format!(
                    "unknown {what} {shown} (expected one of: {})",
                    known.join(", ")
                ),
                help,
            ));
            None
        }
    }
}

fn compatibility(node: &YamlNode, errors: &mut Vec<ConfigError>) -> Option<Compatibility> {
    let known = [
        "backward",
        "forward",
        "full",
        "backward-transitive",
        "forward-transitive",
        "full-transitive",
    ];
    enum_value(node, "compatibility", &known, Compatibility::parse, errors)
}

fn tables(node: &YamlNode, source: &Source, errors: &mut Vec<ConfigError>) -> Vec<TableConfig> {
    let Some(entries) = node.as_map() else {
        errors.push(error(
            node,
            format!(
                "`tables` must map table names to settings, found {}",
                node.kind_name()
            ),
            None,
        ));
        return Vec::new();
    };
    let mut out: Vec<TableConfig> = Vec::new();
    // Names that can be the same table share their last segment; comparing only those keeps a
    // repository of 10,000 tables from 50 million comparisons.
    let mut by_last_segment: HashMap<String, Vec<usize>> = HashMap::new();
    for entry in entries {
        let twin = by_last_segment
            .get(&last_segment(&entry.key))
            .and_then(|positions| {
                positions
                    .iter()
                    .filter_map(|&p| out.get(p))
                    .find(|t| same_table(&t.name, &entry.key))
            });
        if let Some(other) = twin {
            errors.push(ConfigError {
                span: to_span(entry.key_span),
                message: format!("`{}` and `{}` name the same table", entry.key, other.name),
                help: Some("give each table once, by one name".into()),
            });
            continue;
        }
        let mut table = unset_table(entry, source);
        match entry.value.as_map() {
            Some(settings) => {
                for setting in settings {
                    table_setting(&mut table, setting, errors);
                }
            }
            None if entry.value.is_null() => {}
            None => errors.push(error(
                &entry.value,
                format!("the settings of `{}` must be a mapping", entry.key),
                None,
            )),
        }
        by_last_segment
            .entry(last_segment(&entry.key))
            .or_default()
            .push(out.len());
        out.push(table);
    }
    out
}

/// The table named by an entry's key, before any of its settings is read.
fn unset_table(entry: &yaml::YamlEntry, source: &Source) -> TableConfig {
    TableConfig {
        name: entry.key.clone(),
        name_span: to_span(entry.key_span),
        metadata: None,
        metadata_span: to_span(entry.key_span),
        mapping: None,
        mapping_span: None,
        compatibility: None,
        compatibility_span: None,
        rules: Vec::new(),
        sample: None,
        catalog: None,
        identifier: None,
        source: source.clone(),
    }
}

/// One setting of a table's entry in `tables:`.
fn table_setting(
    table: &mut TableConfig,
    setting: &yaml::YamlEntry,
    errors: &mut Vec<ConfigError>,
) {
    let value = &setting.value;
    match setting.key.as_str() {
        "metadata" => match value.as_str() {
            Some(path) => {
                table.metadata = Some(path.to_string());
                table.metadata_span = to_span(value.span);
            }
            None => errors.push(error(value, "`metadata` must be a path".into(), None)),
        },
        "mapping" => {
            table.mapping_span = Some(to_span(value.span));
            table.mapping = enum_value(
                value,
                "mapping",
                &["field-id", "name", "position"],
                Mapping::parse,
                errors,
            )
        }
        "compatibility" => {
            table.compatibility = compatibility(value, errors);
            table.compatibility_span = Some(to_span(value.span));
        }
        "rules" => table.rules = rule_settings::rules(value, errors),
        "sample" => table.sample = sample::sample(value, errors),
        "catalog" => table.catalog = named(value, "catalog", errors),
        "identifier" => table.identifier = named(value, "identifier", errors),
        other => errors.push(unknown_key(
            setting.key_span,
            other,
            &[
                "metadata",
                "mapping",
                "compatibility",
                "rules",
                "sample",
                "catalog",
                "identifier",
            ],
        )),
    }
}

/// `text` read as the `fieldgate.yaml`, for the tests of every module that reads one.
#[cfg(test)]
pub(crate) fn parse_text(text: &str) -> Result<Config, Vec<ConfigError>> {
    Config::parse(std::sync::Arc::new(crate::change::SourceFile {
        name: CONFIG_FILE.into(),
        text: text.into(),
    }))
}

/// [`parse_text`] of a configuration the test means to be valid.
#[cfg(test)]
pub(crate) fn test_config(text: &str) -> Config {
    parse_text(text).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;

    fn snippet<'a>(text: &'a str, e: &ConfigError) -> &'a str {
        &text[e.span.offset..e.span.end()]
    }

    #[test]
    fn the_table_index_finds_what_a_scan_of_every_table_finds() {
        let config =
            parse_text("tables:\n  lake.db.users: {}\n  db.Orders: {}\n  staging.users: {}\n")
                .unwrap();
        let index = config.table_index();
        for name in [
            "users",
            "db.users",
            "DB.USERS",
            "orders",
            "lake.db.orders",
            "events",
        ] {
            let scanned: Vec<usize> = (0..config.tables.len())
                .filter(|&i| same_table(&config.tables[i].name, name))
                .collect();
            assert_eq!(index.positions(name), scanned, "{name}");
            assert_eq!(
                index.table(name).map(|t| &t.name),
                config.table(name).map(|t| &t.name),
                "{name}"
            );
        }
        assert_eq!(index.positions("users"), [0, 2]);
    }

    #[test]
    fn two_names_of_one_table_are_an_error_and_namesakes_in_other_schemas_are_not() {
        let text = "tables:\n  db.users:\n    metadata: a\n  db2.users:\n    metadata: b\n  USERS:\n    metadata: c\n  cat.db.users:\n    metadata: d\n  orders:\n    metadata: e\n";
        let errors = parse_text(text).map(|_| ()).unwrap_err();
        let named: Vec<&str> = errors.iter().map(|e| snippet(text, e)).collect();
        assert_eq!(named, vec!["USERS", "cat.db.users"]);
        assert!(errors[1].message.contains("`cat.db.users` and `db.users`"));
    }

    #[test]
    fn reads_the_documented_example() {
        let config = parse_text(
            "tables:\n  lake_prod.dim_users:\n    metadata: tables/dim_users/metadata.json\n  lake_prod.legacy:\n    metadata: warehouse/legacy.yaml\n    mapping: position\n    rules: {column-rename: off}\nproposals:\n  - migrations/**/*.sql\ndialect: trino\ncompatibility: full-transitive\nrules:\n  column-drop: error\n  name-reuse: {severity: warning}\n",
        )
        .unwrap();
        assert_eq!(config.tables.len(), 2);
        assert_eq!(config.dialect, Some(Dialect::Trino));
        let legacy = config.settings_for("legacy");
        assert_eq!(legacy.mapping, Mapping::Position);
        assert!(legacy.compatibility.transitive && legacy.compatibility.forward);
        assert_eq!(legacy.severity("column-rename"), None);
        assert_eq!(legacy.severity("column-drop"), Some(Severity::Error));
        assert_eq!(legacy.severity("name-reuse"), Some(Severity::Warning));
        assert_eq!(
            config.settings_for("lake_prod.dim_users").mapping,
            Mapping::FieldId
        );
    }

    #[test]
    fn unknown_keys_rules_and_values_are_located_errors() {
        let text = "tabels: {}\nrules:\n  colum-drop: error\n  column-rename: loud\ntables:\n  t:\n    maping: name\n  T: {}\n";
        let errors = parse_text(text).unwrap_err();
        let found: Vec<(&str, Option<&str>)> = errors
            .iter()
            .map(|e| (snippet(text, e), e.help.as_deref()))
            .collect();
        assert_eq!(
            found,
            [
                ("tabels", Some("did you mean `tables`?")),
                ("colum-drop", Some("did you mean `column-drop`?")),
                ("loud", None),
                ("maping", Some("did you mean `mapping`?")),
                ("T", Some("give each table once, by one name")),
            ]
        );
    }

    #[test]
    fn rule_options_are_read_and_validated() {
        let text = "rules:\n  name-reuse: {severity: error, window-days: 30}\n  column-drop: {require-deprecation-days: 14, deprecation-mark: DEPRECATED}\ntables:\n  t:\n    rules:\n      name-reuse: {window-days: 7}\n";
        let config = parse_text(text).unwrap();
        let global = config.settings_for("other");
        assert_eq!(global.options.name_reuse_window_days, Some(30));
        assert_eq!(global.options.require_deprecation_days, Some(14));
        assert_eq!(global.options.deprecation_mark, "DEPRECATED");
        assert_eq!(global.severity("column-drop"), Some(Severity::Warning));
        let table = config.settings_for("t");
        assert_eq!(table.options.name_reuse_window_days, Some(7));
        assert_eq!(table.severity("name-reuse"), Some(Severity::Error));

        let text = "rules:\n  name-reuse: {window-day: 30}\n  column-drop: {require-deprecation-days: -1}\n  column-rename: {window-days: 3}\n";
        let errors = parse_text(text).unwrap_err();
        let found: Vec<(&str, Option<&str>)> = errors
            .iter()
            .map(|e| (snippet(text, e), e.help.as_deref()))
            .collect();
        assert_eq!(
            found,
            [
                ("window-day", Some("did you mean `window-days`?")),
                ("-1", Some("for example `require-deprecation-days: 30`")),
                ("window-days", Some("known keys: severity")),
            ]
        );
    }

    #[test]
    fn samples_are_a_count_or_a_list_of_paths() {
        let text =
            "tables:\n  a:\n    sample: 3\n  b:\n    sample: [data/b/*.parquet, data/x.parquet]\n";
        let config = parse_text(text).unwrap();
        let a = config.table("a").and_then(|t| t.sample.clone()).unwrap();
        assert_eq!(a.kind, SampleKind::Count(3));
        assert_eq!(
            snippet(
                text,
                &ConfigError {
                    span: a.span,
                    message: String::new(),
                    help: None
                }
            ),
            "3"
        );
        let b = config.table("b").and_then(|t| t.sample.clone()).unwrap();
        let SampleKind::Paths(paths) = b.kind else {
            panic!("a list of paths: {b:?}");
        };
        let named: Vec<&str> = paths
            .iter()
            .map(|(p, span)| {
                assert_eq!(&text[span.offset..span.end()], p);
                p.as_str()
            })
            .collect();
        assert_eq!(named, ["data/b/*.parquet", "data/x.parquet"]);

        let text = "tables:\n  a:\n    sample: 0\n  b:\n    sample: data/x.parquet\n  c:\n    sample: [1, '']\n  d:\n    sample: []\n  e:\n    sampel: 2\n";
        let errors = parse_text(text).unwrap_err();
        let found: Vec<(&str, &str)> = errors
            .iter()
            .map(|e| (snippet(text, e), e.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "0",
                    "`sample` must be a number of data files (at least 1) or a list of paths, found `0`"
                ),
                (
                    "data/x.parquet",
                    "`sample` must be a number of data files (at least 1) or a list of paths, found `data/x.parquet`"
                ),
                ("1", "`sample` lists paths of Parquet files, found integer"),
                ("''", "`sample` lists paths of Parquet files, found string"),
                ("[]", "`sample` lists no file"),
                ("sampel", "unknown key `sampel`"),
            ]
        );
        assert_eq!(errors[5].help.as_deref(), Some("did you mean `sample`?"));
    }

    #[test]
    fn metadata_paths_stay_inside_the_repository_and_must_exist() {
        let text = "tables:\n  a:\n    metadata: warehouse/a\n  b:\n    metadata: ../../outside/b\n  c:\n    metadata: /etc/c.metadata.json\n  d:\n    metadata: ./sub/../warehouse/d\n  e: {}\n";
        let config = parse_text(text).unwrap();
        let exists = |p: &Path| p == Path::new("conf/warehouse/a");
        let errors = config.locations(Path::new("conf"), &exists).unwrap_err();
        let found: Vec<(&str, &str)> = errors
            .iter()
            .map(|e| (snippet(text, e), e.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "../../outside/b",
                    "`../../outside/b` points outside the repository"
                ),
                (
                    "/etc/c.metadata.json",
                    "`/etc/c.metadata.json` is an absolute path: write it relative to fieldgate.yaml, inside the repository"
                ),
                (
                    "./sub/../warehouse/d",
                    "the metadata of `d` is not there: `conf/warehouse/d` does not exist"
                ),
                ("e", "`e` has no `metadata`"),
            ]
        );
        assert_eq!(
            repo_path(Path::new("conf"), "../b").unwrap(),
            PathBuf::from("b")
        );
    }
}
