#!/usr/bin/env bash
# Installs @modelcontextprotocol/server-everything (a third-party MCP server that sends every kind
# of content: images, resource links, embedded resources) into tests/.tools/ for the client tests
# in tests/mcp_client/test_server_everything.py, which run it over stdio, Streamable HTTP and the
# legacy SSE transport. Idempotent: a no-op when the pinned version is already there. Without npm
# it only says so; those tests then skip, naming why.
set -euo pipefail

VERSION="2026.8.31"   # pinned: `npm view @modelcontextprotocol/server-everything versions`
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$HERE/.tools"
PKG="$TOOLS/node_modules/@modelcontextprotocol/server-everything/package.json"

if ! command -v npm >/dev/null 2>&1; then
    echo "12-server-everything: npm not found; the server-everything client tests will be skipped." >&2
    exit 0
fi
if [ -f "$PKG" ] && grep -q "\"version\": \"$VERSION\"" "$PKG"; then
    exit 0
fi
mkdir -p "$TOOLS"
echo "12-server-everything: installing @modelcontextprotocol/server-everything@$VERSION into tests/.tools/" >&2
npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-everything@$VERSION" >&2
test -f "$TOOLS/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
