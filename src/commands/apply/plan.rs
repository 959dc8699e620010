//! What `apply` writes for one judged table, worked out in full before anything is written (so
//! a failure in any table leaves every file as it was), then written atomically, each file
//! named on stderr as it is written.

use std::path::{Path, PathBuf};

use crate::cli::ApplyArgs;
use crate::evolve::new_table::render_new_table;
use crate::failure::Failure;
use crate::frontend::schema_file::fill_ids;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::metadata::patch;
use crate::iceberg::metadata_file::{COMPRESSION_PROPERTY, Codec};
use crate::iceberg::metadata_log::{Replaced, saved_metadata_location};
use crate::iceberg::validate::refusal;
use crate::pipe::to_stderr;
use crate::proposal::Proposal;
use crate::repo::atomic::write_atomically;
use crate::repo::location::{HadoopTable, TableLocation, first_metadata_file};
use crate::session::input::{LoadedTable, ReadProposal};
use crate::session::table::Judgement;

/// The files one table's apply writes, in the order they are written.
pub struct Planned {
    table: String,
    /// The new metadata's text and where it goes.
    metadata: Option<(String, PathBuf)>,
    /// A table directory's version hint and the version it moves to, written after the
    /// metadata file, so a reader that follows the hint never sees a half-written version.
    hint: Option<(PathBuf, i32)>,
    /// Schema-file proposals with the ids the table now has filled in (`--write`).
    write_backs: Vec<(PathBuf, String)>,
}

/// What applying `judgement` writes. `home` is where the configuration keeps the table (routed
/// `apply`), so `--write` can write a table the proposals create; with `--metadata` a new table
/// needs `-o OUT`.
pub fn planned(
    args: &ApplyArgs,
    judgement: &Judgement,
    home: Option<&Path>,
    now: i64,
) -> Result<Planned, Failure> {
    refuse_what_java_refuses(&judgement.evolution.metadata)?;
    let iceberg_base = judgement.base.as_ref().filter(|b| b.description.is_none());
    let (metadata, hint) = match iceberg_base {
        Some(base) => next_version(args, judgement, base, now)?,
        None => complete(args, judgement, home),
    };
    let write_backs = if args.write {
        ids_to_write_back(&judgement.proposals)?
    } else {
        Vec::new()
    };
    let has_schema_files = judgement
        .proposals
        .iter()
        .any(|p| matches!(p.proposal, Proposal::SchemaFile(_)));
    if metadata.is_none() && !has_schema_files {
        let message = match &judgement.base {
            Some(_) => format!(
                "`{}` is described by a schema file, which fieldgate does not rewrite from DDL: give -o OUT to write its Iceberg metadata",
                judgement.table
            ),
            None => format!(
                "`{}` is a new table, with no metadata file to replace: give -o OUT",
                judgement.table
            ),
        };
        return Err(Failure::Message(message));
    }
    Ok(Planned {
        table: judgement.table.clone(),
        metadata,
        hint,
        write_backs,
    })
}

/// A metadata file and, for a table directory, its version hint moved to it.
type MetadataWrite = (Option<(String, PathBuf)>, Option<(PathBuf, i32)>);

/// The table's metadata patched with the change (or, proposed as a metadata file, the file as
/// the engine wrote it), to `-o OUT` or as the table's next version.
fn next_version(
    args: &ApplyArgs,
    judgement: &Judgement,
    base: &LoadedTable,
    now: i64,
) -> Result<MetadataWrite, Failure> {
    let new_metadata = &judgement.evolution.metadata;
    let proposed_file = judgement.proposals.iter().find_map(|p| match &p.proposal {
        Proposal::Metadata(metadata) => Some(metadata),
        _ => None,
    });
    let target = target_file(args.output.as_deref(), &base.location, new_metadata)?;
    // The new file logs the one it was made from, as every Java commit logs the file its base
    // was read from, where that file's place is known; an in-place write replaces that file.
    let replaced_file = (target != base.location.metadata_file)
        .then(|| previous_location(base))
        .flatten();
    let replaced = replaced_file.as_deref().map(|file| Replaced {
        file,
        written_at: base.metadata.last_updated_ms,
    });
    let text = match proposed_file {
        Some(proposed) => proposed.source.text.clone(),
        None => patch(
            &base.source.text,
            &base.metadata,
            new_metadata,
            now,
            replaced.as_ref(),
        )
        .map_err(Failure::Message)?,
    };
    let hint = (base.location.hadoop.as_ref())
        .filter(|_| args.output.is_none())
        .map(|h| (h.hint_file(), h.next_version()));
    Ok((Some((text, target)), hint))
}

/// Where the metadata `base` was read from is kept, named as the table names it: a table
/// directory's current version and a file in the table's own `metadata/` directory under the
/// table's `location` (as Java's `HadoopTableOperations` names them), a saved LoadTableResult
/// at its `metadata-location`. `None` for a copy kept elsewhere, whose place in the table is
/// not known.
fn previous_location(base: &LoadedTable) -> Option<String> {
    let location = &base.metadata.location;
    if let Some(hadoop) = &base.location.hadoop {
        return Some(hadoop.logged_file(location));
    }
    let file = &base.location.metadata_file;
    let name = file.file_name()?.to_str()?;
    let local = location
        .strip_prefix("file://")
        .or_else(|| location.strip_prefix("file:"))
        .unwrap_or(location);
    let in_table = Path::new(local).join("metadata").join(name);
    let canonical = |path: &Path| std::fs::canonicalize(path).ok();
    if canonical(&in_table).is_some_and(|kept| Some(kept) == canonical(file)) {
        return Some(format!(
            "{}/metadata/{name}",
            location.trim_end_matches('/')
        ));
    }
    saved_metadata_location(&base.source.text)
}

