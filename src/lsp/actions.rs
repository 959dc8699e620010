//! Quick fixes for the diagnostics a client sends back: a suppression comment above the
//! statement with the reason left to write (until it is written, the suppression itself is
//! reported, so the fix never silences a finding by itself), "did you mean" replacements, and a
//! safer statement in place of a finding's (a narrowing's new column).

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, NumberOrString, Range, TextEdit,
    Url, WorkspaceEdit,
};

use super::diagnostics::Fixes;

pub fn quick_fixes(uri: &Url, diagnostics: &[Diagnostic]) -> Vec<CodeActionOrCommand> {
    let mut actions = Vec::new();
    for diagnostic in diagnostics {
        let Some(fixes) = diagnostic
            .data
            .clone()
            .and_then(|data| serde_json::from_value::<Fixes>(data).ok())
        else {
            continue;
        };
        for name in &fixes.replace_with {
            let edit = TextEdit::new(diagnostic.range, name.clone());
            actions.push(action(
                format!("Replace with `{name}`"),
                uri,
                edit,
                diagnostic,
                true,
            ));
        }
        if let Some((title, range, text)) = &fixes.instead {
            let edit = TextEdit::new(*range, text.clone());
            actions.push(action(title.clone(), uri, edit, diagnostic, false));
        }
        let rule = match &diagnostic.code {
            Some(NumberOrString::String(rule)) => rule,
            _ => continue,
        };
        if let Some(at) = fixes.suppress_at
            && !fixes.comment.is_empty()
        {
            let comment = format!(
                "{}{} fieldgate: allow {rule} -- \n",
                fixes.indent, fixes.comment
            );
            let edit = TextEdit::new(Range::new(at, at), comment);
            let title = format!("Suppress `{rule}` on this statement (write the reason)");
            actions.push(action(title, uri, edit, diagnostic, false));
        }
    }
    actions
}

fn action(
    title: String,
    uri: &Url,
    edit: TextEdit,
    diagnostic: &Diagnostic,
    preferred: bool,
) -> CodeActionOrCommand {
    let changes = HashMap::from([(uri.clone(), vec![edit])]);
    CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic.clone()]),
        edit: Some(WorkspaceEdit {
            changes: Some(changes),
            ..WorkspaceEdit::default()
        }),
        is_preferred: preferred.then_some(true),
        ..CodeAction::default()
    })
}
