//! The `catalogs:` section of `fieldgate.yaml`: where each catalog is and how to reach it, with
//! the property names of pyiceberg's `.pyiceberg.yaml` and Java's catalog properties, so a team
//! can copy its settings. Values may hold `${VAR}` references, resolved from the environment only
//! when a command reaches the catalog; a secret must be such a reference, never written in the
//! file, which a pull request can read.

use crate::change::Span;
use crate::repo::config::{Config, ConfigError, TableConfig};
use crate::suggest::closest;
use crate::yaml::{self, YamlNode};

/// One catalog of `catalogs:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogConfig {
    pub name: String,
    pub name_span: Span,
    /// Every property but `type`, in file order.
    pub properties: Vec<Property>,
}

/// `key: value`, the value kept as written (references unresolved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    pub key: String,
    pub value: Template,
    pub span: Span,
}

/// A value with `${VAR}` references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Literal(String),
    Var(String),
}

/// A problem in `catalogs:`, located in the configuration's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogConfigError {
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

/// The keys a REST catalog understands. `header.*`, `s3.*`, `gcs.*` and `adls.*` are families.
const KEYS: &[&str] = &[
    "type",
    "uri",
    "warehouse",
    "prefix",
    "credential",
    "token",
    "scope",
    "oauth2-server-uri",
    "audience",
    "resource",
    "rest.sigv4-enabled",
    "rest.signing-name",
    "rest.signing-region",
    "rest.access-key-id",
    "rest.secret-access-key",
    "rest.session-token",
    "timeout-ms",
    "retries",
];
const FAMILIES: &[&str] = &["header.", "s3.", "gcs.", "adls.", "client."];

impl CatalogConfig {
    pub fn get(&self, key: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.key == key)
    }
}

/// Whether a property holds a credential: its value must come from the environment.
pub fn is_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == "header.authorization"
        || [
            "secret",
            "token",
            "password",
            "account-key",
            "sas-token",
            "credential",
        ]
        .iter()
        .any(|word| key.contains(word))
}

/// Reads `catalogs:`, collecting every problem.
pub fn catalogs(node: &YamlNode, errors: &mut Vec<CatalogConfigError>) -> Vec<CatalogConfig> {
    let Some(entries) = node.as_map() else {
        errors.push(error(
            node.span,
            format!(
                "`catalogs` must map catalog names to their properties, found {}",
                node.kind_name()
            ),
            None,
        ));
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let Some(settings) = entry.value.as_map() else {
                errors.push(error(
                    entry.value.span,
                    format!(
                        "the properties of catalog `{}` must be a mapping",
                        entry.key
                    ),
                    Some("for example `type: rest` and `uri: https://...`".into()),
                ));
                return None;
            };
            Some(catalog(&entry.key, entry.key_span, settings, errors))
        })
        .collect()
}

fn catalog(
    name: &str,
    name_span: yaml::Span,
    settings: &[yaml::YamlEntry],
    errors: &mut Vec<CatalogConfigError>,
) -> CatalogConfig {
    let mut properties = Vec::new();
    let mut kind = None;
    for setting in settings {
        let Some((text, value)) = property(name, setting, errors) else {
            continue;
        };
        let key = setting.key.as_str();
        if key == "type" {
            kind = Some((text, setting.value.span));
            continue;
        }
        properties.push(Property {
            key: key.to_string(),
            value,
            span: to_span(setting.value.span),
        });
    }
    required(name, name_span, kind, &properties, errors);
    CatalogConfig {
        name: name.to_string(),
        name_span: to_span(name_span),
        properties,
    }
}

/// One property of catalog `name`, its text and its value, if it is a known key with a single
/// value that holds no secret written in the file.
fn property(
    name: &str,
    setting: &yaml::YamlEntry,
    errors: &mut Vec<CatalogConfigError>,
) -> Option<(String, Template)> {
    let key = setting.key.as_str();
    if !KEYS.contains(&key) && !FAMILIES.iter().any(|f| key.starts_with(f)) {
        let help = closest(key, KEYS.iter().copied()).map(|s| format!("did you mean `{s}`?"));
        errors.push(error(
            setting.key_span,
            format!("unknown catalog property `{key}`"),
            help.or_else(|| {
                Some(format!(
                    "known: {}, and header.*, s3.*, gcs.*, adls.*",
                    KEYS.join(", ")
                ))
            }),
        ));
        return None;
    }
    let Some(text) = scalar_text(&setting.value) else {
        errors.push(error(
            setting.value.span,
            format!(
                "`{key}` must be a single value, found {}",
                setting.value.kind_name()
            ),
            None,
        ));
        return None;
    };
    let value = match Template::parse(&text) {
        Ok(value) => value,
        Err(message) => {
            errors.push(error(
                setting.value.span,
                format!("`{key}`: {message}"),
                None,
            ));
            return None;
        }
    };
    if is_secret(key) && !value.is_references_only() {
        errors.push(error(
            setting.value.span,
            format!("`{key}` of catalog `{name}` is a secret written in the file"),
            Some(format!(
                "a pull request can read this file: give the secret from the environment, e.g. `{key}: ${{{}}}`",
                env_name(name, key)
            )),
        ));
        return None;
    }
    Some((text, value))
}

