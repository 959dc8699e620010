#!/usr/bin/env bash
# Writes the `pull_request` target's seeds (fuzz/corpus/pull_request/) from the example lake:
# each is a kind byte, then `fieldgate.yaml`, the table's metadata, the proposal and the metadata
# the pull request commits, separated by lines `%%`. The committed metadata is what
# `fieldgate apply` writes for the proposal (with --force where findings fail it), so a seed
# starts where a real pull request is: the change and its applied metadata, which drift accepts.
#
# Usage (from the repository's root): fuzz/seeds/pull_request.sh path/to/fieldgate
set -euo pipefail

fieldgate=$(realpath "${1:?the fieldgate binary}")
lake=examples/lake
out=fuzz/corpus/pull_request
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The table's newest metadata file, as its version hint names it.
metadata_of() {
  local dir=$lake/warehouse/lake_prod/$1/metadata
  echo "$dir/v$(tr -d '[:space:]' <"$dir/version-hint.text").metadata.json"
}

# seed NAME KIND TABLE PROPOSAL...: KIND is 0 for a migration, 1 for a YAML schema file.
seed() {
  local name=$1 kind=$2 table=$3
  shift 3
  local base proposal=$scratch/proposal.sql committed=$scratch/committed.metadata.json
  base=$(realpath "$(metadata_of "$table")")
  if [ "$kind" = 1 ]; then proposal=$scratch/proposal.yaml; fi
  cat "$@" >"$proposal"
  # Outside any repository, so no fieldgate.yaml routes it: the proposal against this table.
  # Exit 1 is findings (written anyway); a change that cannot be applied (exit 2) writes
  # nothing, and the pull request then commits the table's metadata unchanged.
  local status=0
  (cd "$scratch" && "$fieldgate" apply "$proposal" --metadata "$base" --no-verify --force \
    -o "$committed" >/dev/null 2>&1) || status=$?
  case $status in
    0 | 1) ;;
    2) cp "$base" "$committed" ;;
    *) echo "fieldgate apply failed ($status) for $name" >&2; exit 1 ;;
  esac
  {
    printf '%b' "\\x$kind"
    printf 'tables:\n  lake_prod.%s:\n    metadata: warehouse/db/t\n' "$table"
    printf 'proposals:\n  - migrations/*.sql\n  - schemas/*\n'
    printf 'dialect: spark\nrules:\n  missing-doc: warning\n\n%%%%\n'
    cat "$base"
    printf '\n%%%%\n'
    cat "$proposal"
    printf '\n%%%%\n'
    cat "$committed"
  } >"$out/$name"
  rm -f "$committed"
}

seed dim_users-good 0 dim_users $lake/migrations/dim_users/*.sql
seed dim_users-schema-file 1 dim_users $lake/schemas/dim_users.yaml
seed dim_users-status-again 0 dim_users $lake/bad/dim_users_status_again.sql
seed fact_orders-good 0 fact_orders $lake/migrations/fact_orders/*.sql
seed fact_orders-drop-region 0 fact_orders $lake/bad/fact_orders_drop_region.sql
seed fact_orders-narrow 0 fact_orders $lake/bad/fact_orders_narrow_customer_id.sql
