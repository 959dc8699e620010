//! Terms in `partition` and `sort-order`: `bucket(16, id)`, `day(ts)`, `region`,
//! `amount desc nulls-last`, located to the character inside the string.

use std::ops::Range;

use super::{Kind, Reader};
use crate::frontend::schema_file::type_string::Locator;
use crate::frontend::schema_file::{
    ColumnRef, FilePartitionField, FileSortField, NullOrder, SchemaFileError, SortDirection,
    Transform,
};
use crate::suggest::closest_key;
use crate::yaml::YamlNode;

const TRANSFORMS: &[&str] = &[
    "identity", "bucket", "truncate", "year", "month", "day", "hour",
];
/// Spark's spellings of the time transforms.
const PLURAL_TRANSFORMS: &[&str] = &["years", "months", "days", "hours"];
const TRANSFORM_HELP: &str = "write a column name (identity), or identity(col), bucket(N, col), \
    truncate(W, col), year(col), month(col), day(col), hour(col)";

impl Reader<'_> {
    /// The terms under `key` (`partition`, `sort-order`), none when the file leaves it out.
    pub(super) fn terms<T>(
        &mut self,
        root: &YamlNode,
        key: &str,
        read: impl Fn(&mut Self, &YamlNode, &str) -> Option<T>,
    ) -> Vec<T> {
        match root.get(key) {
            Some(node) => self.strings(node, &format!("`{key}`"), read),
            None => Vec::new(),
        }
    }

    /// `bucket(16, id)`, `day(ts)`, `identity(region)` or a bare `region`.
    pub(super) fn partition_term(
        &mut self,
        node: &YamlNode,
        s: &str,
    ) -> Option<FilePartitionField> {
        let loc = Locator::new(self.text, node, s);
        let whole = trimmed(s, 0..s.len());
        let Some(open) = s.find('(') else {
            let column = self.column_ref(&loc, s, whole, "a partition column")?;
            return Some(FilePartitionField {
                transform: Transform::Identity,
                column,
                span: loc.at(0..s.len()),
            });
        };
        if !s[whole.clone()].ends_with(')') {
            self.push(invalid_term(
                &loc,
                whole,
                format!("expected `)` at the end of `{s}`"),
            ));
            return None;
        }
        let (transform, column_range) = self.transform_call(&loc, s, open, whole)?;
        let column = self.column_ref(&loc, s, column_range, "a partition column")?;
        Some(FilePartitionField {
            transform,
            column,
            span: loc.at(0..s.len()),
        })
    }

    /// `name(args)` in `s[..whole.end]`, `(` at `open`: the transform and its column's range.
    fn transform_call(
        &mut self,
        loc: &Locator,
        s: &str,
        open: usize,
        whole: Range<usize>,
    ) -> Option<(Transform, Range<usize>)> {
        let name_range = trimmed(s, 0..open);
        let name = s[name_range.clone()].to_ascii_lowercase();
        let args: Vec<Range<usize>> = split_args(s, open + 1..whole.end - 1);
        let transform = match (name.as_str(), args.as_slice()) {
            ("identity", [c]) => (Transform::Identity, c.clone()),
            // Spark's plural spellings (`days(ts)`) mean the same transforms.
            ("year" | "years", [c]) => (Transform::Year, c.clone()),
            ("month" | "months", [c]) => (Transform::Month, c.clone()),
            ("day" | "days", [c]) => (Transform::Day, c.clone()),
            ("hour" | "hours", [c]) => (Transform::Hour, c.clone()),
            ("bucket" | "truncate", [n, c]) => (self.counted(loc, s, &name, n.clone())?, c.clone()),
            ("bucket" | "truncate", _) => {
                self.push(invalid_term(
                    loc,
                    whole,
                    format!("`{name}` takes a number and a column: {name}(N, column)"),
                ));
                return None;
            }
            (known, _) if TRANSFORMS.contains(&known) || PLURAL_TRANSFORMS.contains(&known) => {
                self.push(invalid_term(
                    loc,
                    whole,
                    format!("`{known}` takes one column"),
                ));
                return None;
            }
            _ => {
                let written = &s[name_range.clone()];
                let mut error = invalid_term(
                    loc,
                    name_range,
                    format!("unknown partition transform `{written}`"),
                );
                if let Some(t) = closest_key(&name, TRANSFORMS.iter().copied()) {
                    error = error.with_help(format!("did you mean `{t}`?"));
                }
                self.push(error);
                return None;
            }
        };
        Some(transform)
    }

    /// `bucket` or `truncate` with its count (`n`, a positive integer).
    fn counted(
        &mut self,
        loc: &Locator,
        s: &str,
        name: &str,
        n: Range<usize>,
    ) -> Option<Transform> {
        let Some(count) = s[n.clone()].parse::<u32>().ok().filter(|n| *n > 0) else {
            let what = if name == "bucket" {
                "bucket count"
            } else {
                "width"
            };
            self.push(invalid_term(
                loc,
                n,
                format!("the {what} of `{name}` must be a positive integer"),
            ));
            return None;
        };
        Some(if name == "bucket" {
            Transform::Bucket(count)
        } else {
            Transform::Truncate(count)
        })
    }

    /// `column [asc|desc] [nulls-first|nulls-last]` (also `nulls first`, any case).
    pub(super) fn sort_term(&mut self, node: &YamlNode, s: &str) -> Option<FileSortField> {
        let loc = Locator::new(self.text, node, s);
        let words = words(s);
        let Some(column_range) = words.first().cloned() else {
            let error = SchemaFileError::new(
                Kind::InvalidValue,
                loc.at(0..s.len()),
                "a sort-order term needs a column",
            );
            self.push(error);
            return None;
        };
        let column = self.column_ref(&loc, s, column_range, "a sort column")?;
        let (direction, null_order) = self.sort_modifiers(&loc, s, &words[1..])?;
        let direction = direction.unwrap_or(SortDirection::Asc);
        // Iceberg's defaults: nulls sort first ascending and last descending.
        let null_order = null_order.unwrap_or(match direction {
            SortDirection::Asc => NullOrder::NullsFirst,
            SortDirection::Desc => NullOrder::NullsLast,
        });
        Some(FileSortField {
            column,
            direction,
            null_order,
            span: loc.at(0..s.len()),
        })
    }

    /// The words after a sort column: a direction and a null order, each at most once.
    fn sort_modifiers(
        &mut self,
        loc: &Locator,
        s: &str,
        words: &[Range<usize>],
    ) -> Option<(Option<SortDirection>, Option<NullOrder>)> {
        let mut direction = None;
        let mut null_order = None;
        let mut rest = words.iter().cloned().peekable();
        while let Some(range) = rest.next() {
            let word = s[range.clone()].to_ascii_lowercase();
            let (slot_is_direction, range, value) = match word.as_str() {
                "asc" => (true, range, Ok(SortDirection::Asc)),
                "desc" => (true, range, Ok(SortDirection::Desc)),
                "nulls-first" => (false, range, Err(NullOrder::NullsFirst)),
                "nulls-last" => (false, range, Err(NullOrder::NullsLast)),
                "nulls" => match rest.peek().map(|r| s[r.clone()].to_ascii_lowercase()) {
                    Some(w) if w == "first" || w == "last" => {
                        let next = rest.next().unwrap_or(range.clone());
                        let order = if w == "first" {
                            NullOrder::NullsFirst
                        } else {
                            NullOrder::NullsLast
                        };
                        (false, range.start..next.end, Err(order))
                    }
                    _ => {
                        self.push(bad_sort_word(loc, range, &word));
                        return None;
                    }
                },
                _ => {
                    self.push(bad_sort_word(loc, range, &word));
                    return None;
                }
            };
            let taken = match value {
                Ok(d) => direction.replace(d).is_some(),
                Err(n) => null_order.replace(n).is_some(),
            };
            if taken {
                let what = if slot_is_direction {
                    "direction"
                } else {
                    "null order"
                };
                self.push(SchemaFileError::new(
                    Kind::InvalidValue,
                    loc.at(range),
                    format!("a second sort {what} in `{s}`"),
                ));
                return None;
            }
        }
        Some((direction, null_order))
    }
}

