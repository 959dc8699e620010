//! What a change to `fieldgate.yaml` does to the gate: every way the changed configuration judges
//! more leniently than the base's, each located in the changed file. `check` reports them
//! (`policy-relaxation`), so a reviewer sees a pull request that loosens the gate it is judged by.
//!
//! Settings are compared as tables are judged with them (a table's entry over the globals over
//! the defaults). A global change is reported once, at the global key; a table's own entry is
//! reported at that entry, and only where the entry, not the globals, makes the difference.

use std::collections::HashMap;

use crate::change::Span;
use crate::finding::{Severity, line_col};
use crate::judge::Settings;
use crate::plural::counted;
use crate::repo::config::{
    Config, RuleOption, RuleSetting, SampleKind, TableConfig, named_limits, place, same_table,
};
use crate::rules::{Compatibility, Mapping, registry};

/// One way the changed configuration is more lenient than the base's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relaxation {
    /// Where in the changed file; `None` when what relaxes the gate is a removal with nothing
    /// left to point at but the file.
    pub span: Option<Span>,
    /// The table it concerns; `None` for a global setting.
    pub table: Option<String>,
    pub message: String,
}

/// Every relaxation from `base` to `head`, globals first, then tables in the base's order.
pub fn relaxations(base: &Config, head: &Config) -> Vec<Relaxation> {
    let mut out = global_relaxations(base, head);
    out.extend(entry_relaxations(base, head));
    out
}

/// What loosens for every table: the compatibility mode, rules, `proposals` globs, limits.
fn global_relaxations(base: &Config, head: &Config) -> Vec<Relaxation> {
    let mut out = Vec::new();
    let scope = "for every table";
    let global = |span: Option<Span>, message: String| Relaxation {
        span,
        table: None,
        message,
    };
    let (b, h) = (base.global_settings(), head.global_settings());
    if let Some(lost) = weakened(b.compatibility, h.compatibility) {
        out.push(global(
            head.compatibility_span,
            format!("compatibility no longer requires {lost} {scope}"),
        ));
    }
    // A rule neither file sets can still change severity with the compatibility mode
    // (`reader-cache-refresh`): that is the mode's change, reported above.
    for item in rule_items(&b, &h) {
        let span = item.set_in(&head.rules);
        if span.is_none() && item.set_in(&base.rules).is_none() {
            continue;
        }
        out.push(global(span, format!("{} {scope}", item.message)));
    }
    for (glob, span) in base.proposals.iter().zip(&base.proposal_spans) {
        if !head.proposals.contains(glob) {
            out.push(global(
                None,
                format!(
                    "`proposals` no longer lists `{glob}` (line {} at the base): the files it matches are not judged",
                    line_col(&base.source.text, span.offset).0
                ),
            ));
        }
    }
    let raised = named_limits(&base.limits)
        .into_iter()
        .zip(named_limits(&head.limits))
        .filter(|((_, was), (_, now))| now > was);
    for ((key, was), (_, now)) in raised {
        out.push(global(
            None,
            format!("`limits: {key}` is raised from {was} to {now}: larger inputs are read"),
        ));
    }
    out
}

/// What loosens for each table the base configures: in its entry (found by name, or where it
/// was when renamed), or the entry removed.
fn entry_relaxations(base: &Config, head: &Config) -> Vec<Relaxation> {
    let mut out = Vec::new();
    let head_tables = head.table_index();
    let renamed = renamed_entries(base, head);
    for (position, entry) in base.tables.iter().enumerate() {
        let new_names = renamed
            .get(&position)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for now in new_names {
            out.extend(table_relaxations(base, head, entry, now));
        }
        match head_tables.table(&entry.name) {
            Some(now) => out.extend(table_relaxations(base, head, entry, now)),
            None if !new_names.is_empty() => {}
            None => out.push(Relaxation {
                span: None,
                table: Some(entry.name.clone()),
                message: format!(
                    "the entry of `{}` (line {} at the base) is removed: its changes are no longer judged",
                    entry.name,
                    line_col(&entry.source.text, entry.name_span.offset).0
                ),
            }),
        }
    }
    out
}

/// The change's entries that have no base entry of their name but share a place with one (an
/// entry renamed, or a second name for a table), by the position of the first base entry at
/// that place: the entry that speaks for them (`Config::counterpart`).
fn renamed_entries<'h>(base: &Config, head: &'h Config) -> HashMap<usize, Vec<&'h TableConfig>> {
    let base_tables = base.table_index();
    let mut first_at: HashMap<String, usize> = HashMap::new();
    for (position, entry) in base.tables.iter().enumerate() {
        if let Some(at) = place(entry) {
            first_at.entry(at).or_insert(position);
        }
    }
    let mut out: HashMap<usize, Vec<&TableConfig>> = HashMap::new();
    for entry in &head.tables {
        if base_tables.table(&entry.name).is_some() {
            continue;
        }
        if let Some(&position) = place(entry).and_then(|at| first_at.get(&at)) {
            out.entry(position).or_default().push(entry);
        }
    }
    out
}

