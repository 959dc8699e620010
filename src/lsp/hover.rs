//! Hovers: a rule's explanation from the catalogue, on its name (a suppression comment, a
//! configuration's `rules:` entry) or anywhere in a diagnostic it raised; a column's id, type,
//! doc and history on its name.

use lsp_types::{Diagnostic, Hover, HoverContents, MarkupContent, MarkupKind, NumberOrString};
use lsp_types::{Position, Range};

use super::columns::{self, TableState};
use super::text::{Encoding, Lines, word_at};
use crate::rules::catalogue::{RuleDoc, doc};

/// A rule's documentation as Markdown, as a hover and its linked page show it.
pub fn rule_markdown(rule: &RuleDoc) -> String {
    let severity = rule.severity.map_or("off", |s| s.as_str());
    let mut text = format!(
        "**{}** ({severity} by default)\n\n{}\n\n**Why**\n\n{}\n\n**What to do instead**\n\n{}\n",
        rule.name,
        rule.summary.trim(),
        rule.why.trim(),
        rule.fix.trim()
    );
    let example = rule
        .examples
        .iter()
        .find_map(|e| Some((e.base.trim(), e.fail.first()?.trim())));
    if let Some((base, fails)) = example {
        text.push_str(&format!("\n**Example**\n\nOn the table\n\n```yaml\n{base}\n```\n\nthis fails:\n\n```sql\n{fails}\n```\n"));
    }
    text
}

/// The hover at `position` of `text`, given the diagnostics last published for it and the
/// tables it touched when last judged.
pub fn at(
    text: &str,
    position: Position,
    encoding: Encoding,
    published: &[Diagnostic],
    tables: &[TableState],
) -> Option<Hover> {
    let lines = Lines::new(text);
    let offset = lines.offset(position, encoding);
    if let Some((start, word)) = word_at(text, offset) {
        let range = Some(lines.range(start, word.len(), encoding));
        if let Some(rule) = doc(word) {
            return Some(markdown(rule_markdown(rule), range));
        }
        if let Some(column) = columns::hover(tables, word) {
            return Some(markdown(column, range));
        }
    }
    // The most severe finding under the cursor (errors have the lowest severity number).
    let rule = published
        .iter()
        .filter(|d| d.range.start <= position && position <= d.range.end)
        .min_by_key(|d| d.severity)
        .and_then(|d| match &d.code {
            Some(NumberOrString::String(code)) => doc(code).map(|r| (r, d.range)),
            _ => None,
        });
    rule.map(|(rule, range)| markdown(rule_markdown(rule), Some(range)))
}

fn markdown(value: String, range: Option<Range>) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_name_in_a_suppression_is_explained() {
        let text = "-- fieldgate: allow type-narrowing -- checked\nALTER TABLE t DROP COLUMN a;\n";
        let hover = at(text, Position::new(0, 25), Encoding::Utf16, &[], &[]).unwrap();
        let HoverContents::Markup(content) = hover.contents else {
            panic!()
        };
        assert!(
            content.value.starts_with("**type-narrowing**"),
            "{}",
            content.value
        );
        assert_eq!(hover.range.unwrap().start, Position::new(0, 20));
        assert!(at(text, Position::new(1, 3), Encoding::Utf16, &[], &[]).is_none());
    }
}
