//! Where tables live on disk and in git, the repository configuration, and writing files safely.

pub mod atomic;
pub mod commit_files;
pub mod config;
pub mod git;
pub mod glob;
pub mod index_stat;
pub mod location;
pub mod relaxation;
pub mod sample;
pub mod work_tree;
