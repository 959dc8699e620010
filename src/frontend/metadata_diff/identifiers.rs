//! A change of the current schema's identifier fields, as the one statement that sets (or drops)
//! them would make it.

use super::Diff;
use crate::change::{Applied, AppliedKind};
use crate::iceberg::pair::Members;
use crate::iceberg::types::FieldId;

impl Diff<'_> {
    pub(super) fn identifier_change(&self) -> Option<Applied> {
        let old_ids = &self.base.current_schema().identifier_field_ids;
        let new_ids = &self.proposed.current_schema().identifier_field_ids;
        let (mut a, mut b) = (old_ids.clone(), new_ids.clone());
        a.sort_unstable();
        b.sort_unstable();
        if a == b {
            return None;
        }
        let (kind, from, to) = if new_ids.is_empty() {
            let from = Some(names(old_ids, &self.before));
            (AppliedKind::DropIdentifierFields, from, None)
        } else {
            let to = Some(names(new_ids, &self.after));
            (AppliedKind::SetIdentifierFields, None, to)
        };
        let at = self
            .current()
            .and_then(|s| s.identifiers)
            .unwrap_or_else(|| self.schema_anchor());
        let path = from.clone().or(to.clone()).unwrap_or_default();
        let mut applied = Applied::new(kind, None, path, from, to);
        applied.origin = Some(self.origin(at));
        Some(applied)
    }
}

fn names(ids: &[FieldId], members: &Members<'_>) -> String {
    ids.iter()
        .map(|&id| members.get(id).map_or(id.to_string(), |m| members.path(m)))
        .collect::<Vec<_>>()
        .join(", ")
}
