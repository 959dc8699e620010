//! A member the file lacks, and what fills it: an identity partition's value, the
//! `initial-default`, or null; a required member nothing fills fails the file.

use serde_json::Value;

use crate::iceberg::types::Type;
use crate::verify::project::fill;

use super::{ColumnReport, Identity, Member, Plan, Resolver, Status, Unsupported, join};

impl Resolver<'_> {
    /// A field the file lacks. The order of what fills it is pyiceberg 0.12's
    /// (`ArrowProjectionVisitor.struct`): a required field without an `initial-default` fails even
    /// when an identity partition holds its value (Iceberg Java reads the partition value there);
    /// otherwise a non-null identity-partition value, then the `initial-default`, then null.
    pub(super) fn missing(
        &mut self,
        m: &Member<'_>,
        parent_present: bool,
        unknown: bool,
    ) -> Result<Plan, Unsupported> {
        if let Some(default) = m.default
            && let Err(e) = fill(Some(default), m.field_type, 0)
        {
            if matches!(m.field_type, Type::List(_) | Type::Map(_)) {
                self.not_read(
                    m.id,
                    &m.path,
                    m.field_type,
                    None,
                    format!("not verified: {e}"),
                );
                return Ok(Plan::Fill(None));
            }
            return Err(Unsupported(format!("`{}`: {e}", m.path)));
        }
        let identity = self
            .partition
            .get(&m.id)
            .filter(|_| parent_present && !unknown);
        let (status, detail, value) = what_fills(m, identity, parent_present, unknown);
        self.columns.push(ColumnReport {
            path: m.path.clone(),
            field_id: m.id,
            status,
            table_type: m.field_type.to_string(),
            file_column: None,
            file_type: None,
            detail,
            row_group: None,
        });
        self.missing_members(m)?;
        Ok(Plan::Fill(value.cloned()))
    }

    /// Nested members of a missing field are missing too: null as their parent is, or, under a
    /// struct default, the value it gives them or their own initial-default.
    fn missing_members(&mut self, m: &Member<'_>) -> Result<(), Unsupported> {
        let mut nested =
            |id, path: String, required, field_type: &Type, default: Option<&Value>| {
                self.missing(
                    &Member {
                        id,
                        path,
                        required,
                        field_type,
                        default,
                    },
                    false,
                    false,
                )
                .map(|_| ())
            };
        match m.field_type {
            Type::Primitive(_) => {}
            Type::Struct(s) => {
                for f in &s.fields {
                    let default = m.default.and_then(|given| {
                        given
                            .get(f.id.to_string())
                            .or(f.initial_default.as_ref())
                            .filter(|d| !d.is_null())
                    });
                    nested(
                        f.id,
                        join(&m.path, &f.name),
                        f.required,
                        &f.field_type,
                        default,
                    )?;
                }
            }
            Type::List(l) => nested(
                l.element_id,
                join(&m.path, "element"),
                true,
                &l.element,
                None,
            )?,
            Type::Map(map) => {
                nested(map.key_id, join(&m.path, "key"), true, &map.key, None)?;
                nested(map.value_id, join(&m.path, "value"), true, &map.value, None)?;
            }
        }
        Ok(())
    }
}

/// The status of a missing member, what the report says of it, and the value every row reads
/// (`None`: null), from its identity partition (`identity`, when its parent is present) and its
/// `initial-default`.
fn what_fills<'a>(
    m: &Member<'a>,
    identity: Option<&'a Identity>,
    parent_present: bool,
    unknown: bool,
) -> (Status, Option<String>, Option<&'a Value>) {
    let partition_value = match identity {
        Some(Identity::Value {
            partition_field,
            value,
        }) if !value.is_null() => Some((partition_field, value)),
        _ => None,
    };
    let (status, detail, value) = match (partition_value, m.default) {
        (Some((field, value)), default) if !m.required || default.is_some() => (
            Status::PartitionValue,
            Some(format!("identity partition `{field}` = {value}")),
            Some(value),
        ),
        (Some((field, value)), _) => (
            Status::MissingRequired,
            Some(format!(
                "a required field with no initial-default: the identity partition `{field}` = {value} \
                 would fill it (Iceberg Java reads it so), but pyiceberg 0.12 refuses the file"
            )),
            None,
        ),
        (None, Some(default)) => (
            Status::MissingDefault,
            Some(format!("initial-default {default}")),
            Some(default),
        ),
        (None, None) if m.required && parent_present && !unknown => (
            Status::MissingRequired,
            Some("a required field with no initial-default: no reader can fill it".into()),
            None,
        ),
        (None, None) if unknown => (
            Status::MissingNull,
            Some("unknown columns always read as null".into()),
            None,
        ),
        (None, None) => (Status::MissingNull, None, None),
    };
    let detail = match (detail, partition_note(identity)) {
        (Some(d), Some(n)) => Some(format!("{d}; {n}")),
        (d, n) => d.or(n),
    };
    (status, detail, value)
}

/// Why an identity partition on the member does not fill it, when it does not.
fn partition_note(identity: Option<&Identity>) -> Option<String> {
    match identity {
        Some(Identity::Value {
            partition_field,
            value,
        }) if value.is_null() => Some(format!(
            "its identity partition `{partition_field}` is null in the manifest"
        )),
        Some(Identity::Unknown(why)) => Some(why.clone()),
        _ => None,
    }
}
