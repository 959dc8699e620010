//! `type-narrowing`: a type change that is not one of the spec's promotions for the table's
//! format version. Old data files keep their physical type; a field-id reader can widen while
//! decoding but never narrow, re-scale or change family.

use std::collections::HashSet;

use crate::change::AppliedKind;
use crate::finding::{MetadataPlace, Related};
use crate::iceberg::pair::{Member, Members, Pairing};
use crate::iceberg::types::{FieldId, PrimitiveType, Type, is_allowed_promotion};
use crate::rules::{Context, Rule, Violation};

pub struct TypeNarrowing;

impl Rule for TypeNarrowing {
    fn name(&self) -> &'static str {
        "type-narrowing"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let version = cx.format_version();
        let mut out = Vec::new();
        for change in cx.changes(AppliedKind::UpdateType) {
            let (Some(before), Some(after)) = (&change.before, &change.after) else {
                continue;
            };
            let (Type::Primitive(from), Type::Primitive(to)) =
                (&before.field_type, &after.field_type)
            else {
                continue;
            };
            if is_allowed_promotion(from, to, version) {
                continue;
            }
            let declared = Related::in_metadata(
                MetadataPlace::SchemaField {
                    schema_id: cx.before.current_schema_id,
                    field_id: before.id,
                },
                format!(
                    "`{}` is {from} in the committed schema {}",
                    before.path, cx.before.current_schema_id
                ),
            );
            let violation = Violation::at(
                change,
                format!(
                    "`{}` (field id {}): {from} -> {to} {}",
                    after.path,
                    after.id,
                    why(from, to, version)
                ),
                format!(
                    "keep {from}; if the data really needs {to}, add a new {to} column, backfill it from `{}`, and move readers over",
                    after.path
                ),
            );
            out.push(violation.with_related([declared]));
        }
        // Under `-transitive`, every schema a snapshot still references must be readable too.
        if cx.compatibility.transitive {
            against_live_schemas(cx, &mut out);
        }
        out
    }
}

/// Adds a violation for each primitive of a schema snapshots still reference that the new
/// current schema holds under a type it cannot be read as (once per field: a change already
/// refused is not refused again).
fn against_live_schemas(cx: &Context<'_>, out: &mut Vec<Violation>) {
    let version = cx.format_version();
    let mut reported: HashSet<FieldId> = out.iter().filter_map(|v| v.field_id).collect();
    let current = Members::of(cx.after.current_schema());
    for baseline in cx.reader_baselines() {
        let old_members = Members::of(baseline);
        for (old, new) in Pairing::of(&old_members, &current).by_before() {
            let Some(new) = new else {
                continue;
            };
            let (Type::Primitive(from), Type::Primitive(to)) = (old.field_type, new.field_type)
            else {
                continue;
            };
            if reported.contains(&old.id) || is_allowed_promotion(from, to, version) {
                continue;
            }
            reported.insert(old.id);
            let (old_path, new_path) = (old_members.path(old), current.path(new));
            out.push(live_schema_violation(
                cx,
                baseline.schema_id,
                (old, &old_path),
                (new, &new_path),
                (from, to),
            ));
        }
    }
}

