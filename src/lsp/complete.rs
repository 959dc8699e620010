//! Completion in `ALTER TABLE` statements: the configured tables' names after `ALTER TABLE`,
//! column names (or a struct's fields after `s.`) from the table's schema as the statements
//! before the cursor leave it, and the dialect's column types with the Iceberg type each is;
//! and rule names in a suppression comment's list of rules. The site comes from the DDL
//! front-end's reading of the text up to the cursor; the schema from the document's last
//! judgement that reached its tables (the file's statements with the schema each left), so a
//! completion costs no judging.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionResponse, CompletionTextEdit, Documentation,
    Position, Range, TextEdit,
};

use super::columns::TableState;
use super::text::{Encoding, Lines};
use super::worker::Known;
use crate::frontend::ddl::Dialect;
use crate::frontend::ddl::complete::{Want, site_at, type_names};
use crate::iceberg::schema::{FieldInfo, Schema};
use crate::rules::{catalogue, registry};
use crate::suppress::rule_typed_at;

/// What completion knows of a document besides its text.
pub struct Around<'a> {
    /// Its last judgement that reached its tables.
    pub known: Option<&'a Known>,
    /// The tables its `fieldgate.yaml` lists, asked for only where a table name goes.
    pub tables: &'a dyn Fn() -> Vec<String>,
    /// How its comments start: `--` in SQL, `#` in a schema file.
    pub comment: &'a str,
}

/// The completions at `position` of `text`, or `None` where nothing is completed.
pub fn at(
    text: &str,
    position: Position,
    encoding: Encoding,
    around: &Around<'_>,
) -> Option<CompletionResponse> {
    let lines = Lines::new(text);
    let offset = lines.offset(position, encoding);
    let line = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    if let Some(at) = rule_typed_at(&text[line..offset], around.comment) {
        let range = lines.range(line + at, offset - line - at, encoding);
        return Some(CompletionResponse::Array(rule_names(range)));
    }
    let known = around.known;
    let dialect = known.map_or(Dialect::default(), |k| k.dialect);
    let site = site_at(text, offset, dialect)?;
    let range = lines.range(site.typed.offset, site.typed.len, encoding);
    let item = |label: String, kind, detail: String, doc: Option<String>| CompletionItem {
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
            range,
            label.clone(),
        ))),
        label,
        kind: Some(kind),
        detail: Some(detail),
        documentation: doc.map(Documentation::String),
        ..CompletionItem::default()
    };
    let items: Vec<CompletionItem> = match site.want {
        Want::Type => type_names(dialect)
            .into_iter()
            .map(|t| {
                let detail = format!("Iceberg {}", t.iceberg);
                item(
                    t.written.into(),
                    CompletionItemKind::TYPE_PARAMETER,
                    detail,
                    None,
                )
            })
            .collect(),
        Want::Column { parent } => {
            let known = known?;
            let state = table_of(&known.tables, &site.table)?;
            let schema = schema_before(state, &known.text, text, site.typed.offset);
            children(schema, &parent)
                .into_iter()
                .map(|f| {
                    let required = if f.required { "required" } else { "optional" };
                    let detail = format!("{} · field id {} · {required}", f.field_type, f.id);
                    item(f.name, CompletionItemKind::FIELD, detail, f.doc)
                })
                .collect()
        }
        Want::Table { namespace } => table_names(&(around.tables)(), &namespace, range),
    };
    Some(CompletionResponse::Array(items))
}

/// The configured tables under `namespace`, each offered as its whole name and written as the
/// rest of it after the namespace already typed.
fn table_names(tables: &[String], namespace: &[String], range: Range) -> Vec<CompletionItem> {
    let prefix = match namespace {
        [] => String::new(),
        _ => format!("{}.", namespace.join(".")),
    };
    tables
        .iter()
        .filter_map(|name| {
            let head = name.get(..prefix.len())?;
            let rest = name
                .get(prefix.len()..)
                .filter(|_| head.eq_ignore_ascii_case(&prefix))?;
            Some(CompletionItem {
                label: name.clone(),
                kind: Some(CompletionItemKind::MODULE),
                detail: Some("table of fieldgate.yaml".into()),
                filter_text: Some(rest.to_string()),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, rest.into()))),
                ..CompletionItem::default()
            })
        })
        .collect()
}

