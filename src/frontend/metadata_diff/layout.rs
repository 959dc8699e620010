//! Adds (the top of each new subtree) and moves, struct by struct in the proposal's order: a
//! field is moved when it is not in the longest run of fields that kept their relative order.

use super::Diff;
use crate::change::{Applied, AppliedKind};
use crate::frontend::longest_increasing;
use crate::iceberg::schema::{FieldInfo, MemberKind};
use crate::iceberg::types::FieldId;

impl Diff<'_> {
    pub(super) fn layout(&self, reported: &[FieldId]) -> Vec<Applied> {
        let mut containers: Vec<Option<FieldId>> = Vec::new();
        for info in &self.after_walk {
            if info.kind == MemberKind::StructField && !containers.contains(&info.parent_id) {
                containers.push(info.parent_id);
            }
        }
        let mut layout = Vec::new();
        for container in containers {
            let exists_before = container.is_none_or(|c| self.before.contains_key(&c));
            if exists_before && !container.is_some_and(|c| reported.contains(&c)) {
                self.container_layout(container, &mut layout);
            }
        }
        layout
    }

    fn container_layout(&self, container: Option<FieldId>, layout: &mut Vec<Applied>) {
        let siblings: Vec<&FieldInfo> = self
            .after_walk
            .iter()
            .filter(|f| f.kind == MemberKind::StructField && f.parent_id == container)
            .collect();
        let positions: Vec<Option<usize>> = siblings
            .iter()
            .map(|f| {
                self.before
                    .get(&f.id)
                    .filter(|old| old.parent_id == container && old.kind == f.kind)
                    .map(|old| old.position)
            })
            .collect();
        let in_place = longest_increasing(&positions);
        let mut previous: Option<&str> = None;
        for (i, field) in siblings.iter().enumerate() {
            let at = self.focus(field.id, |m| m.name);
            match positions[i] {
                None if !self.before.contains_key(&field.id) => {
                    let to = Some(field.field_type.to_string());
                    layout.push(self.record(AppliedKind::Add, at, None, Some(field), None, to));
                }
                Some(_) if !in_place[i] => {
                    let to = previous.map_or("first".to_string(), |p| format!("after {p}"));
                    let old = self.before.get(&field.id);
                    layout.push(self.record(
                        AppliedKind::Move,
                        at,
                        old,
                        Some(field),
                        None,
                        Some(to),
                    ));
                }
                _ => {}
            }
            previous = Some(&field.name);
        }
    }
}
