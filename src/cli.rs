//! The command line as the user types it: clap derive structs only. Flag doc comments are the
//! `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod help;

#[derive(Debug, Parser)]
#[command(
    name = "fieldgate",
    version,
    about = "Schema-migration linter and CI gate for Apache Iceberg tables"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge a proposal (DDL, a schema file or an engine-written metadata file) against the
    /// table; write nothing.
    #[command(after_help = help::LINT)]
    Lint(LintArgs),
    /// Like lint, then on pass write the new metadata with field ids assigned as Iceberg does
    /// (each table the files touch, routed by fieldgate.yaml, without --metadata).
    #[command(after_help = help::APPLY)]
    Apply(ApplyArgs),
    /// The CI gate: judge what a branch changes since its base, for every table of fieldgate.yaml
    /// it touches, and require the committed metadata to match.
    #[command(after_help = help::CHECK)]
    Check(CheckArgs),
    /// Read the tables that live in a catalog and rewrite their pinned copies (`metadata:`)
    /// where the live table changed; `--check` writes nothing and fails on any difference.
    #[command(after_help = help::PULL)]
    Pull(PullArgs),
    /// Commit the approved change of each catalog table: the new schemas of its pinned copy,
    /// judged live -> pinned with every rule, sent as one CommitTableRequest.
    #[command(after_help = help::PUSH)]
    Push(PushArgs),
    /// Write a commented fieldgate.yaml for the repository at hand, with the tables found in it.
    #[command(after_help = help::INIT)]
    Init(InitArgs),
    /// Read sample Parquet files as a field-id reader reads them under the table's schema, and
    /// show how every column resolved.
    #[command(after_help = help::VERIFY, override_usage = help::VERIFY_USAGE)]
    Verify(VerifyArgs),
    /// List the rule catalogue: every rule, its default severity and what it catches.
    #[command(after_help = help::RULES)]
    Rules(RulesArgs),
    /// Explain one rule: what it catches, why it matters, what to do instead, and examples.
    #[command(after_help = help::EXPLAIN)]
    Explain(ExplainArgs),
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    #[command(after_help = help::COMPLETIONS)]
    Completions(CompletionsArgs),
    /// Print a manual page (roff): fieldgate's own, or one command's; or write every page to a
    /// directory.
    #[command(after_help = help::MAN)]
    Man(ManArgs),
    /// Run the language server on stdio for an editor (LSP 3.17): live findings in open
    /// migrations, schema files and fieldgate.yaml, hovers on rule names, quick fixes.
    #[command(after_help = help::LSP)]
    Lsp,
}

#[derive(Debug, Args)]
pub struct PullArgs {
    /// The tables to pull, as fieldgate.yaml names them [default: every table with a
    /// `catalog:`].
    #[arg(value_name = "TABLE")]
    pub tables: Vec<String>,

    /// Write nothing: exit 1 naming what differs for each table whose pinned copy is not the
    /// live table, exit 0 when every one is in sync.
    #[arg(long)]
    pub check: bool,

    /// The repository configuration [default: ./fieldgate.yaml].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = PullFormat::Human)]
    pub format: PullFormat,
}

#[derive(Debug, Args)]
pub struct PushArgs {
    /// The tables to push, as fieldgate.yaml names them [default: every table with a
    /// `catalog:`].
    #[arg(value_name = "TABLE")]
    pub tables: Vec<String>,