fn table_relaxations(
    base: &Config,
    head: &Config,
    was: &TableConfig,
    now: &TableConfig,
) -> Vec<Relaxation> {
    let name = &was.name;
    let shown = if same_table(&now.name, name) {
        format!("`{name}`")
    } else {
        format!("`{}` (the table of `{name}` at the base)", now.name)
    };
    // The entries themselves: looking each name up again costs a pass over every table.
    let (b, h) = (base.settings_of(Some(was)), head.settings_of(Some(now)));
    let mut out = Vec::new();
    let mut push = |span: Span, message: String| {
        out.push(Relaxation {
            span: Some(span),
            table: Some(name.clone()),
            message: format!("{message} for {shown}"),
        })
    };
    // Where the table's entry is involved: it sets the item now, or set it at the base (its
    // override is gone); otherwise the difference is global and reported there.
    let own = |set_now: Option<Span>, set_before: bool| match set_now {
        Some(span) => Some(span),
        None if set_before => Some(now.name_span),
        None => None,
    };
    if let Some(moved) = metadata_moved(was, now) {
        push(now.metadata_span, moved);
    }
    if let (Some(from), None, Some(_)) = (&was.metadata, &now.metadata, &now.catalog) {
        push(
            now.name_span,
            format!(
                "`metadata: {from}` is left out: the table is judged against its live table, and no committed metadata is compared with the migrations"
            ),
        );
    }
    if let Some(lost) = weakened(b.compatibility, h.compatibility)
        && let Some(span) = own(now.compatibility_span, was.compatibility.is_some())
    {
        push(span, format!("compatibility no longer requires {lost}"));
    }
    if let Some(loosened) = mapping_loosened(b.mapping, h.mapping)
        && let Some(span) = own(now.mapping_span, was.mapping.is_some())
    {
        push(span, loosened);
    }
    for item in rule_items(&b, &h) {
        let set_before = item.set_in(&was.rules).is_some();
        if let Some(span) = own(item.set_in(&now.rules), set_before) {
            push(span, item.message);
        }
    }
    if let Some(lost) = sample_lost(was, now) {
        push(now.sample.as_ref().map_or(now.name_span, |s| s.span), lost);
    }
    out
}

/// What a rule setting loosened: its severity or one of its options.
struct RuleItem {
    rule: &'static str,
    what: Part,
    message: String,
}

#[derive(Clone, Copy)]
enum Part {
    Severity,
    WindowDays,
    RequireDeprecationDays,
}

impl RuleItem {
    /// Whether `rules` (a file's globals or a table's) sets what this item loosened.
    fn set_in(&self, rules: &[RuleSetting]) -> Option<Span> {
        rules
            .iter()
            .find(|r| {
                r.rule == self.rule
                    && match self.what {
                        Part::Severity => r.severity.is_some(),
                        Part::WindowDays => r
                            .options
                            .iter()
                            .any(|o| matches!(o, RuleOption::WindowDays(_))),
                        Part::RequireDeprecationDays => r
                            .options
                            .iter()
                            .any(|o| matches!(o, RuleOption::RequireDeprecationDays(_))),
                    }
            })
            .map(|r| r.span)
    }
}

fn rule_items(base: &Settings, head: &Settings) -> Vec<RuleItem> {
    let mut out = Vec::new();
    // Most entries leave the severities as they were; asking every rule of every table's
    // settings was most of what `check` did on a large repository.
    let same = base.same_severities(head);
    for rule in registry().iter().map(|r| r.name()).filter(|_| !same) {
        let (was, now) = (base.severity(rule), head.severity(rule));
        if now < was {
            out.push(RuleItem {
                rule,
                what: Part::Severity,
                message: match now {
                    None => format!("`{rule}` is turned off (was {})", severity_name(was)),
                    Some(_) => format!(
                        "`{rule}` is lowered from {} to {}",
                        severity_name(was),
                        severity_name(now)
                    ),
                },
            });
        }
    }
    let (b, h) = (&base.options, &head.options);
    match (b.name_reuse_window_days, h.name_reuse_window_days) {
        (was, Some(now)) if was.is_none_or(|was| now < was) => out.push(RuleItem {
            rule: "name-reuse",
            what: Part::WindowDays,
            message: format!(
                "`name-reuse` window-days is {now}{}: reusing a name dropped longer ago is only a warning",
                was.map(|d| format!(" (was {d})")).unwrap_or_default()
            ),
        }),
        _ => {}
    }
    match (b.require_deprecation_days, h.require_deprecation_days) {
        (Some(was), now) if now.is_none_or(|now| now < was) => out.push(RuleItem {
            rule: "column-drop",
            what: Part::RequireDeprecationDays,
            message: match now {
                Some(now) => {
                    format!("`column-drop` require-deprecation-days is lowered from {was} to {now}")
                }
                None => format!(
                    "`column-drop` no longer requires a deprecation period (was {})",
                    counted(was, "day")
                ),
            },
        }),
        _ => {}
    }
    out
}

