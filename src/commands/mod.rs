//! One module per subcommand; each wires the pipeline and does the I/O.

pub mod apply;
pub mod catalogue;
pub mod check;
pub mod completions;
pub mod drift;
pub mod failure;
pub mod init;
pub mod input;
pub mod lint;
pub mod lint_routed;
pub mod live;
pub mod man;
pub mod pipeline;
pub mod policy;
pub mod pull;
pub mod routing;
pub mod settings;
pub mod verification;
pub mod verify;
