//! Partition spec evolution, one statement one spec update, with the ids and names Iceberg Java's
//! `BaseUpdatePartitionSpec` gives: a new field takes `last-partition-id + 1`, unless (v2 and
//! later) a field of any earlier spec has the same source and transform (and the name, when one
//! is given), whose id and name are reused; a removed field disappears, except in v1, where it
//! stays in place as a `void` transform so that field ids stay positional; a default name is
//! derived from the source column (`id_bucket_16`, `ts_day`). The new spec reuses the id of an
//! earlier spec with the same fields (source, transform, name), else takes the highest id + 1,
//! and becomes the default.

use std::collections::{HashMap, HashSet};

use crate::change::PartitionTerm;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::partition::{PARTITION_DATA_ID_START, PartitionField, PartitionSpec};
use crate::iceberg::schema::Schema;
use crate::iceberg::types::{FieldId, PrimitiveType, Type};
use crate::suggest::closest;

/// A partition field with its id known (v1 specs leave it implied by position).
#[derive(Debug, Clone, PartialEq)]
struct SpecField {
    source_id: FieldId,
    field_id: i32,
    name: String,
    transform: String,
}

/// A term bound to the schema: its source field and the transform as Iceberg writes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Bound {
    source_id: FieldId,
    transform: String,
}

/// Why Iceberg refuses the update, in Java's words.
pub(super) type SpecResult<T> = Result<T, String>;

pub(super) struct SpecUpdate<'a> {
    schema: &'a Schema,
    format_version: u8,
    spec: Vec<SpecField>,
    history: Vec<SpecField>,
    last_assigned: i32,
    adds: Vec<SpecField>,
    added_time_sources: HashMap<FieldId, String>,
    added_by_transform: HashSet<Bound>,
    deletes: HashSet<i32>,
    renames: HashMap<String, String>,
}

fn with_ids(spec: &PartitionSpec) -> Vec<SpecField> {
    spec.fields
        .iter()
        .enumerate()
        .map(|(position, f)| SpecField {
            source_id: f.source_ids.first().copied().unwrap_or(0),
            field_id: f
                .field_id
                .unwrap_or(PARTITION_DATA_ID_START + position as i32),
            name: f.name.clone(),
            transform: f.transform.clone(),
        })
        .collect()
}

/// The table's current default spec (an empty one for a table without specs).
pub(super) fn default_spec(metadata: &TableMetadata) -> Option<&PartitionSpec> {
    metadata
        .partition_specs
        .iter()
        .find(|s| s.spec_id == metadata.default_spec_id)
}

/// `last-partition-id` as written, or as Java derives it for tables that predate the key.
pub fn last_partition_id(metadata: &TableMetadata) -> i32 {
    metadata.last_partition_id.unwrap_or_else(|| {
        metadata
            .partition_specs
            .iter()
            .flat_map(with_ids)
            .map(|f| f.field_id)
            .max()
            .unwrap_or(PARTITION_DATA_ID_START - 1)
    })
}

