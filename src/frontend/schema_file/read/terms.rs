//! Terms in `partition` and `sort-order`: `bucket(16, id)`, `day(ts)`, `region`,
//! `amount desc nulls-last`, located to the character inside the string.

use std::iter::Peekable;
use std::ops::Range;

use super::{Kind, Reader, split_args, suggest, trimmed, words};
use crate::frontend::schema_file::type_string::Locator;
use crate::frontend::schema_file::{
    FilePartitionField, FileSortField, NullOrder, SchemaFileError, SortDirection, Transform,
};
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
        let args: Vec<Range<usize>> = split_args(s, open + 1..whole.end - 1);
        let (transform, column_range) =
            self.transform(&loc, s, trimmed(s, 0..open), &args, whole)?;
        let column = self.column_ref(&loc, s, column_range, "a partition column")?;
        Some(FilePartitionField {
            transform,
            column,
            span: loc.at(0..s.len()),
        })
    }

    /// The transform a call names (`name_range` in `s`) and the range of its column argument.
    fn transform(
        &mut self,
        loc: &Locator,
        s: &str,
        name_range: Range<usize>,
        args: &[Range<usize>],
        whole: Range<usize>,
    ) -> Option<(Transform, Range<usize>)> {
        let name = s[name_range.clone()].to_ascii_lowercase();
        let invalid = |range: Range<usize>, message: String| invalid_term(loc, range, message);
        let (transform, column_range) = match (name.as_str(), args) {
            ("identity", [c]) => (Transform::Identity, c.clone()),
            // Spark's plural spellings (`days(ts)`) mean the same transforms.
            ("year" | "years", [c]) => (Transform::Year, c.clone()),
            ("month" | "months", [c]) => (Transform::Month, c.clone()),
            ("day" | "days", [c]) => (Transform::Day, c.clone()),
            ("hour" | "hours", [c]) => (Transform::Hour, c.clone()),
            ("bucket" | "truncate", [n, c]) => {
                let count = self.transform_count(loc, s, &name, n.clone())?;
                let t = if name == "bucket" {
                    Transform::Bucket(count)
                } else {
                    Transform::Truncate(count)
                };
                (t, c.clone())
            }
            ("bucket" | "truncate", _) => {
                self.push(invalid(
                    whole,
                    format!("`{name}` takes a number and a column: {name}(N, column)"),
                ));
                return None;
            }
            (known, _) if TRANSFORMS.contains(&known) || PLURAL_TRANSFORMS.contains(&known) => {
                self.push(invalid(whole, format!("`{known}` takes one column")));
                return None;
            }
            _ => {
                let written = &s[name_range.clone()];
                let mut error = invalid(
                    name_range,
                    format!("unknown partition transform `{written}`"),
                );
                if let Some(t) = suggest(&name, TRANSFORMS.iter().copied()) {
                    error = error.with_help(format!("did you mean `{t}`?"));
                }
                self.push(error);
                return None;
            }
        };
        Some((transform, column_range))
    }

    /// The bucket count or truncation width at `n`, a positive integer.
    fn transform_count(
        &mut self,
        loc: &Locator,
        s: &str,
        name: &str,
        n: Range<usize>,
    ) -> Option<u32> {
        let count = s[n.clone()].parse::<u32>().ok().filter(|n| *n > 0);
        if count.is_none() {
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
        }
        count
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
        let mut direction = None;
        let mut null_order = None;
        let mut rest = words[1..].iter().cloned().peekable();
        while let Some(range) = rest.next() {
            let (range, value) = self.sort_modifier(&loc, s, range, &mut rest)?;
            let slot_is_direction = value.is_ok();
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

    /// The modifier starting at `range`, taking the next word from `rest` for `nulls first`.
    fn sort_modifier(
        &mut self,
        loc: &Locator,
        s: &str,
        range: Range<usize>,
        rest: &mut Peekable<impl Iterator<Item = Range<usize>>>,
    ) -> Option<SortModifier> {
        let word = s[range.clone()].to_ascii_lowercase();
        let modifier = match word.as_str() {
            "asc" => (range, Ok(SortDirection::Asc)),
            "desc" => (range, Ok(SortDirection::Desc)),
            "nulls-first" => (range, Err(NullOrder::NullsFirst)),
            "nulls-last" => (range, Err(NullOrder::NullsLast)),
            "nulls" => match rest.peek().map(|r| s[r.clone()].to_ascii_lowercase()) {
                Some(w) if w == "first" || w == "last" => {
                    let next = rest.next().unwrap_or(range.clone());
                    let order = if w == "first" {
                        NullOrder::NullsFirst
                    } else {
                        NullOrder::NullsLast
                    };
                    (range.start..next.end, Err(order))
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
        Some(modifier)
    }
}

/// One word of a sort term after its column (two for `nulls first`): a direction (`Ok`) or a
/// null order (`Err`), with the range it takes.
type SortModifier = (Range<usize>, Result<SortDirection, NullOrder>);

fn invalid_term(loc: &Locator, range: Range<usize>, message: String) -> SchemaFileError {
    SchemaFileError::new(Kind::InvalidValue, loc.at(range), message).with_help(TRANSFORM_HELP)
}

fn bad_sort_word(loc: &Locator, range: Range<usize>, word: &str) -> SchemaFileError {
    SchemaFileError::new(
        Kind::InvalidValue,
        loc.at(range),
        format!("unknown sort option `{word}`"),
    )
    .with_help("a sort term is `column [asc|desc] [nulls-first|nulls-last]`")
}
