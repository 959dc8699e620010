//! fieldgate reads a Hadoop table's version hint as Iceberg Java does, checked against the JVM:
//! `tests/java/VersionHint.java` reads each hint with `HadoopTableOperations.findVersion`'s own
//! steps (UTF-8 decoding, `BufferedReader.readLine`, `Integer.parseInt`), run by the machine's
//! `java` (its single-file launcher), and every answer must be `hint_version`'s. The hints: every
//! character of the Basic Multilingual Plane alone and after a digit (so every decimal digit
//! `Character.digit` knows, in every script, and every character it does not), the edges of
//! `int`, signs, line breaks and malformed UTF-8, and a few thousand random byte strings built
//! from those parts. Without `java` the test is skipped, loudly, except under `CI=true`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use fieldgate::iceberg::metadata_file::hint_version;

fn java() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("java"))
            .find(|java| java.is_file())
    });
    if found.is_none() {
        let message = "the version-hint test needs `java` (a JDK 11 or later) on PATH";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{message}");
        }
        eprintln!("SKIPPED: {message}");
    }
    found
}

/// What the JVM reads of each hint: the version, or `None` where Java lists the directory.
fn java_reads(java: &PathBuf, hints: &[Vec<u8>]) -> Vec<Option<i32>> {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/java/VersionHint.java");
    let mut child = Command::new(java)
        .arg(source)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("java starts");
    let input: String = hints
        .iter()
        .map(|hint| {
            let hex: String = hint.iter().map(|b| format!("{b:02x}")).collect();
            hex + "\n"
        })
        .collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    text.lines()
        .map(|line| match line {
            "none" => None,
            number => Some(number.parse().unwrap()),
        })
        .collect()
}

/// Hints of every kind Java reads differently from a plain decimal parse.
fn hints() -> Vec<Vec<u8>> {
    let mut hints: Vec<Vec<u8>> = Vec::new();
    // Every BMP character but the line breaks, alone and after a digit.
    for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
        if c == '\n' || c == '\r' {
            continue;
        }
        hints.push(c.to_string().into_bytes());
        hints.push(format!("7{c}").into_bytes());
    }
    for text in [
        "",
        "+",
        "-",
        "-0",
        "+0",
        "007",
        "2147483647",
        "2147483648",
        "-2147483648",
        "-2147483649",
        "99999999999",
        "00000000000000000000012",
        "+-1",
        "--1",
        "1-",
        " 1",
        "1 ",
        "1\t",
        "1\n2",
        "\n1",
        "1\r\n",
        "1\r",
        "\r1",
        "1\u{85}",
        "1\u{2028}",
        "\u{FEFF}1",
        "\u{661}\u{662}\u{663}",
        "-\u{FF19}",
        "\u{1D7CF}",
        "\u{104A1}",
        "1\u{0}",
    ] {
        hints.push(text.as_bytes().to_vec());
    }
    for bytes in [
        &b"\xff"[..],
        b"1\xff",
        b"1\n\xff",
        b"\xe0\n1",
        b"\xed\xa0\x801",
        b"\xc0\xb1",
        b"\xf0\x9d\x9f\x8f",
    ] {
        hints.push(bytes.to_vec());
    }
    hints.extend(random_hints(5_000));
    hints
}

/// Byte strings drawn from signs, ASCII and other digits, line breaks, spaces and malformed
/// UTF-8, by a fixed-seed generator: the same hints on every run.
fn random_hints(count: usize) -> Vec<Vec<u8>> {
    const PARTS: &[&str] = &[
        "0", "1", "5", "9", "+", "-", "\n", "\r", " ", "\u{663}", "\u{6F7}", "\u{FF10}",
        "\u{FF19}", "\u{A9F5}", "\u{2163}", "x", "\u{0}",
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    (0..count)
        .map(|_| {
            let len = next(12);
            let mut hint = Vec::new();
            for _ in 0..len {
                match next(20) {
                    0 => hint.push(0xC3),
                    1 => hint.push(0xFF),
                    n => hint.extend_from_slice(PARTS[n % PARTS.len()].as_bytes()),
                }
            }
            hint
        })
        .collect()
}

#[test]
fn version_hints_read_as_the_jvm_reads_them() {
    let Some(java) = java() else { return };
    let hints = hints();
    let expected = java_reads(&java, &hints);
    assert_eq!(expected.len(), hints.len(), "one answer per hint");
    let wrong: Vec<String> = hints
        .iter()
        .zip(&expected)
        .filter(|(hint, java)| hint_version(hint) != **java)
        .take(10)
        .map(|(hint, java)| {
            format!(
                "{:?}: Java {java:?}, fieldgate {:?}",
                String::from_utf8_lossy(hint),
                hint_version(hint)
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "read otherwise than Java:\n{}",
        wrong.join("\n")
    );
    // The corpus is not vacuous: it holds hints Java reads in other scripts, and refuses.
    let non_ascii_read = hints
        .iter()
        .zip(&expected)
        .filter(|(hint, java)| java.is_some() && !hint.is_ascii())
        .count();
    assert!(non_ascii_read > 300, "{non_ascii_read}");
    assert!(expected.iter().any(Option::is_none));
}
