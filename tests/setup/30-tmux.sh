#!/usr/bin/env bash
# Installs tmux for the terminal smoke test (tests/tui/test_tmux_smoke.py), which starts the real
# app in a tmux pane and reads the screen with capture-pane. Idempotent: a no-op when tmux is
# there. Without a package manager it only says so; that test then skips, naming why.
set -euo pipefail

if command -v tmux >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then
    SUDO="sudo -n"
fi
if command -v apt-get >/dev/null 2>&1; then
    echo "30-tmux: installing tmux with apt-get" >&2
    $SUDO apt-get install -y -q tmux >/dev/null 2>&1 || { $SUDO apt-get update -q >/dev/null 2>&1 && $SUDO apt-get install -y -q tmux >/dev/null; } \
        || echo "30-tmux: could not install tmux; the tmux smoke test will be skipped." >&2
elif command -v brew >/dev/null 2>&1; then
    brew install tmux || echo "30-tmux: could not install tmux; the tmux smoke test will be skipped." >&2
else
    echo "30-tmux: no apt-get or brew; the tmux smoke test will be skipped." >&2
fi
exit 0
