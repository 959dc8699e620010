//! An index entry against the file in the working tree, without reading it: whether the stat git
//! recorded still matches, and the entry's path as the platform spells it.

use std::path::PathBuf;

use git2::IndexEntry;

/// Whether `file`'s stat is the one the index recorded for `entry`, field by field as git
/// compares them; any difference leaves the decision to the contents.
#[cfg(unix)]
pub fn stat_matches(entry: &IndexEntry, file: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    let mode = if file.file_type().is_symlink() {
        crate::repo::commit_files::LINK_MODE as u32
    } else if file.is_file() && file.mode() & 0o111 != 0 {
        0o100755
    } else if file.is_file() {
        0o100644
    } else {
        return false;
    };
    // The index keeps the low 32 bits of each, as git does.
    entry.mode == mode
        && entry.file_size == file.size() as u32
        && i64::from(entry.mtime.seconds()) == file.mtime()
        && i64::from(entry.mtime.nanoseconds()) == file.mtime_nsec()
        && i64::from(entry.ctime.seconds()) == file.ctime()
        && i64::from(entry.ctime.nanoseconds()) == file.ctime_nsec()
        && entry.ino == file.ino() as u32
        && entry.dev == file.dev() as u32
        && entry.uid == file.uid()
        && entry.gid == file.gid()
}

/// Without unix stat fields every entry is left to libgit2.
#[cfg(not(unix))]
pub fn stat_matches(_: &IndexEntry, _: &std::fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
pub fn entry_path(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
pub fn entry_path(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}
