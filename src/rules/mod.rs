//! The rule engine: every rule sees one table before and after a proposal (with the applied
//! changes, the history and how readers find columns) and returns violations; the engine gives
//! them the severity the catalogue and the configuration say, and turns them into findings.
//!
//! Adding a rule is mechanical: `rules/<name>.yaml` (docs, default severity, examples), a file
//! here with the logic, and a line in [`registry`]; the self-tests say what is missing.

pub mod catalogue;
pub mod context;
pub mod related;
mod spec_fields;

mod column_drop;
mod column_rename;
mod default_change;
mod field_id_reuse;
mod format_version_feature;
mod forward_incompatible;
mod identifier_drop;
mod legacy_type_change;
mod missing_doc;
mod name_mapped_rename;
mod name_mapping_change;
mod name_reuse;
mod nullability_tightening;
mod partition_drop_v1;
mod partition_granularity_change;
mod partition_name_collision;
mod partition_source_drop;
mod partition_source_promotion;
mod position_shift;
mod reader_cache_refresh;
mod required_column_add;
mod sort_source_drop;
mod type_narrowing;
mod write_format_change;

use crate::change::Applied;
use crate::change::Origin;
use crate::finding::{Finding, Related, Severity};
use crate::iceberg::types::FieldId;

pub use context::{
    CommitInfo, CommittedDrop, Compatibility, Context, FileHistory, History, Mapping, RuleOptions,
};

/// One thing a rule objects to. The engine adds the rule name, severity and table.
#[derive(Debug, Clone)]
pub struct Violation {
    pub field: Option<String>,
    pub field_id: Option<FieldId>,
    pub message: String,
    pub help: String,
    pub origin: Option<Origin>,
    /// Set when a rule's options decide this violation's severity (a name reused after its
    /// window, a drop without deprecation); otherwise the configured severity applies.
    pub severity: Option<Severity>,
    /// Other places the violation is about, for secondary labels.
    pub related: Vec<Related>,
}

impl Violation {
    /// A violation located at an applied change, about the field it touched.
    pub fn at(applied: &Applied, message: String, help: String) -> Violation {
        Violation {
            field: Some(applied.path.clone()),
            field_id: applied.field_id,
            message,
            help,
            origin: applied.origin.clone(),
            severity: None,
            related: Vec::new(),
        }
    }

    pub fn with_related(mut self, related: impl IntoIterator<Item = Related>) -> Violation {
        self.related.extend(related);
        self
    }
}

pub trait Rule: Sync {
    fn name(&self) -> &'static str;
    fn check(&self, cx: &Context<'_>) -> Vec<Violation>;
}

/// Rules judged outside the engine: `evolve` reports changes that cannot be applied at all,
/// `suppress` reports bad suppressions, `check` compares committed metadata with the result, and
/// `apply` and `check` read sample data files under the new schema (`verify::gate`).
/// They are listed so the catalogue, configuration and severities treat them like any other rule.
struct JudgedElsewhere(&'static str);

impl Rule for JudgedElsewhere {
    fn name(&self) -> &'static str {
        self.0
    }

    fn check(&self, _: &Context<'_>) -> Vec<Violation> {
        Vec::new()
    }
}

/// The rules some commands judge and others do not, each with who judges it: a run that did not
/// judge one for a table (`lint` never reads the committed metadata or a catalog) says so
/// (JUnit marks it skipped) instead of counting it as kept. The engine's other rules run in every
/// command.
pub const JUDGED_BY_SOME: &[(&str, &str)] = &[
    (
        "live-drift",
        "`fieldgate check --live` judges it, for a table with a `catalog:`",
    ),
    (
        "metadata-drift",
        "`fieldgate check` judges it, comparing the committed metadata with what the migrations give",
    ),
    (
        "reader-verification",
        "judged when sample data files are read (`sample:` in fieldgate.yaml, `apply --sample` or `--verify`), once the other rules pass",
    ),
];

/// Every rule, sorted by name.
pub fn registry() -> &'static [&'static dyn Rule] {
    static RULES: &[&dyn Rule] = &[
        &column_drop::ColumnDrop,
        &column_rename::ColumnRename,
        &default_change::DefaultChange,
        &JudgedElsewhere("duplicate-name"),
        &field_id_reuse::FieldIdReuse,
        &format_version_feature::FormatVersionFeature,
        &forward_incompatible::ForwardIncompatible,
        &identifier_drop::IdentifierDrop,
        &JudgedElsewhere("invalid-change"),
        &legacy_type_change::LegacyTypeChange,
        &JudgedElsewhere("live-drift"),
        &JudgedElsewhere("metadata-drift"),
        &JudgedElsewhere("migration-edit"),
        &missing_doc::MissingDoc,
        &name_mapped_rename::NameMappedRename,
        &name_mapping_change::NameMappingChange,
        &name_reuse::NameReuse,
        &JudgedElsewhere("nested-structure-change"),
        &nullability_tightening::NullabilityTightening,
        &partition_drop_v1::PartitionDropV1,
        &partition_granularity_change::PartitionGranularityChange,
        &partition_name_collision::PartitionNameCollision,
        &partition_source_drop::PartitionSourceDrop,
        &partition_source_promotion::PartitionSourcePromotion,
        &JudgedElsewhere("policy-relaxation"),
        &position_shift::PositionShift,
        &reader_cache_refresh::ReaderCacheRefresh,
        &JudgedElsewhere("reader-verification"),
        &required_column_add::RequiredColumnAdd,
        &sort_source_drop::SortSourceDrop,
        &JudgedElsewhere("suppression"),
        &type_narrowing::TypeNarrowing,
        &JudgedElsewhere("unknown-field"),
        &write_format_change::WriteFormatChange,
    ];
    RULES
}

pub fn rule_named(name: &str) -> Option<&'static dyn Rule> {
    registry().iter().copied().find(|r| r.name() == name)
}

/// Runs every rule that is not off and returns its findings at their configured severity.
pub fn run(cx: &Context<'_>, severity_of: &dyn Fn(&str) -> Option<Severity>) -> Vec<Finding> {
    let mut findings = Vec::new();
    for rule in registry() {
        let Some(severity) = severity_of(rule.name()) else {
            continue;
        };
        for violation in rule.check(cx) {
            findings.push(Finding {
                rule: rule.name(),
                severity: violation.severity.unwrap_or(severity),
                message: format!("{}: {}", cx.table, violation.message),
                table: cx.table.to_string(),
                field: violation.field,
                field_id: violation.field_id,
                origin: violation.origin,
                help: Some(violation.help),
                related: violation.related,
            });
        }
    }
    findings
}

#[cfg(test)]
pub(crate) mod test_support;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_is_sorted_and_unique() {
        let names: Vec<_> = registry().iter().map(|r| r.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
    }
}
