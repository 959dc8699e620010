//! The live side of a catalog table, shared by `pull` and `check --live`: one client per
//! catalog (connected on first use), one LoadTable per table, the result read as the pinned
//! copy it would be, and compared by meaning with a pinned copy at hand.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::catalog::connect::{connect, resolve};
use crate::catalog::http::UreqHttp;
use crate::catalog::rest::{LoadedTable, RestClient};
use crate::change::{Origin, Source, SourceFile};
use crate::failure::Failure;
use crate::finding::{Finding, Severity};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::pinned::{changes, pinned_copy, same_state};
use crate::repo::config::{Config, TableConfig};
use crate::session::input::parse_metadata;
use crate::storage::ObjectReader;

/// A table as a pinned copy: its text as `pull` writes it, the members, the typed view.
pub struct Pinned {
    pub text: String,
    pub members: Map<String, Value>,
    pub metadata: TableMetadata,
}

impl Pinned {
    /// Reads a pinned copy (or any metadata file) as `pull` would have written it.
    pub fn from_source(source: &Source) -> Result<Pinned, Failure> {
        let metadata = parse_metadata(source)?;
        let members = serde_json::from_str::<Value>(&source.text)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        let members = pinned_copy(&members);
        Ok(Pinned {
            text: render(&members),
            members,
            metadata,
        })
    }

    /// What differs from `self` (the pinned copy) to `live`; empty when they are the same table.
    pub fn changes_to(&self, live: &Pinned) -> Vec<String> {
        if same_state(&self.members, &live.members) {
            return Vec::new();
        }
        let found = changes(
            (&self.metadata, &self.members),
            (&live.metadata, &live.members),
        );
        if found.is_empty() {
            return vec!["the metadata differs".into()];
        }
        found
    }
}

fn render(members: &Map<String, Value>) -> String {
    let mut text =
        serde_json::to_string_pretty(&Value::Object(members.clone())).unwrap_or_default();
    text.push('\n');
    text
}

/// The catalogs of one run, each connected once, and the tables loaded from them, each once.
#[derive(Default)]
pub struct Catalogs {
    clients: HashMap<String, RestClient<UreqHttp>>,
    loaded: HashMap<String, LoadedTable>,
}

/// A catalog table as it is now, with its snapshots, and the reader for its object storage.
pub struct LiveTable {
    pub source: Source,
    pub metadata: TableMetadata,
    pub objects: ObjectReader,
    /// Where the catalog says the current metadata file is, when it says.
    pub metadata_location: Option<String>,
}

impl Catalogs {
    /// The client of `table`'s catalog, connected on first use.
    pub fn client(
        &mut self,
        config: &Config,
        table: &TableConfig,
    ) -> Result<&RestClient<UreqHttp>, Failure> {
        let name = table
            .catalog
            .as_ref()
            .map(|(c, _)| c.clone())
            .unwrap_or_default();
        if !self.clients.contains_key(&name) {
            let catalog = config
                .catalogs
                .iter()
                .find(|c| c.name == name)
                .ok_or_else(|| Failure::Message(format!("there is no catalog `{name}`")))?;
            let env = |var: &str| std::env::var(var).ok();
            let client = resolve(catalog, &env)
                .and_then(connect)
                .map_err(|e| e.message)?;
            self.clients.insert(name.clone(), client);
        }
        Ok(&self.clients[&name])
    }

    /// The live table behind `table`'s `catalog:` entry, as a pinned copy.
    pub fn load(&mut self, config: &Config, table: &TableConfig) -> Result<Pinned, Failure> {
        let (loaded, client) = self.loaded(config, table)?;
        Pinned::from_live(table, &client.name, &loaded.metadata)
    }

    /// LoadTable for `table`, sent once per run however often it is asked for.
    fn loaded(
        &mut self,
        config: &Config,
        table: &TableConfig,
    ) -> Result<(&LoadedTable, &RestClient<UreqHttp>), Failure> {
        if !self.loaded.contains_key(&table.name) {
            let client = self.client(config, table)?;
            let loaded = client
                .load_table(&identifier(table))
                .map_err(|e| e.message)?;
            self.loaded.insert(table.name.clone(), loaded);
        }
        let catalog = table.catalog.as_ref().map_or("", |(c, _)| c.as_str());
        Ok((&self.loaded[&table.name], &self.clients[catalog]))
    }

