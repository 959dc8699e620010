//! A run of the gate below the command line: where tables and proposals come from (`input`,
//! `source`), what the configuration says about them (`plan`), and one judge of one table
//! (`table`), with the committed metadata compared (`drift`) and sample files read
//! (`verification`). Nothing here writes a report; `commands` does.

pub mod applied;
pub mod buffers;
pub mod catalog_source;
pub mod drift;
pub mod gate;
pub mod input;
pub mod kept;
pub mod live;
pub mod plan;
pub mod routed;
pub mod source;
pub mod table;
pub mod verification;

use std::time::{SystemTime, UNIX_EPOCH};

/// The run's clock, in Unix milliseconds: new tables' `last-updated-ms` and suppression expiry.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
