#!/usr/bin/env bash
# The fieldgate executable the later steps run, as the output `bin` (an absolute path, since
# check runs in working-directory): the one the `binary` input names, else the one the release
# step downloaded, else one built from the action's own source with the cached target directory.
set -euo pipefail
# shellcheck source=action/lib.sh
source "$GITHUB_ACTION_PATH/action/lib.sh"

if [[ -n "$BINARY" ]]; then
  if [[ ! -f "$BINARY" || ! -x "$BINARY" ]]; then
    annotate error "binary: \`$BINARY\` is not an executable file"
    exit 1
  fi
  bin="$(cd -- "$(dirname -- "$BINARY")" && pwd)/$(basename -- "$BINARY")"
elif [[ -n "$RELEASE_BINARY" ]]; then
  bin=$RELEASE_BINARY
else
  if ! command -v cargo >/dev/null; then
    annotate error "the action builds fieldgate from its source and needs cargo: add a Rust toolchain (edition 2024, Rust 1.85 or newer) to the job, or give a prebuilt fieldgate as \`binary\`"
    exit 1
  fi
  root="$RUNNER_TEMP/fieldgate"
  # --force: a warm target directory makes this a relink, and a stale install is never kept.
  CARGO_TARGET_DIR="$TARGET_DIR" cargo install --locked --force --path "$GITHUB_ACTION_PATH" --root "$root"
  bin="$root/bin/fieldgate"
fi
"$bin" --version
set_output bin "$bin"