fn bad_sort_word(loc: &Locator, range: Range<usize>, word: &str) -> SchemaFileError {
    SchemaFileError::new(
        Kind::InvalidValue,
        loc.at(range),
        format!("unknown sort option `{word}`"),
    )
    .with_help("a sort term is `column [asc|desc] [nulls-first|nulls-last]`")
}

impl Reader<'_> {
    fn column_ref(
        &mut self,
        loc: &Locator,
        s: &str,
        range: Range<usize>,
        what: &str,
    ) -> Option<ColumnRef> {
        let range = trimmed(s, range);
        if range.is_empty() {
            self.push(SchemaFileError::new(
                Kind::InvalidValue,
                loc.at(range),
                format!("{what} is missing in `{s}`"),
            ));
            return None;
        }
        Some(ColumnRef {
            name: s[range.clone()].to_owned(),
            span: loc.at(range),
        })
    }
}

/// `range` without the whitespace at its ends.
fn trimmed(s: &str, range: Range<usize>) -> Range<usize> {
    let inner = &s[range.clone()];
    let start = range.start + (inner.len() - inner.trim_start().len());
    let end = range.end - (inner.len() - inner.trim_end().len());
    start..end.max(start)
}

/// The comma-separated arguments in `range`, each trimmed.
fn split_args(s: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    for (i, c) in s[range.clone()].char_indices() {
        if c == ',' {
            out.push(trimmed(s, start..range.start + i));
            start = range.start + i + 1;
        }
    }
    out.push(trimmed(s, start..range.end));
    out
}

/// The whitespace-separated words of `s`.
fn words(s: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (true, Some(st)) => {
                out.push(st..i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// A term that is not one, located, with the transforms' help.
fn invalid_term(loc: &Locator, range: Range<usize>, message: String) -> SchemaFileError {
    SchemaFileError::new(Kind::InvalidValue, loc.at(range), message).with_help(TRANSFORM_HELP)
}
