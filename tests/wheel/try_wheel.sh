#!/usr/bin/env bash
# The Python wheel (pyproject.toml: maturin, `bindings = "bin"`) built, installed into a fresh
# virtual environment without a Rust toolchain in reach, and run on the README's example: the
# `fieldgate` pip puts on the venv's PATH must be the executable itself, of this version, and
# apply and lint the example lake as the README says.
#
# Usage: tests/wheel/try_wheel.sh (from anywhere). maturin is pinned and installed into a venv
# under the cargo target dir. The wheel is built with the release profile into that target dir
# with the same settings as the pre-commit hook's build (tests/precommit/try_hook.sh), so its
# compiled dependencies are shared: only the fieldgate crate itself is compiled again.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
target_dir=$(realpath -m "${CARGO_TARGET_DIR:-$repo/target}")
maturin_version=1.16.0
tools="$target_dir/wheel-venv"
if ! "$tools/bin/maturin" --version 2>/dev/null | grep -qx "maturin $maturin_version"; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check "maturin==$maturin_version"
fi
export CARGO_TARGET_DIR="$target_dir"
# As the hook's build: the packaging is under test, not the optimiser. Released wheels are built
# by .github/workflows/release.yml with the release profile as Cargo.toml sets it.
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0
export NO_COLOR=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$repo" && "$tools/bin/maturin" build --release --locked --quiet --out "$work/wheels")
wheels=("$work"/wheels/fieldgate-*.whl)
if [[ ${#wheels[@]} -ne 1 || ! -f "${wheels[0]}" ]]; then
  echo "expected one wheel, found: ${wheels[*]}"
  exit 1
fi
echo "built $(basename "${wheels[0]}")"

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "${wheels[0]}"
# Only the venv and the system's own directories: no cargo, no target dir.
export PATH="$work/venv/bin:/usr/bin:/bin"
installed=$(command -v fieldgate)
if [[ "$installed" != "$work/venv/bin/fieldgate" ]]; then
  echo "fieldgate resolves to $installed, not the venv's"
  exit 1
fi
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n 1)
reported=$(fieldgate --version)
if [[ "$reported" != "fieldgate $version" ]]; then
  echo "the wheel's fieldgate reports \`$reported\`, not fieldgate $version"
  exit 1
fi
# The executable itself, not a Python launcher in front of it.
if ! od -An -N4 -c "$installed" | grep -q 'E   L   F'; then
  echo "$installed is not the fieldgate executable"
  exit 1
fi

cd "$repo"
echo "-- the README's first command, with the wheel's fieldgate"
fieldgate apply examples/lake/migrations/dim_users/*.sql \
  --metadata examples/lake/warehouse/lake_prod/dim_users -o "$work/dim_users.metadata.json" \
  | tee "$work/apply.txt"
grep -qx "passed: 0 errors, 0 warnings, 1 note" "$work/apply.txt"
grep -q '"last-column-id" *: *5' "$work/dim_users.metadata.json"

echo "-- a migration the gate stops"
status=0
fieldgate lint examples/lake/bad/fact_orders_drop_region.sql \
  --metadata examples/lake/warehouse/lake_prod/fact_orders >"$work/lint.txt" || status=$?
if [[ $status -ne 1 ]] || ! grep -q "partition-source-drop" "$work/lint.txt"; then
  cat "$work/lint.txt"
  echo "expected the drop of a partition source to fail (exit 1), got exit $status"
  exit 1
fi
echo "the wheel's fieldgate failed the bad migration (exit 1), as it should"
