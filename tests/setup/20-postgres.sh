#!/usr/bin/env bash
# Start a throw-away PostgreSQL server for the registry tests (tests/registry, marker `postgres`).
#
# Idempotent and quick when already done: installs the Debian `postgresql` package only when no
# server binaries are on the machine, runs initdb once into tests/.tools/pg, starts the server on
# a loopback port (never a public interface) and writes its URL to tests/.tools/pg.url.
# PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
TOOLS="$ROOT/tests/.tools"
PGDIR="$TOOLS/pg"
URL_FILE="$TOOLS/pg.url"
mkdir -p "$TOOLS"

find_bin() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [ -n "$dir" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return; fi
    if command -v pg_ctl >/dev/null 2>&1; then dirname "$(command -v pg_ctl)"; fi
}

BIN="$(find_bin)"
if [ -z "$BIN" ]; then
    echo "20-postgres: installing PostgreSQL (Debian package postgresql)" >&2
    if [ "$(id -u)" -ne 0 ]; then
        echo "20-postgres: PostgreSQL is missing and this is not root; install the 'postgresql' package" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq postgresql >/dev/null
    BIN="$(find_bin)"
fi
[ -n "$BIN" ] || { echo "20-postgres: no pg_ctl found after install" >&2; exit 1; }

# Who owns the cluster: ourselves, or (as root) the `postgres` system user.
RUN=()
OWNER="$(id -un)"
if [ "$(id -u)" -eq 0 ]; then
    OWNER=postgres
    id -u postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    RUN=(runuser -u postgres --)
    # The data folder must be reachable by that user; if the checkout is not (e.g. under a
    # private home), keep the data in /tmp and point tests/.tools/pg at it.
    if ! "${RUN[@]}" test -x "$TOOLS"; then
        real="/tmp/formspec-consult-pg-$(printf '%s' "$ROOT" | sha1sum | cut -c1-12)"
        mkdir -p "$real"
        [ -L "$PGDIR" ] || { rm -rf "$PGDIR"; ln -s "$real" "$PGDIR"; }
    fi
fi
# From here on the real path: the `postgres` user cannot follow a link that lies under a folder
# it may not traverse (a private home, a `mktemp -d` clone), so initdb and pg_ctl never see it.
mkdir -p "$PGDIR"
PGDIR="$(realpath "$PGDIR")"

if [ ! -f "$PGDIR/data/PG_VERSION" ]; then
    mkdir -p "$PGDIR/data" "$PGDIR/sock"
    [ "$OWNER" = "$(id -un)" ] || chown -R "$OWNER" "$PGDIR/" "$PGDIR/data" "$PGDIR/sock"
    chmod 700 "$PGDIR/data"
    "${RUN[@]}" "$BIN/initdb" -D "$PGDIR/data" -U formspec -A trust -E UTF8 --locale=C --no-sync >"$PGDIR/initdb.log"
    # A free loopback port, chosen once and kept with the cluster.
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$PGDIR/port"
fi
PORT="$(cat "$PGDIR/port")"

if ! "${RUN[@]}" "$BIN/pg_ctl" -D "$PGDIR/data" status >/dev/null 2>&1; then
    "${RUN[@]}" "$BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $PORT -k $PGDIR/sock -c fsync=off -c max_connections=300" \
        start >/dev/null
fi

# The database the tests use (each test run works in its own schema inside it).
if ! "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U formspec -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'formspec_registry'" | grep -q 1; then
    "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U formspec -d postgres -qc "CREATE DATABASE formspec_registry" >/dev/null
fi
echo "postgresql://formspec@127.0.0.1:$PORT/formspec_registry" >"$URL_FILE"
echo "20-postgres: PostgreSQL ready at $(cat "$URL_FILE")" >&2
