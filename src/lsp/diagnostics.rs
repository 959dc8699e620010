//! Findings and judging errors as LSP diagnostics of one file: range, severity, the rule as the
//! code with a link to its documentation, related places (the dropped field, the partition
//! field in the metadata, an earlier statement), and, in `data`, what the code actions need.

use std::path::{Path, PathBuf};

use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Position, Range, Url,
};
use serde::{Deserialize, Serialize};

use super::text::{Encoding, Lines};
use super::{Located, Verdict};
use crate::change::{Origin, Source, Span};
use crate::finding::{Finding, Severity};

/// What a diagnostic carries for the code actions on it.
#[derive(Debug, Serialize, Deserialize, Default)]
pub struct Fixes {
    /// Where a suppression comment goes: the start of the statement's first line.
    pub suppress_at: Option<Position>,
    /// The statement's indentation, repeated on the comment.
    #[serde(default)]
    pub indent: String,
    /// The comment marker of the file (`--` in SQL, `#` in a schema file).
    #[serde(default)]
    pub comment: String,
    /// Names to put in place of the diagnostic's range ("did you mean").
    #[serde(default)]
    pub replace_with: Vec<String>,
    /// A safer statement in place of the finding's: its title, range and text.
    #[serde(default)]
    pub instead: Option<(String, Range, String)>,
}

/// How rules' documentation is linked: `codeDescription` wants a URI, so the catalogue is
/// written out once as Markdown files and linked by path.
pub trait RuleLinks {
    fn link(&self, rule: &str) -> Option<Url>;
}

/// The diagnostics of the file at `path` (whose text is `text`): findings located in it, and
/// table findings without a place and errors located in other files, at its start.
pub fn of_file(
    verdict: &Verdict,
    path: &Path,
    text: &str,
    encoding: Encoding,
    links: &dyn RuleLinks,
) -> Vec<Diagnostic> {
    let lines = Lines::new(text);
    let here = |source: &Source| verdict.root.join(&source.name) == path;
    let mut out = Vec::new();
    for finding in &verdict.findings {
        match &finding.origin {
            Some(origin) if !here(&origin.source) => continue,
            _ => {}
        }
        out.push(finding_diagnostic(
            finding, &lines, text, encoding, verdict, links,
        ));
    }
    for error in &verdict.errors {
        match &error.source {
            Some(source) if !here(source) => {
                out.push(elsewhere_diagnostic(error, source, &verdict.root, encoding))
            }
            _ => out.push(error_diagnostic(error, &lines, encoding)),
        }
    }
    out
}

/// An error in another file that stopped this one being judged (an earlier migration that
/// does not parse, an unsaved `fieldgate.yaml`): shown at this file's start, pointing there.
fn elsewhere_diagnostic(
    error: &Located,
    source: &Source,
    root: &Path,
    encoding: Encoding,
) -> Diagnostic {
    let place = Url::from_file_path(root.join(&source.name))
        .ok()
        .map(|uri| {
            let lines = Lines::new(&source.text);
            let range = lines.range(error.span.offset, error.span.len, encoding);
            DiagnosticRelatedInformation {
                location: Location::new(uri, range),
                message: error.message.clone(),
            }
        });
    Diagnostic {
        range: Range::default(),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("fieldgate".into()),
        message: format!(
            "not judged: `{}` has an error: {}",
            source.name, error.message
        ),
        related_information: place.map(|p| vec![p]),
        ..Diagnostic::default()
    }
}

fn finding_diagnostic(
    finding: &Finding,
    lines: &Lines<'_>,
    text: &str,
    encoding: Encoding,
    verdict: &Verdict,
    links: &dyn RuleLinks,
) -> Diagnostic {
    let focus = finding.origin.as_ref().map_or(Span::default(), |o| o.focus);
    let mut message = finding.message.clone();
    if let Some(help) = &finding.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<DiagnosticRelatedInformation> = finding
        .related
        .iter()
        .filter_map(|r| {
            let origin = r.origin.as_ref()?;
            Some(DiagnosticRelatedInformation {
                location: location_of(origin, &verdict.root, encoding)?,
                message: r.message.clone(),
            })
        })
        .collect();
    let instead = finding.origin.as_ref().and_then(|origin| {
        let alternative = verdict
            .alternatives
            .iter()
            .find(|a| a.rule == finding.rule && a.statement == origin.statement)?;
        let range = lines.range(origin.statement.offset, origin.statement.len, encoding);
        Some((alternative.title.clone(), range, alternative.text.clone()))
    });
    let fixes = Fixes {
        replace_with: suggestions(finding.help.as_deref()),
        instead,
        ..suppression_place(finding.origin.as_ref(), lines, text, encoding)
    };
    Diagnostic {
        range: lines.range(focus.offset, focus.len, encoding),
        severity: Some(severity(finding.severity)),
        code: Some(NumberOrString::String(finding.rule.to_string())),
        code_description: links
            .link(finding.rule)
            .map(|href| CodeDescription { href }),
        source: Some("fieldgate".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: serde_json::to_value(fixes).ok(),
    }
}

fn error_diagnostic(error: &Located, lines: &Lines<'_>, encoding: Encoding) -> Diagnostic {
    let mut message = error.message.clone();
    if let Some(help) = &error.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let fixes = Fixes {
        replace_with: suggestions(error.help.as_deref()),
        ..Fixes::default()
    };
    Diagnostic {
        range: lines.range(error.span.offset, error.span.len, encoding),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("fieldgate".into()),
        message,
        data: serde_json::to_value(fixes).ok(),
        ..Diagnostic::default()
    }
}

fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    }
}

/// Where a suppression comment for a finding goes: the line its statement starts on.
fn suppression_place(
    origin: Option<&Origin>,
    lines: &Lines<'_>,
    text: &str,
    encoding: Encoding,
) -> Fixes {
    let Some(origin) = origin else {
        return Fixes::default();
    };
    let offset = origin.statement.offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    let indent: String = line
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let name = origin.source.name.to_ascii_lowercase();
    let comment = if name.ends_with(".sql") { "--" } else { "#" };
    Fixes {
        suppress_at: Some(lines.position(start, encoding)),
        indent,
        comment: comment.into(),
        ..Fixes::default()
    }
}

/// The names a help text proposes ("did you mean `x`?", "did you mean `x` or `y`?").
fn suggestions(help: Option<&str>) -> Vec<String> {
    let Some(rest) = help
        .and_then(|h| h.split_once("did you mean "))
        .map(|(_, r)| r)
    else {
        return Vec::new();
    };
    let sentence = rest.split(['?', '(']).next().unwrap_or("");
    sentence
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect()
}

/// A place in another file (a metadata file, an earlier migration), located in its own text.
fn location_of(origin: &Origin, root: &Path, encoding: Encoding) -> Option<Location> {
    let path: PathBuf = root.join(&origin.source.name);
    let uri = Url::from_file_path(&path).ok()?;
    let lines = Lines::new(&origin.source.text);
    let span = origin.focus;
    Some(Location::new(
        uri,
        lines.range(span.offset, span.len, encoding),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_come_from_the_help() {
        assert_eq!(
            suggestions(Some("did you mean `mobile_phone`?")),
            ["mobile_phone"]
        );
        assert_eq!(
            suggestions(Some("did you mean `a` or `b`? (`t` has 3 columns)")),
            ["a", "b"]
        );
        assert!(suggestions(Some("drop it first")).is_empty());
        assert!(suggestions(None).is_empty());
    }
}
