//! The GitHub Action (`action.yml`), checked and run here. actionlint lints workflows, not a
//! composite action's metadata, so its structure is checked first: every input used is
//! declared and every declared one used, every `run:` step has `shell:` and no `${{` in its
//! script, every step output read is one an earlier step writes, every `uses:` is pinned to a
//! commit.
//!
//! Then its steps run as the runner runs a composite action: each `run:` script with
//! `bash --noprofile --norc -eo pipefail`, in order, with its `env:` expanded from the inputs and
//! earlier steps' outputs, and with the runner's files and variables (`GITHUB_OUTPUT`,
//! `GITHUB_STEP_SUMMARY`, `GITHUB_ENV`, `GITHUB_PATH`, `GITHUB_EVENT_PATH`, `GITHUB_BASE_REF`,
//! ...); `uses:` steps (the build cache) are skipped and `binary` is the fieldgate cargo built
//! for this test, or, for the download of the action's own release, that fieldgate is served as
//! a release by a local HTTP server standing in for GitHub's release downloads. The repository is a clone of a pull request on a copy of `examples/lake`, as
//! `actions/checkout` leaves it (the PR's head detached, `origin/<base>` fetched). The sticky
//! comment talks to `tests/action/gh`, a stand-in for the GitHub CLI that records its calls.
//! The build from source (`cargo install`) is the one step not run here: it takes minutes.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::thread;

use fieldgate::yaml::{YamlNode, YamlValue, parse};
use serde_json::{Value, json};

mod catalog;
mod common;
use catalog::{Catalog, EVENTS, PINNED, TOKEN_AUTH, lake_config};
use common::{copy_dir, git, root, text};

const MARKER: &str = "<!-- fieldgate-report -->";

/// `action.yml` as the runner reads it.
struct Action {
    /// Each input with its default.
    inputs: Vec<(String, String)>,
    /// Each output with its value expression.
    outputs: Vec<(String, String)>,
    steps: Vec<Step>,
}

struct Step {
    id: Option<String>,
    condition: Option<String>,
    uses: Option<String>,
    run: Option<String>,
    shell: Option<String>,
    env: Vec<(String, String)>,
    with: Vec<(String, String)>,
}

/// A scalar as text, whatever YAML resolved it to.
fn scalar(node: &YamlNode) -> String {
    match &node.value {
        YamlValue::String(s) | YamlValue::Int(s) | YamlValue::Float(s) => s.clone(),
        YamlValue::Bool(b) => b.to_string(),
        YamlValue::Null => String::new(),
        other => panic!("expected a scalar, found {}", other.kind_name()),
    }
}

fn pairs(node: Option<&YamlNode>) -> Vec<(String, String)> {
    node.and_then(YamlNode::as_map)
        .unwrap_or_default()
        .iter()
        .map(|e| (e.key.clone(), scalar(&e.value)))
        .collect()
}

impl Action {
    fn read() -> Action {
        let source = fs::read_to_string(root().join("action.yml")).unwrap();
        let yaml = parse(&source).unwrap_or_else(|e| panic!("action.yml: {e:?}"));
        let named = |key: &str, field: &str| -> Vec<(String, String)> {
            yaml.get(key)
                .and_then(YamlNode::as_map)
                .unwrap_or_default()
                .iter()
                .map(|e| {
                    (
                        e.key.clone(),
                        e.value.get(field).map(scalar).unwrap_or_default(),
                    )
                })
                .collect()
        };
        let runs = yaml.get("runs").expect("runs");
        assert_eq!(runs.get("using").map(scalar).as_deref(), Some("composite"));
        let steps = runs
            .get("steps")
            .and_then(YamlNode::as_seq)
            .expect("runs.steps")
            .iter()
            .map(|step| {
                let text = |key: &str| step.get(key).map(scalar);
                Step {
                    id: text("id"),
                    condition: text("if"),
                    uses: text("uses"),
                    run: text("run"),
                    shell: text("shell"),
                    env: pairs(step.get("env")),
                    with: pairs(step.get("with")),
                }
            })
            .collect();
        Action {
            inputs: named("inputs", "default"),
            outputs: named("outputs", "value"),
            steps,
        }
    }

    fn name(step: &Step, index: usize) -> String {
        step.id
            .clone()
            .unwrap_or_else(|| format!("step {}", index + 1))
    }
}

fn expand(text: &str, eval: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        let end = start + rest[start..].find("}}").unwrap();
        out.push_str(&rest[..start]);
        out.push_str(&eval(rest[start + 3..end].trim()));
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Every `inputs.NAME` or `steps.ID.outputs.NAME` (as `ID.outputs.NAME`) named in a text,
/// whether in `${{ }}` or in a bare `if:` condition.
fn references<'t>(text: &'t str, prefix: &str) -> Vec<&'t str> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(prefix) {
        let start = from + at + prefix.len();
        let len = text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
            .unwrap_or(text.len() - start);
        let preceded = text[..from + at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '.');
        if !preceded {
            found.push(&text[start..start + len]);
        }
        from = start;
    }
    found
}

#[test]
fn action_yml_declares_what_it_uses_and_keeps_inputs_out_of_scripts() {
    let action = Action::read();
    let mut texts: Vec<String> = action.inputs.iter().map(|(_, d)| d.clone()).collect();
    texts.extend(action.outputs.iter().map(|(_, v)| v.clone()));
    let mut ids: Vec<(String, Option<String>)> = Vec::new();
    for (index, step) in action.steps.iter().enumerate() {
        let name = Action::name(step, index);
        match (&step.run, &step.uses) {
            (Some(run), None) => {
                assert_eq!(step.shell.as_deref(), Some("bash"), "{name}: shell: bash");
                assert!(!run.contains("${{"), "{name}: an expression inside `run:`");
                // The scripts decide for themselves, so the local run below runs what GitHub runs.
                assert!(step.condition.is_none(), "{name}: `if:` on a run step");
                let script = run
                    .strip_prefix("bash \"$GITHUB_ACTION_PATH/")
                    .and_then(|s| s.strip_suffix('"'))
                    .unwrap_or_else(|| panic!("{name}: runs one script of the action: {run}"));
                assert!(root().join(script).is_file(), "{name}: {script} exists");
            }
            (None, Some(uses)) => {
                let (_, commit) = uses
                    .split_once('@')
                    .unwrap_or_else(|| panic!("{name}: {uses}"));
                assert!(
                    commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()),
                    "{name}: `{uses}` is pinned to a commit"
                );
            }
            _ => panic!("{name}: a step has either `run:` or `uses:`"),
        }
        texts.extend(step.condition.iter().cloned());
        texts.extend(step.env.iter().map(|(_, v)| v.clone()));
        texts.extend(step.with.iter().map(|(_, v)| v.clone()));

        // Outputs read are written by an earlier step: by its script, or by a `uses:` action.
        let mine: Vec<String> = step
            .condition
            .iter()
            .chain(step.env.iter().map(|(_, v)| v))
            .chain(step.with.iter().map(|(_, v)| v))
            .flat_map(|t| references(t, "steps."))
            .map(str::to_string)
            .collect();
        for reference in mine {
            assert_step_output(&ids, &reference, &name);
        }
        if let Some(id) = &step.id {
            assert!(ids.iter().all(|(i, _)| i != id), "step id `{id}` twice");
            ids.push((id.clone(), step.run.clone()));
        }
    }
    for (name, value) in &action.outputs {
        for reference in references(value, "steps.") {
            assert_step_output(&ids, reference, &format!("output `{name}`"));
        }
    }

    let used: Vec<&str> = texts
        .iter()
        .flat_map(|t| references(t, "inputs."))
        .collect();
    for input in &used {
        assert!(
            action.inputs.iter().any(|(name, _)| name == input),
            "`inputs.{input}` is not declared"
        );
    }
    for (input, _) in &action.inputs {
        assert!(
            used.contains(&input.as_str()),
            "input `{input}` is never used"
        );
    }
}