    /// The live table with its snapshots, its files read from object storage with the catalog's
    /// properties, the table's `config` and the credentials vended for its location.
    pub fn live_table(
        &mut self,
        config: &Config,
        table: &TableConfig,
    ) -> Result<LiveTable, Failure> {
        let (loaded, client) = self.loaded(config, table)?;
        let text = serde_json::to_string_pretty(&loaded.metadata).unwrap_or_default();
        let source = Source::new(SourceFile {
            name: format!(
                "table `{}` as catalog `{}` returned it",
                table.name, client.name
            ),
            text,
        });
        let metadata = parse_metadata(&source)?;
        let properties = loaded.storage_properties(&client.storage, &metadata.location);
        let env = |var: &str| std::env::var(var).ok();
        let objects = ObjectReader::new(&properties, &env, client.redactor.clone())?;
        Ok(LiveTable {
            source,
            metadata,
            objects,
            metadata_location: loaded.metadata_location.clone(),
        })
    }
}

/// `table`'s identifier in its catalog, split at dots.
pub fn identifier(table: &TableConfig) -> Vec<String> {
    table
        .catalog_identifier()
        .split('.')
        .map(str::to_string)
        .collect()
}

impl Pinned {
    /// The pinned copy of a table's metadata as its catalog sent it, read through the same
    /// strict reader as every metadata file.
    pub fn from_live(
        table: &TableConfig,
        catalog: &str,
        metadata: &Value,
    ) -> Result<Pinned, Failure> {
        let members = pinned_copy(metadata.as_object().unwrap_or(&Map::new()));
        let text = render(&members);
        let source = Source::new(SourceFile {
            name: format!("table `{}` as catalog `{catalog}` returned it", table.name),
            text: text.clone(),
        });
        let metadata = parse_metadata(&source)?;
        Ok(Pinned {
            text,
            members,
            metadata,
        })
    }
}

/// The base's configuration (`trusted`) when it defines `table`'s catalog: a pull request
/// controls the change's `fieldgate.yaml`, and must not choose the address the credentials are
/// sent to.
pub fn trusted_config<'a>(
    trusted: Option<&'a Config>,
    table: &TableConfig,
) -> Result<&'a Config, Failure> {
    let catalog = table.catalog.as_ref().map_or("", |(c, _)| c.as_str());
    trusted
        .filter(|c| c.catalogs.iter().any(|d| d.name == catalog))
        .ok_or_else(|| {
            Failure::Message(format!(
                "`{}` is in catalog `{catalog}`, which the base commit's fieldgate.yaml does not define: `check` reaches only the catalogs of the base's configuration, so a pull request cannot choose where credentials are sent (land the catalog's entry first)",
                table.name
            ))
        })
}

/// `check --live`: a `live-drift` finding when the base's pinned copy of `table` (`base`, `None`
/// when the base has none) is not the live table, located at the table's `catalog:` entry.
/// The catalog is the one the base's configuration (`trusted`) defines, and the catalog table
/// the one its `entry` names: a pull request controls the change's `fieldgate.yaml`, and must
/// not choose the address the credentials are sent to, nor which table it is compared with.
pub fn drift_finding(
    catalogs: &mut Catalogs,
    trusted: Option<&Config>,
    (table, entry): (&TableConfig, &TableConfig),
    base: Option<&Source>,
    severity: Severity,
) -> Result<Option<Finding>, Failure> {
    let config = trusted_config(trusted, entry)?;
    let live = catalogs.load(config, entry)?;
    let pull = format!("fieldgate pull {}", table.name);
    let (message, help) = match base {
        None => (
            format!(
                "{}: the base has no pinned copy of the live table",
                table.name
            ),
            format!(
                "run `{pull}`, commit the pinned copy it writes on the base branch, and re-run the check"
            ),
        ),
        Some(source) => {
            let changes = Pinned::from_source(source)?.changes_to(&live);
            if changes.is_empty() {
                return Ok(None);
            }
            (
                format!(
                    "{}: the table was changed outside the repository since it was pulled: {}",
                    table.name,
                    changes.join("; ")
                ),
                format!(
                    "run `{pull}` on the base branch and commit the pinned copy, then rebase this change onto it and re-review it against the table as it is"
                ),
            )
        }
    };
    let origin = table.catalog.as_ref().map(|(_, span)| Origin {
        source: table.source.clone(),
        statement: *span,
        focus: *span,
    });
    Ok(Some(Finding {
        rule: "live-drift",
        severity,
        message,
        table: table.name.clone(),
        field: None,
        field_id: None,
        origin,
        help: Some(help),
        related: Vec::new(),
    }))
}
