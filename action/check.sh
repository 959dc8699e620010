#!/usr/bin/env bash
# Runs `fieldgate check` on the pull request: findings become annotations (fieldgate's github
# format on the log), the Markdown report goes to the job summary, the JSON report gives the
# outputs. It exits 0 whatever the verdict, so that the comment step still runs; the last step
# turns the exit code, kept as the output `exit-code`, into the job's verdict.
set -euo pipefail
# shellcheck source=action/lib.sh
source "$GITHUB_ACTION_PATH/action/lib.sh"

reports=$(mktemp -d "${RUNNER_TEMP:-/tmp}/fieldgate.XXXXXX")
report="$reports/report.md"
json="$reports/report.json"
args=(check --format github --fail-on "$FAIL_ON" --policy "$POLICY" --summary "$report" --json "$json")
if [[ -n "$BASE" ]]; then
  args+=(--base "$BASE")
fi
if [[ -n "$CONFIG" ]]; then
  args+=(--config "$CONFIG")
fi
if [[ -n "$SARIF" ]]; then
  # Relative to the workspace, where github/codeql-action/upload-sarif looks for it.
  sarif=$SARIF
  if [[ $sarif != /* ]]; then
    sarif="$GITHUB_WORKSPACE/$sarif"
  fi
  mkdir -p -- "$(dirname -- "$sarif")"
  args+=(--sarif "$sarif")
fi
# Words split at whitespace, never evaluated: no expansion, globbing or command substitution.
read -r -a extra <<<"$EXTRA_ARGS"

if ! cd -- "$WORKING_DIRECTORY"; then
  annotate error "working-directory: \`$WORKING_DIRECTORY\` is not a directory of the workspace"
  exit 1
fi
status=0
"$FIELDGATE" "${args[@]}" ${extra[@]+"${extra[@]}"} 2>"$reports/stderr" || status=$?
if [[ -s "$reports/stderr" ]]; then
  print_inert "$reports/stderr"
fi

if [[ -s "$report" ]]; then
  cat -- "$report" >>"$GITHUB_STEP_SUMMARY"
fi
if [[ $status -eq 2 && "$(git rev-parse --is-shallow-repository 2>/dev/null)" == true ]]; then
  annotate error "this is a shallow clone, and fieldgate check needs the pull request's base branch and its history: set \`fetch-depth: 0\` on the actions/checkout step"
fi

passed=false findings=0 errors=0 warnings=0
if [[ -s "$json" ]]; then
  passed=$(jq -r '.passed' "$json")
  findings=$(jq '.diagnostics | length' "$json")
  errors=$(jq '[.diagnostics[] | select(.severity == "error")] | length' "$json")
  warnings=$(jq '[.diagnostics[] | select(.severity == "warning")] | length' "$json")
fi
set_output passed "$passed"
set_output findings "$findings"
set_output errors "$errors"
set_output warnings "$warnings"
set_output exit-code "$status"
if [[ -s "$report" ]]; then
  set_output report "$report"
fi