fn assert_step_output(ids: &[(String, Option<String>)], reference: &str, by: &str) {
    let (id, output) = reference
        .split_once(".outputs.")
        .unwrap_or_else(|| panic!("{by}: `steps.{reference}`"));
    let (_, run) = ids
        .iter()
        .find(|(i, _)| i == id)
        .unwrap_or_else(|| panic!("{by}: no earlier step `{id}`"));
    if let Some(run) = run {
        let script = run
            .trim_start_matches("bash \"$GITHUB_ACTION_PATH/")
            .trim_end_matches('"');
        let source = fs::read_to_string(root().join(script)).unwrap();
        assert!(
            source.contains(&format!("set_output {output} ")),
            "{by}: {script} never writes the output `{output}`"
        );
    }
}

/// A pull request on a copy of the example lake: `origin` holds the base branch and the PR's
/// branch, `workspace` the clone the action runs in.
struct PullRequest {
    dir: tempfile::TempDir,
    base: String,
    head: String,
    /// Where the lake sits in the repository ("" for its root).
    lake: String,
}

impl PullRequest {
    fn new(base: &str, head: &str, lake: &str) -> PullRequest {
        let pr = PullRequest {
            dir: tempfile::tempdir().unwrap(),
            base: base.into(),
            head: head.into(),
            lake: lake.into(),
        };
        fs::create_dir_all(pr.origin()).unwrap();
        git(&pr.origin(), &["init", "-q", "-b", base]);
        let examples = root().join("examples/lake");
        // With its data files, which the lake's fieldgate.yaml names as the gate's sample.
        copy_dir(&examples.join("warehouse"), &pr.lake_path("warehouse"));
        fs::copy(
            examples.join("fieldgate.yaml"),
            pr.lake_path("fieldgate.yaml"),
        )
        .unwrap();
        pr.commit("the lake");
        git(&pr.origin(), &["checkout", "-q", "-b", head]);
        pr
    }

    fn origin(&self) -> PathBuf {
        self.dir.path().join("origin")
    }

    fn workspace(&self) -> PathBuf {
        self.dir.path().join("workspace")
    }

    fn lake_path(&self, path: &str) -> PathBuf {
        self.origin().join(&self.lake).join(path)
    }

    /// Writes a file of the lake, on the PR's branch.
    fn write(&self, path: &str, contents: &str) {
        let file = self.lake_path(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, contents).unwrap();
    }

    fn remove(&self, path: &str) {
        fs::remove_file(self.lake_path(path)).unwrap();
    }

    /// `apply --write`, as the developer runs it before pushing.
    fn apply(&self, table: &str, migration: &str) {
        let output = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
            .args(["apply", "--write", "--metadata", table, migration])
            .current_dir(self.origin().join(&self.lake))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    }

    fn commit(&self, message: &str) {
        git(&self.origin(), &["add", "-A"]);
        git(&self.origin(), &["commit", "-q", "-m", message]);
    }

    /// The workspace as actions/checkout leaves it: with `fetch-depth: 0`, every branch fetched
    /// and the PR's head detached; with the default depth of 1, only the PR's head. The remote's
    /// HEAD is its default branch, the base.
    fn checkout(&self, full: bool) {
        let _ = fs::remove_dir_all(self.workspace());
        git(&self.origin(), &["checkout", "-q", &self.base]);
        let url = format!("file://{}", self.origin().display());
        let workspace = self.workspace();
        let workspace = workspace.to_str().unwrap();
        if full {
            git(self.dir.path(), &["clone", "-q", &url, workspace]);
            let head = format!("origin/{}", self.head);
            git(&self.workspace(), &["checkout", "-q", "--detach", &head]);
        } else {
            git(
                self.dir.path(),
                &[
                    "clone", "-q", "--depth", "1", "--branch", &self.head, &url, workspace,
                ],
            );
        }
        git(&self.origin(), &["checkout", "-q", &self.head]);
    }

    /// The event payload of the pull request.
    fn event(&self) -> Value {
        json!({
            "action": "synchronize",
            "number": 7,
            "pull_request": {
                "number": 7,
                "title": "Narrow `$(touch pwned-title)` \"quoted\"",
                "head": {"ref": self.head},
                "base": {"ref": self.base},
            },
            "repository": {"full_name": "octo/lake"},
        })
    }

    fn job(&self) -> Job<'_> {
        Job {
            pr: self,
            event_name: "pull_request".into(),
            event: self.event(),
            inputs: vec![("binary", env!("CARGO_BIN_EXE_fieldgate").to_string())],
            gh: None,
            base_ref: Some(self.base.clone()),
            stop_after: None,
            action_path: root(),
            server_url: "https://github.com".into(),
            env: Vec::new(),
        }
    }
}

