//! Suppressions: `-- fieldgate: allow <rule>[, <rule>] [until YYYY-MM-DD] -- <reason>` in the
//! comment lines right above a statement silences those rules' findings on that statement (in a
//! schema file, `# fieldgate: allow ...` above a field entry, for the changes inside that
//! entry). The reason is required and shown in reports; a suppression that names an unknown rule,
//! has no reason, has expired, or silences nothing is itself reported.

use crate::change::{Source, Span, Statement};
use crate::finding::{Finding, Severity};
use crate::rules::registry;
use crate::suggest::closest;

const MARKER: &str = "fieldgate:";

#[derive(Debug, Clone)]
pub struct Suppression {
    pub source: Source,
    /// The comment, for locating problems with it.
    pub span: Span,
    /// The statement it applies to.
    pub statement: Span,
    pub rules: Vec<String>,
    pub until: Option<String>,
    pub reason: Option<String>,
}

/// A finding a suppression silenced, with the reason given.
#[derive(Debug, Clone)]
pub struct Suppressed {
    pub finding: Finding,
    pub reason: String,
    pub until: Option<String>,
}

/// Finds the suppression comments directly above each statement.
pub fn find(statements: &[&Statement]) -> Vec<Suppression> {
    statements
        .iter()
        .flat_map(|s| find_above(&s.source, &[s.span], "--"))
        .collect()
}

/// Finds the suppression comments (lines starting with `comment`: `--` in SQL, `#` in YAML)
/// directly above each of `entries`, each suppression applying to findings whose origin's
/// statement is that entry. Schema files use it with their field entries.
pub fn find_above(source: &Source, entries: &[Span], comment: &str) -> Vec<Suppression> {
    let mut out = Vec::new();
    let text = &source.text;
    for entry in entries {
        let mut end = line_start(text, entry.offset);
        while end > 0 {
            let start = line_start(text, end - 1);
            let line = &text[start..end];
            let trimmed = line.trim();
            let Some(body) = trimmed.strip_prefix(comment) else {
                break;
            };
            if let Some(body) = body.trim_start().strip_prefix(MARKER) {
                let offset = start + (line.len() - line.trim_start().len());
                let span = Span::new(offset, trimmed.len());
                out.push(parse(body, source, *entry, span));
            }
            end = start;
        }
    }
    out
}

/// Where a rule name is being written in a suppression comment: `line` is the text from a
/// line's start up to the cursor, and the result the offset in it where the name typed so far
/// starts. `None` outside the comment's list of rules (before `allow`, after `until` or the
/// reason's `--`, or after a name not followed by a comma).
pub fn rule_typed_at(line: &str, comment: &str) -> Option<usize> {
    let body = line.trim_start().strip_prefix(comment)?;
    let body = body.trim_start().strip_prefix(MARKER)?;
    let list = body.trim_start().strip_prefix("allow")?;
    if !list.starts_with(char::is_whitespace) || list.contains("--") {
        return None;
    }
    let typed = list
        .trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '-')
        .len();
    let before = list[..typed].trim_end();
    match before.is_empty() || before.ends_with(',') {
        true => Some(line.len() - list.len() + typed),
        false => None,
    }
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1)
}

fn parse(body: &str, source: &Source, statement: Span, span: Span) -> Suppression {
    let (directive, reason) = match body.split_once("--") {
        Some((directive, reason)) => (
            directive,
            Some(reason.trim().to_string()).filter(|r| !r.is_empty()),
        ),
        None => (body, None),
    };
    let directive = directive.trim().strip_prefix("allow").unwrap_or("").trim();
    let (rules, until) = match directive.split_once(" until ") {
        Some((rules, date)) => (rules, Some(date.trim().to_string())),
        None => (directive, None),
    };
    Suppression {
        source: source.clone(),
        span,
        statement,
        rules: rules
            .split(',')
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
            .collect(),
        until,
        reason,
    }
}

/// The problem of a suppression that silenced nothing, naming its known rules. A mistyped rule is
/// reported as that alone: it silences nothing because of the typo.
fn silences_nothing(s: &Suppression, used: bool, known: &[&str]) -> Option<String> {
    let named: Vec<&str> = s
        .rules
        .iter()
        .map(String::as_str)
        .filter(|r| known.contains(r))
        .collect();
    (!used && !named.is_empty())
        .then(|| format!("the suppression of {} silences nothing", named.join(", ")))
}

