//! `metadata-drift`: the committed metadata must be exactly what `apply` makes of the base and the
//! proposals. Compared by meaning, not bytes (`last-updated-ms` and formatting differ by writer):
//! everything the gate judges by, the schemas with their ids and identifier fields, the current
//! schema id, `last-column-id`, the name mapping (the property that changes how readers resolve
//! columns), the format version, the partition specs and sort orders (by id, in `layout`) with
//! their defaults and `last-partition-id` (a partition spec emptied by hand would let the next
//! change drop its source unseen). A
//! difference is told as missing (nothing applied), stale (only the first statements applied) or
//! different (edited by hand, or by a writer that does something else), each with the command
//! that fixes it.

use crate::change::{Statement, StatementKind};
use crate::evolve::evolve;
use crate::failure::Failure;
use crate::finding::{Finding, Severity};
use crate::iceberg::metadata::{TableMetadata, same_schemas};
use crate::iceberg::pair::{Member, Members, Pairing};

mod layout;
use layout::{layout_differences, same_layout};

/// How the committed metadata relates to what the proposals give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    /// The metadata is still the base's, though the proposals change the schema.
    Missing,
    /// The metadata equals the base with only the first `applied` statements applied.
    Stale { applied: usize },
    /// Neither: what differs, field by field.
    Differs(Vec<String>),
}

/// Whether two metadata documents agree on everything the gate judges by.
pub fn same_state(a: &TableMetadata, b: &TableMetadata) -> bool {
    a.current_schema_id == b.current_schema_id
        && a.last_column_id == b.last_column_id
        && same_schemas(&a.schemas, &b.schemas)
        && same_mapping(a, b)
        && same_layout(a, b)
}

/// The name mappings agree on every name (see [`crate::iceberg::name_mapping::NameMapping::same_meaning`]): metadata written
/// by PyIceberg, which drops entries left without names, is no drift from `apply`'s, which keeps
/// them as Java does.
fn same_mapping(a: &TableMetadata, b: &TableMetadata) -> bool {
    match (&a.name_mapping, &b.name_mapping) {
        (Some(a), Some(b)) => a.same_meaning(b),
        (a, b) => a == b,
    }
}

/// Compares the committed metadata with the expected one, `base` evolved by `statements`.
pub fn compare(
    base: &TableMetadata,
    statements: &[&Statement],
    expected: &TableMetadata,
    committed: &TableMetadata,
) -> Option<Drift> {
    if same_state(expected, committed) {
        return None;
    }
    if same_state(base, committed) {
        return Some(Drift::Missing);
    }
    let alters: Vec<&[crate::change::Change]> = statements
        .iter()
        .filter_map(|s| match &s.kind {
            StatementKind::Alter(changes) => Some(changes.as_slice()),
            StatementKind::CreateTable(_) => None,
        })
        .collect();
    Some(
        stale(base, &alters, expected, committed)
            .unwrap_or_else(|| Drift::Differs(differences(expected, committed))),
    )
}

/// The longest prefix of `alters` that gives `committed`, if one does. Statements only
/// append schemas (or reuse an identical one), so a prefix's schemas are a prefix of the
/// expected ones and grow with its length: the prefixes that wrote as many schemas as the file
/// holds are found by a binary search, evolving a few prefixes rather than every one (which,
/// for a migration of 10,000 statements, is 50 million schema updates).
fn stale(
    base: &TableMetadata,
    alters: &[&[crate::change::Change]],
    expected: &TableMetadata,
    committed: &TableMetadata,
) -> Option<Drift> {
    if !expected.schemas.starts_with(&committed.schemas) {
        return None;
    }
    let held = committed.schemas.len();
    let after = |applied: usize| evolve(base, alters[..applied].iter().copied());
    let prefixes: Vec<usize> = (1..alters.len()).collect();
    let end = prefixes.partition_point(|&applied| after(applied).metadata.schemas.len() <= held);
    for &applied in prefixes[..end].iter().rev() {
        let partial = after(applied);
        if partial.metadata.schemas.len() < held {
            break;
        }
        if partial.problems.is_empty() && same_state(&partial.metadata, committed) {
            return Some(Drift::Stale { applied });
        }
    }
    None
}