/// One run of the action in a job of the pull request.
struct Job<'a> {
    pr: &'a PullRequest,
    event_name: String,
    event: Value,
    inputs: Vec<(&'static str, String)>,
    /// The stand-in `gh`'s state directory, when it is on PATH.
    gh: Option<PathBuf>,
    /// GITHUB_BASE_REF as the runner sets it (only for pull request events).
    base_ref: Option<String>,
    /// The step (by id) after which the run stops.
    stop_after: Option<&'static str>,
    /// Where the runner checked the action out (GITHUB_ACTION_PATH).
    action_path: PathBuf,
    /// GITHUB_SERVER_URL, where the action's releases are downloaded from.
    server_url: String,
    /// The `env:` of the workflow's step that uses the action, which its steps inherit.
    env: Vec<(&'static str, String)>,
}

/// What a run of the action left.
struct Ran {
    /// Every step's standard output then standard error, in order: the job's log.
    log: String,
    /// The action's outputs.
    outputs: BTreeMap<String, String>,
    /// The step that failed the job, with its exit code.
    failed: Option<(String, i32)>,
    /// Every step's summary, in order: the job summary.
    summary: String,
    /// What the steps added to GITHUB_ENV and GITHUB_PATH (for the job's later steps).
    exported: String,
    /// Each step's outputs, by id.
    steps: BTreeMap<String, BTreeMap<String, String>>,
}

impl Job<'_> {
    fn input(mut self, name: &'static str, value: &str) -> Self {
        self.inputs.push((name, value.into()));
        self
    }

    fn env(mut self, name: &'static str, value: &str) -> Self {
        self.env.push((name, value.into()));
        self
    }

    fn run(&self) -> Ran {
        let action = Action::read();
        let runner = self.pr.dir.path().join("runner");
        let temp = runner.join("temp");
        let home = runner.join("home");
        fs::create_dir_all(&temp).unwrap();
        fs::create_dir_all(&home).unwrap();
        let event_path = runner.join("event.json");
        fs::write(&event_path, self.event.to_string()).unwrap();
        let files = [
            "GITHUB_OUTPUT",
            "GITHUB_STEP_SUMMARY",
            "GITHUB_ENV",
            "GITHUB_PATH",
        ];

        let inputs: BTreeMap<String, String> = action
            .inputs
            .iter()
            .map(|(name, default)| {
                let given = self.inputs.iter().rev().find(|(n, _)| n == name);
                let value = match given {
                    Some((_, value)) => value.clone(),
                    None => expand(default, &|e| self.github(e)),
                };
                (name.clone(), value)
            })
            .collect();
        for (name, _) in &self.inputs {
            assert!(inputs.contains_key(*name), "no input `{name}`");
        }
        let mut outputs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        let mut ran = Ran {
            log: String::new(),
            outputs: BTreeMap::new(),
            failed: None,
            summary: String::new(),
            exported: String::new(),
            steps: BTreeMap::new(),
        };
        let mut path = std::env::var("PATH").unwrap();
        if self.gh.is_some() {
            path = format!("{}:{path}", root().join("tests/action").display());
        }
        for (index, step) in action.steps.iter().enumerate() {
            let Some(script) = &step.run else { continue };
            let name = Action::name(step, index);
            let step_dir = runner.join(format!("step-{index}"));
            fs::create_dir_all(&step_dir).unwrap();
            for file in files {
                fs::write(step_dir.join(file), "").unwrap();
            }
            let script_path = step_dir.join("script.sh");
            fs::write(&script_path, script).unwrap();
            let eval = |e: &str| self.eval(e, &inputs, &outputs);

            let mut command = Command::new("bash");
            command
                .args(["--noprofile", "--norc", "-eo", "pipefail"])
                .arg(&script_path)
                .current_dir(self.pr.workspace())
                .env_clear()
                .env("PATH", &path)
                .env("HOME", &home)
                .env("CI", "true")
                .env("GITHUB_ACTIONS", "true")
                .env("GITHUB_ACTION_PATH", &self.action_path)
                .env("GITHUB_WORKSPACE", self.pr.workspace())
                .env("GITHUB_EVENT_NAME", &self.event_name)
                .env("GITHUB_EVENT_PATH", &event_path)
                .env("GITHUB_REPOSITORY", "octo/lake")
                .env("GITHUB_SERVER_URL", &self.server_url)
                .env("GITHUB_RUN_ID", "42")
                .env("RUNNER_OS", "Linux")
                .env("RUNNER_ARCH", "X64")
                .env("RUNNER_TEMP", &temp);
            for file in files {
                command.env(file, step_dir.join(file));
            }
            if let Some(base_ref) = &self.base_ref {
                command
                    .env("GITHUB_BASE_REF", base_ref)
                    .env("GITHUB_HEAD_REF", &self.pr.head);
            }
            if let Some(gh) = &self.gh {
                command.env("FAKE_GH_DIR", gh);
            }
            for (key, value) in &self.env {
                command.env(key, value);
            }
            for (key, value) in &step.env {
                command.env(key, expand(value, &eval));
            }
            let output: Output = command.output().unwrap();
            ran.log.push_str(&text(&output.stdout));
            ran.log.push_str(&text(&output.stderr));
            let read = |file: &str| fs::read_to_string(step_dir.join(file)).unwrap();
            ran.summary.push_str(&read("GITHUB_STEP_SUMMARY"));
            ran.exported.push_str(&read("GITHUB_ENV"));
            ran.exported.push_str(&read("GITHUB_PATH"));
            if let Some(id) = &step.id {
                outputs.insert(id.clone(), parse_outputs(&read("GITHUB_OUTPUT")));
            }
            let code = output.status.code().unwrap_or(-1);
            if code != 0 {
                ran.failed = Some((name, code));
                break;
            }
            if step.id.is_some() && step.id.as_deref() == self.stop_after {
                break;
            }
        }
        ran.outputs = action
            .outputs
            .iter()
            .map(|(name, value)| {
                let eval = |e: &str| self.eval(e, &inputs, &outputs);
                (name.clone(), expand(value, &eval))
            })
            .collect();
        ran.steps = outputs;
        ran
    }

    /// The `github` context, as far as the action reads it.
    fn github(&self, expression: &str) -> String {
        match expression {
            "github.token" => "ghs_job_token".into(),
            other => panic!("the local runner does not know `{other}`"),
        }
    }

    fn eval(
        &self,
        expression: &str,
        inputs: &BTreeMap<String, String>,
        outputs: &BTreeMap<String, BTreeMap<String, String>>,
    ) -> String {
        if let Some(name) = expression.strip_prefix("inputs.") {
            return inputs[name].clone();
        }
        if let Some(reference) = expression.strip_prefix("steps.") {
            let (id, name) = reference.split_once(".outputs.").unwrap();
            // As on GitHub, an output a step did not set is empty.
            return outputs
                .get(id)
                .and_then(|o| o.get(name))
                .cloned()
                .unwrap_or_default();
        }
        self.github(expression)
    }
}

