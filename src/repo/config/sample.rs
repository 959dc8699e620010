//! A table's `sample:` in `fieldgate.yaml`: a number of data files or a list of paths.

use super::{ConfigError, error, to_span};
use crate::change::Span;
use crate::yaml::YamlNode;

/// A table's `sample:`: the data files `apply` and `check` read under the new schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub kind: SampleKind,
    /// The value's place in the file, where findings about the sample point.
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SampleKind {
    /// `sample: N`: up to N data files from the table's own manifests.
    Count(usize),
    /// `sample: [paths or globs]`, relative to fieldgate.yaml, each with its place.
    Paths(Vec<(String, Span)>),
}

/// `sample: N` (at least 1) or a non-empty list of paths or globs.
pub(super) fn sample(node: &YamlNode, errors: &mut Vec<ConfigError>) -> Option<Sample> {
    let help = || {
        Some(
            "for example `sample: 3` (data files from the table's manifests) or `sample: [data/events/*.parquet]`"
                .to_string(),
        )
    };
    let kind = if let Some(items) = node.as_seq() {
        let mut paths = Vec::new();
        for item in items {
            match item.as_str().filter(|p| !p.trim().is_empty()) {
                Some(path) => paths.push((path.to_string(), to_span(item.span))),
                None => errors.push(error(
                    item,
                    format!(
                        "`sample` lists paths of Parquet files, found {}",
                        item.kind_name()
                    ),
                    help(),
                )),
            }
        }
        if items.is_empty() {
            errors.push(error(
                node,
                "`sample` lists no file".into(),
                Some("list data files or globs, or leave `sample` out".into()),
            ));
        }
        SampleKind::Paths(paths)
    } else {
        match node.as_i64().map(usize::try_from) {
            Some(Ok(n)) if n > 0 => SampleKind::Count(n),
            _ => {
                let found = match (node.as_i64(), node.as_str()) {
                    (Some(n), _) => format!("`{n}`"),
                    (_, Some(text)) => format!("`{text}`"),
                    _ => node.kind_name().to_string(),
                };
                errors.push(error(
                    node,
                    format!(
                        "`sample` must be a number of data files (at least 1) or a list of paths, found {found}"
                    ),
                    help(),
                ));
                return None;
            }
        }
    };
    Some(Sample {
        kind,
        span: to_span(node.span),
    })
}