/// A table entry whose `metadata` moves to another place: judged against another file's history.
fn metadata_moved(was: &TableConfig, now: &TableConfig) -> Option<String> {
    let (Some(from), Some(to)) = (&was.metadata, &now.metadata) else {
        return None;
    };
    (place(was) != place(now)).then(|| {
        format!(
            "`metadata` moves from `{from}` to `{to}`: the change is judged against what `{to}` held at the base, not the table's history"
        )
    })
}

/// A `mapping` change away from a name-matching mode: its rules stop running.
fn mapping_loosened(was: Mapping, now: Mapping) -> Option<String> {
    (was != Mapping::FieldId && now != was).then(|| {
        format!(
            "`mapping` changes from `{was}` to `{now}`: the rules that protect readers matching columns by {was} no longer run"
        )
    })
}

/// The guarantees `was` gives that `now` does not, as the mode's words.
fn weakened(was: Compatibility, now: Compatibility) -> Option<String> {
    let lost: Vec<&str> = [
        (was.backward && !now.backward, "backward"),
        (was.forward && !now.forward, "forward"),
        (was.transitive && !now.transitive, "transitive"),
    ]
    .into_iter()
    .filter_map(|(lost, word)| lost.then_some(word))
    .collect();
    (!lost.is_empty()).then(|| lost.join(" and "))
}

/// Reader verification the base ran that the change drops or shrinks.
fn sample_lost(was: &TableConfig, now: &TableConfig) -> Option<String> {
    let was = &was.sample.as_ref()?.kind;
    match (was, now.sample.as_ref().map(|s| &s.kind)) {
        (_, None) => Some("`sample` is removed: no data file is read under the new schema".into()),
        (SampleKind::Count(was), Some(SampleKind::Count(now))) if now < was => Some(format!(
            "`sample` reads {} instead of {was}",
            counted(*now, "data file")
        )),
        _ => None,
    }
}