/// The `type` (only `rest`) and the `uri` every catalog must have.
fn required(
    name: &str,
    name_span: yaml::Span,
    kind: Option<(String, yaml::Span)>,
    properties: &[Property],
    errors: &mut Vec<CatalogConfigError>,
) {
    match kind {
        Some((kind, _)) if kind == "rest" => {}
        Some((kind, span)) => errors.push(error(
            span,
            format!("catalog type `{kind}` is not supported"),
            Some("fieldgate reaches Iceberg REST catalogs: `type: rest`".into()),
        )),
        None => errors.push(error(
            name_span,
            format!("catalog `{name}` has no `type`"),
            Some("add `type: rest`".into()),
        )),
    }
    if !properties.iter().any(|p| p.key == "uri") {
        errors.push(error(
            name_span,
            format!("catalog `{name}` has no `uri`"),
            Some(
                "the catalog's base address, e.g. `uri: https://catalog.example.com/api/catalog`"
                    .into(),
            ),
        ));
    }
}

/// The variable name a help message suggests: `PROD_CATALOG_CREDENTIAL`.
fn env_name(catalog: &str, key: &str) -> String {
    format!("{catalog}_catalog_{key}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

fn scalar_text(node: &YamlNode) -> Option<String> {
    match &node.value {
        yaml::YamlValue::String(s) | yaml::YamlValue::Int(s) | yaml::YamlValue::Float(s) => {
            Some(s.clone())
        }
        yaml::YamlValue::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

impl Template {
    /// Splits `text` at `${NAME}` references; `$$` is a literal `$`.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            literal.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some(tail) = after.strip_prefix('$') {
                literal.push('$');
                rest = tail;
            } else if let Some(body) = after.strip_prefix('{') {
                let Some(end) = body.find('}') else {
                    return Err("`${` without its closing `}`".into());
                };
                let name = &body[..end];
                let valid = !name.is_empty()
                    && !name.starts_with(|c: char| c.is_ascii_digit())
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !valid {
                    return Err(format!(
                        "`${{{name}}}` is not an environment variable name (letters, digits and `_`)"
                    ));
                }
                if !literal.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut literal)));
                }
                parts.push(Part::Var(name.to_string()));
                rest = &body[end + 1..];
            } else {
                literal.push('$');
                rest = after;
            }
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Template { parts })
    }

    /// At least one reference, and literal text only between them (`${ID}:${SECRET}`).
    fn is_references_only(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Var(_)))
            && self.parts.iter().all(|p| match p {
                Part::Var(_) => true,
                Part::Literal(text) => !text.chars().any(|c| c.is_alphanumeric()),
            })
    }

    /// The value with every reference replaced from `env`; a missing variable is an error
    /// naming it.
    pub fn resolve(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Var(name) => match env(name) {
                    Some(value) => out.push_str(&value),
                    None => return Err(format!("the environment variable `{name}` is not set")),
                },
            }
        }
        Ok(out)
    }
}

/// Reads `catalogs:` of `fieldgate.yaml`, its problems as the configuration's errors.
pub fn config_catalogs(node: &YamlNode, errors: &mut Vec<ConfigError>) -> Vec<CatalogConfig> {
    let mut found = Vec::new();
    let read = catalogs(node, &mut found);
    errors.extend(found.into_iter().map(ConfigError::from));
    read
}

impl From<CatalogConfigError> for ConfigError {
    fn from(e: CatalogConfigError) -> ConfigError {
        ConfigError {
            span: e.span,
            message: e.message,
            help: e.help,
        }
    }
}

impl TableConfig {
    /// The table's `namespace.name` in its catalog.
    pub fn catalog_identifier(&self) -> &str {
        self.identifier.as_ref().map_or(&self.name, |(id, _)| id)
    }

    /// Whether the table lives only in its catalog, with no pinned copy (`catalog:` without
    /// `metadata:`): it is judged against the live table.
    pub fn live_only(&self) -> bool {
        self.catalog.is_some() && self.metadata.is_none()
    }
}

/// A table's `catalog:` or `identifier:`: a non-empty string setting with its place.
pub fn named(node: &YamlNode, key: &str, errors: &mut Vec<ConfigError>) -> Option<(String, Span)> {
    match node.as_str().filter(|s| !s.trim().is_empty()) {
        Some(text) => Some((text.to_string(), to_span(node.span))),
        None => {
            errors.push(ConfigError {
                span: to_span(node.span),
                message: format!("`{key}` must be a name, found {}", node.kind_name()),
                help: None,
            });
            None
        }
    }
}