/// The first few differences, in words, expected (from the proposals) against committed.
pub fn differences(expected: &TableMetadata, committed: &TableMetadata) -> Vec<String> {
    const SHOWN: usize = 5;
    let mut out = layout_differences(expected, committed);
    out.extend(field_differences(expected, committed));
    let pairs = [
        (
            "current-schema-id",
            expected.current_schema_id,
            committed.current_schema_id,
        ),
        (
            "last-column-id",
            expected.last_column_id,
            committed.last_column_id,
        ),
    ];
    for (key, want, have) in pairs {
        if want != have {
            out.push(format!(
                "`{key}` is {have} in the metadata, {want} from the migrations"
            ));
        }
    }
    if out.is_empty() {
        out = schema_differences(expected, committed);
    }
    if out.len() > SHOWN {
        let more = out.len() - SHOWN;
        out.truncate(SHOWN);
        out.push(format!("and {more} more"));
    }
    out
}

/// The current schemas' struct fields paired by id: each expected field missing or unlike its
/// committed twin (in the expected order), then the committed fields no migration adds.
fn field_differences(expected: &TableMetadata, committed: &TableMetadata) -> Vec<String> {
    let want = Members::of(expected.current_schema());
    let have = Members::of(committed.current_schema());
    let pairing = Pairing::of(&want, &have);
    let mut out = Vec::new();
    for (field, found) in pairing.by_before() {
        if !field.is_struct_field() {
            continue;
        }
        let path = want.path(field);
        match found.filter(|f| f.is_struct_field()) {
            None => out.push(format!(
                "`{path}` (field id {}) is missing from the metadata",
                field.id
            )),
            Some(found) => {
                let parts = unlike(&have.path(found), found, &path, field);
                if !parts.is_empty() {
                    out.push(format!(
                        "`{path}` (field id {}) is {} in the metadata",
                        field.id,
                        parts.join(", ")
                    ));
                }
            }
        }
    }
    for (field, twin) in pairing.by_after() {
        if field.is_struct_field() && !twin.is_some_and(Member::is_struct_field) {
            out.push(format!(
                "`{}` (field id {}) is in the metadata but no migration adds it",
                have.path(field),
                field.id
            ));
        }
    }
    out
}

/// How committed field `found` (at `found_path`) is unlike the expected `field` (at `path`).
fn unlike(found_path: &str, found: &Member<'_>, path: &str, field: &Member<'_>) -> Vec<String> {
    let mut parts = Vec::new();
    if found_path != path {
        parts.push(format!("named `{found_path}`"));
    }
    if found.field_type != field.field_type {
        parts.push(format!("of type {}", found.field_type));
    }
    if found.required != field.required {
        parts.push(
            if found.required {
                "required"
            } else {
                "optional"
            }
            .into(),
        );
    }
    if found.doc() != field.doc() {
        parts.push(match found.doc() {
            Some(doc) => format!("documented '{doc}'"),
            None => "without a doc".into(),
        });
    }
    parts
}

/// When nothing else differs: the schemas by id, and the name mapping.
fn schema_differences(expected: &TableMetadata, committed: &TableMetadata) -> Vec<String> {
    let mut out = Vec::new();
    for schema in &expected.schemas {
        if committed.schema(schema.schema_id) != Some(schema) {
            out.push(format!(
                "schema {} differs from the one the migrations give",
                schema.schema_id
            ));
        }
    }
    for schema in &committed.schemas {
        if expected.schema(schema.schema_id).is_none() {
            out.push(format!(
                "schema {} is in the metadata, but no migration makes it",
                schema.schema_id
            ));
        }
    }
    if !same_mapping(expected, committed) {
        out.push("the name mapping (`schema.name-mapping.default`) differs".into());
    }
    out
}

