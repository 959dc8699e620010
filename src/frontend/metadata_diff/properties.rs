//! The table properties a proposed metadata file changes, as the property statements that would
//! have made them: a `SET` for each property the file adds or gives another value, an `UNSET` for
//! each it no longer has, each at its place in the file (a removed one at `properties`), so the
//! property rules judge an engine-written file as they judge `SET TBLPROPERTIES`.

use std::collections::HashMap;

use super::Diff;
use crate::change::{Applied, AppliedKind, PropertyEdit, Span};

impl Diff<'_> {
    pub(super) fn property_changes(&self) -> Vec<Applied> {
        let before = by_key(&self.base.properties);
        let after = by_key(&self.proposed.properties);
        let mut out = Vec::new();
        for (key, value) in &self.proposed.properties {
            let was = before.get(key.as_str()).copied();
            if was == Some(value.as_str()) || after.get(key.as_str()) != Some(&value.as_str()) {
                continue;
            }
            let at = self.properties.members.get(key).copied();
            let at = at.unwrap_or_else(|| self.properties_anchor());
            let edit = (key.as_str(), was, Some(value.as_str()));
            out.push(self.property_edit(AppliedKind::SetProperties, at, edit));
        }
        for (key, value) in &self.base.properties {
            if !after.contains_key(key.as_str())
                && before.get(key.as_str()) == Some(&value.as_str())
            {
                let edit = (key.as_str(), Some(value.as_str()), None);
                let at = self.properties_anchor();
                out.push(self.property_edit(AppliedKind::UnsetProperties, at, edit));
            }
        }
        out
    }

    /// The `properties` key, or the file's start when the file has none.
    fn properties_anchor(&self) -> Span {
        self.properties.object.unwrap_or(Span::new(0, 0))
    }

    fn property_edit(
        &self,
        kind: AppliedKind,
        at: Span,
        (key, before, after): (&str, Option<&str>, Option<&str>),
    ) -> Applied {
        let mut applied = Applied::new(kind, None, key.to_string(), None, None);
        applied.origin = Some(self.origin(at));
        applied.properties = vec![PropertyEdit {
            key: key.to_string(),
            before: before.map(str::to_string),
            after: after.map(str::to_string),
        }];
        applied
    }
}

/// Each property's value as readers see it: the first of a repeated key, as
/// [`TableMetadata::property`](crate::iceberg::metadata::TableMetadata::property) reads it.
fn by_key(properties: &[(String, String)]) -> HashMap<&str, &str> {
    let mut out = HashMap::with_capacity(properties.len());
    for (key, value) in properties {
        out.entry(key.as_str()).or_insert(value.as_str());
    }
    out
}
