//! Wrapping the terminal report to its width as miette wraps its own lines: between words only,
//! at ASCII spaces, never at a hyphen or a slash and never inside a word, so a path or URL is
//! never split. A code span (text between backticks: a command to run, a name, a setting) is one
//! word: `fieldgate apply --write ...` stays on one line, so it can be copied whole at any width
//! (a word longer than the line overflows it instead).

use textwrap::core::Word;
use textwrap::{Options, WordSeparator, WordSplitter};

/// The words of `line`: runs ending in ASCII spaces, a backtick span's spaces not counted.
fn words_outside_code(line: &str) -> Box<dyn Iterator<Item = Word<'_>> + '_> {
    let mut start = 0;
    let mut in_code = false;
    let mut after_space = false;
    let mut chars = line.char_indices();
    Box::new(std::iter::from_fn(move || {
        for (at, c) in chars.by_ref() {
            if after_space && c != ' ' {
                let word = Word::from(&line[start..at]);
                start = at;
                after_space = false;
                in_code ^= c == '`';
                return Some(word);
            }
            match c {
                '`' => in_code = !in_code,
                ' ' if !in_code => after_space = true,
                _ => {}
            }
        }
        (start < line.len()).then(|| {
            let word = Word::from(&line[start..]);
            start = line.len();
            word
        })
    }))
}

/// The separator every wrapped line of the report uses, miette's included.
pub fn separator() -> WordSeparator {
    WordSeparator::Custom(words_outside_code)
}

/// Options for text wrapped at `width`, its first line starting with `first`, the others with
/// `rest`.
pub fn at_spaces<'a>(width: usize, first: &'a str, rest: &'a str) -> Options<'a> {
    Options::new(width)
        .initial_indent(first)
        .subsequent_indent(rest)
        .break_words(false)
        .word_separator(separator())
        .word_splitter(WordSplitter::NoHyphenation)
}

/// Each line of `text` wrapped to `width`, its continuation lines indented two spaces more than
/// the line itself, so a wrapped line still reads as one entry of its list.
pub fn lines(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let content = body.trim_start_matches(' ');
        let indent = &body[..body.len() - content.len()];
        if textwrap::core::display_width(body) <= width || content.is_empty() {
            out.push_str(line);
            continue;
        }
        let rest = format!("{indent}  ");
        out.push_str(&textwrap::fill(content, at_spaces(width, indent, &rest)));
        out.push_str(end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_span_is_one_word() {
        let words: Vec<&str> = words_outside_code("run `fieldgate apply --write x` and commit")
            .map(|w| w.word)
            .collect();
        assert_eq!(
            words,
            ["run", "`fieldgate apply --write x`", "and", "commit"]
        );
        let words: Vec<&str> = words_outside_code("`a b`, `c` d").map(|w| w.word).collect();
        assert_eq!(words, ["`a b`,", "`c`", "d"]);
    }

    #[test]
    fn long_lines_wrap_under_their_own_indent_and_short_ones_stay() {
        let text = "  add a_column (id 5): struct<first: int, second: string>\nshort\n";
        let wrapped = lines(text, 30);
        assert_eq!(
            wrapped,
            "  add a_column (id 5):\n    struct<first: int, second:\n    string>\nshort\n"
        );
        let path = "    warehouse/db/events/data/00000-0-aaaaaaaaaaaaaaaa.parquet: 3 rows";
        let wrapped = lines(path, 30);
        assert!(
            wrapped.starts_with("    warehouse/db/events/data/00000-0-aaaaaaaaaaaaaaaa.parquet:\n"),
            "{wrapped}"
        );
    }

    #[test]
    fn a_command_is_never_split() {
        let help =
            "then run `fieldgate apply --write --metadata warehouse/db/events m.sql` and commit";
        let wrapped = textwrap::fill(help, at_spaces(40, "  help: ", "        "));
        assert!(
            wrapped
                .lines()
                .any(|l| l
                    .contains("`fieldgate apply --write --metadata warehouse/db/events m.sql`")),
            "{wrapped}"
        );
    }
}