impl<'a> SpecUpdate<'a> {
    pub(super) fn new(metadata: &TableMetadata, schema: &'a Schema) -> SpecResult<SpecUpdate<'a>> {
        let spec = default_spec(metadata).map(with_ids).unwrap_or_default();
        if let Some(unknown) = spec.iter().find(|f| !is_known_transform(&f.transform)) {
            return Err(format!(
                "Cannot update partition spec with unknown transform: {} ({})",
                unknown.name, unknown.transform
            ));
        }
        Ok(SpecUpdate {
            schema,
            format_version: metadata.format_version,
            spec,
            history: metadata.partition_specs.iter().flat_map(with_ids).collect(),
            last_assigned: last_partition_id(metadata),
            adds: Vec::new(),
            added_time_sources: HashMap::new(),
            added_by_transform: HashSet::new(),
            deletes: HashSet::new(),
            renames: HashMap::new(),
        })
    }

    /// The partition field a bare name refers to, when it is not a column: Iceberg's Spark
    /// extensions then remove the field by its name.
    pub(super) fn names_partition_field(&self, term: &PartitionTerm) -> bool {
        term.transform == "identity" && self.schema.field_by_path(&term.column).is_none()
    }

    fn bind(&self, term: &PartitionTerm) -> SpecResult<Bound> {
        let Some(source) = self.schema.field_by_path(&term.column) else {
            let paths: Vec<String> = self.schema.walk().into_iter().map(|f| f.path).collect();
            let hint = closest(&term.column, paths.iter().map(String::as_str))
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Err(format!(
                "Cannot find field '{}' in struct{hint}",
                term.column
            ));
        };
        let Type::Primitive(primitive) = &source.field_type else {
            return Err(format!(
                "Cannot partition by non-primitive source field: {}",
                source.path
            ));
        };
        if !transform_applies(&term.transform, primitive) {
            return Err(format!(
                "Invalid source type {primitive} for transform: {}",
                term.transform
            ));
        }
        Ok(Bound {
            source_id: source.id,
            transform: term.transform.clone(),
        })
    }

    fn source_name(&self, source_id: FieldId) -> String {
        self.schema
            .field_by_id(source_id)
            .map(|f| f.path)
            .unwrap_or_default()
    }

    fn existing(&self, bound: &Bound) -> Option<&SpecField> {
        self.spec
            .iter()
            .rev()
            .find(|f| f.source_id == bound.source_id && f.transform == bound.transform)
    }

    /// `addField(name, term)`.
    pub(super) fn add(&mut self, name: Option<&str>, term: &PartitionTerm) -> SpecResult<()> {
        if let Some(name) = name
            && self.adds.iter().any(|a| a.name == name)
        {
            return Err(format!("Cannot add duplicate partition field: {name}"));
        }
        let bound = self.bind(term)?;
        if let Some(existing) = self.existing(&bound).cloned() {
            if self.deletes.contains(&existing.field_id) {
                // Removed and added again in one update: the field simply stays.
                self.deletes.remove(&existing.field_id);
                return match name {
                    Some(name) if name != existing.name => self.rename(&existing.name, name),
                    _ => Ok(()),
                };
            }
            return Err(format!(
                "Cannot add duplicate partition field {}={}, conflicts with {}",
                name.unwrap_or("null"),
                term.written(),
                existing.name
            ));
        }
        if !self.added_by_transform.insert(bound.clone()) {
            return Err(format!(
                "Cannot add duplicate partition field {}={}, already added",
                name.unwrap_or("null"),
                term.written()
            ));
        }
        let mut field = self.recycle_or_create(&bound, name)?;
        if field.name.is_empty() {
            field.name = default_name(&self.source_name(bound.source_id), &bound.transform);
        }
        if is_time_transform(&field.transform) {
            if let Some(other) = self.added_time_sources.get(&field.source_id) {
                return Err(format!(
                    "Cannot add redundant partition field: {other} conflicts with {}",
                    field.name
                ));
            }
            self.added_time_sources
                .insert(field.source_id, field.name.clone());
        }
        if let Some(clash) = self.spec.iter().find(|f| f.name == field.name).cloned() {
            let renamed = format!("{}_{}", clash.name, clash.field_id);
            if self.deletes.contains(&clash.field_id) {
                self.renames.insert(clash.name.clone(), renamed);
            } else if clash.transform == "void" {
                self.rename(&clash.name, &renamed)?;
            } else {
                return Err(format!(
                    "Cannot add duplicate partition field name: {}",
                    field.name
                ));
            }
        }
        self.adds.push(field);
        Ok(())
    }

    fn recycle_or_create(&mut self, bound: &Bound, name: Option<&str>) -> SpecResult<SpecField> {
        if self.format_version >= 2
            && let Some(old) = self.history.iter().find(|f| {
                f.source_id == bound.source_id
                    && f.transform == bound.transform
                    && name.is_none_or(|n| n == f.name)
            })
        {
            return Ok(old.clone());
        }
        self.last_assigned = self.last_assigned.checked_add(1).ok_or_else(|| {
            format!(
                "Cannot add partition field {}: `last-partition-id` is {}, the largest id there is, so no id is left for a new partition field",
                name.unwrap_or(&bound.transform),
                self.last_assigned
            )
        })?;
        Ok(SpecField {
            source_id: bound.source_id,
            field_id: self.last_assigned,
            name: name.unwrap_or_default().to_string(),
            transform: bound.transform.clone(),
        })
    }

    /// `removeField(name)`.
    pub(super) fn remove_by_name(&mut self, name: &str) -> SpecResult<()> {
        if self.adds.iter().any(|a| a.name == name) {
            return Err(format!("Cannot delete newly added field: {name}"));
        }
        if self.renames.contains_key(name) {
            return Err(format!("Cannot rename and delete partition field: {name}"));
        }
        let Some(field) = self.spec.iter().find(|f| f.name == name) else {
            return Err(self.not_found(name));
        };
        self.deletes.insert(field.field_id);
        Ok(())
    }

    /// `removeField(term)`.
    pub(super) fn remove_by_term(&mut self, term: &PartitionTerm) -> SpecResult<()> {
        let bound = self.bind(term)?;
        if self.added_by_transform.contains(&bound) {
            return Err(format!(
                "Cannot delete newly added field: {}",
                term.written()
            ));
        }
        let Some(field) = self.existing(&bound).cloned() else {
            return Err(self.not_found(&term.written()));
        };
        if self.renames.contains_key(&field.name) {
            return Err(format!(
                "Cannot rename and delete partition field: {}",
                field.name
            ));
        }
        self.deletes.insert(field.field_id);
        Ok(())
    }

    fn not_found(&self, what: &str) -> String {
        let names: Vec<&str> = self.spec.iter().map(|f| f.name.as_str()).collect();
        let hint = match closest(what, names.iter().copied()) {
            Some(s) => format!(" (did you mean `{s}`?)"),
            None if names.is_empty() => " (the table is not partitioned)".to_string(),
            None => format!(" (the spec has {})", names.join(", ")),
        };
        format!("Cannot find partition field to remove: {what}{hint}")
    }

    /// `renameField(name, newName)`.
    fn rename(&mut self, name: &str, new_name: &str) -> SpecResult<()> {
        if let Some(clash) = self.spec.iter().find(|f| f.name == new_name).cloned()
            && clash.transform == "void"
        {
            self.rename(&clash.name, &format!("{}_{}", clash.name, clash.field_id))?;
        }
        if self.adds.iter().any(|a| a.name == name) {
            return Err(format!("Cannot rename newly added partition field: {name}"));
        }
        let Some(field) = self.spec.iter().find(|f| f.name == name) else {
            return Err(format!("Cannot find partition field to rename: {name}"));
        };
        if self.deletes.contains(&field.field_id) {
            return Err(format!("Cannot delete and rename partition field: {name}"));
        }
        self.renames.insert(name.to_string(), new_name.to_string());
        Ok(())
    }

    /// Trino's `SET PROPERTIES partitioning`: fields not in `terms` removed by name, terms not
    /// in the spec added with default names, the rest kept.
    pub(super) fn set_partitioning(&mut self, terms: &[PartitionTerm]) -> SpecResult<()> {
        let mut wanted = Vec::with_capacity(terms.len());
        for term in terms {
            wanted.push(self.bind(term)?);
        }
        let current = self.spec.clone();
        for field in &current {
            let kept = wanted
                .iter()
                .any(|b| b.source_id == field.source_id && b.transform == field.transform);
            if !kept {
                self.remove_by_name(&field.name)?;
            }
        }
        for (term, bound) in terms.iter().zip(&wanted) {
            let present = current
                .iter()
                .any(|f| f.source_id == bound.source_id && f.transform == bound.transform);
            if !present {
                self.add(None, term)?;
            }
        }
        Ok(())
    }

    /// The new spec's fields (`apply()`), checked as the spec builder checks them, and the
    /// highest partition field id assigned.
    pub(super) fn apply(self) -> SpecResult<(Vec<PartitionField>, i32)> {
        let mut fields = Vec::new();
        for field in &self.spec {
            let name = self
                .renames
                .get(&field.name)
                .cloned()
                .unwrap_or_else(|| field.name.clone());
            if !self.deletes.contains(&field.field_id) {
                fields.push(SpecField {
                    name,
                    ..field.clone()
                });
            } else if self.format_version < 2 {
                fields.push(SpecField {
                    name,
                    transform: "void".into(),
                    ..field.clone()
                });
            }
        }
        fields.extend(self.adds);
        let mut names = HashSet::new();
        for field in &fields {
            if field.name.is_empty() {
                return Err("Cannot use empty or null partition name".into());
            }
            if !names.insert(field.name.as_str()) {
                return Err(format!(
                    "Cannot use partition name more than once: {}",
                    field.name
                ));
            }
        }
        if self.format_version < 2
            && fields
                .iter()
                .enumerate()
                .any(|(i, f)| f.field_id != PARTITION_DATA_ID_START + i as i32)
        {
            return Err("Spec does not use sequential IDs that are required in v1".into());
        }
        let last = fields
            .iter()
            .map(|f| f.field_id)
            .max()
            .unwrap_or(self.last_assigned)
            .max(self.last_assigned);
        let fields = fields
            .into_iter()
            .map(|f| PartitionField {
                source_ids: vec![f.source_id],
                field_id: Some(f.field_id),
                name: f.name,
                transform: f.transform,
            })
            .collect();
        Ok((fields, last))
    }
}

/// Makes `fields` the default spec: the id of an earlier spec with the same fields (source,
/// transform and name; field ids aside, as Java's `compatibleWith`), else a new spec with the
/// highest id + 1. `last-partition-id` moves only when a new spec is added.
pub(super) fn commit_spec(
    metadata: &mut TableMetadata,
    fields: Vec<PartitionField>,
    last: i32,
) -> SpecResult<()> {
    let same = |spec: &PartitionSpec| {
        spec.fields.len() == fields.len()
            && spec.fields.iter().zip(&fields).all(|(a, b)| {
                a.source_ids == b.source_ids && a.transform == b.transform && a.name == b.name
            })
    };
    let specs = &metadata.partition_specs;
    match earlier_or_next(specs, |s| s.spec_id, same, 0) {
        Numbered::Earlier(spec_id) => metadata.default_spec_id = spec_id,
        Numbered::Next(spec_id) => {
            metadata
                .partition_specs
                .push(PartitionSpec { spec_id, fields });
            metadata.default_spec_id = spec_id;
            metadata.last_partition_id = Some(last_partition_id(metadata).max(last));
        }
        Numbered::NoneLeft(highest) => {
            return Err(format!(
                "Cannot add partition spec: spec id {highest} is the largest id there is, so no id is left for a new spec"
            ));
        }
    }
    Ok(())
}

/// How a new partition spec or sort order is numbered, as Java's metadata builder numbers both.
pub(super) enum Numbered {
    /// An earlier one is the same: its id is reused.
    Earlier(i32),
    /// A new one, numbered after the highest.
    Next(i32),
    /// A new one, but the highest id (given) is the largest an `int` holds.
    NoneLeft(i32),
}

/// The id of the first of `items` that is `same`, else the highest id + 1 (`first` when there
/// are none).
pub(super) fn earlier_or_next<T>(
    items: &[T],
    id: impl Fn(&T) -> i32,
    same: impl Fn(&T) -> bool,
    first: i32,
) -> Numbered {
    if let Some(earlier) = items.iter().find(|item| same(item)) {
        return Numbered::Earlier(id(earlier));
    }
    match items.iter().map(&id).max() {
        None => Numbered::Next(first),
        Some(highest) => highest
            .checked_add(1)
            .map_or(Numbered::NoneLeft(highest), Numbered::Next),
    }
}

/// A spec as reports show it: `ts_day=day(ts), id_bucket_16=bucket[16](id)`.
pub(crate) fn describe(metadata: &TableMetadata, schema: &Schema) -> String {
    let Some(spec) = default_spec(metadata).filter(|s| !s.fields.is_empty()) else {
        return "unpartitioned".into();
    };
    spec.fields
        .iter()
        .map(|f| {
            let source = f
                .source_ids
                .first()
                .and_then(|id| schema.field_by_id(*id))
                .map_or_else(|| "?".to_string(), |s| s.path);
            let term = PartitionTerm {
                transform: f.transform.clone(),
                column: source,
            };
            format!("{}={}", f.name, term.written())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_time_transform(transform: &str) -> bool {
    matches!(transform, "year" | "month" | "day" | "hour")
}

fn is_known_transform(transform: &str) -> bool {
    let base = transform.split('[').next().unwrap_or(transform);
    matches!(base, "identity" | "bucket" | "truncate" | "void") || is_time_transform(base)
}

/// Whether Iceberg can apply the transform to a source of this type (the spec's transform
/// table).
pub(super) fn transform_applies(transform: &str, ty: &PrimitiveType) -> bool {
    use PrimitiveType as P;
    let base = transform.split('[').next().unwrap_or(transform);
    let timestamp = matches!(
        ty,
        P::Timestamp | P::Timestamptz | P::TimestampNs | P::TimestamptzNs
    );
    match base {
        "void" => true,
        "identity" => !matches!(
            ty,
            P::Variant | P::Geometry(_) | P::Geography(_) | P::Unknown
        ),
        "bucket" => {
            matches!(
                ty,
                P::Int
                    | P::Long
                    | P::Decimal { .. }
                    | P::Date
                    | P::Time
                    | P::String
                    | P::Uuid
                    | P::Fixed(_)
                    | P::Binary
            ) || timestamp
        }
        "truncate" => matches!(
            ty,
            P::Int | P::Long | P::Decimal { .. } | P::String | P::Binary
        ),
        "year" | "month" | "day" => timestamp || matches!(ty, P::Date),
        "hour" => timestamp,
        _ => false,
    }
}

/// Java's `PartitionNameGenerator`.
fn default_name(source: &str, transform: &str) -> String {
    let (base, width) = match transform.split_once('[') {
        Some((base, rest)) => (base, rest.trim_end_matches(']')),
        None => (transform, ""),
    };
    match base {
        "identity" => source.to_string(),
        "bucket" => format!("{source}_bucket_{width}"),
        "truncate" => format!("{source}_trunc_{width}"),
        "void" => format!("{source}_null"),
        time => format!("{source}_{time}"),
    }
}
