//! Why a file could not be verified at all (exit code 2): it is not readable Parquet, or a part of
//! it is corrupt. The error names the file and, when known, the row group and column.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyError {
    pub file: String,
    pub row_group: Option<usize>,
    pub column: Option<String>,
    pub message: String,
    pub help: Option<String>,
}

impl VerifyError {
    pub fn file(file: impl Into<String>, message: impl Into<String>) -> VerifyError {
        VerifyError {
            file: file.into(),
            row_group: None,
            column: None,
            message: message.into(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> VerifyError {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.file)?;
        if let Some(row_group) = self.row_group {
            write!(f, ", row group {row_group}")?;
        }
        if let Some(column) = &self.column {
            write!(f, ", column `{column}`")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyError {}

/// Runs `f`, turning a panic inside a third-party reader into an error: input must never crash
/// us, even where a decoder assumes well-formed data (the fuzzer found the parquet crate dividing
/// by zero on a corrupt dictionary page). The panic hook is silenced meanwhile, so the user sees
/// the located error, not a panic message and backtrace; the hook is process-wide, which is fine
/// for a command-line tool that reads files one at a time.
pub fn no_panic<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    match outcome {
        Ok(result) => result,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown cause".into());
            Err(format!(
                "the Parquet decoder gave up on malformed data ({what})"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_file_row_group_and_column() {
        let mut e = VerifyError::file("a.parquet", "corrupt page");
        e.row_group = Some(1);
        e.column = Some("age".into());
        assert_eq!(
            e.to_string(),
            "`a.parquet`, row group 1, column `age`: corrupt page"
        );
    }

    #[test]
    fn panics_become_errors() {
        let r: Result<(), String> = no_panic(|| panic!("index out of bounds"));
        assert!(r.unwrap_err().contains("index out of bounds"));
    }
}