/// GITHUB_OUTPUT's `name=value` lines and `name<<DELIMITER` blocks.
fn parse_outputs(file: &str) -> BTreeMap<String, String> {
    let mut outputs = BTreeMap::new();
    let mut lines = file.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delimiter)) = line.split_once("<<") {
            let mut value: Vec<&str> = Vec::new();
            for line in lines.by_ref() {
                if line == delimiter {
                    break;
                }
                value.push(line);
            }
            outputs.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            outputs.insert(name.to_string(), value.to_string());
        }
    }
    outputs
}

/// The JSON report of `fieldgate check` run directly in the workspace, to compare counts with.
fn check_report(pr: &PullRequest) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(["check", "--format", "json"])
        .current_dir(pr.workspace().join(&pr.lake))
        .env("GITHUB_BASE_REF", &pr.base)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

fn count(report: &Value, severity: Option<&str>) -> String {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| severity.is_none_or(|s| d["severity"] == s))
        .count()
        .to_string()
}

const NARROWING: &str = "migrations/fact_orders/0001_narrow_customer_id.sql";
const VIP_LEVEL: &str = "migrations/dim_users/0001_add_vip_level.sql";

fn narrowing_pr(base: &str, head: &str) -> PullRequest {
    let pr = PullRequest::new(base, head, "");
    let bad =
        fs::read_to_string(root().join("examples/lake/bad/fact_orders_narrow_customer_id.sql"));
    pr.write(NARROWING, &bad.unwrap());
    pr.commit("narrow customer_id");
    pr
}

/// Adds `vip_level` to dim_users, with the metadata `apply --write` wrote: a passing change.
fn add_vip_level(pr: &PullRequest) {
    let good = fs::read_to_string(root().join("examples/lake").join(VIP_LEVEL)).unwrap();
    pr.write(VIP_LEVEL, &good);
    pr.apply("warehouse/lake_prod/dim_users", VIP_LEVEL);
    pr.commit("add vip_level");
}

#[test]
fn a_failing_gate_annotates_the_diff_writes_the_reports_and_fails_the_job() {
    let pr = narrowing_pr("main", "narrow");
    pr.checkout(true);
    let ran = pr.job().input("sarif", "reports/fieldgate.sarif").run();

    assert_eq!(ran.failed, Some(("verdict".into(), 1)), "{}", ran.log);
    assert!(
        ran.log.lines().any(|l| {
            l.starts_with(&format!("::error file={NARROWING},line=2,"))
                && l.contains(",title=type-narrowing::")
        }),
        "{}",
        ran.log
    );
    assert!(
        ran.summary.starts_with("## ❌ fieldgate failed"),
        "{}",
        ran.summary
    );
    assert!(ran.summary.contains("`type-narrowing`"), "{}", ran.summary);
    assert!(
        ran.summary.contains("lake_prod.fact_orders"),
        "{}",
        ran.summary
    );

    let report = check_report(&pr);
    assert_eq!(ran.outputs["passed"], "false");
    assert_eq!(ran.outputs["findings"], count(&report, None));
    assert_eq!(ran.outputs["errors"], count(&report, Some("error")));
    assert_eq!(ran.outputs["warnings"], count(&report, Some("warning")));
    assert_ne!(ran.outputs["errors"], "0");

    let sarif = pr.workspace().join("reports/fieldgate.sarif");
    let sarif: Value = serde_json::from_slice(&fs::read(sarif).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let rules: Vec<&Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["ruleId"])
        .collect();
    assert!(rules.contains(&&json!("type-narrowing")), "{rules:?}");
    assert_eq!(
        ran.exported, "",
        "the action leaves the job's environment alone"
    );
}

#[test]
fn a_passing_gate_in_a_working_directory_passes_the_job() {
    let pr = PullRequest::new("main", "vip", "lake");
    add_vip_level(&pr);
    pr.checkout(true);
    let ran = pr
        .job()
        .input("working-directory", "lake")
        .input("config", "fieldgate.yaml")
        .run();

    assert_eq!(ran.failed, None, "{}", ran.log);
    assert!(
        ran.log.contains("fieldgate: the gate passed"),
        "{}",
        ran.log
    );
    // Annotations name files from the repository root, where GitHub places them.
    assert!(
        ran.log
            .contains("::notice file=lake/migrations/dim_users/0001_add_vip_level.sql"),
        "{}",
        ran.log
    );
    assert!(
        ran.summary.starts_with("## ✅ fieldgate passed"),
        "{}",
        ran.summary
    );
    assert_eq!(ran.outputs["passed"], "true");
    assert_eq!(ran.outputs["errors"], "0");
    assert_eq!(ran.outputs["findings"], count(&check_report(&pr), None));
}

/// Files named `pwned*` anywhere under `dir`: what the metacharacters below would create if any
/// shell ran them.
fn pwned(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(pwned(&path));
        } else if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("pwned"))
        {
            found.push(path);
        }
    }
    found
}

#[test]
fn branch_names_and_inputs_with_shell_metacharacters_stay_data() {
    // Both are valid git branch names, chosen by whoever opens the pull request.
    let base = "base-$(touch${IFS}pwned-base)`touch${IFS}pwned-tick`'\"x;y";
    let head = "pr/$(touch${IFS}pwned-head)&&`id`|x<y>";
    let pr = PullRequest::new(base, head, "");
    add_vip_level(&pr);
    pr.checkout(true);

    // The base from GITHUB_BASE_REF, as on a pull request event.
    let ran = pr.job().run();
    assert_eq!(ran.failed, None, "{}", ran.log);
    assert_eq!(ran.outputs["passed"], "true");

    // The base as an input (a workflow passing `${{ github.base_ref }}`), and a SARIF path.
    let ran = pr
        .job()
        .input("base", &format!("origin/{base}"))
        .input(
            "sarif",
            "out/$(touch pwned-sarif)`touch pwned-sarif2`.sarif",
        )
        .run();
    assert_eq!(ran.failed, None, "{}", ran.log);
    assert!(
        pr.workspace()
            .join("out/$(touch pwned-sarif)`touch pwned-sarif2`.sarif")
            .is_file()
    );
    fs::remove_dir_all(pr.workspace().join("out")).unwrap();

    // Extra arguments are split into words, never evaluated.
    let ran = pr
        .job()
        .input("args", "--config fieldgate.yaml$(touch${IFS}pwned-args)")
        .run();
    assert_eq!(ran.failed, Some(("verdict".into(), 2)), "{}", ran.log);
    assert!(
        ran.log.contains("/fieldgate.yaml$(touch${IFS}pwned-args)`"),
        "{}",
        ran.log
    );

    assert_eq!(pwned(pr.dir.path()), Vec::<PathBuf>::new());
    assert!(!Path::new("pwned-base").exists() && !Path::new("pwned-args").exists());
}