/// A new table, or one a schema file describes: complete metadata, to `-o OUT`, or, for a new
/// table with `--write`, where the configuration keeps it (`home`): a table directory gets
/// `metadata/v1.metadata.json` and a version hint of 1.
fn complete(args: &ApplyArgs, judgement: &Judgement, home: Option<&Path>) -> MetadataWrite {
    let mut hint = None;
    let target = match (&args.output, home) {
        (Some(output), _) => Some(output.clone()),
        (None, Some(home)) if judgement.base.is_none() && args.write => {
            let file = first_metadata_file(home);
            if file != home {
                hint = file.parent().map(|dir| (dir.join("version-hint.text"), 1));
            }
            Some(file)
        }
        _ => None,
    };
    let text = |target| {
        let metadata = render_new_table(&judgement.evolution.metadata, &new_uuid());
        (metadata, target)
    };
    (target.map(text), hint)
}

/// Writes every table's files, each atomically, and names each on stderr as it is written.
pub fn write(planned: &[Planned]) -> Result<(), Failure> {
    for table in planned {
        if let Some((text, target)) = &table.metadata {
            if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| {
                    Failure::Message(format!("cannot create `{}`: {e}", parent.display()))
                })?;
            }
            write_file(target, &encode_for(target, text)?)?;
            to_stderr(&format!(
                "fieldgate: wrote the new metadata of `{}` to `{}`",
                table.table,
                shown(target)
            ));
        }
        if let Some((hint, version)) = &table.hint {
            write_file(hint, HadoopTable::hint_text(*version).as_bytes())?;
            to_stderr(&format!(
                "fieldgate: moved `{}` to version {version}",
                shown(hint)
            ));
        }
        for (path, text) in &table.write_backs {
            write_file(path, text.as_bytes())?;
            to_stderr(&format!(
                "fieldgate: wrote the field ids into `{}`",
                shown(path)
            ));
        }
    }
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    write_atomically(path, bytes)
        .map_err(|e| Failure::Message(format!("cannot write `{}`: {e}", path.display())))
}

/// A path as the user would type it: relative to the current directory when inside it.
fn shown(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    relative
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}

/// The metadata about to be written, checked as Iceberg Java checks what it reads: `apply` never
/// writes metadata an engine cannot load. The typed metadata the evolution built is checked, not
/// its text read back: the text is that metadata written by `patch` or `render_new_table`, over a
/// base file that was checked when it was read.
fn refuse_what_java_refuses(metadata: &TableMetadata) -> Result<(), Failure> {
    match refusal(metadata) {
        None => Ok(()),
        Some(refused) => Err(Failure::Message(format!(
            "the metadata to write is not valid Iceberg metadata ({}); nothing was written",
            refused.message
        ))),
    }
}

/// Where the new metadata of a table at `location` goes: `-o OUT`, the next version of a table
/// directory, else over the metadata file. As every Java catalog commits, the new metadata's own
/// codec property names the next version's codec, and a codec Java does not know fails it.
fn target_file(
    output: Option<&Path>,
    location: &TableLocation,
    new_metadata: &TableMetadata,
) -> Result<PathBuf, Failure> {
    let codec = Codec::of_property(new_metadata.property(COMPRESSION_PROPERTY))
        .map_err(|e| Failure::Message(format!("{e}; nothing was written")))?;
    Ok(match (output, &location.hadoop) {
        (Some(output), _) => output.to_path_buf(),
        (None, Some(hadoop)) => hadoop.next_file(codec),
        (None, None) => location.metadata_file.clone(),
    })
}

/// The bytes of `text` as a metadata file named `target` holds it: gzip-compressed when the
/// name says so, as Java's `TableMetadataParser.write` decides.
fn encode_for(target: &Path, text: &str) -> Result<Vec<u8>, Failure> {
    let name = target.file_name().map(|n| n.to_string_lossy());
    Codec::of_file_name(name.as_deref().unwrap_or_default())
        .encode(text)
        .map_err(Failure::Message)
}

/// Each schema-file proposal with the ids the table now has filled in, where that changes it.
fn ids_to_write_back(proposals: &[ReadProposal]) -> Result<Vec<(PathBuf, String)>, Failure> {
    let mut out = Vec::new();
    for read in proposals {
        let (Proposal::SchemaFile(file), Some(schema)) = (&read.proposal, &read.schema_after)
        else {
            continue;
        };
        let text = fill_ids(&file.source.text, file.format, schema).map_err(|e| {
            Failure::Message(format!(
                "cannot write the field ids into `{}`: {e}",
                read.path.display()
            ))
        })?;
        if text != file.source.text {
            out.push((read.path.clone(), text));
        }
    }
    Ok(out)
}
/// A random (version 4) UUID for a new table, from the OS's entropy source; where there is none,
/// the clock and process id still make a collision practically impossible for one user.
fn new_uuid() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if random.is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes[..12].copy_from_slice(&nanos.to_le_bytes()[..12]);
        bytes[12..].copy_from_slice(&std::process::id().to_le_bytes());
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}
