#!/usr/bin/env bash
# The fieldgate executable of the action's own release, downloaded and checked against the
# release's SHA-256 checksum, as the output `bin`. The action's own version is the one its
# Cargo.toml says; the release is used only when the action is pinned at that version's tag
# (`uses: owner/fieldgate@v1.2.3`): a branch, a commit or a fork without the release leaves `bin`
# unset, and the install step builds the action's source instead, which this step says in the log.
# A checksum that does not match fails the job: the download was corrupted or tampered with.
set -euo pipefail
# shellcheck source=action/lib.sh
source "$GITHUB_ACTION_PATH/action/lib.sh"

if [[ -n "$BINARY" ]]; then
  exit 0
fi

from_source() {
  annotate notice "$1: building fieldgate from the action's source, which takes a few minutes (pin the action at a release tag to download it instead)"
  exit 0
}

# The runner checks an action out at <actions>/<owner>/<repository>/<ref>; github.action_ref and
# github.action_repository are not set for the steps of a composite action.
action_dir=$(cd -- "$GITHUB_ACTION_PATH" && pwd)
ref=$(basename -- "$action_dir")
repository="$(basename -- "$(dirname -- "$(dirname -- "$action_dir")")")/$(basename -- "$(dirname -- "$action_dir")")"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$action_dir/Cargo.toml" | head -n 1)
tag="v$version"
if [[ "$ref" != "$tag" ]]; then
  from_source "the action is used at \`$ref\`, not at its release tag $tag"
fi

case "$RUNNER_OS/$RUNNER_ARCH" in
  Linux/X64) target=x86_64-unknown-linux-musl ;;
  Linux/ARM64) target=aarch64-unknown-linux-musl ;;
  macOS/X64) target=x86_64-apple-darwin ;;
  macOS/ARM64) target=aarch64-apple-darwin ;;
  Windows/X64) target=x86_64-pc-windows-msvc ;;
  *) from_source "no release build of fieldgate for $RUNNER_OS $RUNNER_ARCH" ;;
esac
exe=fieldgate
asset="fieldgate-$target.tar.gz"
if [[ "$RUNNER_OS" == Windows ]]; then
  exe=fieldgate.exe
  asset="fieldgate-$target.zip"
fi

url="${GITHUB_SERVER_URL:-https://github.com}/$repository/releases/download/$tag"
dir="$RUNNER_TEMP/fieldgate-release"
rm -rf -- "$dir"
mkdir -p -- "$dir"
# Prints the HTTP status of downloading NAME into the directory (000 when there was no answer).
download() {
  curl --silent --show-error --location --retry 3 --output "$dir/$1" --write-out '%{http_code}' \
    -- "$url/$1" 2>"$dir/curl.log" || true
}
for name in "$asset.sha256" "$asset"; do
  status=$(download "$name")
  if [[ "$status" != 200 ]]; then
    detail=$(head -c 200 "$dir/curl.log")
    from_source "no $name in release $tag of $repository (HTTP $status${detail:+, $detail})"
  fi
done

expected=$(head -c 64 "$dir/$asset.sha256")
actual=$(digest <"$dir/$asset")
if [[ ! "$expected" =~ ^[0-9a-f]{64}$ || "$actual" != "$expected" ]]; then
  annotate error "$asset of release $tag of $repository does not match its checksum file $asset.sha256 (SHA-256 $actual): not running it"
  exit 1
fi
if [[ "$RUNNER_OS" == Windows ]]; then
  unzip -q -o "$dir/$asset" -d "$dir"
else
  tar -xzf "$dir/$asset" -C "$dir"
fi
bin="$dir/$exe"
reported=$("$bin" --version)
if [[ "$reported" != "fieldgate $version" ]]; then
  annotate error "$asset of release $tag reports \`$reported\`, not fieldgate $version"
  exit 1
fi
echo "fieldgate $tag for $target downloaded from $url, SHA-256 $actual verified"
set_output bin "$bin"
