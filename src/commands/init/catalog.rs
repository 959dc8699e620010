//! `fieldgate init --catalog NAME`: the tables of a catalog (one of `catalogs:`) added to
//! `fieldgate.yaml`'s `tables:`, each with `catalog:` and the path its pinned copy will have, so
//! `fieldgate pull` can write them. The catalog is listed namespace by namespace; the file is
//! edited in place (comments and every other line kept) and read back before it is written.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use crate::catalog::connect::{connect, resolve};
use crate::change::SourceFile;
use crate::cli::InitArgs;
use crate::failure::Failure;
use crate::plural::counted;
use crate::repo::atomic::write_atomically;
use crate::repo::config::{CONFIG_FILE, Config, same_table};
use crate::session::plan::settings::load_config;
use crate::suggest::closest;
use crate::yaml::{self, flow_scalar};

/// A catalog table and what becomes of it.
#[derive(Debug, PartialEq, Eq)]
enum Listed {
    Added { name: String, pinned: String },
    Present(String),
    Skipped { name: String, why: &'static str },
}

pub fn run(args: &InitArgs, catalog: &str, out: &mut dyn Write) -> Result<bool, Failure> {
    let path = Path::new(CONFIG_FILE);
    if !path.exists() {
        return Err(Failure::Message(format!(
            "`init --catalog` adds a catalog's tables to {CONFIG_FILE}, which needs the catalog under `catalogs:`: there is no {CONFIG_FILE} here (write one with `catalogs:`, or run `fieldgate init` first)"
        )));
    }
    let config = load_config(path)?;
    let Some(definition) = config.catalogs.iter().find(|c| c.name == catalog) else {
        let names = config.catalogs.iter().map(|c| c.name.as_str());
        let hint = closest(catalog, names).map(|n| format!(" (did you mean `{n}`?)"));
        return Err(Failure::Message(format!(
            "there is no catalog `{catalog}` under `catalogs:` in {CONFIG_FILE}{}",
            hint.unwrap_or_default()
        )));
    };
    let env = |var: &str| std::env::var(var).ok();
    let client = resolve(definition, &env)
        .and_then(connect)
        .map_err(|e| e.message)?;
    let roots: Vec<Vec<String>> = args
        .namespace
        .iter()
        .map(|n| n.split('.').map(str::to_string).collect())
        .collect();
    let identifiers = client.all_tables(&roots).map_err(|e| e.message)?;
    let listed: Vec<Listed> = identifiers
        .iter()
        .map(|parts| classify(&config, catalog, parts, &args.pinned_dir))
        .collect();
    let text = with_entries(&config.source.text, catalog, &listed)?;
    let added = listed
        .iter()
        .filter(|l| matches!(l, Listed::Added { .. }))
        .count();
    if added > 0 {
        read_back(&text, config.tables.len() + added)?;
        write_atomically(path, text.as_bytes())
            .map_err(|e| Failure::Message(format!("cannot write `{CONFIG_FILE}`: {e}")))?;
    }
    summary(catalog, &listed, added, out)
        .map_err(|e| Failure::Message(format!("cannot write the summary: {e}")))?;
    Ok(true)
}

/// Whether the table at `parts` is added (and where its pinned copy goes), already configured,
/// or left out because its name cannot be a configured table or a path in the repository.
fn classify(config: &Config, catalog: &str, parts: &[String], pinned_dir: &str) -> Listed {
    let name = parts.join(".");
    if let Some(why) = unusable(parts) {
        return Listed::Skipped { name, why };
    }
    let configured = config.tables.iter().any(|t| {
        same_table(&t.name, &name)
            || (t.catalog.as_ref().is_some_and(|(c, _)| c == catalog)
                && same_table(t.catalog_identifier(), &name))
    });
    if configured {
        return Listed::Present(name);
    }
    let dir = pinned_dir.trim_end_matches('/');
    let pinned = format!("{dir}/{}.metadata.json", parts.join("/"));
    Listed::Added { name, pinned }
}

/// Why a catalog name cannot be written as a table of `fieldgate.yaml`: fieldgate splits
/// identifiers at dots, and each level becomes a directory of the pinned copy's path, so a
/// hostile or odd name must not climb out of the repository or hide a path separator.
fn unusable(parts: &[String]) -> Option<&'static str> {
    if parts.iter().any(|p| p.contains('.')) {
        return Some("a level of its name holds a `.`, which fieldgate's table names cannot");
    }
    let unsafe_part = |p: &String| {
        p.is_empty()
            || p.starts_with('-')
            || p.chars()
                .any(|c| matches!(c, '/' | '\\' | ':') || c.is_control())
    };
    if parts.iter().any(unsafe_part) {
        return Some("a level of its name cannot be a directory of its pinned copy's path");
    }
    None
}

