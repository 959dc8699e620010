//! The rule catalogue: `rules/<name>.yaml`, embedded in the binary at build time. It is what
//! users read (`fieldgate rules`, `fieldgate explain`, SARIF rule metadata), it sets each rule's
//! default severity, and its examples are run as tests, so the docs cannot drift from the logic.

use std::sync::OnceLock;

use crate::finding::Severity;
use crate::yaml::{self, YamlNode};

/// One rule's documentation, default severity and examples.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleDoc {
    pub name: String,
    /// `None` when the rule is off unless configured on.
    pub severity: Option<Severity>,
    pub summary: String,
    pub why: String,
    pub fix: String,
    pub examples: Vec<Example>,
    /// Why a rule has no DDL examples (it judges proposals DDL cannot make).
    pub examples_note: Option<String>,
    /// Why a rule has no schema-file examples (schema files cannot say what it is about).
    pub schema_examples_note: Option<String>,
}

/// Proposals that must (`fail`) or must not (`pass`) raise the rule against `base`, a schema
/// file: DDL statements, and the same cases as schema files (`fail-schema`, `pass-schema`: the
/// whole table as the proposal wants it), so both ways of proposing are documented and tested.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    pub base: String,
    /// `backward` unless the example needs another mode (`forward`, `full-transitive`, ...).
    pub compatibility: Option<String>,
    pub fail: Vec<String>,
    pub pass: Vec<String>,
    pub fail_schema: Vec<String>,
    pub pass_schema: Vec<String>,
}

macro_rules! catalogue_files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../rules/", $name, ".yaml")))),*]
    };
}

/// Every `rules/*.yaml`, by rule name. A test checks this list against the directory and the
/// registry, so a rule cannot be added to one and forgotten in another.
pub const FILES: &[(&str, &str)] = catalogue_files![
    "column-drop",
    "column-rename",
    "default-change",
    "duplicate-name",
    "field-id-reuse",
    "format-version-feature",
    "forward-incompatible",
    "identifier-drop",
    "invalid-change",
    "legacy-type-change",
    "live-drift",
    "metadata-drift",
    "migration-edit",
    "missing-doc",
    "name-mapped-rename",
    "name-mapping-change",
    "name-reuse",
    "nested-structure-change",
    "nullability-tightening",
    "partition-drop-v1",
    "partition-granularity-change",
    "partition-name-collision",
    "partition-source-drop",
    "partition-source-promotion",
    "policy-relaxation",
    "position-shift",
    "reader-cache-refresh",
    "reader-verification",
    "required-column-add",
    "sort-source-drop",
    "suppression",
    "type-narrowing",
    "unknown-field",
    "write-format-change",
];

/// The parsed catalogue. The files are part of the binary and covered by tests, so a parse
/// failure here is a build defect: it is reported as an error, never a panic.
pub fn catalogue() -> Result<&'static [RuleDoc], String> {
    static CATALOGUE: OnceLock<Result<Vec<RuleDoc>, String>> = OnceLock::new();
    CATALOGUE
        .get_or_init(|| {
            FILES
                .iter()
                .map(|(name, text)| parse_doc(name, text))
                .collect()
        })
        .as_deref()
        .map_err(Clone::clone)
}

/// A rule's default severity, read from the `severity:` line of its file alone. Every judgement
/// needs every rule's default, and parsing the whole catalogue (its explanations and examples)
/// for them cost more than judging a small table; a test checks this reading against the full
/// parse of every file. The lines are read once per run: `check` asks for every rule's default
/// for every table's settings, and scanning the files each time was a third of its work.
pub fn default_severity(name: &str) -> DefaultSeverity {
    static DEFAULTS: OnceLock<Vec<(&str, DefaultSeverity)>> = OnceLock::new();
    let defaults = DEFAULTS.get_or_init(|| {
        FILES
            .iter()
            .map(|(file, text)| {
                let severity = text
                    .lines()
                    .find_map(|line| line.strip_prefix("severity:"))
                    .and_then(|value| parse_severity(value.trim()));
                (*file, severity)
            })
            .collect()
    });
    defaults
        .iter()
        .find(|(file, _)| *file == name)
        .and_then(|(_, severity)| *severity)
}

pub fn doc(name: &str) -> Option<&'static RuleDoc> {
    catalogue().ok()?.iter().find(|d| d.name == name)
}

/// A severity as a rule file or `fieldgate.yaml` writes it: `None` when the text is not one,
/// `Some(None)` for `off`.
pub type DefaultSeverity = Option<Option<Severity>>;