/// A drift finding whose help says to run `apply`, when `others` hold errors: `apply` writes
/// nothing while an error stands, so the advice starts with resolving them.
pub fn after_failing_rules(mut drift: Finding, others: &[Finding]) -> Finding {
    let errors = others
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if let (true, Some(help)) = (errors > 0, drift.help.as_deref())
        && help.contains("run `fieldgate apply")
    {
        let first = crate::plural::counted(errors, "error finding");
        drift.help = Some(format!(
            "first resolve the {first} above, for `fieldgate apply` writes nothing while an error stands; then {help}"
        ));
    }
    drift
}

/// How to bring metadata that holds the first `applied` statements up to date: apply the rest
/// when they start a file, else start again from the base's metadata.
pub(super) fn stale_help(
    alters: &[&Statement],
    applied: usize,
    path: &str,
    apply: &str,
    restore: &str,
) -> String {
    let rest = statement_files(&alters[applied..]);
    let on_file_boundary =
        applied == 0 || alters[applied - 1].source.name != alters[applied].source.name;
    if on_file_boundary {
        format!(
            "apply the rest: run `fieldgate apply --write --metadata {path} {}` and commit the metadata it writes",
            rest.join(" ")
        )
    } else {
        format!(
            "restore the base's metadata (`{restore}`), run `{apply}` and commit the metadata it writes"
        )
    }
}

/// The distinct files of `statements`, in order, as reports name them.
fn statement_files(statements: &[&Statement]) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for statement in statements {
        if !files.contains(&statement.source.name) {
            files.push(statement.source.name.clone());
        }
    }
    files
}

