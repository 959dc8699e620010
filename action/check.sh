#!/usr/bin/env bash
# Runs the command the `command` input names: `fieldgate check` on the pull request (with
# `--live`, also against the catalog), `fieldgate pull --check` (are the pinned copies the live
# tables?) or `fieldgate push` (deploy the merged change through the catalog). Findings become
# annotations, the Markdown report goes to the job summary (and to `markdown`), the JSON report
# gives the outputs. It exits 0 whatever the verdict, so that the comment step still runs; the
# last step turns the exit code, kept as the output `exit-code`, into the job's verdict.
# Catalog credentials are never inputs: fieldgate.yaml's `${VAR}` references read them from the
# environment, which the workflow sets with `env:` from its secrets.
set -euo pipefail
# shellcheck source=action/lib.sh
source "$GITHUB_ACTION_PATH/action/lib.sh"

case "$COMMAND" in
  check | pull-check | push) ;;
  *)
    annotate error "command: expected \`check\`, \`pull-check\` or \`push\`, got \`$COMMAND\`"
    exit 1
    ;;
esac
case "$LIVE" in
  false) ;;
  true)
    if [[ $COMMAND != check ]]; then
      annotate error "live: \`true\` is for \`command: check\`; \`$COMMAND\` always reads the catalog"
      exit 1
    fi
    ;;
  *)
    annotate error "live: expected \`true\` or \`false\`, got \`$LIVE\`"
    exit 1
    ;;
esac

reports=$(mktemp -d "${RUNNER_TEMP:-/tmp}/fieldgate.XXXXXX")
report="$reports/report.md"
json="$reports/report.json"
stdout="$reports/stdout"

# A path relative to the workspace, where later steps of the job (upload-sarif, an issue) find it.
in_workspace() {
  local path=$1
  if [[ $path != /* ]]; then
    path="$GITHUB_WORKSPACE/$path"
  fi
  mkdir -p -- "$(dirname -- "$path")"
  printf '%s' "$path"
}

case "$COMMAND" in
  check)
    args=(check --format github --fail-on "$FAIL_ON" --policy "$POLICY" --summary "$report" --json "$json")
    if [[ -n "$BASE" ]]; then
      args+=(--base "$BASE")
    fi
    if [[ $LIVE == true ]]; then
      args+=(--live)
    fi
    if [[ -n "$SARIF" ]]; then
      args+=(--sarif "$(in_workspace "$SARIF")")
    fi
    ;;
  pull-check) args=(pull --check --format json) ;;
  push) args=(push) ;;
esac
if [[ -n "$CONFIG" ]]; then
  args+=(--config "$CONFIG")
fi
# Words split at whitespace, never evaluated: no expansion, globbing or command substitution.
read -r -a extra <<<"$EXTRA_ARGS"

if ! cd -- "$WORKING_DIRECTORY"; then
  annotate error "working-directory: \`$WORKING_DIRECTORY\` is not a directory of the workspace"
  exit 1
fi
status=0
"$FIELDGATE" "${args[@]}" ${extra[@]+"${extra[@]}"} >"$stdout" 2>"$reports/stderr" || status=$?
case "$COMMAND" in
  # The github format's annotations are workflow commands: they must reach the log as such.
  check) cat -- "$stdout" ;;
  pull-check)
    # Exit 0 or 1 is a verdict with its report; 2 is an error, already on standard error.
    if [[ $status -le 1 ]]; then
      cp -- "$stdout" "$json"
    fi
    ;;
  push) print_inert "$stdout" ;;
esac
if [[ -s "$reports/stderr" ]]; then
  print_inert "$reports/stderr"
fi

passed=false findings=0 errors=0 warnings=0
case "$COMMAND" in
  check)
    if [[ $status -eq 2 && "$(git rev-parse --is-shallow-repository 2>/dev/null)" == true ]]; then
      annotate error "this is a shallow clone, and fieldgate check needs the pull request's base branch and its history: set \`fetch-depth: 0\` on the actions/checkout step"
    fi
    if [[ -s "$json" ]]; then
      passed=$(jq -r '.passed' "$json")
      findings=$(jq '.diagnostics | length' "$json")
      errors=$(jq '[.diagnostics[] | select(.severity == "error")] | length' "$json")
      warnings=$(jq '[.diagnostics[] | select(.severity == "warning")] | length' "$json")
    fi
    ;;
  pull-check)
    if [[ -s "$json" ]]; then
      # shellcheck source=action/drift.sh
      source "$GITHUB_ACTION_PATH/action/drift.sh"
      drift_report "$json" >"$report"
      drift_annotations "$json"
      findings=$(jq '[.tables[] | select(.["in-sync"] | not)] | length' "$json")
      errors=$findings
      if [[ $findings -eq 0 ]]; then
        passed=true
      fi
    fi
    ;;
  push)
    if [[ $status -le 1 ]]; then
      {
        printf '## fieldgate push\n\n'
        if [[ $status -eq 0 ]]; then
          echo 'Every table is deployed or already live.'
        else
          echo 'Not every table was deployed: see why below.'
        fi
        printf '\n```text\n'
        # The fence cannot be closed by a line of the output: one starting with it is indented.
        # shellcheck disable=SC2016 # backticks, not an expansion
        sed 's/^```/ ```/' -- "$stdout"
        printf '```\n'
      } >"$report"
      if [[ $status -eq 0 ]]; then
        passed=true
      fi
    fi
    ;;
esac

if [[ -s "$report" ]]; then
  cat -- "$report" >>"$GITHUB_STEP_SUMMARY"
  if [[ -n "$MARKDOWN" ]]; then
    cp -- "$report" "$(in_workspace "$MARKDOWN")"
  fi
fi
set_output passed "$passed"
set_output findings "$findings"
set_output errors "$errors"
set_output warnings "$warnings"
set_output exit-code "$status"
if [[ -s "$report" ]]; then
  set_output report "$report"
fi