pub fn parse_severity(text: &str) -> DefaultSeverity {
    match text {
        "error" => Some(Some(Severity::Error)),
        "warning" => Some(Some(Severity::Warning)),
        "note" => Some(Some(Severity::Note)),
        "off" => Some(None),
        _ => None,
    }
}

fn parse_doc(file: &str, text: &str) -> Result<RuleDoc, String> {
    let root = yaml::parse(text).map_err(|e| format!("rules/{file}.yaml: {e}"))?;
    let keys = Keys { file };
    let severity_text = keys.string(&root, "severity")?;
    let severity = parse_severity(&severity_text)
        .ok_or_else(|| format!("rules/{file}.yaml: unknown severity `{severity_text}`"))?;
    let examples = example_blocks(&root)
        .into_iter()
        .map(|block| keys.example(block))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(RuleDoc {
        name: keys.string(&root, "name")?,
        severity,
        summary: keys.string(&root, "summary")?,
        why: keys.string(&root, "why")?,
        fix: keys.string(&root, "fix")?,
        examples,
        examples_note: optional_text(&root, "examples-note"),
        schema_examples_note: optional_text(&root, "schema-examples-note"),
    })
}

/// `examples` is one block or a list of them.
fn example_blocks(root: &YamlNode) -> Vec<&YamlNode> {
    match root.get("examples") {
        None => Vec::new(),
        Some(node) if node.as_map().is_some() => vec![node],
        Some(node) => node
            .as_seq()
            .map(|s| s.iter().collect())
            .unwrap_or_default(),
    }
}

fn optional_text(node: &YamlNode, key: &str) -> Option<String> {
    node.get(key)
        .and_then(YamlNode::as_str)
        .map(|s| s.trim_end().to_string())
}

/// Reads the keys of one catalogue file, naming the file in its errors.
struct Keys<'a> {
    file: &'a str,
}

impl Keys<'_> {
    fn string(&self, node: &YamlNode, key: &str) -> Result<String, String> {
        optional_text(node, key)
            .ok_or_else(|| format!("rules/{}.yaml: `{key}` must be a string", self.file))
    }

    fn strings(&self, node: &YamlNode, key: &str) -> Result<Vec<String>, String> {
        let file = self.file;
        match node.get(key) {
            None => Ok(Vec::new()),
            Some(list) => list
                .as_seq()
                .ok_or_else(|| format!("rules/{file}.yaml: `{key}` must be a list"))?
                .iter()
                .map(|s| {
                    s.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("rules/{file}.yaml: `{key}` holds a non-string"))
                })
                .collect(),
        }
    }

    fn example(&self, block: &YamlNode) -> Result<Example, String> {
        Ok(Example {
            base: self.string(block, "base")?,
            compatibility: block
                .get("compatibility")
                .and_then(YamlNode::as_str)
                .map(str::to_string),
            fail: self.strings(block, "fail")?,
            pass: self.strings(block, "pass")?,
            fail_schema: self.strings(block, "fail-schema")?,
            pass_schema: self.strings(block, "pass-schema")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::registry;

    #[test]
    fn every_file_parses_and_names_itself() {
        let docs = catalogue().unwrap();
        for (doc, (file, _)) in docs.iter().zip(FILES) {
            assert_eq!(doc.name, *file);
            for section in [&doc.summary, &doc.why, &doc.fix] {
                assert!(!section.is_empty(), "{file}: empty section");
            }
            assert!(
                !doc.examples.is_empty() || doc.examples_note.is_some(),
                "{file}: give examples, or say in `examples-note` why there are none"
            );
            let schema_examples = doc
                .examples
                .iter()
                .any(|e| !e.fail_schema.is_empty() || !e.pass_schema.is_empty());
            assert!(
                schema_examples || doc.schema_examples_note.is_some(),
                "{file}: give `fail-schema`/`pass-schema` examples, or say in `schema-examples-note` why a schema file cannot show the rule"
            );
        }
    }

    #[test]
    fn default_severity_is_the_parsed_files() {
        for doc in catalogue().unwrap() {
            assert_eq!(
                default_severity(&doc.name),
                Some(doc.severity),
                "{}",
                doc.name
            );
        }
        assert_eq!(default_severity("no-such-rule"), None);
    }

    #[test]
    fn files_registry_and_directory_agree() {
        let registered: Vec<&str> = registry().iter().map(|r| r.name()).collect();
        let embedded: Vec<&str> = FILES.iter().map(|(n, _)| *n).collect();
        assert_eq!(registered, embedded);
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                e.unwrap()
                    .file_name()
                    .to_string_lossy()
                    .trim_end_matches(".yaml")
                    .to_string()
            })
            .collect();
        on_disk.sort();
        assert_eq!(on_disk, embedded);
    }
}
