//! `codeDescription` links: a diagnostic's rule code links to the rule's documentation. The
//! catalogue lives in the binary, so it is written out as one Markdown page per rule (the
//! hover's text) in a cache directory per version, and linked by file URI: an editor opens
//! the page, with no network.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use lsp_types::Url;

use super::diagnostics::RuleLinks;
use super::hover::rule_markdown;
use crate::rules::catalogue::catalogue;

pub struct CataloguePages {
    dir: Option<PathBuf>,
}

impl CataloguePages {
    /// The pages written under `cache` (or left unlinked when they cannot be written).
    pub fn write_under(cache: &Path) -> CataloguePages {
        let dir = cache.join(format!("rules-{}", env!("CARGO_PKG_VERSION")));
        CataloguePages {
            dir: write_pages(&dir).ok().map(|()| dir),
        }
    }
}

impl RuleLinks for CataloguePages {
    fn link(&self, rule: &str) -> Option<Url> {
        let dir = self.dir.as_ref()?;
        crate::rules::catalogue::doc(rule)?;
        Url::from_file_path(dir.join(format!("{rule}.md"))).ok()
    }
}

/// Each page written atomically (a reader never sees half a page; two servers may race).
fn write_pages(dir: &Path) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    for rule in catalogue()? {
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| e.to_string())?;
        file.write_all(rule_markdown(rule).as_bytes())
            .map_err(|e| e.to_string())?;
        file.persist(dir.join(format!("{}.md", rule.name)))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Where the pages go: `$XDG_CACHE_HOME/fieldgate`, else `~/.cache/fieldgate`, else the
/// temporary directory.
pub fn cache_dir() -> PathBuf {
    let from = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    from("XDG_CACHE_HOME")
        .or_else(|| from("HOME").map(|home| home.join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("fieldgate")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_links_to_its_page() {
        let cache = tempfile::tempdir().unwrap();
        let pages = CataloguePages::write_under(cache.path());
        let link = pages.link("type-narrowing").unwrap();
        let page = fs::read_to_string(link.to_file_path().unwrap()).unwrap();
        assert!(page.starts_with("**type-narrowing**"));
        assert!(pages.link("no-such-rule").is_none());
    }
}
