//! The table properties a proposed metadata file changes, as the property statements that would
//! have made them: a `SET` for each property the file adds or gives another value, an `UNSET` for
//! each it no longer has, each at its place in the file (a removed one at `properties`), so the
//! property rules judge an engine-written file as they judge `SET TBLPROPERTIES`.

use std::collections::{HashMap, HashSet};

use super::Diff;
use crate::change::{Applied, AppliedKind, PropertyEdit, Span};

impl Diff<'_> {
    /// The JSON and YAML readers refuse a repeated key, so each list holds a key once.
    pub(super) fn property_changes(&self) -> Vec<Applied> {
        let before: HashMap<&str, &str> = self
            .base
            .properties
            .iter()
            .map(|(key, value)| (key.as_str(), value.as_str()))
            .collect();
        let after: HashSet<&str> = self
            .proposed
            .properties
            .iter()
            .map(|(key, _)| key.as_str())
            .collect();
        let mut out = Vec::new();
        for (key, value) in &self.proposed.properties {
            let was = before.get(key.as_str()).copied();
            if was == Some(value.as_str()) {
                continue;
            }
            let at = self.properties.members.get(key).copied();
            let at = at.unwrap_or_else(|| self.properties_anchor());
            let edit = (key.as_str(), was, Some(value.as_str()));
            out.push(self.property_edit(AppliedKind::SetProperties, at, edit));
        }
        for (key, value) in &self.base.properties {
            if !after.contains(key.as_str()) {
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