/// One call the stand-in gh got.
#[derive(Debug)]
struct GhCall {
    argv: Vec<String>,
    token: String,
}

/// The stand-in gh's calls, in order.
fn gh_calls(state: &Path) -> Vec<GhCall> {
    let dir = state.join("calls");
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".argv").map(str::to_string))
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| {
            let argv = fs::read_to_string(dir.join(format!("{n}.argv"))).unwrap();
            GhCall {
                argv: argv
                    .strip_suffix('\0')
                    .unwrap()
                    .split('\0')
                    .map(str::to_string)
                    .collect(),
                token: fs::read_to_string(dir.join(format!("{n}.token"))).unwrap(),
            }
        })
        .collect()
}

fn gh_comments(state: &Path) -> Vec<Value> {
    serde_json::from_slice(&fs::read(state.join("comments.json")).unwrap()).unwrap()
}

/// A job of the pull request with `comment: true`, and the stand-in gh keeping its state in
/// `state`.
fn commenting<'a>(pr: &'a PullRequest, state: &Path) -> Job<'a> {
    let mut job = pr.job().input("comment", "true");
    job.gh = Some(state.to_path_buf());
    job
}

#[test]
fn the_sticky_comment_is_created_once_then_edited() {
    let pr = narrowing_pr("main", "narrow");
    pr.checkout(true);
    let state = pr.dir.path().join("gh");
    fs::create_dir_all(&state).unwrap();
    // A reviewer quoting the marker, our own chatter, and an old report someone hid: none of
    // them is the comment to edit.
    let seeded = json!([
        {"id": "IC_1", "viewerDidAuthor": false, "isMinimized": false, "body": format!("{MARKER}\nquoted by a reviewer")},
        {"id": "IC_2", "viewerDidAuthor": true, "isMinimized": false, "body": "thanks!"},
        {"id": "IC_3", "viewerDidAuthor": true, "isMinimized": true, "body": format!("{MARKER}\nan old report, hidden")},
    ]);
    fs::write(state.join("comments.json"), seeded.to_string()).unwrap();
    let ran = commenting(&pr, &state).run();
    assert_eq!(ran.failed, Some(("verdict".into(), 1)), "{}", ran.log);
    let calls = gh_calls(&state);
    assert_eq!(calls.len(), 2, "{calls:#?}\n{}", ran.log);
    assert_eq!(calls[0].argv[..3], ["api", "graphql", "--paginate"]);
    let create = &calls[1].argv;
    assert_eq!(
        create[..6],
        [
            "pr",
            "comment",
            "7",
            "--repo",
            "github.com/octo/lake",
            "--body-file"
        ]
    );
    assert!(calls.iter().all(|c| c.token == "ghs_job_token"));
    let comments = gh_comments(&state);
    assert_eq!(comments.len(), 4);
    let created = comments[3]["body"].as_str().unwrap();
    assert!(
        created.starts_with(&format!("{MARKER}\n## ❌ fieldgate failed")),
        "{created}"
    );
    assert_eq!(
        created.trim_end(),
        format!("{MARKER}\n{}", ran.summary).trim_end()
    );

    // The PR is fixed: the narrowing goes, vip_level comes; the same comment now says so.
    pr.remove(NARROWING);
    add_vip_level(&pr);
    pr.checkout(true);
    let ran = commenting(&pr, &state).run();
    assert_eq!(ran.failed, None, "{}", ran.log);
    let calls = gh_calls(&state);
    assert_eq!(calls.len(), 4, "{calls:#?}");
    let edit = &calls[3].argv;
    assert_eq!(edit[..4], ["api", "graphql", "-f", "id=IC_4"], "{edit:?}");
    assert!(edit[5].starts_with("body=@"), "{edit:?}");
    assert!(edit[7].starts_with("query=mutation"), "{edit:?}");
    let comments = gh_comments(&state);
    assert_eq!(comments.len(), 4, "edited, not created: {comments:#?}");
    let edited = comments[3]["body"].as_str().unwrap();
    assert!(
        edited.starts_with(&format!("{MARKER}\n## ✅ fieldgate passed")),
        "{edited}"
    );
    assert_eq!(comments[..3], seeded.as_array().unwrap()[..]);

    // A read-only token (a pull request from a fork): a warning, the verdict stays the gate's.
    fs::write(state.join("forbidden"), "").unwrap();
    let ran = commenting(&pr, &state).run();
    assert_eq!(ran.failed, None, "{}", ran.log);
    assert!(
        ran.log.contains(
            "::warning title=fieldgate::comment: the pull-request comment could not be written"
        ),
        "{}",
        ran.log
    );
    fs::remove_file(state.join("forbidden")).unwrap();

    // No pull request (a push): nothing to comment on, and gh is not called.
    let before = gh_calls(&state).len();
    let mut push = commenting(&pr, &state);
    push.event_name = "push".into();
    push.event = json!({"ref": "refs/heads/main"});
    push.base_ref = None;
    let ran = push.input("base", "origin/main").run();
    assert_eq!(ran.failed, None, "{}", ran.log);
    assert!(
        ran.log
            .contains("::notice title=fieldgate::comment: a push event has no pull request"),
        "{}",
        ran.log
    );
    assert_eq!(gh_calls(&state).len(), before);
}

#[test]
fn a_shallow_clone_fails_with_the_fetch_depth_advice() {
    let pr = narrowing_pr("main", "narrow");
    pr.checkout(false);
    let ran = pr.job().run();
    assert_eq!(ran.failed, Some(("verdict".into(), 2)), "{}", ran.log);
    let advice: Vec<&str> = ran
        .log
        .lines()
        .filter(|l| l.starts_with("::error") && l.contains("fetch-depth: 0"))
        .collect();
    assert!(
        advice
            .iter()
            .any(|l| l.starts_with("::error title=fieldgate::this is a shallow clone")),
        "{}",
        ran.log
    );
    assert!(
        advice.iter().any(|l| l.contains("title=input-error")),
        "fieldgate's own error is an annotation too: {}",
        ran.log
    );
    assert_eq!(ran.outputs["passed"], "false");
    assert_eq!(ran.outputs["findings"], "0");
    assert!(ran.summary.contains("fetch-depth: 0"), "{}", ran.summary);
}

