//! Tables that live in an Iceberg REST catalog: the `catalogs:` configuration, the REST client
//! (config, listings, LoadTable, commits, auth, retries) and the redaction that keeps secrets out of
//! every message. HTTP happens only in `http`; the rest is the protocol.

pub mod auth;
pub mod commit;
pub mod config;
pub mod connect;
pub mod http;
pub mod listing;
pub mod redact;
pub mod rest;
