//! `fieldgate completions` and `fieldgate man`: generated from the clap definitions, so every
//! command and flag the parser knows must be in them. The lists to look for come from the same
//! definitions (`Cli::command()`), so a new flag is checked without touching this file.

use std::path::Path;
use std::process::{Command, Output};

use clap::CommandFactory;
use fieldgate::cli::Cli;

fn fieldgate(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("fieldgate runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every command (without clap's `help`) with its long flags.
fn commands() -> Vec<(String, Vec<String>)> {
    let cli = Cli::command();
    let list: Vec<(String, Vec<String>)> = cli
        .get_subcommands()
        .map(|c| {
            let flags = c
                .get_arguments()
                .filter_map(|a| a.get_long())
                .map(str::to_string)
                .collect();
            (c.get_name().to_string(), flags)
        })
        .collect();
    assert!(list.len() >= 9, "the commands: {list:?}");
    list
}

/// A flag as roff writes it: every `-` escaped.
fn roff_flag(flag: &str) -> String {
    format!("\\-\\-{}", flag.replace('-', "\\-"))
}

/// What bash offers after `words` (the last one being completed), with the generated script
/// loaded into a real bash, as `complete -F` calls it.
fn bash_offers(script: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let current = words.len() - 1;
    let program = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={current}; _fieldgate fieldgate '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words[current],
        words[current - 1],
    );
    let output = Command::new("bash")
        .args(["-c", &program])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stdout).lines().map(str::to_string).collect()
}

#[test]
fn bash_completes_every_command_flag_and_value() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = fieldgate(&["completions", "bash"], here);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("fieldgate.bash");
    std::fs::write(&script, &output.stdout).unwrap();
    let offered = bash_offers(&script, &["fieldgate", ""]);
    for (command, flags) in commands() {
        assert!(offered.contains(&command), "`{command}` not in {offered:?}");
        let offered = bash_offers(&script, &["fieldgate", &command, "--"]);
        for flag in flags {
            let flag = format!("--{flag}");
            assert!(
                offered.contains(&flag),
                "{command}: `{flag}` not in {offered:?}"
            );
        }
    }
    let formats = bash_offers(&script, &["fieldgate", "lint", "--format", ""]);
    assert_eq!(
        formats,
        [
            "human", "json", "github", "sarif", "markdown", "gitlab", "junit"
        ]
    );
    let shells = bash_offers(&script, &["fieldgate", "completions", ""]);
    assert!(shells.contains(&"powershell".to_string()), "{shells:?}");
}

#[test]
fn every_shell_gets_a_script_and_an_unknown_one_is_refused() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (shell, marker) in [
        ("zsh", "#compdef fieldgate"),
        ("fish", "complete -c fieldgate"),
        ("elvish", "edit:completion:arg-completer[fieldgate]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let output = fieldgate(&["completions", shell], here);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = text(&output.stdout);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("verify"), "{shell}: no `verify`");
    }
    let output = fieldgate(&["completions", "tcsh"], here);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("possible values"));
}

#[test]
fn the_main_page_lists_every_command() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = fieldgate(&["man"], here);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let page = text(&output.stdout);
    assert!(
        page.contains(".TH fieldgate 1 \" \" \"fieldgate "),
        "the title line: {page}"
    );
    assert!(page.contains(".SH NAME") && page.contains(".SH SUBCOMMANDS"));
    for (command, _) in commands() {
        assert!(
            page.contains(&format!("fieldgate\\-{}(1)", command.replace('-', "\\-"))),
            "fieldgate(1) does not list `{command}`"
        );
    }
}

#[test]
fn out_writes_a_page_per_command_with_every_flag() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let output = fieldgate(&["man", "--out", out.to_str().unwrap()], here);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        std::fs::read_to_string(out.join("fieldgate.1"))
            .unwrap()
            .contains(".SH SUBCOMMANDS")
    );
    for (command, flags) in commands() {
        let page = std::fs::read_to_string(out.join(format!("fieldgate-{command}.1")))
            .unwrap_or_else(|e| panic!("no page for `{command}`: {e}"));
        assert!(
            page.contains(&format!(".TH fieldgate-{command} 1")),
            "{command}: {page}"
        );
        for flag in flags {
            assert!(page.contains(&roff_flag(&flag)), "{command}: no --{flag}");
        }
        // The page printed alone is the same page.
        let alone = fieldgate(&["man", &command], here);
        assert_eq!(text(&alone.stdout), page, "{command}");
    }
    // Nothing else: no temporary files left behind, no page for clap's `help`.
    let written = std::fs::read_dir(&out).unwrap().count();
    assert_eq!(written, commands().len() + 1);
}

#[test]
fn an_unknown_command_has_no_page() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = fieldgate(&["man", "lnt"], here);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("`lnt` is not a fieldgate command: did you mean `lint`?"),
        "{stderr}"
    );
}

/// Where groff is installed (it is on the development machines, not a CI requirement), every
/// page renders without a single warning (`-ww` turns them all on).
#[test]
fn every_page_renders_without_warnings_where_groff_is_installed() {
    if Command::new("groff").arg("--version").output().is_err() {
        eprintln!("groff is not installed: rendering not checked");
        return;
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let output = fieldgate(&["man", "--out", dir.path().to_str().unwrap()], here);
    assert_eq!(output.status.code(), Some(0));
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let rendered = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(rendered.status.success(), "{}", path.display());
        assert_eq!(
            text(&rendered.stderr),
            "",
            "{} renders with warnings",
            path.display()
        );
    }
}
