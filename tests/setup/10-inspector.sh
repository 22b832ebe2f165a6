#!/usr/bin/env bash
# Installs the MCP Inspector CLI (a third-party MCP client) into tests/.tools/ for the
# interoperability test in tests/servers/test_local_inspector.py. Idempotent: a no-op when the
# pinned version is already there. Without npm it only says so; that test then skips, naming why.
set -euo pipefail

VERSION="0.21.2"   # pinned: `npm view @modelcontextprotocol/inspector versions`; 0.x has the --cli mode
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$HERE/.tools"
PKG="$TOOLS/node_modules/@modelcontextprotocol/inspector/package.json"

if ! command -v npm >/dev/null 2>&1; then
    echo "10-inspector: npm not found; the MCP Inspector interoperability test will be skipped." >&2
    exit 0
fi
if [ -f "$PKG" ] && grep -q "\"version\": \"$VERSION\"" "$PKG"; then
    exit 0
fi
mkdir -p "$TOOLS"
echo "10-inspector: installing @modelcontextprotocol/inspector@$VERSION into tests/.tools/" >&2
# The package declares node >=22 but its CLI mode works on node 20 too; engine warnings are expected.
npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/inspector@$VERSION" >&2
test -x "$TOOLS/node_modules/.bin/mcp-inspector"