/// Applies suppressions to findings on `today` (`YYYY-MM-DD`). Returns the findings that stand
/// (with any problems of the suppressions themselves, as `suppression` findings at
/// `severity`) and the ones silenced.
pub fn apply(
    findings: Vec<Finding>,
    suppressions: &[Suppression],
    today: &str,
    table: &str,
    severity: Option<Severity>,
) -> (Vec<Finding>, Vec<Suppressed>) {
    let known: Vec<&str> = registry().iter().map(|r| r.name()).collect();
    let mut problems = Vec::new();
    let mut usable = Vec::new();
    for s in suppressions {
        let (applies, found) = problems_of(s, today, &known);
        problems.extend(found.into_iter().map(|(message, help)| (s, message, help)));
        if applies {
            usable.push(s);
        }
    }
    let mut used = vec![false; usable.len()];
    let mut kept = Vec::new();
    let mut silenced = Vec::new();
    for finding in findings {
        match suppressing(&usable, &finding) {
            Some(index) => {
                used[index] = true;
                let s = usable[index];
                silenced.push(Suppressed {
                    finding,
                    reason: s.reason.clone().unwrap_or_default(),
                    until: s.until.clone(),
                });
            }
            None => kept.push(finding),
        }
    }
    for (s, used) in usable.iter().zip(used) {
        if let Some(problem) = silences_nothing(s, used, &known) {
            problems.push((
                s,
                problem,
                "remove it: the statement no longer raises these rules".into(),
            ));
        }
    }
    if let Some(severity) = severity {
        kept.extend(
            problems
                .into_iter()
                .map(|(s, message, help)| problem_finding(s, message, help, table, severity)),
        );
    }
    (kept, silenced)
}

/// Whether a suppression applies on `today`, and its problems (message, help) in the order they
/// are reported: no rule, unknown rules, no reason, a bad or past `until` date.
fn problems_of(s: &Suppression, today: &str, known: &[&str]) -> (bool, Vec<(String, String)>) {
    let mut problems = Vec::new();
    let mut complain = |message: String, help: &str| problems.push((message, help.to_string()));
    if s.rules.is_empty() {
        complain(
            "the suppression names no rule".into(),
            "write `-- fieldgate: allow <rule> -- <reason>`",
        );
        return (false, problems);
    }
    for rule in s.rules.iter().filter(|r| !known.contains(&r.as_str())) {
        let hint = closest(rule, known.iter().copied()).map_or_else(
            || "`fieldgate rules` lists the rule names".to_string(),
            |c| format!("did you mean `{c}`?"),
        );
        complain(
            format!("the suppression names an unknown rule `{rule}`"),
            &hint,
        );
    }
    if s.reason.is_none() {
        complain(
            "the suppression gives no reason, so it does not apply".into(),
            "add `-- <why this is fine>` after the rule names",
        );
        return (false, problems);
    }
    match &s.until {
        Some(date) if !is_date(date) => complain(
            format!("`until {date}` is not a date (YYYY-MM-DD), so the suppression does not apply"),
            "write the expiry as YYYY-MM-DD",
        ),
        Some(date) if date.as_str() < today => complain(
            format!("the suppression expired on {date}, so it no longer applies"),
            "fix the finding, or renew the suppression with a new date and reason",
        ),
        _ => return (true, problems),
    }
    (false, problems)
}

/// The first usable suppression that silences a finding: one of its rules, in the same source,
/// on the finding's statement. In SQL that is its statement; in a schema file, the entry below
/// the comment, nested fields included.
fn suppressing(usable: &[&Suppression], finding: &Finding) -> Option<usize> {
    let origin = finding.origin.as_ref()?;
    usable.iter().position(|s| {
        let inside = s.statement == origin.statement
            || (s.statement.offset <= origin.focus.offset
                && origin.focus.end() <= s.statement.end());
        std::sync::Arc::ptr_eq(&s.source, &origin.source)
            && inside
            && s.rules.iter().any(|r| r == finding.rule)
    })
}

/// A problem of a suppression, as a `suppression` finding located at its comment.
fn problem_finding(
    s: &Suppression,
    message: String,
    help: String,
    table: &str,
    severity: Severity,
) -> Finding {
    Finding {
        rule: "suppression",
        severity,
        message: format!("{table}: {message}"),
        table: table.to_string(),
        field: None,
        field_id: None,
        origin: Some(crate::change::Origin {
            source: s.source.clone(),
            statement: s.statement,
            focus: s.span,
        }),
        help: Some(help),
        related: Vec::new(),
    }
}

fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    matches!(parts.as_slice(), [y, m, d] if y.len() == 4 && m.len() == 2 && d.len() == 2
        && [y, m, d].iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()))
        && (1..=12).contains(&m.parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&d.parse::<u32>().unwrap_or(0)))
}

