//! `rules:` in `fieldgate.yaml`, globally and per table: each rule's severity, or the map form
//! with the rule's options. An unknown rule or option is a located error with a "did you mean".

use super::{ConfigError, enum_value, error, to_span, unknown_key};
use crate::change::Span;
use crate::finding::Severity;
use crate::rules::catalogue::parse_severity;
use crate::rules::registry;
use crate::suggest::closest;
use crate::yaml::{YamlEntry, YamlNode};

#[derive(Debug, Clone, PartialEq)]
pub struct RuleSetting {
    pub rule: String,
    /// The rule's key in the file.
    pub span: Span,
    /// `Some(None)`: the rule is off; `None`: not set here (the map form with options only).
    pub severity: Option<Option<Severity>>,
    pub options: Vec<RuleOption>,
}

/// An option of one rule, in the map form (`name-reuse: {severity: error, window-days: 30}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleOption {
    /// `name-reuse: window-days`.
    WindowDays(u32),
    /// `column-drop: require-deprecation-days`.
    RequireDeprecationDays(u32),
    /// `column-drop: deprecation-mark`.
    DeprecationMark(String),
}

/// The options each rule accepts besides `severity`.
fn option_names(rule: &str) -> &'static [&'static str] {
    match rule {
        "name-reuse" => &["window-days"],
        "column-drop" => &["require-deprecation-days", "deprecation-mark"],
        _ => &[],
    }
}

pub(super) fn rules(node: &YamlNode, errors: &mut Vec<ConfigError>) -> Vec<RuleSetting> {
    let Some(entries) = node.as_map() else {
        errors.push(error(
            node,
            format!(
                "`rules` must map rule names to severities, found {}",
                node.kind_name()
            ),
            None,
        ));
        return Vec::new();
    };
    let names: Vec<&str> = registry().iter().map(|r| r.name()).collect();
    let mut out = Vec::new();
    for entry in entries {
        if !names.contains(&entry.key.as_str()) {
            let help =
                closest(&entry.key, names.iter().copied()).map(|s| format!("did you mean `{s}`?"));
            errors.push(ConfigError {
                span: to_span(entry.key_span),
                message: format!("unknown rule `{}`", entry.key),
                help,
            });
            continue;
        }
        // `rule: error`, or the map form `rule: {severity: error, <option>: <value>}`.
        let (severity_node, options) = match entry.value.as_map() {
            Some(map) => (
                entry.value.get("severity"),
                rule_options(&entry.key, map, errors),
            ),
            None => (Some(&entry.value), Vec::new()),
        };
        let severity = match severity_node {
            Some(node) => match enum_value(
                node,
                "severity",
                &["error", "warning", "note", "off"],
                parse_severity,
                errors,
            ) {
                Some(severity) => Some(severity),
                None => continue,
            },
            None => None,
        };
        out.push(RuleSetting {
            rule: entry.key.clone(),
            span: to_span(entry.key_span),
            severity,
            options,
        });
    }
    out
}

/// The options of a rule's map form (all but `severity`): each one the rule has, read; any
/// other is an unknown key.
fn rule_options(rule: &str, map: &[YamlEntry], errors: &mut Vec<ConfigError>) -> Vec<RuleOption> {
    let known = option_names(rule);
    let mut options = Vec::new();
    for option in map.iter().filter(|o| o.key != "severity") {
        if known.contains(&option.key.as_str()) {
            options.extend(rule_option(&option.key, &option.value, errors));
        } else {
            let mut all = vec!["severity"];
            all.extend_from_slice(known);
            errors.push(unknown_key(option.key_span, &option.key, &all));
        }
    }
    options
}

fn rule_option(key: &str, node: &YamlNode, errors: &mut Vec<ConfigError>) -> Option<RuleOption> {
    if key == "deprecation-mark" {
        return match node.as_str().map(str::trim).filter(|m| !m.is_empty()) {
            Some(mark) => Some(RuleOption::DeprecationMark(mark.to_string())),
            None => {
                errors.push(error(
                    node,
                    "`deprecation-mark` must be a non-empty string".into(),
                    Some("for example `deprecated`".into()),
                ));
                None
            }
        };
    }
    let Some(days) = node.as_i64().and_then(|d| u32::try_from(d).ok()) else {
        errors.push(error(
            node,
            format!("`{key}` must be a whole number of days"),
            Some(format!("for example `{key}: 30`")),
        ));
        return None;
    };
    Some(match key {
        "window-days" => RuleOption::WindowDays(days),
        _ => RuleOption::RequireDeprecationDays(days),
    })
}
