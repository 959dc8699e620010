//! The live side of a catalog table, shared by `pull` and `check --live`: one client per
//! catalog (connected on first use), one LoadTable per table, the result read as the pinned
//! copy it would be, and compared by meaning with a pinned copy at hand.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::catalog::connect::{connect, resolve};
use crate::catalog::http::UreqHttp;
use crate::catalog::rest::RestClient;
use crate::change::{Origin, Source, SourceFile};
use crate::commands::failure::Failure;
use crate::commands::input::parse_metadata;
use crate::finding::{Finding, Severity};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::pinned::{changes, pinned_copy, same_state};
use crate::repo::config::{Config, TableConfig};

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

/// The catalogs of one run, each connected once.
#[derive(Default)]
pub struct Catalogs {
    clients: HashMap<String, RestClient<UreqHttp>>,
}

impl Catalogs {
    /// The live table behind `table`'s `catalog:` entry, as a pinned copy.
    pub fn load(&mut self, config: &Config, table: &TableConfig) -> Result<Pinned, Failure> {
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
        let client = &self.clients[&name];
        let identifier: Vec<String> = table
            .catalog_identifier()
            .split('.')
            .map(str::to_string)
            .collect();
        let loaded = client.load_table(&identifier).map_err(|e| e.message)?;
        let members = pinned_copy(loaded.metadata.as_object().unwrap_or(&Map::new()));
        let text = render(&members);
        // What the catalog sent goes through the same strict reader as every metadata file.
        let source = Source::new(SourceFile {
            name: format!("table `{}` as catalog `{name}` returned it", table.name),
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

/// `check --live`: a `live-drift` finding when the base's pinned copy of `table` (`base`, `None`
/// when the base has none) is not the live table, located at the table's `catalog:` entry.
pub fn drift_finding(
    catalogs: &mut Catalogs,
    config: &Config,
    table: &TableConfig,
    base: Option<&Source>,
    severity: Severity,
) -> Result<Option<Finding>, Failure> {
    let live = catalogs.load(config, table)?;
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