/// Today's date (UTC) as `YYYY-MM-DD`, from days since the Unix epoch (Howard Hinnant's
/// civil-from-days algorithm).
pub fn date_from_unix_days(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Days since the Unix epoch of a `YYYY-MM-DD` date (the inverse of [`date_from_unix_days`],
/// Hinnant's days-from-civil), for windows measured in days; `None` for anything else.
pub fn unix_days_from_date(date: &str) -> Option<i64> {
    if !is_date(date) {
        return None;
    }
    let mut parts = date.split('-').map(|p| p.parse::<i64>().ok());
    let (year, month, day) = (parts.next()??, parts.next()??, parts.next()??);
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::change::{Origin, SourceFile};
    use crate::frontend::ddl::{Dialect, parse_sql};

    fn statements(text: &str) -> Vec<Statement> {
        parse_sql(
            Arc::new(SourceFile {
                name: "m.sql".into(),
                text: text.into(),
            }),
            Dialect::Spark,
        )
        .unwrap()
    }

    #[test]
    fn a_rule_name_is_typed_in_the_list_of_rules_only() {
        fn typed(line: &str) -> Option<&str> {
            rule_typed_at(line, "--").map(|at| &line[at..])
        }
        assert_eq!(typed("-- fieldgate: allow "), Some(""));
        assert_eq!(typed("  --fieldgate:allow colu"), Some("colu"));
        assert_eq!(
            typed("-- fieldgate: allow column-drop, type-n"),
            Some("type-n")
        );
        assert_eq!(typed("-- fieldgate: allow column-drop,"), Some(""));
        for outside in [
            "-- fieldgate: allow",
            "-- fieldgate: allo",
            "-- fieldgate: allow column-drop ",
            "-- fieldgate: allow column-drop until 2026-",
            "-- fieldgate: allow column-drop -- reason, type",
            "-- a comment: allow x",
            "ALTER TABLE t -- fieldgate: allow x",
        ] {
            assert_eq!(typed(outside), None, "{outside}");
        }
        assert_eq!(rule_typed_at("# fieldgate: allow name-", "#"), Some(19));
    }

    fn finding(rule: &'static str, statement: &Statement) -> Finding {
        Finding {
            rule,
            severity: Severity::Warning,
            message: String::new(),
            table: "t".into(),
            field: None,
            field_id: None,
            origin: Some(Origin {
                source: statement.source.clone(),
                statement: statement.span,
                focus: statement.span,
            }),
            help: None,
            related: Vec::new(),
        }
    }

    #[test]
    fn a_reasoned_suppression_silences_its_statement_only() {
        let s = statements(
            "ALTER TABLE t DROP COLUMN a;\n-- retire b\n-- fieldgate: allow column-drop -- retired in the Q3 review\nALTER TABLE t DROP COLUMN b;\n",
        );
        let suppressions = find(&s.iter().collect::<Vec<_>>());
        assert_eq!(suppressions.len(), 1);
        assert_eq!(
            suppressions[0].reason.as_deref(),
            Some("retired in the Q3 review")
        );
        let (kept, silenced) = apply(
            vec![finding("column-drop", &s[0]), finding("column-drop", &s[1])],
            &suppressions,
            "2026-11-30",
            "t",
            Some(Severity::Warning),
        );
        assert_eq!(kept.len(), 1);
        assert_eq!(silenced.len(), 1);
        assert_eq!(silenced[0].reason, "retired in the Q3 review");
    }

    #[test]
    fn unknown_unreasoned_expired_and_unused_suppressions_are_reported() {
        let s = statements(
            "-- fieldgate: allow colum-drop -- typo\nALTER TABLE t DROP COLUMN a;\n-- fieldgate: allow column-drop\nALTER TABLE t DROP COLUMN b;\n-- fieldgate: allow column-drop until 2026-01-31 -- was temporary\nALTER TABLE t DROP COLUMN c;\n-- fieldgate: allow type-narrowing -- nothing to silence\nALTER TABLE t DROP COLUMN d;\n",
        );
        let findings = s.iter().map(|st| finding("column-drop", st)).collect();
        let (kept, silenced) = apply(
            findings,
            &find(&s.iter().collect::<Vec<_>>()),
            "2026-11-30",
            "t",
            Some(Severity::Warning),
        );
        assert!(silenced.is_empty());
        let messages: Vec<&str> = kept
            .iter()
            .filter(|f| f.rule == "suppression")
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].contains("unknown rule `colum-drop`"));
        assert!(messages.iter().any(|m| m.contains("no reason")));
        assert!(messages.iter().any(|m| m.contains("expired on 2026-01-31")));
        // The mistyped one is reported as mistyped only, not also as silencing nothing.
        let nothing: Vec<&&str> = messages
            .iter()
            .filter(|m| m.contains("silences nothing"))
            .collect();
        assert_eq!(
            nothing,
            [&"t: the suppression of type-narrowing silences nothing"]
        );
    }

    #[test]
    fn dates_come_from_days_since_the_epoch() {
        assert_eq!(date_from_unix_days(0), "1970-01-01");
        assert_eq!(date_from_unix_days(20_787), "2026-11-30");
        assert_eq!(date_from_unix_days(11_016), "2000-02-29");
    }

    #[test]
    fn dates_and_day_numbers_round_trip() {
        for days in [-1, 0, 59, 60, 365, 11_016, 20_000, 20_729] {
            let date = date_from_unix_days(days);
            assert_eq!(unix_days_from_date(&date), Some(days), "{date}");
        }
        assert_eq!(unix_days_from_date("1970-01-01"), Some(0));
        assert_eq!(unix_days_from_date("2026-10-02"), Some(20_728));
        assert_eq!(unix_days_from_date("2026-13-02"), None);
    }
}