    /// Judge and print the exact CommitTableRequest JSON; send nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// The repository configuration [default: ./fieldgate.yaml].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = PullFormat::Human)]
    pub format: PullFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PullFormat {
    Human,
    Json,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`lint` prints fieldgate-lint(1)) [default: fieldgate(1),
    /// which lists the commands].
    #[arg(value_name = "COMMAND", conflicts_with = "out")]
    pub command: Option<String>,

    /// Write every page instead, fieldgate.1 and fieldgate-COMMAND.1 for each command, into DIR
    /// (a `man1` directory on MANPATH).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = CatalogueFormat::Human)]
    pub format: CatalogueFormat,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The rule's name, as `fieldgate rules` lists it.
    pub rule: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CatalogueFormat {
    Human,
    Json,
}

#[derive(Debug, Args)]
pub struct ProposalArgs {
    /// Proposal files, judged in order: `.sql` migrations (Spark, Trino or Hive DDL),
    /// `.yaml`/`.yml`/`.json` schema files (the table as it should be), or a new
    /// `*.metadata.json` written by an engine (judged on its own).
    #[arg(required = true, value_name = "FILES")]
    pub files: Vec<PathBuf>,

    /// The table: a `*.metadata.json` file, a table directory in the Hadoop layout, or, for a
    /// table without Iceberg metadata, a schema file with every id that describes it. Omit it
    /// when fieldgate.yaml lists the tables (`lint` and `apply` then judge each table the
    /// statements name), or when the proposal starts with CREATE TABLE or is a schema file for a new table.
    #[arg(long, value_name = "PATH")]
    pub metadata: Option<PathBuf>,

    /// The table the statements must name; by default any one name is accepted for the table.
    #[arg(long, value_name = "NAME")]
    pub table: Option<String>,

    /// The SQL dialect of the migrations [default: fieldgate.yaml's `dialect`, else spark].
    #[arg(long, value_enum)]
    pub dialect: Option<DialectArg>,

    /// The repository configuration [default: ./fieldgate.yaml when it exists; without
    /// --metadata, `lint` and `apply` also look at the git repository's root].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// How readers find columns in old data files [default: the table's `mapping`, else field-id].
    #[arg(long, value_parser = ["field-id", "name", "position"])]
    pub mapping: Option<String>,

    /// Who must keep reading: backward, forward or full, each optionally `-transitive`
    /// [default: the configuration's, else backward].
    #[arg(long, value_parser = ["backward", "forward", "full", "backward-transitive", "forward-transitive", "full-transitive"])]
    pub compatibility: Option<String>,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    #[command(flatten)]
    pub proposal: ProposalArgs,

    /// Output format: `human` (diagnostics with the source text; plain without a terminal or
    /// with NO_COLOR), `json` (version 1 document), `github` (workflow-command annotations),
    /// `sarif` (2.1.0, for code scanning), `markdown` (for $GITHUB_STEP_SUMMARY or a PR comment),
    /// `gitlab` (Code Quality JSON) or `junit` (XML, a test case per rule and table).
    #[arg(long, value_enum, default_value_t = ReportFormatArg::Human)]
    pub format: ReportFormatArg,

    /// The lowest severity that fails the run (exit code 1).
    #[arg(long, value_enum, default_value_t = FailOnArg::Error)]
    pub fail_on: FailOnArg,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("destination").required(true).args(["output", "write"]))]
pub struct ApplyArgs {
    #[command(flatten)]
    pub lint: LintArgs,

    /// Write the new metadata to this file (complete Iceberg metadata for a new table or one a
    /// schema file describes).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,

    /// Replace the metadata in place (a table directory gets the next vN.metadata.json and its
    /// version hint), atomically, and write the assigned field ids into schema-file proposals;
    /// routed by fieldgate.yaml, every touched table, a new one where fieldgate.yaml keeps it.
    #[arg(long)]
    pub write: bool,

    /// Write even when findings reach --fail-on; the findings are still reported and the exit
    /// code is still 1.
    #[arg(long)]
    pub force: bool,

    /// Before writing, read these Parquet data files (local paths or `file:` URIs; put the flag
    /// after the proposal files) as the new schema reads them; a file a reader would fail on
    /// fails the run [default: the table's `sample` in fieldgate.yaml].
    #[arg(long = "verify", value_name = "PARQUET", num_args = 1.., conflicts_with = "sample")]
    pub verify: Vec<String>,

    /// Before writing, read up to N data files of the table's current snapshot (from its
    /// manifests) as the new schema reads them.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub sample: Option<u32>,

