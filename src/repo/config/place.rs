//! Where an entry of `fieldgate.yaml` says its table is, as a key two entries share when they
//! name the same table: an entry renamed by a change (`db.orders` deleted, `db.orders_v2` added
//! with the same `metadata`) is still that table, judged by what the base's entry set for it.

use std::collections::HashMap;
use std::path::{Component, Path};

use super::{Config, TableConfig};

/// The table an entry's `metadata` names, spelled one way: `.` and `..` resolved lexically
/// (a `..` that climbs above the configuration's directory is kept, both files share that
/// directory), no trailing slash, and a metadata file in a table's `metadata/` directory
/// standing for the table directory. `None` when the entry has no `metadata`.
pub fn place(entry: &TableConfig) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for component in Path::new(entry.metadata.as_deref()?).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if parts.last().is_some_and(|p| p != "..") => {
                parts.pop();
            }
            Component::ParentDir => parts.push("..".into()),
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) => parts.push(String::new()),
        }
    }
    let in_metadata_dir = parts.len() >= 2 && parts[parts.len() - 2] == "metadata";
    if in_metadata_dir && parts.last().is_some_and(|f| f.ends_with(".json")) {
        parts.truncate(parts.len() - 2);
    }
    Some(parts.join("/"))
}

impl Config {
    /// The entry of this configuration (the base's) that speaks for `entry` (the change's): the
    /// one of the same name, else the first at the same place, so renaming an entry, or adding
    /// a second name for a table, keeps the table's own settings.
    pub fn counterpart(&self, entry: &TableConfig) -> Option<&TableConfig> {
        self.table(&entry.name).or_else(|| {
            let at = place(entry)?;
            self.tables
                .iter()
                .find(|t| place(t).as_deref() == Some(at.as_str()))
        })
    }

    /// The entries by place, each place's entries in configuration order.
    pub fn by_place(&self) -> HashMap<String, Vec<&TableConfig>> {
        let mut out: HashMap<String, Vec<&TableConfig>> = HashMap::new();
        for entry in &self.tables {
            if let Some(at) = place(entry) {
                out.entry(at).or_default().push(entry);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::place;
    use crate::repo::config::test_config as config;

    #[test]
    fn spellings_of_one_table_share_a_place() {
        let c = config(
            "tables:\n  a: {metadata: warehouse/db/t}\n  b: {metadata: ./warehouse/x/../db/t/}\n  c: {metadata: warehouse/db/t/metadata/v3.metadata.json}\n  d: {metadata: ../up/t}\n  e: {metadata: warehouse/db/u}\n",
        );
        let places: Vec<String> = c.tables.iter().filter_map(place).collect();
        assert_eq!(
            places,
            [
                "warehouse/db/t",
                "warehouse/db/t",
                "warehouse/db/t",
                "../up/t",
                "warehouse/db/u"
            ]
        );
    }

    #[test]
    fn a_renamed_entry_speaks_for_the_table_at_its_place() {
        let base = config(
            "tables:\n  db.orders: {metadata: warehouse/db/orders, compatibility: full}\n  db.users: {metadata: warehouse/db/users}\n",
        );
        let head = config(
            "tables:\n  db.orders_v2: {metadata: warehouse/db/orders/}\n  users: {metadata: warehouse/db/users}\n  db.new: {metadata: warehouse/db/new}\n",
        );
        let names: Vec<Option<&str>> = head
            .tables
            .iter()
            .map(|t| base.counterpart(t).map(|b| b.name.as_str()))
            .collect();
        assert_eq!(names, [Some("db.orders"), Some("db.users"), None]);
    }
}
