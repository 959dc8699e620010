#!/usr/bin/env bash
# The `fieldgate` hook of .pre-commit-hooks.yaml, run for real by the pinned `pre-commit` tool
# (`pre-commit try-repo`, which installs the hook as a user's pre-commit would: `cargo install`
# of this repository) in a scratch git repository holding the example lake (pyiceberg-written
# tables and a fieldgate.yaml). A staged bad migration must fail the hook with its finding; a
# staged good one must pass, staged with the metadata `apply --write` made of it (judged against
# HEAD's table, not applied twice) and a workflow file (not a proposal: left out).
#
# Usage: tests/precommit/try_hook.sh (from anywhere). Installs pre-commit into a venv under the
# cargo target dir. try-repo installs the hook into a throwaway store each time, but its
# `cargo install` inherits CARGO_TARGET_DIR (pre-commit passes the environment through), so it
# builds into <target dir>/release and compiled dependencies are reused from one run to the next:
# only the fieldgate crate itself is compiled again.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
target_dir=$(realpath -m "${CARGO_TARGET_DIR:-$repo/target}")
version=4.7.0
venv="$target_dir/precommit-venv"
if ! "$venv/bin/pre-commit" --version 2>/dev/null | grep -qx "pre-commit $version"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "pre-commit==$version"
fi
export CARGO_TARGET_DIR="$target_dir"
# The hook's mechanics are under test, not the optimiser: an unoptimised release build takes a
# third of the time on a fresh target dir (it is still the release profile pre-commit asks for,
# with its own cached artifacts). Users' installs are unaffected.
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0
# The developer's own fieldgate, for `apply --write` before staging: built as `cargo test` builds
# it (dependencies' features unified with the dev-dependencies'), so after the test suite this is
# a no-op, where a plain `cargo build` compiles every dependency again with other features.
cargo test --no-run --locked --quiet --manifest-path "$repo/Cargo.toml"
fieldgate="$target_dir/debug/fieldgate"
# Colourless, stable output to grep.
export NO_COLOR=1 PRE_COMMIT_COLOR=never

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lake="$work/lake"
cp -r "$repo/examples/lake" "$lake"
git_lake() {
  git -C "$lake" -c user.name=fieldgate-ci -c user.email=ci@fieldgate.invalid \
    -c commit.gpgsign=false "$@"
}
git_lake init -q -b main
git_lake add -A
git_lake commit -q -m "the example lake"

# try-repo installs the hook from the repository's committed HEAD, plus its uncommitted changes.
try_hook() {
  local started=$SECONDS status=0
  (cd "$lake" && "$venv/bin/pre-commit" try-repo "$repo" fieldgate --verbose) \
    >"$work/out.txt" 2>&1 || status=$?
  echo "  ($((SECONDS - started)) s, exit $status)"
  return $status
}

echo "-- a staged migration that drops fact_orders' partition column: the hook must fail"
cp "$lake/bad/fact_orders_drop_region.sql" "$lake/migrations/fact_orders/0003_drop_region.sql"
git_lake add migrations/fact_orders/0003_drop_region.sql
if try_hook; then
  cat "$work/out.txt"
  echo "the hook passed a migration that drops a partition source"
  exit 1
fi
for expected in "error[partition-source-drop]" "migrations/fact_orders/0003_drop_region.sql" \
  "failed: 1 error,"; do
  if ! grep -qF "$expected" "$work/out.txt"; then
    cat "$work/out.txt"
    echo "the hook's output lacks: $expected"
    exit 1
  fi
done
grep -F "partition-source-drop" "$work/out.txt" | head -n 3

echo "-- a staged good migration, the metadata apply --write made of it, and a workflow: pass"
git_lake rm -q --cached migrations/fact_orders/0003_drop_region.sql
rm "$lake/migrations/fact_orders/0003_drop_region.sql"
cat >"$lake/migrations/dim_users/0003_add_signup_channel.sql" <<'SQL'
ALTER TABLE lake_prod.dim_users ADD COLUMN signup_channel string COMMENT 'web, app or store';
SQL
(cd "$lake" && "$fieldgate" apply --write --metadata warehouse/lake_prod/dim_users \
  migrations/dim_users/0003_add_signup_channel.sql >/dev/null)
mkdir -p "$lake/.github/workflows"
printf 'on: pull_request\njobs: {}\n' >"$lake/.github/workflows/ci.yml"
git_lake add migrations/dim_users/0003_add_signup_channel.sql warehouse .github/workflows/ci.yml
if ! try_hook; then
  cat "$work/out.txt"
  echo "the hook failed a good migration"
  exit 1
fi
for expected in "add signup_channel" "is not judged: no \`proposals\` glob" \
  "is not judged: it is the metadata of \`lake_prod.dim_users\`" "Passed"; do
  if ! grep -qF "$expected" "$work/out.txt"; then
    cat "$work/out.txt"
    echo "the hook's output lacks: $expected"
    exit 1
  fi
done
echo "pre-commit $version: the hook fails the bad migration and passes the good one"