/// A table's `catalog:` that names no catalog of `catalogs:`.
pub fn unknown_catalogs(config: &Config) -> Vec<ConfigError> {
    let known: Vec<&str> = config.catalogs.iter().map(|c| c.name.as_str()).collect();
    config
        .tables
        .iter()
        .filter_map(|t| t.catalog.as_ref())
        .filter(|(name, _)| !known.contains(&name.as_str()))
        .map(|(name, span)| ConfigError {
            span: *span,
            message: format!("there is no catalog `{name}` in `catalogs`"),
            help: closest(name, known.iter().copied())
                .map(|s| format!("did you mean `{s}`?"))
                .or_else(|| Some("define it under `catalogs:` (type, uri, credentials)".into())),
        })
        .collect()
}

fn to_span(span: yaml::Span) -> Span {
    Span::from_range(span.start, span.end)
}

fn error(span: yaml::Span, message: String, help: Option<String>) -> CatalogConfigError {
    CatalogConfigError {
        span: to_span(span),
        message,
        help,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Vec<CatalogConfig>, Vec<CatalogConfigError>) {
        let root = yaml::parse(text).expect("yaml");
        let mut errors = Vec::new();
        let node = root.get("catalogs").expect("catalogs");
        (catalogs(node, &mut errors), errors)
    }

    #[test]
    fn reads_pyiceberg_property_names() {
        let (catalogs, errors) = read(
            "catalogs:\n  prod:\n    type: rest\n    uri: https://c.example/api\n    warehouse: analytics\n    credential: ${PROD_ID}:${PROD_SECRET}\n    header.X-Team: data\n    s3.endpoint: http://127.0.0.1:9000\n",
        );
        assert_eq!(errors, []);
        let prod = &catalogs[0];
        assert_eq!(prod.name, "prod");
        let keys: Vec<&str> = prod.properties.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "uri",
                "warehouse",
                "credential",
                "header.X-Team",
                "s3.endpoint"
            ]
        );
        let env = |name: &str| Some(format!("<{name}>"));
        let credential = prod.get("credential").expect("credential");
        assert_eq!(
            credential.value.resolve(&env).as_deref(),
            Ok("<PROD_ID>:<PROD_SECRET>")
        );
    }

    #[test]
    fn a_literal_secret_is_an_error_at_its_value() {
        let text = "catalogs:\n  prod:\n    type: rest\n    uri: http://x\n    token: abc123\n    s3.secret-access-key: ${S3_SECRET}\n";
        let (_, errors) = read(text);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(
            &text[errors[0].span.offset..errors[0].span.offset + 6],
            "abc123"
        );
        assert!(errors[0].message.contains("secret written in the file"));
        assert!(!errors[0].message.contains("abc123"));
        assert!(
            errors[0]
                .help
                .as_deref()
                .unwrap_or("")
                .contains("${PROD_CATALOG_TOKEN}")
        );
    }

    #[test]
    fn secrets_mixed_with_literal_text_are_refused() {
        let (_, errors) = read(
            "catalogs:\n  c:\n    type: rest\n    uri: http://x\n    credential: client:${SECRET}\n",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn unknown_keys_types_and_missing_uri_are_located() {
        let (_, errors) = read("catalogs:\n  c:\n    type: hive\n    urii: http://x\n");
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "unknown catalog property `urii`",
                "catalog type `hive` is not supported",
                "catalog `c` has no `uri`"
            ]
        );
        assert_eq!(errors[0].help.as_deref(), Some("did you mean `uri`?"));
    }

    #[test]
    fn templates_split_references_and_report_bad_ones() {
        assert_eq!(
            Template::parse("a$${B}${C_1}d").map(|t| t.parts),
            Ok(vec![
                Part::Literal("a${B}".into()),
                Part::Var("C_1".into()),
                Part::Literal("d".into())
            ])
        );
        assert!(Template::parse("${1A}").is_err());
        assert!(Template::parse("${OPEN").is_err());
        let missing = Template::parse("${NOPE}").expect("template");
        assert_eq!(
            missing.resolve(&|_| None),
            Err("the environment variable `NOPE` is not set".into())
        );
    }

    #[test]
    fn secret_keys() {
        for key in [
            "credential",
            "token",
            "s3.secret-access-key",
            "s3.session-token",
            "adls.sas-token.acct",
            "header.Authorization",
            "gcs.oauth2.token",
            "adls.account-key.x",
        ] {
            assert!(is_secret(key), "{key}");
        }
        for key in [
            "uri",
            "warehouse",
            "s3.access-key-id",
            "s3.endpoint",
            "header.X-Team",
            "scope",
        ] {
            assert!(!is_secret(key), "{key}");
        }
    }
}
