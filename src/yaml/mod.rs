//! Spanned YAML: the one place in fieldgate that knows which YAML crate we use.
//!
//! Data flow: [`parse`] runs `saphyr-parser`'s event parser over the text and builds a
//! [`YamlNode`] tree whose spans are byte offsets into that text, the same shape as
//! [`crate::json::Node`], so schema files, rule files and the configuration are read and located
//! the same way whether they are YAML or JSON. Everything above this module sees only
//! [`YamlNode`] and [`YamlError`]; swapping the crate means rewriting `parse.rs`, nothing else.
//!
//! Why `saphyr-parser`: `serde_yaml`, named in the design card, is deprecated upstream and keeps
//! no positions in its values. Of the maintained pure-Rust parsers that do, `yaml-rust2` has
//! announced it will receive only basic maintenance, with new work going to its successor, the
//! saphyr project; `saphyr-parser` is that project's event parser (YAML 1.2, tested against the
//! YAML test suite, `no_std`, two small dependencies). Its events carry start and end markers
//! counted in chars, which `parse` turns into byte offsets.
//!
//! What is accepted is plain data: mappings, sequences and scalars, block or flow style, one
//! document. Plain scalars resolve by the YAML 1.2 core schema (`true`, `null`, `~`, `12`,
//! `0x1F`, `1.5e3`, `.inf`); quoted and block scalars are always strings. Anchors, aliases and
//! tags are rejected: our files never need them, and aliases are how a few lines of YAML expand
//! into gigabytes ("billion laughs"). Every failure is a [`YamlError`] with a span, never a panic.

mod emit;
mod error;
mod node;
mod parse;
mod scalar;

pub use crate::json::Span;
pub use emit::flow_scalar;
pub use error::{YamlError, YamlErrorKind};
pub use node::{YamlEntry, YamlNode, YamlValue};
pub use parse::{MAX_DEPTH, MAX_FLOW_DEPTH, parse};
