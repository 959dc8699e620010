//! What the flags and `fieldgate.yaml` decide before any table is judged: the settings each table
//! is judged by (`settings`), which files are proposals and which table each statement is for
//! (`routing`), whose configuration sets the policy of `check` (`policy`), and which moves of a
//! table's metadata `check` refuses (`moves`), and where the tables reached through symbolic
//! links really are (`links`).

pub mod edits;
pub mod links;
pub mod moves;
pub mod policy;
pub mod repo_config;
pub mod routing;
pub mod settings;
