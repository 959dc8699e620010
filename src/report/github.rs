//! GitHub Actions workflow commands: one `::error` / `::warning` / `::notice` line per finding,
//! so findings show as annotations on the pull request diff, then the verdict as a plain log
//! line.
//!
//! The command syntax is `::LEVEL file=F,line=L,endLine=L2,col=C,endColumn=C2,title=T::MESSAGE`.
//! GitHub's toolkit (`@actions/core`, `escapeData` / `escapeProperty`) escapes `%`, `\r` and
//! `\n` in the message, and additionally `:` and `,` in property values, which would otherwise
//! end the value. A message spans lines (help, related places) through the escaped `%0A`.
//! `col` and `endColumn` are only given for a one-line span: GitHub ignores or misplaces them
//! otherwise (ruff#22074).

use std::io::{self, Write};

use crate::finding::{Location, Severity, locate};
use crate::report::{INPUT_ERROR, Reporter, Run};

pub struct Github;

impl Reporter for Github {
    fn write(&self, run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
        for finding in run.findings() {
            let mut message = finding.message.clone();
            if let Some(help) = &finding.help {
                message.push_str(&format!("\nhelp: {help}"));
            }
            for related in &finding.related {
                let place = related
                    .origin
                    .as_ref()
                    .map(|o| {
                        let l = locate(o);
                        format!(" ({}:{}:{})", l.file, l.line, l.column)
                    })
                    .unwrap_or_default();
                message.push_str(&format!("\nnote: {}{place}", related.message));
            }
            let level = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "notice",
            };
            writeln!(
                out,
                "{}",
                command(level, finding.location().as_ref(), finding.rule, &message)
            )?;
        }
        for error in run.errors() {
            let mut message = error.message.clone();
            if let Some(help) = &error.help {
                message.push_str(&format!("\nhelp: {help}"));
            }
            writeln!(
                out,
                "{}",
                command("error", error.location().as_ref(), INPUT_ERROR, &message)
            )?;
        }
        for s in run.suppressed() {
            let place = s
                .finding
                .location()
                .map(|l| format!(" at {}:{}", l.file, l.line))
                .unwrap_or_default();
            // Not a command, but a line the runner still scans for one: a file name or reason
            // with a line break would start a line of its own (`::add-mask::`, `::error`).
            let line = format!("suppressed {}{place}: {}", s.finding.rule, s.reason);
            writeln!(out, "{}", escape_data(&line))?;
        }
        writeln!(out, "fieldgate {}", run.verdict())
    }
}

/// One workflow command line.
pub fn command(level: &str, location: Option<&Location>, title: &str, message: &str) -> String {
    let mut properties: Vec<String> = Vec::new();
    if let Some(l) = location {
        properties.push(format!("file={}", escape_property(&l.file)));
        properties.push(format!("line={}", l.line));
        properties.push(format!("endLine={}", l.end_line));
        if l.line == l.end_line {
            properties.push(format!("col={}", l.column));
            properties.push(format!("endColumn={}", l.end_column));
        }
    }
    properties.push(format!("title={}", escape_property(title)));
    format!(
        "::{level} {}::{}",
        properties.join(","),
        escape_data(message)
    )
}

/// A command's message (and any other line the format prints): `%`, CR and LF, and the runner's
/// older command syntax (`##[add-mask]`), which it recognises anywhere in a line that is not a
/// `::` command.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
        .replace("##[", "##\\[")
}

/// A property value: the message escapes plus `:` and `,`, which end a value.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::Span;

    #[test]
    fn data_and_properties_are_escaped_as_the_actions_toolkit_does() {
        assert_eq!(escape_data("100% a:b, c\r\nd"), "100%25 a:b, c%0D%0Ad");
        assert_eq!(escape_property("C:\\x,y%\n"), "C%3A\\x%2Cy%25%0A");
        assert_eq!(escape_data("a ##[add-mask]b"), "a ##\\[add-mask]b");
    }

    #[test]
    fn columns_are_only_given_on_one_line() {
        let mut l = Location {
            file: "a,b:c.sql".into(),
            line: 2,
            column: 3,
            end_line: 2,
            end_column: 9,
            span: Span::new(0, 0),
        };
        assert_eq!(
            command("error", Some(&l), "type-narrowing", "50% off:\nnow, then"),
            "::error file=a%2Cb%3Ac.sql,line=2,endLine=2,col=3,endColumn=9,title=type-narrowing::50%25 off:%0Anow, then"
        );
        l.end_line = 3;
        assert_eq!(
            command("warning", Some(&l), "t", "m"),
            "::warning file=a%2Cb%3Ac.sql,line=2,endLine=3,title=t::m"
        );
        assert_eq!(command("notice", None, "t", "m"), "::notice title=t::m");
    }
}
