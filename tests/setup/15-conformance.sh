#!/usr/bin/env bash
# Installs the official MCP conformance suite (@modelcontextprotocol/conformance) into
# tests/.tools/ for tests/servers/test_conformance.py, which runs its generic server scenarios
# against both of our servers. Idempotent: a no-op when the pinned version is already there.
# Without npm it only says so; those tests then skip, naming why.
set -euo pipefail

# Pinned: `npm view @modelcontextprotocol/conformance versions`. 0.1.14 and later import
# fs.globSync (Node >= 22) at start-up, for their report command only; 0.1.13 runs the same
# server scenarios on Node 20, which is what this machine has.
VERSION="0.1.13"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$HERE/.tools"
PKG="$TOOLS/node_modules/@modelcontextprotocol/conformance/package.json"

if ! command -v npm >/dev/null 2>&1; then
    echo "15-conformance: npm not found; the MCP conformance tests will be skipped." >&2
    exit 0
fi
if [ -f "$PKG" ] && grep -q "\"version\": \"$VERSION\"" "$PKG"; then
    exit 0
fi
mkdir -p "$TOOLS"
echo "15-conformance: installing @modelcontextprotocol/conformance@$VERSION into tests/.tools/" >&2
npm install --prefix "$TOOLS" --save-exact --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$VERSION" >&2
test -x "$TOOLS/node_modules/.bin/conformance"
