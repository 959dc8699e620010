//! `fieldgate apply`: lint, then on pass write the new metadata atomically. A table directory in
//! the Hadoop layout gets the next `vN.metadata.json` (`vN.gz.metadata.json` when the table's
//! `write.metadata.compression-codec` is `gzip`, as Java commits it) and then its version hint,
//! so a reader that follows the hint never sees a version that is not fully written. A metadata file proposed as
//! the next state is written as it is. With `--write`, each schema-file proposal also gets the
//! ids the table now has written into it (see `frontend::schema_file::fill_ids`); a table that
//! only a schema file describes has no metadata to replace, so `--write` writes just the ids and
//! `-o OUT` writes its complete Iceberg metadata. Once the rules pass, sample data files are read
//! under the new schema (`session::verification`) before anything is written.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::ApplyArgs;
use crate::commands::lint::judge_and_report;
use crate::evolve::new_table::render_new_table;
use crate::failure::Failure;
use crate::finding::Severity;
use crate::frontend::schema_file::fill_ids;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::metadata::patch;
use crate::iceberg::metadata_file::{COMPRESSION_PROPERTY, Codec};
use crate::iceberg::metadata_log::log_previous_file;
use crate::iceberg::validate::refusal;
use crate::judge::Settings;
use crate::proposal::Proposal;
use crate::repo::atomic::write_atomically;
use crate::repo::location::{HadoopTable, TableLocation};
use crate::session::input::ReadProposal;
use crate::session::now_ms;
use crate::session::plan::settings::Resolved;
use crate::session::table::Judgement;
use crate::session::verification;

pub fn run(args: &ApplyArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let now = now_ms();
    let location = default_location(args.output.as_deref());
    // The sample is read before anything is written, so a failed verification writes nothing.
    let mut verify =
        |judgement: &mut Judgement, resolved: &Resolved, settings: &Settings, fail_on: Severity| {
            verification::run(judgement, settings, fail_on, |judgement| {
                let configured = resolved
                    .config
                    .as_ref()
                    .zip(resolved.config_path.as_deref());
                let config = configured.map(|(config, path)| {
                    let sample = config
                        .table(&judgement.table)
                        .and_then(|t| t.sample.as_ref());
                    (path, &config.source, sample)
                });
                verification::for_apply(
                    args.no_verify,
                    &args.verify,
                    args.sample.map(|n| n as usize),
                    config,
                )
            })
        };
    let (judgement, passed) = judge_and_report(&args.lint, location, now, out, &mut verify)?;
    // A change Iceberg cannot express has no metadata to write, whatever --force says.
    if !judgement.evolution.problems.is_empty() || (!passed && !args.force) {
        return Ok(false);
    }

    let new_metadata = &judgement.evolution.metadata;
    refuse_what_java_refuses(new_metadata)?;
    let proposed_file = judgement.proposals.iter().find_map(|p| match &p.proposal {
        Proposal::Metadata(metadata) => Some(metadata),
        _ => None,
    });
    let iceberg_base = judgement.base.as_ref().filter(|b| b.description.is_none());
    let metadata_write = match iceberg_base {
        Some(base) => {
            // A metadata proposal is the new state as the engine wrote it: it is written as is.
            let mut text = match proposed_file {
                Some(proposed) => proposed.source.text.clone(),
                None => patch(&base.source.text, &base.metadata, new_metadata, now)
                    .map_err(Failure::Message)?,
            };
            // The next version of a table directory logs the file it replaces, as Java does.
            if let (None, Some(hadoop), None) = (&args.output, &base.location.hadoop, proposed_file)
                && text != base.source.text
            {
                let previous = hadoop.logged_file(&base.metadata.location);
                text = log_previous_file(&text, &base.source.text, &previous)
                    .map_err(Failure::Message)?;
            }
            let target = target_file(args.output.as_deref(), &base.location, new_metadata)?;
            Some((text, target))
        }
        // A new table, or one a schema file describes: complete metadata, to -o only.
        None => args
            .output
            .as_ref()
            .map(|output| (render_new_table(new_metadata, &new_uuid()), output.clone())),
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
    if metadata_write.is_none() && !has_schema_files {
        let message = match &judgement.base {
            Some(_) => {
                "the table is described by a schema file, which fieldgate does not rewrite from DDL: give -o OUT to write its Iceberg metadata"
            }
            None => "a new table has no metadata file to replace: give -o OUT",
        };
        return Err(Failure::Message(message.into()));
    }

    if let Some((text, target)) = &metadata_write {
        if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                Failure::Message(format!("cannot create `{}`: {e}", parent.display()))
            })?;
        }
        write_atomically(target, &encode_for(target, text)?)
            .map_err(|e| Failure::Message(format!("cannot write `{}`: {e}", target.display())))?;
        if args.output.is_none()
            && let Some(hadoop) = iceberg_base.and_then(|b| b.location.hadoop.as_ref())
        {
            let hint = HadoopTable::hint_text(hadoop.version + 1);
            write_atomically(&hadoop.hint_file(), hint.as_bytes()).map_err(|e| {
                Failure::Message(format!(
                    "cannot write `{}`: {e}",
                    hadoop.hint_file().display()
                ))
            })?;
        }
    }
    for (path, text) in &write_backs {
        write_atomically(path, text.as_bytes())
            .map_err(|e| Failure::Message(format!("cannot write `{}`: {e}", path.display())))?;
        eprintln!("fieldgate: wrote the field ids into `{}`", path.display());
    }
    // --force writes, but the verdict stays what the findings say.
    Ok(passed)
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
/// Worked out before anything is written, so a failure leaves every file as it was.
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

/// A created table lives where its metadata goes: the directory above `metadata/`, if the output
/// is in one, else the output's directory. Written as a `file://` URI, as Iceberg's `location`
/// is everywhere: a bare path is a relative reference to readers that resolve it as a URI.
fn default_location(output: Option<&Path>) -> String {
    let dir = output
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    let table_dir = if dir.file_name().is_some_and(|n| n == "metadata") {
        dir.parent().map(Path::to_path_buf).unwrap_or(dir)
    } else {
        dir
    };
    format!("file://{}", table_dir.display())
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