fn severity_name(severity: Option<Severity>) -> &'static str {
    severity.map_or("off", Severity::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::config::test_config as config;

    /// Each relaxation as (the text it points at, its table, its message).
    fn found(base: &str, head: &str) -> Vec<(String, Option<String>, String)> {
        relaxations(&config(base), &config(head))
            .into_iter()
            .map(|r| {
                let at = r
                    .span
                    .map_or(String::new(), |s| head[s.offset..s.end()].into());
                (at, r.table, r.message)
            })
            .collect()
    }

    #[test]
    fn a_raised_limit_relaxes_the_gate_and_a_lowered_one_does_not() {
        let relaxed = found(
            "limits: {input-bytes: 1 MiB, parquet-rows: 10}\n",
            "limits: {input-bytes: 2 MiB, parquet-rows: 5}\n",
        );
        assert_eq!(
            relaxed,
            [(
                String::new(),
                None,
                "`limits: input-bytes` is raised from 1048576 to 2097152: larger inputs are read"
                    .into()
            )]
        );
        assert!(found("{}", "limits: {schema-fields: 10}\n").is_empty());
    }

    const TABLES: &str = "tables:\n  db.a:\n    metadata: a\n    compatibility: full\n    mapping: name\n    sample: 3\n    rules: {column-rename: error}\n  db.b:\n    metadata: b\n    rules:\n      column-drop: {require-deprecation-days: 30}\n";

    #[test]
    fn a_table_entry_s_relaxations_point_at_the_entry() {
        let head = "tables:\n  db.a:\n    metadata: a\n    compatibility: backward\n    mapping: field-id\n    sample: 1\n    rules: {column-rename: note}\n  db.b:\n    metadata: b\n    rules:\n      column-drop: {require-deprecation-days: 7}\n      name-reuse: {window-days: 10}\n";
        let table = |name: &str| Some(name.to_string());
        assert_eq!(
            found(TABLES, head),
            [
                (
                    "backward".into(),
                    table("db.a"),
                    "compatibility no longer requires forward for `db.a`".into()
                ),
                (
                    "field-id".into(),
                    table("db.a"),
                    "`mapping` changes from `name` to `field-id`: the rules that protect readers matching columns by name no longer run for `db.a`".into()
                ),
                (
                    "column-rename".into(),
                    table("db.a"),
                    "`column-rename` is lowered from error to note for `db.a`".into()
                ),
                (
                    "1".into(),
                    table("db.a"),
                    "`sample` reads 1 data file instead of 3 for `db.a`".into()
                ),
                (
                    "name-reuse".into(),
                    table("db.b"),
                    "`name-reuse` window-days is 10: reusing a name dropped longer ago is only a warning for `db.b`".into()
                ),
                (
                    "column-drop".into(),
                    table("db.b"),
                    "`column-drop` require-deprecation-days is lowered from 30 to 7 for `db.b`".into()
                ),
            ]
        );
    }

    #[test]
    fn removed_overrides_point_at_the_table_and_removed_tables_at_nothing() {
        let head = "tables:\n  db.a:\n    metadata: a\n";
        let found = found(TABLES, head);
        let messages: Vec<(&str, &str)> = found
            .iter()
            .map(|(at, _, message)| (at.as_str(), message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                (
                    "db.a",
                    "compatibility no longer requires forward for `db.a`"
                ),
                (
                    "db.a",
                    "`mapping` changes from `name` to `field-id`: the rules that protect readers matching columns by name no longer run for `db.a`"
                ),
                (
                    "db.a",
                    "`column-rename` is lowered from error to warning for `db.a`"
                ),
                (
                    "db.a",
                    "`sample` is removed: no data file is read under the new schema for `db.a`"
                ),
                (
                    "",
                    "the entry of `db.b` (line 8 at the base) is removed: its changes are no longer judged"
                ),
            ]
        );
    }

    #[test]
    fn a_renamed_entry_is_compared_with_the_base_entry_at_its_place() {
        let base =
            "tables:\n  db.orders:\n    metadata: warehouse/db/orders\n    compatibility: full\n";
        let head = "tables:\n  db.orders_v2:\n    metadata: warehouse/db/orders/\n    compatibility: backward\n";
        assert_eq!(
            found(base, head),
            [(
                "backward".into(),
                Some("db.orders".into()),
                "compatibility no longer requires forward for `db.orders_v2` (the table of `db.orders` at the base)".into()
            )]
        );
        // Renamed with the same settings: nothing is relaxed, nothing is removed.
        let same = head.replace("backward", "full");
        assert_eq!(found(base, &same), []);
    }

    #[test]
    fn global_changes_are_reported_once_and_stricter_ones_not_at_all() {
        let base = format!("{TABLES}compatibility: full\nrules:\n  column-drop: error\n");
        let head = format!("{TABLES}compatibility: backward\nrules:\n  column-drop: off\n");
        let reported = found(&base, &head);
        let messages: Vec<(&str, Option<&str>, &str)> = reported
            .iter()
            .map(|(at, table, message)| (at.as_str(), table.as_deref(), message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                (
                    "backward",
                    None,
                    "compatibility no longer requires forward for every table"
                ),
                (
                    "column-drop",
                    None,
                    "`column-drop` is turned off (was error) for every table"
                ),
            ]
        );

        let moved = TABLES.replace("metadata: b", "metadata: elsewhere/b");
        assert_eq!(
            found(TABLES, &moved),
            [(
                "elsewhere/b".into(),
                Some("db.b".into()),
                "`metadata` moves from `b` to `elsewhere/b`: the change is judged against what `elsewhere/b` held at the base, not the table's history for `db.b`".into()
            )]
        );

        let stricter =
            format!("{TABLES}compatibility: full-transitive\nrules:\n  missing-doc: error\n");
        assert_eq!(found_count(TABLES, &stricter), 0);
        assert_eq!(found_count(TABLES, TABLES), 0);
    }

    #[test]
    fn a_pinned_copy_left_out_for_live_mode_is_a_relaxation() {
        let pinned = "catalogs:\n  lake:\n    type: rest\n    uri: http://catalog\ntables:\n  db.t:\n    catalog: lake\n    metadata: t.metadata.json\n";
        let live = pinned.replace("    metadata: t.metadata.json\n", "");
        assert_eq!(
            found(pinned, &live),
            [(
                "db.t".into(),
                Some("db.t".into()),
                "`metadata: t.metadata.json` is left out: the table is judged against its live table, and no committed metadata is compared with the migrations for `db.t`".into()
            )]
        );
        assert_eq!(found_count(&live, pinned), 0);
    }

    fn found_count(base: &str, head: &str) -> usize {
        relaxations(&config(base), &config(head)).len()
    }
}
