//! One module per subcommand: arguments in, a session judges, `emit` writes what it found.

pub mod apply;
pub mod catalogue;
pub mod check;
pub mod completions;
pub mod emit;
pub mod init;
pub mod lint;
pub mod man;
pub mod verify;
