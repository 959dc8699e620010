#!/usr/bin/env bash
# Neovim (headless, its built-in LSP client) against `fieldgate lsp`: a narrowing migration in a
# scratch copy of the example lake (a git repository, the migration uncommitted) is opened, and
# nvim_quick_fix.lua asserts the diagnostics and applies the quick fix.
# Usage: tests/editors/nvim_e2e.sh PATH/TO/fieldgate
set -euo pipefail
fieldgate=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/../../examples/lake" "$work/lake"
cd "$work/lake"
git init -q
git add -A
git -c user.name=ci -c user.email=ci@example.com -c commit.gpgsign=false commit -qm lake
cp bad/fact_orders_narrow_customer_id.sql migrations/fact_orders/0003_narrow_customer_id.sql
FIELDGATE=$fieldgate XDG_CACHE_HOME="$work/cache" timeout 180 \
  nvim --headless --clean -u NONE -i NONE -n \
  -c "luafile $here/nvim_quick_fix.lua" migrations/fact_orders/0003_narrow_customer_id.sql