#[test]
fn the_readme_shows_the_example_workflows_as_they_are() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    for name in [
        "fieldgate.yml",
        "catalog-gate.yml",
        "catalog-deploy.yml",
        "catalog-drift.yml",
    ] {
        let example = fs::read_to_string(root().join("examples/github").join(name)).unwrap();
        assert!(
            readme.contains(&format!("```yaml\n{example}```\n")),
            "README.md's workflow differs from examples/github/{name}"
        );
    }
    let examples = fs::read_dir(root().join("examples/github"))
        .unwrap()
        .count();
    assert_eq!(examples, 4, "every example workflow is shown in the README");
}

#[test]
fn the_cache_key_names_the_build_and_a_prefix_for_its_dependencies() {
    let pr = PullRequest::new("main", "pr", "");
    pr.checkout(true);
    let mut job = pr.job().input("binary", "");
    job.stop_after = Some("cache-key");
    let first = job.run();
    assert_eq!(first.failed, None, "{}", first.log);
    let outputs = &first.steps["cache-key"];
    let (key, prefix) = (&outputs["key"], &outputs["restore-key"]);
    assert!(prefix.starts_with("fieldgate-Linux-X64-"), "{prefix}");
    assert!(
        key.len() > prefix.len() && key.starts_with(prefix.as_str()),
        "{key}"
    );
    let target = pr.dir.path().join("runner/temp/fieldgate-target");
    assert_eq!(outputs["target-dir"], target.to_str().unwrap());
    assert_eq!(
        job.run().steps["cache-key"],
        *outputs,
        "the same source, the same key"
    );

    // With a binary given, nothing is built and nothing cached.
    let mut job = pr.job();
    job.stop_after = Some("cache-key");
    assert_eq!(job.run().steps["cache-key"], BTreeMap::new());
}

#[test]
fn a_report_too_long_for_a_comment_is_cut_with_a_link_to_the_job_summary() {
    let pr = PullRequest::new("main", "wide", "");
    // Every column without a comment is a `missing-doc` warning in the lake's configuration.
    let migration: String = (0..300)
        .map(|i| format!("ALTER TABLE lake_prod.dim_users ADD COLUMN attribute_{i} string;\n"))
        .collect();
    pr.write("migrations/dim_users/0001_wide.sql", &migration);
    pr.commit("300 columns");
    pr.checkout(true);
    let state = pr.dir.path().join("gh");
    fs::create_dir_all(&state).unwrap();
    let ran = commenting(&pr, &state).run();
    assert!(ran.summary.len() > 65_536, "{}", ran.summary.len());
    let comments = gh_comments(&state);
    let body = comments[0]["body"].as_str().unwrap();
    assert!(body.starts_with(MARKER), "{}", &body[..200]);
    assert!(body.chars().count() < 65_536, "{}", body.chars().count());
    let (report, note) = body.trim_end().rsplit_once("\n\n").unwrap();
    assert!(ran.summary.starts_with(&report[MARKER.len() + 1..]));
    let last = report.lines().last().unwrap();
    assert!(last.ends_with(" |"), "cut after a whole row: {last}");
    assert_eq!(
        note,
        "**The report is longer than a comment can hold: the [job summary](https://github.com/octo/lake/actions/runs/42) has all of it.**"
    );
}

#[test]
fn the_policy_input_chooses_whose_configuration_decides() {
    let pr = narrowing_pr("main", "relax");
    let config = fs::read_to_string(pr.lake_path("fieldgate.yaml")).unwrap();
    pr.write(
        "fieldgate.yaml",
        &config.replace("  missing-doc: warning\n", "  type-narrowing: off\n"),
    );
    pr.commit("and turn type-narrowing off");
    pr.checkout(true);
    let relaxed = "::warning file=fieldgate.yaml,line=13,endLine=13,col=3,endColumn=17,title=policy-relaxation::";
    let narrowing = |log: &str| {
        log.lines().any(|l| {
            l.starts_with(&format!("::error file={NARROWING},line=2,"))
                && l.contains(",title=type-narrowing::")
        })
    };

    // By default the base's fieldgate.yaml decides, and the relaxation is annotated at its line.
    let ran = pr.job().run();
    assert_eq!(ran.failed, Some(("verdict".into(), 1)), "{}", ran.log);
    assert!(narrowing(&ran.log), "{}", ran.log);
    assert!(ran.log.contains(relaxed), "{}", ran.log);

    // `policy: head` passes the pull request's own configuration to `check`.
    let ran = pr.job().input("policy", "head").run();
    assert!(!narrowing(&ran.log), "{}", ran.log);
    assert!(ran.log.contains(relaxed), "{}", ran.log);
}

const VERSION: &str = env!("CARGO_PKG_VERSION");
const LINUX_X64_ASSET: &str = "fieldgate-x86_64-unknown-linux-musl.tar.gz";

/// A stand-in for GitHub's release downloads: the given files over HTTP on a free port of
/// 127.0.0.1 (404 for any other path), with every path asked for recorded.
struct ReleaseServer {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl ReleaseServer {
    fn serve(files: BTreeMap<String, Vec<u8>>) -> ReleaseServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                reader.read_line(&mut request).unwrap();
                let mut header = String::new();
                while reader.read_line(&mut header).unwrap() > 2 {
                    header.clear();
                }
                let path = request.split_whitespace().nth(1).unwrap_or("").to_string();
                let (status, body) = match files.get(&path) {
                    Some(body) => ("200 OK", body.clone()),
                    None => ("404 Not Found", b"Not Found".to_vec()),
                };
                seen.lock().unwrap().push(path);
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).unwrap();
                stream.write_all(&body).unwrap();
            }
        });
        ReleaseServer { url, requests }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// The path of a release asset of octo/fieldgate under the server.
fn release_path(name: &str) -> String {
    format!("/octo/fieldgate/releases/download/v{VERSION}/{name}")
}

/// The Linux x86_64 archive the release workflow builds, holding the fieldgate built for these
/// tests, and its checksum file as `sha256sum` writes it.
fn linux_release(dir: &Path) -> (Vec<u8>, String) {
    let staging = dir.join("release-staging");
    fs::create_dir_all(&staging).unwrap();
    fs::copy(env!("CARGO_BIN_EXE_fieldgate"), staging.join("fieldgate")).unwrap();
    // The fastest gzip level: a debug build is hundreds of megabytes.
    let status = Command::new("sh")
        .args([
            "-c",
            &format!("tar -cf - fieldgate | gzip -1 >{LINUX_X64_ASSET}"),
        ])
        .current_dir(&staging)
        .status()
        .unwrap();
    assert!(status.success());
    let checksum = Command::new("sha256sum")
        .arg(LINUX_X64_ASSET)
        .current_dir(&staging)
        .output()
        .unwrap();
    assert!(checksum.status.success());
    (
        fs::read(staging.join(LINUX_X64_ASSET)).unwrap(),
        text(&checksum.stdout),
    )
}