/// `text` with an entry for each added table at the end of `tables:` (which is made when the
/// file has none), indented as the entries already there.
fn with_entries(text: &str, catalog: &str, listed: &[Listed]) -> Result<String, Failure> {
    let root = yaml::parse(text).map_err(|e| Failure::Message(e.to_string()))?;
    let tables = root.get("tables");
    let (at, indent, heading) = match tables {
        None => (text.len(), 2, true),
        Some(node) if node.is_null() && node.span.start == node.span.end => {
            (line_end(text, node.span.end), 2, false)
        }
        Some(node) if node.as_map().is_some() && !text[node.span.start..].starts_with('{') => {
            let first = node.as_map().and_then(|m| m.first());
            let indent = first.map_or(2, |e| column(text, e.key_span.start));
            (line_end(text, node.span.end), indent, false)
        }
        Some(_) => {
            return Err(Failure::Message(format!(
                "{CONFIG_FILE}'s `tables:` is not a block mapping (it is empty, null or in flow style): write it as `tables:` with one entry per line, then run `init --catalog` again"
            )));
        }
    };
    let pad = " ".repeat(indent);
    let mut entries = String::new();
    for listed in listed {
        if let Listed::Added { name, pinned } = listed {
            entries.push_str(&format!(
                "{pad}{}:\n{pad}  catalog: {}\n{pad}  metadata: {}\n",
                flow_scalar(name),
                flow_scalar(catalog),
                path_scalar(pinned)
            ));
        }
    }
    let mut out = String::with_capacity(text.len() + entries.len() + 16);
    out.push_str(&text[..at]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if heading {
        out.push_str("tables:\n");
    }
    out.push_str(&entries);
    out.push_str(&text[at..]);
    Ok(out)
}

/// A path as a block value: plain when it is made of name characters and slashes (as paths in
/// `fieldgate.yaml` are written by hand), else quoted.
fn path_scalar(path: &str) -> String {
    let plain = path.split('/').all(|part| flow_scalar(part) == part);
    if plain {
        path.to_string()
    } else {
        flow_scalar(path)
    }
}

/// The offset after the line break ending the line that holds `offset` (the text's end when
/// that is the last line).
fn line_end(text: &str, offset: usize) -> usize {
    text[offset..]
        .find('\n')
        .map_or(text.len(), |i| offset + i + 1)
}

fn column(text: &str, offset: usize) -> usize {
    offset - text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// The edited file must read as a configuration with every table it had and the added ones.
fn read_back(text: &str, tables: usize) -> Result<(), Failure> {
    let source = Arc::new(SourceFile {
        name: CONFIG_FILE.into(),
        text: text.to_string(),
    });
    match Config::parse(source) {
        Ok(config) if config.tables.len() == tables => Ok(()),
        _ => Err(Failure::Message(format!(
            "fieldgate init could not add the tables to {CONFIG_FILE} so that it reads back (nothing was written); please report this"
        ))),
    }
}

fn summary(
    catalog: &str,
    listed: &[Listed],
    added: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "catalog `{catalog}`: {} listed, {} added to {CONFIG_FILE}",
        counted(listed.len(), "table"),
        added
    )?;
    for entry in listed {
        match entry {
            Listed::Added { name, pinned } => writeln!(out, "  added    {name}: {pinned}")?,
            Listed::Present(name) => writeln!(out, "  kept     {name} (already in {CONFIG_FILE})")?,
            Listed::Skipped { name, why } => writeln!(out, "  skipped  {name}: {why}")?,
        }
    }
    if added > 0 {
        writeln!(out, "run `fieldgate pull` to write their pinned copies")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(name: &str) -> Listed {
        Listed::Added {
            name: name.into(),
            pinned: format!("tables/{}.metadata.json", name.replace('.', "/")),
        }
    }

    fn edited(text: &str) -> String {
        with_entries(
            text,
            "prod",
            &[added("db.a"), Listed::Present("db.b".into())],
        )
        .unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn entries_end_the_tables_block_indented_as_its_entries() {
        let text = "catalogs: {prod: {type: rest, uri: 'http://c'}}\ntables:\n    db.b:\n        catalog: prod  # kept\nproposals: [m/*.sql]\n";
        assert_eq!(
            edited(text),
            "catalogs: {prod: {type: rest, uri: 'http://c'}}\ntables:\n    db.b:\n        catalog: prod  # kept\n    db.a:\n      catalog: prod\n      metadata: tables/db/a.metadata.json\nproposals: [m/*.sql]\n"
        );
    }

    #[test]
    fn a_file_without_tables_gets_the_block() {
        assert_eq!(
            edited("catalogs: {}"),
            "catalogs: {}\ntables:\n  db.a:\n    catalog: prod\n    metadata: tables/db/a.metadata.json\n"
        );
        assert_eq!(
            edited("tables:\nrules: {}\n"),
            "tables:\n  db.a:\n    catalog: prod\n    metadata: tables/db/a.metadata.json\nrules: {}\n"
        );
    }

    #[test]
    fn a_flow_style_or_null_tables_is_not_edited() {
        for text in [
            "tables: {a: {metadata: x}}\n",
            "tables: ~\n",
            "tables: []\n",
        ] {
            assert!(
                with_entries(text, "prod", &[added("db.a")]).is_err(),
                "{text}"
            );
        }
    }

    #[test]
    fn names_that_cannot_be_tables_or_paths_are_skipped() {
        let name = |parts: &[&str]| parts.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        assert_eq!(unusable(&name(&["db", "events"])), None);
        for parts in [
            &["db", "a.b"][..],
            &["..", "etc"],
            &["db", "x/y"],
            &["db", ""],
            &["c:", "t"],
            &["db", "-rf"],
        ] {
            assert!(unusable(&name(parts)).is_some(), "{parts:?}");
        }
        // A name YAML would read as something else is written quoted.
        let text = with_entries("tables:\n", "prod", &[added("db.true")]).unwrap_or_default();
        assert!(text.contains("  db.true:\n"), "{text}");
        let text = with_entries("tables:\n", "prod", &[added("db.a b")]).unwrap_or_default();
        assert!(text.contains("  \"db.a b\":\n"), "{text}");
    }
}