/// Why a read failed, in one line: its first problem, with the file it was found in.
pub fn failure_text(failure: &Failure) -> String {
    match failure {
        Failure::Message(message) => message.clone(),
        Failure::Located(errors) => errors
            .first()
            .map(|e| format!("{} ({})", e.message, e.source.name))
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::after_failing_rules;
    use crate::finding::{Finding, Severity};

    fn finding(rule: &'static str, severity: Severity, help: &str) -> Finding {
        Finding {
            rule,
            severity,
            message: String::new(),
            table: "db.t".into(),
            field: None,
            field_id: None,
            origin: None,
            help: Some(help.into()),
            related: Vec::new(),
        }
    }

    #[test]
    fn drift_advice_to_apply_comes_after_the_errors_that_would_stop_it() {
        let drift = || {
            finding(
                "metadata-drift",
                Severity::Error,
                "run `fieldgate apply x` and commit",
            )
        };
        let narrowing = finding("type-narrowing", Severity::Error, "keep long");
        let note = finding("reader-cache-refresh", Severity::Note, "refresh");
        let help = after_failing_rules(drift(), &[narrowing, note.clone()])
            .help
            .unwrap();
        assert!(
            help.starts_with("first resolve the 1 error finding above"),
            "{help}"
        );
        assert!(
            help.ends_with("then run `fieldgate apply x` and commit"),
            "{help}"
        );
        let alone = after_failing_rules(drift(), &[note]).help.unwrap();
        assert_eq!(alone, "run `fieldgate apply x` and commit");
    }
    use std::sync::Arc;

    use super::*;
    use crate::change::SourceFile;
    use crate::frontend::ddl::{Dialect, parse_sql};

    fn base() -> TableMetadata {
        let text = r#"{"format-version":2,"table-uuid":"00000000-0000-4000-8000-000000000000","last-sequence-number":0,"partition-specs":[{"spec-id":0,"fields":[]}],"default-spec-id":0,"last-partition-id":999,"sort-orders":[{"order-id":0,"fields":[]}],"default-sort-order-id":0,"location":"/t","last-updated-ms":0,"last-column-id":2,"current-schema-id":0,
            "schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"name","required":false,"type":"string"}]}]}"#;
        let root = crate::json::parse(text).unwrap();
        TableMetadata::from_json(&root).unwrap()
    }

    fn statements(sql: &str) -> Vec<Statement> {
        let source = Arc::new(SourceFile {
            name: "m.sql".into(),
            text: sql.into(),
        });
        parse_sql(source, Dialect::Spark).unwrap()
    }

    fn evolved(base: &TableMetadata, statements: &[&Statement]) -> TableMetadata {
        let lists: Vec<&[crate::change::Change]> = statements
            .iter()
            .filter_map(|s| match &s.kind {
                StatementKind::Alter(changes) => Some(changes.as_slice()),
                StatementKind::CreateTable(_) => None,
            })
            .collect();
        evolve(base, lists).metadata
    }

    #[test]
    fn missing_stale_and_different_metadata_are_told_apart() {
        let base = base();
        let parsed = statements("ALTER TABLE t ADD COLUMN a int; ALTER TABLE t ADD COLUMN b int;");
        let all: Vec<&Statement> = parsed.iter().collect();
        let expected = evolved(&base, &all);
        let first = evolved(&base, &all[..1]);
        assert_eq!(compare(&base, &all, &expected, &expected), None);
        assert_eq!(compare(&base, &all, &expected, &base), Some(Drift::Missing));
        assert_eq!(
            compare(&base, &all, &expected, &first),
            Some(Drift::Stale { applied: 1 })
        );
        let mut edited = expected.clone();
        let current = edited.current_schema_id;
        if let Some(schema) = edited
            .schemas
            .iter_mut()
            .find(|s| s.schema_id == current)
            .map(std::sync::Arc::make_mut)
        {
            schema.fields[1].name = "full_name".into();
            schema.fields.pop();
        }
        assert_eq!(
            compare(&base, &all, &expected, &edited),
            Some(Drift::Differs(vec![
                "`name` (field id 2) is named `full_name` in the metadata".into(),
                "`b` (field id 4) is missing from the metadata".into(),
            ]))
        );
    }

    #[test]
    fn a_mapping_without_nameless_entries_is_no_drift_but_a_moved_name_is() {
        let text = r#"{"format-version":2,"table-uuid":"00000000-0000-4000-8000-000000000000","last-sequence-number":0,"partition-specs":[{"spec-id":0,"fields":[]}],"default-spec-id":0,"last-partition-id":999,"sort-orders":[{"order-id":0,"fields":[]}],"default-sort-order-id":0,"location":"/t","last-updated-ms":0,"last-column-id":2,"current-schema-id":0,
            "properties":{"schema.name-mapping.default":"[{\"field-id\":1,\"names\":[\"id\"]},{\"field-id\":2,\"names\":[\"name\"]}]"},
            "schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"name","required":false,"type":"string"}]}]}"#;
        let base = TableMetadata::from_json(&crate::json::parse(text).unwrap()).unwrap();
        let parsed =
            statements("ALTER TABLE t DROP COLUMN name; ALTER TABLE t ADD COLUMN name string;");
        let all: Vec<&Statement> = parsed.iter().collect();
        let expected = evolved(&base, &all);
        let ids = |m: &TableMetadata| -> Vec<(Option<i32>, Vec<String>)> {
            let mapping = m.name_mapping.as_ref().unwrap();
            mapping
                .fields
                .iter()
                .map(|f| (f.field_id, f.names.clone()))
                .collect()
        };
        // As Java: the old entry stays, without its name.
        assert_eq!(ids(&expected)[1], (Some(2), Vec::new()));

        // As PyIceberg writes it: the nameless entry dropped.
        let mut pyiceberg = expected.clone();
        if let Some(mapping) = pyiceberg.name_mapping.as_mut() {
            mapping.fields.retain(|f| !f.names.is_empty());
        }
        assert_eq!(compare(&base, &all, &expected, &pyiceberg), None);

        // The name left on the dropped field's id: readers would feed old values to the new column.
        let mut moved = pyiceberg.clone();
        if let Some(mapping) = moved.name_mapping.as_mut() {
            mapping.fields[1].field_id = Some(2);
        }
        assert_eq!(
            compare(&base, &all, &expected, &moved),
            Some(Drift::Differs(vec![
                "the name mapping (`schema.name-mapping.default`) differs".into()
            ]))
        );
    }
}
