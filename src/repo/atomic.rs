//! Atomic file replacement: write a temporary file beside the target, flush it to disk, then
//! rename it over the target. A reader (or a crash) sees the old file or the new one, never half.
//!
//! The temporary file is tempfile's: created exclusively (`O_EXCL`) under an unpredictable name,
//! so a symbolic link planted in the directory under a name we would use is never followed and
//! never written through; the rename replaces a link at the target itself, not the file it
//! points to.

use std::io::{self, Write};
use std::path::Path;

pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Dropped unpersisted on any error, which removes it: the target is never touched.
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".fieldgate.tmp")
        .tempfile_in(dir)?;
    temp.write_all(contents)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map(drop).map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.json");
        fs::write(&target, "old").unwrap();
        write_atomically(&target, b"new").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("missing-dir").join("t.json");
        assert!(write_atomically(&target, b"new").is_err());
        assert!(!target.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_at_the_target_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        let target = dir.path().join("t.json");
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        write_atomically(&target, b"new").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert!(!fs::symlink_metadata(&target).unwrap().is_symlink());
    }
}
