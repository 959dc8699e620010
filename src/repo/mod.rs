//! Where tables live on disk, and writing files safely.

pub mod atomic;
pub mod config;
pub mod location;