    /// Read no data files before writing, whatever fieldgate.yaml's `sample` says.
    #[arg(long, conflicts_with_all = ["verify", "sample"])]
    pub no_verify: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The git ref the change is judged against, through its merge base with HEAD [default:
    /// GITHUB_BASE_REF's branch in GitHub Actions, else origin/HEAD, origin/main, origin/master,
    /// main, master].
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,

    /// The repository configuration [default: fieldgate.yaml in the current directory, else at
    /// the repository root].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormatArg::Human)]
    pub format: ReportFormatArg,

    /// Also write the Markdown report to FILE (for `$GITHUB_STEP_SUMMARY` or a PR comment).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,

    /// Also write the SARIF report to FILE (for code scanning upload).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,

    /// Also write the JSON report to FILE (for scripts, such as the GitHub Action's outputs,
    /// that read the verdict beside another format).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// The lowest severity that fails the run (exit code 1).
    #[arg(long, value_enum, default_value_t = FailOnArg::Error)]
    pub fail_on: FailOnArg,

    /// Whose fieldgate.yaml sets the gate's policy (rule severities and options, compatibility,
    /// mappings): `base`, the base commit's, so a change cannot relax the gate it is judged by
    /// (the change's own when the base has none); or `head`, the change's. Tables, proposals,
    /// dialect and samples come from the change either way.
    #[arg(long, value_enum, default_value_t = PolicyArg::Base)]
    pub policy: PolicyArg,

    /// Also require each touched table that lives in a catalog (`catalog:` in fieldgate.yaml)
    /// to have a pinned copy at the base equal to the live table (one LoadTable per touched
    /// table; a difference is a `live-drift` finding). Needs the catalog's credentials.
    #[arg(long)]
    pub live: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PolicyArg {
    Base,
    Head,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Replace an existing fieldgate.yaml.
    #[arg(long)]
    pub force: bool,
    /// Add the tables of catalog NAME (defined under `catalogs:` in fieldgate.yaml) to
    /// `tables:`, each with `catalog: NAME` and its pinned copy's path; the rest of the file is
    /// kept. `fieldgate pull` then writes the pinned copies.
    #[arg(long, value_name = "NAME", conflicts_with = "force")]
    pub catalog: Option<String>,
    /// With --catalog: only the tables in NAMESPACE and the namespaces under it (levels joined
    /// with `.`; repeat for several).
    #[arg(long, value_name = "NAMESPACE", requires = "catalog")]
    pub namespace: Vec<String>,
    /// With --catalog: the directory the pinned copies go under, one directory per namespace
    /// level (`tables/db/events.metadata.json`).
    #[arg(
        long,
        value_name = "DIR",
        default_value = "tables",
        requires = "catalog"
    )]
    pub pinned_dir: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    Spark,
    Trino,
    Hive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Human,
    Json,
}

/// The formats of a judgement report (`lint`, `apply`, `check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormatArg {
    Human,
    Json,
    Github,
    Sarif,
    Markdown,
    Gitlab,
    Junit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOnArg {
    Error,
    Warning,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Parquet data files to read: local paths or `file:` URIs.
    #[arg(value_name = "PARQUET", required_unless_present = "sample")]
    pub files: Vec<String>,

    /// The table's metadata: a `*.metadata.json` file or a table directory in the Hadoop layout.
    #[arg(long, value_name = "PATH")]
    pub metadata: PathBuf,

    /// Read the files as this schema of the table instead of the current one.
    #[arg(long, value_name = "N")]
    pub schema_id: Option<i32>,

    /// Instead of naming files, take up to N data files of the table's current snapshot, one per
    /// schema id they were written under first.
    #[arg(long, value_name = "N", conflicts_with = "files")]
    pub sample: Option<usize>,

    /// Print the rows read: the first N of each file, or `all`.
    #[arg(long, value_name = "N|all", value_parser = parse_rows)]
    pub rows: Option<RowsArg>,

    /// The fieldgate.yaml whose `limits:` bound what is read [default: fieldgate.yaml in the
    /// current directory, else at the git repository's root; without one, the default limits].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    pub format: FormatArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowsArg {
    First(usize),
    All,
}

fn parse_rows(text: &str) -> Result<RowsArg, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(RowsArg::All);
    }
    text.parse()
        .map(RowsArg::First)
        .map_err(|_| format!("expected a number of rows or `all`, not `{text}`"))
}
