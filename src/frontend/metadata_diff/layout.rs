//! Adds (the top of each new subtree) and moves, struct by struct in the proposal's order: a
//! field is moved when it is not in the longest run of fields that kept their relative order.

use std::collections::HashSet;

use super::Diff;
use crate::change::{Applied, AppliedKind};
use crate::iceberg::pair::StructOrder;
use crate::iceberg::types::FieldId;

impl Diff<'_> {
    pub(super) fn layout(&self, reported: &HashSet<FieldId>) -> Vec<Applied> {
        let mut layout = Vec::new();
        for order in self.pairing().structs() {
            let container = order.container;
            let exists_before = container.is_none_or(|c| self.before.contains(c));
            if exists_before && !container.is_some_and(|c| reported.contains(&c)) {
                self.container_layout(&order, &mut layout);
            }
        }
        layout
    }

    fn container_layout(&self, order: &StructOrder<'_, '_>, layout: &mut Vec<Applied>) {
        let mut previous: Option<&str> = None;
        for (i, &field) in order.fields.iter().enumerate() {
            let at = self.focus(field.id, |m| m.name);
            match order.before[i] {
                None if !self.before.contains(field.id) => {
                    let to = Some(field.field_type.to_string());
                    layout.push(self.record(AppliedKind::Add, at, None, Some(field), None, to));
                }
                Some(_) if !order.in_place[i] => {
                    let to = previous.map_or("first".to_string(), |p| format!("after {p}"));
                    let old = self.before.get(field.id);
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
            previous = Some(field.name);
        }
    }
}
