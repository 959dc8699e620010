//! The problems a refused column change reports.

use crate::change::{Change, FieldPath, Problem, ProblemKind};
use crate::iceberg::schema::FieldInfo;

pub(super) fn nested(change: &Change, target: &FieldInfo, message: String) -> Box<Problem> {
    let mut problem = invalid(change, target, message);
    problem.kind = ProblemKind::NestedStructure;
    problem.help = Some(
        "add a new column with the new shape and backfill it; Iceberg readers cannot reinterpret map keys, list elements or map values in place".into(),
    );
    problem
}

pub(super) fn invalid(change: &Change, target: &FieldInfo, message: String) -> Box<Problem> {
    Box::new(Problem {
        kind: ProblemKind::InvalidChange,
        message,
        help: None,
        origin: change.origin.clone(),
        field_id: Some(target.id),
        path: Some(target.path.clone()),
    })
}

pub(super) fn invalid_at(change: &Change, message: String) -> Box<Problem> {
    Box::new(Problem {
        kind: ProblemKind::InvalidChange,
        message,
        help: None,
        origin: change.origin.clone(),
        field_id: None,
        path: change.path().map(FieldPath::dotted),
    })
}
