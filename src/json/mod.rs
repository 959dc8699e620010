//! Spanned JSON: a strict parser that remembers where every value is, and a text patcher that
//! rewrites Iceberg `*.metadata.json` files losslessly.
//!
//! Data flow: [`parse`] (or [`parse_bytes`]) turns the file text into a [`Node`] tree whose spans
//! point back into the text; the metadata layer reads it through the `as_*` helpers and labels
//! diagnostics with the spans. To change the file, [`Style::detect`] learns how it is laid out,
//! [`append_element`] / [`insert_member`] / [`replace_value`] turn each change into an [`Edit`] of
//! the original text, and [`Edits::apply`] splices them in. Untouched bytes are copied, so a file
//! read and written without changes is byte-identical, and a schema change shows up as a diff of
//! only the keys it changes, in the writer's own formatting.
//!
//! Nothing here reads files or knows about Iceberg; callers pass text and values.

mod edit;
mod error;
mod node;
mod parse;
mod patch;
mod style;

#[cfg(test)]
mod samples;

pub use edit::{Edit, EditError, Edits};
pub use error::{Expected, Found, JsonError, JsonErrorKind, line_col};
pub use node::{Member, Node, Span, Value};
pub use parse::{MAX_DEPTH, parse, parse_bytes};
pub use patch::{
    PatchError, append_element, append_elements, insert_member, replace_value, replace_with_value,
};
pub use style::{Indent, Newline, Style, write_value};