/// A job that uses the action as the runner checks it out for `uses: octo/fieldgate@REF`, with
/// no `binary` input, downloading from `server`.
fn pinned_job<'a>(pr: &'a PullRequest, reference: &str, server: &ReleaseServer) -> Job<'a> {
    let actions = pr.dir.path().join("runner/actions/octo/fieldgate");
    fs::create_dir_all(&actions).unwrap();
    let checkout = actions.join(reference);
    std::os::unix::fs::symlink(root(), &checkout).unwrap();
    let mut job = pr.job();
    job.inputs.retain(|(name, _)| *name != "binary");
    job.action_path = checkout;
    job.server_url = server.url.clone();
    job
}

#[test]
fn pinned_at_its_release_tag_the_action_downloads_checks_and_runs_that_release() {
    let pr = narrowing_pr("main", "narrow");
    pr.checkout(true);
    let (archive, checksum) = linux_release(pr.dir.path());
    let server = ReleaseServer::serve(BTreeMap::from([
        (release_path(LINUX_X64_ASSET), archive),
        (
            release_path(&format!("{LINUX_X64_ASSET}.sha256")),
            checksum.clone().into_bytes(),
        ),
    ]));
    let ran = pinned_job(&pr, &format!("v{VERSION}"), &server).run();

    let digest = &checksum[..64];
    assert!(
        ran.log.contains(&format!(
            "fieldgate v{VERSION} for x86_64-unknown-linux-musl downloaded from {}/octo/fieldgate/releases/download/v{VERSION}, SHA-256 {digest} verified",
            server.url
        )),
        "{}",
        ran.log
    );
    assert!(!ran.log.contains("building fieldgate"), "{}", ran.log);
    let downloaded = pr
        .dir
        .path()
        .join("runner/temp/fieldgate-release/fieldgate");
    assert_eq!(ran.steps["install"]["bin"], downloaded.to_str().unwrap());
    assert_eq!(
        ran.steps["cache-key"],
        BTreeMap::new(),
        "nothing is built, nothing cached"
    );
    // The downloaded fieldgate is the one that judged the pull request.
    assert_eq!(ran.failed, Some(("verdict".into(), 1)), "{}", ran.log);
    assert_ne!(ran.outputs["errors"], "0");
    assert_eq!(
        server.requests(),
        [
            release_path(&format!("{LINUX_X64_ASSET}.sha256")),
            release_path(LINUX_X64_ASSET)
        ]
    );
}

#[test]
fn a_release_that_does_not_match_its_checksum_fails_the_job_without_running_it() {
    let pr = narrowing_pr("main", "narrow");
    pr.checkout(true);
    let (mut archive, checksum) = linux_release(pr.dir.path());
    archive.push(0);
    let server = ReleaseServer::serve(BTreeMap::from([
        (release_path(LINUX_X64_ASSET), archive),
        (
            release_path(&format!("{LINUX_X64_ASSET}.sha256")),
            checksum.into_bytes(),
        ),
    ]));
    let ran = pinned_job(&pr, &format!("v{VERSION}"), &server).run();

    assert_eq!(ran.failed, Some(("release".into(), 1)), "{}", ran.log);
    assert!(
        ran.log.contains(&format!(
            "::error title=fieldgate::{LINUX_X64_ASSET} of release v{VERSION} of octo/fieldgate does not match its checksum file"
        )),
        "{}",
        ran.log
    );
    assert!(!ran.steps["release"].contains_key("bin"));
}

#[test]
fn without_its_release_the_action_says_it_builds_from_source() {
    let pr = narrowing_pr("main", "narrow");
    pr.checkout(true);
    let server = ReleaseServer::serve(BTreeMap::new());

    // A fork or a repository that has not published the release.
    let mut job = pinned_job(&pr, &format!("v{VERSION}"), &server);
    job.stop_after = Some("release");
    let ran = job.run();
    assert_eq!(ran.failed, None, "{}", ran.log);
    assert!(
        ran.log.contains(&format!(
            "::notice title=fieldgate::no {LINUX_X64_ASSET}.sha256 in release v{VERSION} of octo/fieldgate (HTTP 404): building fieldgate from the action's source"
        )),
        "{}",
        ran.log
    );
    assert_eq!(ran.steps["release"], BTreeMap::new());

    // A commit pin: no release is looked for.
    let server = ReleaseServer::serve(BTreeMap::new());
    let commit = "8e8c483db84b4bee98b60c0593521ed34d9990e8";
    let mut job = pinned_job(&pr, commit, &server);
    job.stop_after = Some("release");
    let ran = job.run();
    assert!(
        ran.log.contains(&format!(
            "::notice title=fieldgate::the action is used at `{commit}`, not at its release tag v{VERSION}: building fieldgate from the action's source"
        )),
        "{}",
        ran.log
    );
    assert_eq!(server.requests(), Vec::<String>::new());
}

/// A pull request on a repository whose `db.events` lives in `catalog`: pulled and committed on
/// the base, and on the head a migration adding `country`, applied to the pinned copy.
fn catalog_pr(catalog: &Catalog) -> PullRequest {
    let pr = PullRequest {
        dir: tempfile::tempdir().unwrap(),
        base: "main".into(),
        head: "add-country".into(),
        lake: String::new(),
    };
    fs::create_dir_all(pr.origin()).unwrap();
    git(&pr.origin(), &["init", "-q", "-b", "main"]);
    let tables = format!("{EVENTS}proposals:\n  - migrations/*.sql\n");
    catalog::pull_into(
        &pr.origin(),
        &lake_config(&catalog.uri, TOKEN_AUTH, &tables),
    );
    pr.commit("db.events pulled");
    git(&pr.origin(), &["checkout", "-q", "-b", &pr.head]);
    pr.write(
        "migrations/001.sql",
        "ALTER TABLE db.events ADD COLUMN country string;\n",
    );
    pr.apply(PINNED, "migrations/001.sql");
    pr.commit("add country");
    pr
}

impl PullRequest {
    /// The workspace as actions/checkout leaves it for a job on the base branch (a schedule, or
    /// a push after the pull request is merged).
    fn checkout_base(&self, merged: bool) {
        if merged {
            git(&self.origin(), &["checkout", "-q", &self.base]);
            git(&self.origin(), &["merge", "-q", "--ff-only", &self.head]);
        }
        self.checkout(true);
        git(&self.workspace(), &["checkout", "-q", &self.base]);
    }

