//! The examples and exit codes at the end of each command's `--help` (and its manual page).
//! Every line of an example that starts with `fieldgate ` is parsed by the tests, so an example
//! cannot name a flag that does not exist.

/// The exit codes of a command that judges: the verdict, or why there is none.
macro_rules! gate_exit_codes {
    () => {
        "Exit codes:\n  \
         0  passed: no finding at or above --fail-on\n  \
         1  the gate failed: a finding at or above --fail-on (the report says which)\n  \
         2  fieldgate could not run: an unreadable or malformed file (located), bad arguments or\n     \
         configuration; machine formats still get a document with the errors"
    };
}

/// The exit codes of a command that prints or writes and has no verdict.
macro_rules! plain_exit_codes {
    () => {
        "Exit codes:\n  \
         0  done\n  \
         2  fieldgate could not run (the message says why)"
    };
}

pub const LINT: &str = concat!(
    "Examples:\n  \
     fieldgate lint migrations/0002_add_vip.sql --metadata warehouse/db/users\n  \
     fieldgate lint migrations/*.sql                  # routed by fieldgate.yaml\n  \
     fieldgate lint schema/users.yaml --metadata warehouse/db/users --format json\n  \
     fieldgate lint change.sql --metadata v3.metadata.json --fail-on warning --format sarif\n\n",
    gate_exit_codes!()
);

pub const APPLY: &str = concat!(
    "Judges like lint, then, when the gate passed and the sample data files read correctly under \
     the new schema, writes the new metadata with the field ids Iceberg assigns; it writes \
     nothing when the gate fails (unless --force). With --metadata it applies to that one table \
     (or, without a fieldgate.yaml, to a new table the proposal creates). Without --metadata, in \
     a repository with a fieldgate.yaml, each statement goes to the table it names, as lint \
     routes it; every touched table is read from the working tree and, with --write, written \
     back where fieldgate.yaml keeps it (the next vN.metadata.json and its version hint for a \
     table directory), all of them or, when any fails, none. Each file written is named on \
     stderr.\n\n\
     Examples:\n  \
     fieldgate apply 0002_add_vip.sql --metadata warehouse/db/users -o new.metadata.json\n  \
     fieldgate apply 0002_add_vip.sql --metadata warehouse/db/users --write --sample 2\n  \
     fieldgate apply migrations/*.sql --write                # routed by fieldgate.yaml\n  \
     fieldgate apply create_events.sql -o events/metadata/v1.metadata.json\n\n",
    gate_exit_codes!(),
    "\n     (1 also when a sample data file would fail a reader: nothing is written)"
);

pub const CHECK: &str = concat!(
    "Examples:\n  \
     fieldgate check                                  # in CI, after a full-depth checkout\n  \
     fieldgate check --base origin/main --format github --summary summary.md\n  \
     fieldgate check --policy head --fail-on warning --sarif fieldgate.sarif\n\n",
    gate_exit_codes!(),
    "\n     (2 also for a base that cannot be found: fetch it, or pass --base)"
);

pub const PULL: &str = "Examples:\n  \
     fieldgate pull                                   # every table with a `catalog:`\n  \
     fieldgate pull db.users --check                  # on a schedule: exit 1 on any difference\n\n\
     Exit codes:\n  \
     0  written, or with --check every pinned copy is in sync\n  \
     1  with --check: a pinned copy differs from the live table (each difference is named)\n  \
     2  fieldgate could not run: configuration, credentials, or the catalog's error";

pub const PUSH: &str = "Examples:\n  \
     fieldgate push --dry-run                         # print each CommitTableRequest\n  \
     fieldgate push db.users\n\n\
     Exit codes:\n  \
     0  committed, or already in sync\n  \
     1  not pushed: a rule failed, the pinned copy is not the live table plus new schemas,\n     \
     or the table changed since it was read (pull, re-apply the migrations, review again)\n  \
     2  fieldgate could not run: configuration, credentials, or the catalog's error";

pub const INIT: &str = concat!(
    "Examples:\n  \
     fieldgate init                                   # at the repository root\n  \
     fieldgate init --force                           # replace an existing fieldgate.yaml\n  \
     fieldgate init --catalog prod                    # add the tables of catalog `prod`\n  \
     fieldgate init --catalog prod --namespace sales  # only those in `sales` and under it\n\n",
    plain_exit_codes!()
);

pub const VERIFY: &str = "Examples:\n  \
     fieldgate verify --metadata warehouse/db/users data/part-00000.parquet\n  \
     fieldgate verify --metadata warehouse/db/users --sample 3 --rows 5\n  \
     fieldgate verify --metadata warehouse/db/users --schema-id 1 --sample 2 --format json\n\n\
     Limits: what one run reads (Parquet footers, pages, rows and values; manifest records) is\n\
     bounded; a file past a limit is an error naming the limit. Raise one under `limits:` in\n\
     fieldgate.yaml (`limits: {parquet-rows: 500000000}`), found as --config says.\n\n\
     Exit codes:\n  \
     0  every file reads correctly under the schema\n  \
     1  a reader would fail on a file or fill a required column with nulls\n  \
     2  a file is not readable Parquet (the error names the file), or bad arguments";

pub const RULES: &str = concat!(
    "Examples:\n  \
     fieldgate rules\n  \
     fieldgate rules --format json\n\n",
    plain_exit_codes!()
);

pub const EXPLAIN: &str = concat!(
    "Examples:\n  \
     fieldgate explain type-narrowing\n  \
     fieldgate explain name-reuse\n\n",
    "Exit codes:\n  \
     0  done\n  \
     2  no such rule (the message names the closest one)"
);

pub const COMPLETIONS: &str = concat!(
    "Examples:\n  \
     fieldgate completions bash > ~/.local/share/bash-completion/completions/fieldgate\n  \
     fieldgate completions zsh > ~/.zfunc/_fieldgate\n\n",
    plain_exit_codes!()
);

pub const MAN: &str = concat!(
    "Examples:\n  \
     fieldgate man --out ~/.local/share/man/man1\n  \
     fieldgate man check\n\n",
    plain_exit_codes!()
);

pub const LSP: &str = "Examples:\n  \
     fieldgate lsp                                    # started by the editor, speaks on stdio\n\n\
     Exit codes:\n  \
     0  the editor shut the server down\n  \
     2  the server could not run, or the connection to the editor failed";

/// The usage line clap would write hides that `--sample N` stands in for the files.
pub const VERIFY_USAGE: &str = "fieldgate verify --metadata <PATH> [OPTIONS] <PARQUET>...\n       \
     fieldgate verify --metadata <PATH> [OPTIONS] --sample <N>";