/// A type change refused against `schema_id`, an older schema that snapshots still reference.
fn live_schema_violation(
    cx: &Context<'_>,
    schema_id: i32,
    (old, old_path): (&Member<'_>, &str),
    (new, new_path): (&Member<'_>, &str),
    (from, to): (&PrimitiveType, &PrimitiveType),
) -> Violation {
    let version = cx.format_version();
    let origin = cx.last_change_of(old.id).and_then(|a| a.origin.clone());
    Violation {
        field: Some(new_path.to_string()),
        field_id: Some(new.id),
        message: format!(
            "`{new_path}` (field id {}) was {from} in schema {schema_id}, which snapshots still reference: {from} -> {to} {}",
            new.id,
            why(from, to, version)
        ),
        help: format!(
            "keep `{new_path}` readable as {from}: only the spec's promotions are safe across every live schema"
        ),
        origin,
        severity: None,
        related: vec![Related::in_metadata(
            MetadataPlace::SchemaField {
                schema_id,
                field_id: old.id,
            },
            format!("`{old_path}` is {from} in schema {schema_id}"),
        )],
    }
}

/// Which reader breaks, and how, for a refused type change.
fn why(from: &PrimitiveType, to: &PrimitiveType, version: u8) -> String {
    use PrimitiveType as P;
    match (from, to) {
        (P::Decimal { precision: p1, scale: s1 }, P::Decimal { precision: p2, scale: s2 }) if s1 != s2 => format!(
            "changes the scale: old files store unscaled integers, so a value written as 1.23 at scale {s1} would be read at scale {s2} (PyIceberg accepts this through a bug; the spec and Iceberg Java refuse it){}",
            if p2 < p1 { ", and lowers the precision" } else { "" }
        ),
        (P::Decimal { .. }, P::Decimal { .. }) => {
            "lowers the precision: values already written may not fit, and readers fail decoding them".into()
        }
        (P::Long, P::Int) | (P::Double, P::Float) => format!(
            "narrows the type: old files hold {from} values that {to} cannot represent; field-id readers (Spark, Trino, Flink, PyIceberg) refuse or overflow when decoding them"
        ),
        (P::Date, P::Timestamp | P::TimestampNs) => format!(
            "is only a valid promotion from format v3; this table is v{version}, whose readers cannot widen old date pages"
        ),
        (P::Unknown, _) => format!("is only a valid promotion from format v3; this table is v{version}"),
        _ => format!(
            "is not an allowed promotion (the spec allows only int -> long, float -> double, decimal precision increases and, from v3, date -> timestamp): readers cannot reinterpret the {from} values in old files as {to}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::iceberg::metadata::SnapshotSchema;
    use crate::iceberg::schema::Schema;
    use crate::rules::Compatibility;
    use crate::rules::test_support::{fired, judged, table_with};

    #[test]
    fn narrowing_scale_changes_and_family_changes_are_refused() {
        let base = table_with(
            2,
            r#"[{"id":1,"name":"n","required":false,"type":"long"},{"id":2,"name":"d","required":false,"type":"decimal(9, 2)"},{"id":3,"name":"s","required":false,"type":"string"}]"#,
        );
        for sql in [
            "ALTER TABLE t ALTER COLUMN n TYPE int",
            "ALTER TABLE t ALTER COLUMN d TYPE decimal(18, 4)",
            "ALTER TABLE t ALTER COLUMN d TYPE decimal(8, 2)",
            "ALTER TABLE t ALTER COLUMN s TYPE int",
        ] {
            assert_eq!(fired(&base, sql), ["type-narrowing"], "{sql}");
        }
        assert!(fired(&base, "ALTER TABLE t ALTER COLUMN d TYPE decimal(18, 2)").is_empty());
    }

    /// A schema a snapshot still references, whose types the current schema already left by
    /// hand: only a `-transitive` mode judges the change against it, field by field in that
    /// schema's order, and a field the change itself narrows is reported once.
    #[test]
    fn transitive_modes_judge_every_schema_a_snapshot_references() {
        let mut base = table_with(
            2,
            r#"[{"id":1,"name":"n","required":false,"type":"long"},{"id":2,"name":"tags","required":false,"type":{"type":"list","element-id":4,"element":"long","element-required":false}},{"id":3,"name":"s","required":false,"type":"long"}]"#,
        );
        let old = table_with(
            2,
            r#"[{"id":1,"name":"n","required":false,"type":"string"},{"id":2,"name":"tags","required":false,"type":{"type":"list","element-id":4,"element":"string","element-required":false}},{"id":3,"name":"s","required":false,"type":"long"}]"#,
        );
        let mut written = Schema::clone(&old.schemas[0]);
        written.schema_id = 7;
        base.schemas.insert(0, Arc::new(written));
        base.snapshots.push(SnapshotSchema {
            snapshot_id: 1,
            schema_id: Some(7),
        });
        let sql = "ALTER TABLE t ALTER COLUMN s TYPE int";
        assert_eq!(fired(&base, sql), ["type-narrowing"]);
        let transitive = Compatibility::parse("backward-transitive").unwrap();
        let messages: Vec<String> = judged(&base, sql, transitive)
            .into_iter()
            .filter(|(rule, _)| *rule == "type-narrowing")
            .map(|(_, message)| message.trim_start_matches("t: ").to_string())
            .collect();
        assert_eq!(messages.len(), 3, "{messages:#?}");
        assert!(
            messages[0].starts_with("`s` (field id 3): long -> int"),
            "{messages:#?}"
        );
        assert!(
            messages[1].starts_with("`n` (field id 1) was string in schema 7, which snapshots still reference: string -> long"),
            "{messages:#?}"
        );
        assert!(
            messages[2].starts_with("`tags.element` (field id 4) was string in schema 7"),
            "{messages:#?}"
        );
    }

    #[test]
    fn date_to_timestamp_needs_v3() {
        let fields = r#"[{"id":1,"name":"day","required":false,"type":"date"}]"#;
        let sql = "ALTER TABLE t ALTER COLUMN day TYPE timestamp_ntz";
        assert_eq!(fired(&table_with(2, fields), sql), ["type-narrowing"]);
        assert!(fired(&table_with(3, fields), sql).is_empty());
    }
}