    /// A job run by `event` (`schedule`, `push`) on the base branch.
    fn base_job(&self, event: &str) -> Job<'_> {
        let mut job = self.job();
        job.event_name = event.into();
        job.event = json!({"repository": {"full_name": "octo/lake"}});
        job.base_ref = None;
        job
    }
}

fn assert_no_token(ran: &Ran) {
    for shown in [&ran.log, &ran.summary] {
        assert!(!shown.contains(catalog::TOKEN), "a secret shown: {shown}");
    }
}

#[test]
fn check_live_reads_the_catalog_with_the_credentials_of_the_steps_env() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let pr = catalog_pr(&catalog);
    pr.checkout(true);
    let live = || {
        pr.job()
            .input("live", "true")
            .env("LAKE_TOKEN", catalog::TOKEN)
    };

    let ran = live().run();
    assert_eq!(ran.failed, None, "{}", ran.log);
    assert_eq!(ran.outputs["passed"], "true");
    assert_no_token(&ran);

    // Without the secret (a pull request from a fork gets none): an error naming the variable.
    let unset = pr.job().input("live", "true").run();
    assert_eq!(unset.failed, Some(("verdict".into(), 2)), "{}", unset.log);
    assert!(unset.log.contains("LAKE_TOKEN"), "{}", unset.log);
    // Plain check needs no credentials.
    assert_eq!(pr.job().run().failed, None);

    catalog.change("add-column", &["db.events", "added_outside"]);
    let drift = live().run();
    assert_eq!(drift.failed, Some(("verdict".into(), 1)), "{}", drift.log);
    assert!(
        drift
            .log
            .lines()
            .any(|l| l.starts_with("::error file=fieldgate.yaml,line=")
                && l.contains("title=live-drift::")
                && l.contains("`added_outside`")),
        "{}",
        drift.log
    );
    assert!(drift.summary.contains("`live-drift`"), "{}", drift.summary);
    assert_eq!(drift.outputs["errors"], "1");
    assert_no_token(&drift);
}

#[test]
fn pull_check_on_a_schedule_reports_a_change_made_outside_for_an_issue() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let pr = catalog_pr(&catalog);
    pr.checkout_base(false);
    let scheduled = || {
        pr.base_job("schedule")
            .input("command", "pull-check")
            .input("markdown", "reports/drift.md")
            .env("LAKE_TOKEN", catalog::TOKEN)
    };

    let ran = scheduled().run();
    assert_eq!(ran.failed, None, "{}", ran.log);
    assert!(
        ran.log
            .contains("fieldgate: every pinned copy is the live table"),
        "{}",
        ran.log
    );
    assert!(
        ran.summary
            .contains("All 1 pinned copies are the live tables."),
        "{}",
        ran.summary
    );
    assert_eq!(
        (&*ran.outputs["passed"], &*ran.outputs["findings"]),
        ("true", "0")
    );

    catalog.change("add-column", &["db.events", "added|outside"]);
    let drift = scheduled().run();
    assert_eq!(drift.failed, Some(("verdict".into(), 1)), "{}", drift.log);
    assert_eq!(
        (&*drift.outputs["passed"], &*drift.outputs["findings"]),
        ("false", "1")
    );
    let annotation = format!(
        "::error title=fieldgate::db.events: the pinned copy ({PINNED}) is not the live table: changed outside the repository: field `added|outside` (id 8) was added"
    );
    assert!(drift.log.contains(&annotation), "{}", drift.log);
    let written = fs::read_to_string(pr.workspace().join("reports/drift.md")).unwrap();
    assert_eq!(
        written, drift.summary,
        "the markdown input gets the job summary"
    );
    assert!(
        written.contains("**1 of 1 pinned copies are not the live tables.**"),
        "{written}"
    );
    // One row per table, whose cells a `|` in a name cannot split.
    assert!(
        written.contains(&format!(
            "| db.events | {PINNED} | changed outside the repository: field `added\\|outside` (id 8) was added"
        )),
        "{written}"
    );
    assert_no_token(&drift);
    let status = git(
        &pr.workspace(),
        &["status", "--porcelain", "--untracked-files=no"],
    );
    assert_eq!(status, "", "pull-check writes nothing");
}

#[test]
fn push_on_merge_deploys_the_merged_change_once() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let pr = catalog_pr(&catalog);
    pr.checkout_base(true);
    let deploy = || {
        pr.base_job("push")
            .input("command", "push")
            .env("LAKE_TOKEN", catalog::TOKEN)
    };

    let ran = deploy().run();
    assert_eq!(ran.failed, None, "{}", ran.log);
    assert!(
        ran.summary
            .contains("Every table is deployed or already live."),
        "{}",
        ran.summary
    );
    assert!(ran.summary.contains("db.events"), "{}", ran.summary);
    assert_eq!(ran.outputs["passed"], "true");
    let shown = catalog.rest_tool("show", &["db.events"]);
    assert!(
        text(&shown.stdout).contains("country"),
        "{}",
        text(&shown.stdout)
    );
    // The workflow's check that the catalog now holds what was merged.
    let after = pr
        .base_job("push")
        .input("command", "pull-check")
        .env("LAKE_TOKEN", catalog::TOKEN)
        .run();
    assert_eq!(after.failed, None, "{}", after.log);
    assert_no_token(&ran);

    // The next push to the default branch finds nothing to deploy.
    let again = deploy().run();
    assert_eq!(again.failed, None, "{}", again.log);
    assert!(again.log.contains("nothing to push"), "{}", again.log);

    // Write credentials refused: the job fails saying so, with no secret shown.
    let refused = pr
        .base_job("push")
        .input("command", "push")
        .env("LAKE_TOKEN", "wrong-token-5d1e")
        .run();
    assert_eq!(
        refused.failed,
        Some(("verdict".into(), 2)),
        "{}",
        refused.log
    );
    assert!(!refused.log.contains("wrong-token-5d1e"), "{}", refused.log);
}

#[test]
fn command_and_live_inputs_are_checked() {
    let pr = narrowing_pr("main", "narrow");
    pr.checkout(true);
    for (command, live, says) in [
        (
            "deploy",
            "false",
            "command: expected `check`, `pull-check` or `push`, got `deploy`",
        ),
        ("push", "true", "live: `true` is for `command: check`"),
        (
            "check",
            "yes",
            "live: expected `true` or `false`, got `yes`",
        ),
    ] {
        let ran = pr.job().input("command", command).input("live", live).run();
        assert_eq!(ran.failed, Some(("check".into(), 1)), "{}", ran.log);
        assert!(ran.log.contains(says), "{}", ran.log);
    }
}
