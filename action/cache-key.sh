#!/usr/bin/env bash
# The cache key of a build from the action's source: the runner, the Rust toolchain, Cargo.lock
# and the sources, so a cached build is only reused for the same fieldgate; and the prefix
# without the sources, under which a new fieldgate version still finds its compiled dependencies.
set -euo pipefail
# shellcheck source=action/lib.sh
source "$GITHUB_ACTION_PATH/action/lib.sh"

if [[ -n "$BINARY" || -n "$RELEASE_BINARY" ]]; then
  exit 0
fi
cd -- "$GITHUB_ACTION_PATH"
toolchain=$( (rustc --version 2>/dev/null || echo none) | digest | cut -c1-12)
lock=$(digest <Cargo.lock | cut -c1-16)
sources=$(find Cargo.toml src rules -type f -print0 | LC_ALL=C sort -z | xargs -0 cat | digest | cut -c1-16)
prefix="fieldgate-$RUNNER_OS-$RUNNER_ARCH-$toolchain-$lock-"
set_output key "$prefix$sources"
set_output restore-key "$prefix"
set_output target-dir "$RUNNER_TEMP/fieldgate-target"