/// Every rule a suppression can name, with its default severity and summary.
fn rule_names(range: Range) -> Vec<CompletionItem> {
    registry()
        .iter()
        .map(|rule| {
            let name = rule.name();
            let doc = catalogue::doc(name);
            let severity = doc.and_then(|d| d.severity).map_or("off", |s| s.as_str());
            CompletionItem {
                label: name.into(),
                kind: Some(CompletionItemKind::VALUE),
                detail: Some(format!("{severity} by default")),
                documentation: doc.map(|d| Documentation::String(d.summary.trim().into())),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, name.into()))),
                ..CompletionItem::default()
            }
        })
        .collect()
}

/// The table the statement names (as Iceberg compares names, case-insensitively), else the
/// only one the file touches (a name written without its namespace after `USE`).
fn table_of<'k>(tables: &'k [TableState], written: &str) -> Option<&'k TableState> {
    let named = tables
        .iter()
        .find(|t| t.table.eq_ignore_ascii_case(written));
    match tables {
        [only] => named.or(Some(only)),
        _ => named,
    }
}

/// The schema the file's statements before `offset` leave: the last judged statement that
/// ends before it in text that has not changed since it was judged, else the schema before the
/// file.
fn schema_before<'s>(state: &'s TableState, judged: &str, text: &str, offset: usize) -> &'s Schema {
    let unchanged = |end: usize| {
        end <= offset
            && judged
                .get(..end)
                .is_some_and(|j| text.get(..end) == Some(j))
    };
    // A prefix that is unchanged has every shorter one unchanged: the last such step is found by
    // bisection, a few comparisons of the texts whatever their size.
    let count = state
        .steps
        .partition_point(|(span, _)| unchanged(span.end()));
    match count.checked_sub(1).and_then(|i| state.steps.get(i)) {
        Some((_, schema)) => schema,
        None => &state.before,
    }
}

/// The fields of the struct (or list element, map key or value) at `parent`, matched as Iceberg
/// resolves names; the top-level fields for an empty `parent`.
fn children(schema: &Schema, parent: &[String]) -> Vec<FieldInfo> {
    let walked = schema.walk();
    let parent_id = match parent {
        [] => None,
        _ => {
            let path = parent.join(".");
            let Some(found) = walked.iter().find(|f| f.path.eq_ignore_ascii_case(&path)) else {
                return Vec::new();
            };
            Some(found.id)
        }
    };
    walked
        .into_iter()
        .filter(|f| f.parent_id == parent_id)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iceberg::schema::Field;
    use crate::iceberg::types::{PrimitiveType, StructType, Type};

    fn field(id: i32, name: &str, ty: Type) -> Field {
        Field::new(id, name, false, ty)
    }

    fn schema(id: i32, fields: Vec<Field>) -> Schema {
        Schema {
            schema_id: id,
            identifier_field_ids: Vec::new(),
            fields,
        }
    }

    #[test]
    fn a_struct_path_completes_its_fields() {
        let inner = StructType {
            fields: vec![field(3, "city", Type::Primitive(PrimitiveType::String))],
        };
        let s = schema(
            0,
            vec![
                field(1, "id", Type::Primitive(PrimitiveType::Long)),
                field(2, "address", Type::Struct(inner)),
            ],
        );
        let names = |parent: &[&str]| -> Vec<String> {
            let parent: Vec<String> = parent.iter().map(|p| p.to_string()).collect();
            children(&s, &parent).into_iter().map(|f| f.name).collect()
        };
        assert_eq!(names(&[]), ["id", "address"]);
        assert_eq!(names(&["ADDRESS"]), ["city"]);
        assert!(names(&["nope"]).is_empty());
    }
}
