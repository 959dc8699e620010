//! Hovers on column names: the column as the table has it when the file starts (else as the
//! file leaves it, for a column the file adds), and its history from the table's schemas:
//! when it was added, renamed, promoted or made optional, and for a name no longer in the
//! table, the field id it had, the last schema that had it and the commit that dropped it
//! (from the git history of the table's metadata that judging read).

use std::sync::Arc;

use crate::change::Span;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::{FieldInfo, MemberKind, Schema};
use crate::rules::CommittedDrop;
use crate::rules::context::History;

/// One table a judged file touches: its metadata (every schema, for history), its current
/// schema just before the file and just after it, the schema each of the file's statements
/// leaves, and the drops its metadata's git history records.
pub struct TableState {
    pub table: String,
    pub metadata: Arc<TableMetadata>,
    pub before: Schema,
    pub after: Option<Schema>,
    /// Each statement of the file about this table (its span) with the schema after it.
    pub steps: Vec<(Span, Arc<Schema>)>,
    /// Fields commits removed from the table, oldest first (empty outside git).
    pub drops: Vec<CommittedDrop>,
}

/// The Markdown hover for `word` (a column name or dotted path, matched as Iceberg resolves
/// names: case-insensitively) in the first table that knows it.
pub fn hover(tables: &[TableState], word: &str) -> Option<String> {
    tables.iter().find_map(|state| describe(state, word))
}

fn describe(state: &TableState, word: &str) -> Option<String> {
    let matches = |f: &FieldInfo| {
        f.kind == MemberKind::StructField
            && (f.path.eq_ignore_ascii_case(word) || f.name.eq_ignore_ascii_case(word))
    };
    let before = state.before.walk().into_iter().find(matches);
    let added = before.is_none();
    let after = || state.after.as_ref()?.walk().into_iter().find(matches);
    let field = match before {
        Some(field) => field,
        None => match dropped(state, word) {
            Some(mut text) => {
                if let Some(new) = after() {
                    text.push_str(&format!(
                        "\nThis file adds a new `{}` with field id {}.\n",
                        new.path, new.id
                    ));
                }
                return Some(text);
            }
            None => after()?,
        },
    };
    let mut text = format!(
        "**{}** · field id {} · `{}` · {}\n\n",
        field.path,
        field.id,
        field.field_type,
        if field.required {
            "required"
        } else {
            "optional"
        }
    );
    if let Some(doc) = &field.doc {
        text.push_str(&format!("{doc}\n\n"));
    }
    if added {
        text.push_str(&format!("Added by this file to `{}`.\n\n", state.table));
    }
    let history = history_of(&state.metadata, field.id);
    if !history.is_empty() {
        text.push_str("History:\n\n");
        for line in history {
            text.push_str(&format!("- {line}\n"));
        }
    }
    Some(text)
}

/// A name that only old schemas have (or that a commit dropped before its schemas expired):
/// the id it had, the last schema with it, and the commit that dropped it.
fn dropped(state: &TableState, word: &str) -> Option<String> {
    let history = History::of(&state.metadata);
    let in_schemas = history
        .dropped
        .iter()
        .find(|d| d.path.eq_ignore_ascii_case(word));
    let committed = state.drops.iter().rev().find(|d| match in_schemas {
        Some(gone) => d.id == gone.id,
        None => d.path.eq_ignore_ascii_case(word),
    });
    let (path, id, field_type, doc) = match (in_schemas, committed) {
        (Some(gone), _) => (&gone.path, gone.id, &gone.field_type, &gone.doc),
        (None, Some(drop)) => (&drop.path, drop.id, &drop.field_type, &drop.doc),
        (None, None) => return None,
    };
    let mut text = format!(
        "**{path}** · dropped from `{}` · it had field id {id} (`{field_type}`)",
        state.table
    );
    match in_schemas {
        Some(gone) => text.push_str(&format!(
            "; schema {} was the last to have it\n\n",
            gone.last_schema_id
        )),
        None => text.push_str("\n\n"),
    }
    if let Some(drop) = committed {
        let commit = &drop.commit;
        text.push_str(&format!(
            "Dropped by commit {} ({}, {}).\n\n",
            commit.id, commit.date, commit.author
        ));
    }
    if let Some(doc) = doc {
        text.push_str(&format!("Its doc was: {doc}\n\n"));
    }
    text.push_str(&format!(
        "Adding a column of this name gives it a new field id: old data files keep {path}'s values under id {id}.\n"
    ));
    Some(text)
}

/// What each schema did to the field, oldest first.
fn history_of(metadata: &TableMetadata, id: i32) -> Vec<String> {
    let mut schemas: Vec<&Schema> = metadata.schemas.iter().map(|s| &**s).collect();
    schemas.sort_by_key(|s| s.schema_id);
    let mut out = Vec::new();
    let mut last: Option<FieldInfo> = None;
    for schema in schemas {
        let Some(now) = schema.walk().into_iter().find(|f| f.id == id) else {
            if let Some(was) = last.take() {
                out.push(format!(
                    "schema {}: `{}` dropped",
                    schema.schema_id, was.path
                ));
            }
            continue;
        };
        let sid = schema.schema_id;
        match &last {
            None if out.is_empty() => out.push(format!("schema {sid}: added as `{}`", now.path)),
            None => out.push(format!("schema {sid}: back as `{}`", now.path)),
            Some(was) => {
                if was.path != now.path {
                    out.push(format!(
                        "schema {sid}: renamed `{}` → `{}`",
                        was.path, now.path
                    ));
                }
                if was.field_type != now.field_type {
                    out.push(format!(
                        "schema {sid}: `{}` → `{}`",
                        was.field_type, now.field_type
                    ));
                }
                if was.required && !now.required {
                    out.push(format!("schema {sid}: made optional"));
                }
            }
        }
        last = Some(now);
    }
    out
}
