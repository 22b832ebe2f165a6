"""Shared helpers of the tmux tests: the real app in a real terminal, read with `capture-pane`.

Every tmux command goes through `Pane.tmux`, so how the tests reach the tmux server is said in
one place: each app gets a tmux server of its own on a private socket (`tmux -L <unique>`, no
user config), never the default server a person or another test run is using, and that server
is killed on the way out whatever happened. tmux comes from tests/setup/30-tmux.sh.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEEDS_TMUX = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (tests/setup/30-tmux.sh)")


def wait_for(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """Poll a condition on another process, bounded; fail naming what never happened."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.1)  # another process is working; there is nothing to await in-process


@contextmanager
def fake_openai_server(script: Path) -> Iterator[str]:
    """Run tests/fakes/openai_server.py as a process replaying `script`; yield its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.openai_server", "--script", str(script), "--port", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/v1)", line)
        assert match, f"the fake server did not report its address: {line!r}"
        yield match.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def app_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of an app under test: no API keys, home/config/registry inside tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               FORMSPEC_REGISTRY_DB=f"sqlite:///{tmp_path / 'registry.db'}", TERM="xterm-256color",
               PYTHONPATH=str(ROOT), **extra)
    return env


def consult_binary() -> str:
    """The `formspec-consult` of this virtualenv (PATH's when there is none beside the interpreter)."""
    return shutil.which("formspec-consult", path=str(Path(sys.executable).parent)) or "formspec-consult"


class Pane:
    """One tmux session running one command, on a tmux server of its own: type into it, read its screen."""

    def __init__(self, name: str, socket: str | None = None) -> None:
        self.name = name
        self.socket = socket or name  # `tmux -L`: a private server, not the user's default one

    def tmux(self, *args: str, check: bool = False, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        command = ["tmux", "-L", self.socket, "-f", os.devnull, *args]
        return subprocess.run(command, capture_output=True, text=True, check=check, env=env)

    def kill_server(self) -> None:
        """End the private tmux server and everything running in it."""
        self.tmux("kill-server")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name).stdout

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys, check=True)

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", self.name).returncode == 0

    def quit(self, what: str = "the app to quit on ctrl+q") -> None:
        """Press ctrl+q and wait for the session to end with the app."""
        self.send("C-q")
        wait_for(lambda: not self.alive(), 30, what)


@contextmanager
def tmux_app(prefix: str, command: str, *, env: dict[str, str], size: tuple[int, int],
             cwd: Path | None = None, keep_after_exit: bool = False) -> Iterator[Pane]:
    """Start `command` in a detached tmux session of `size` (columns, rows) on a private tmux
    server; kill that server on the way out. `keep_after_exit`: the pane (and what the command
    printed last) stays readable after the command ends, instead of the session ending with it."""
    name = f"{prefix}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    pane = Pane(name, socket=f"fsc-test-{name}")
    where = ["-c", str(cwd)] if cwd is not None else []
    # set before the session exists: a command that ends at once must not take its output with it
    keep = ["start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";"] if keep_after_exit else []
    try:
        pane.tmux(*keep, "new-session", "-d", "-s", pane.name, "-x", str(size[0]), "-y", str(size[1]), *where,
                  command, check=True, env=env)
        yield pane
    finally:
        pane.kill_server()
