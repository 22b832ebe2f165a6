"""@modelcontextprotocol/server-everything (installed by tests/setup/12-server-everything.sh):
where it is, and running its HTTP modes on a free loopback port."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / "tests" / ".tools" / "node_modules" / "@modelcontextprotocol" / "server-everything"
ENTRY = EVERYTHING / "dist" / "index.js"


def entry() -> Path:
    """The server's entry script; skips without npm, fails (naming the script) when not installed."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm/node are not installed, so server-everything cannot be installed")
    if not ENTRY.exists():
        pytest.fail("server-everything missing: run `bash tests/setup/12-server-everything.sh` (make test does)")
    return ENTRY


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EverythingHttp:
    """`node index.js streamableHttp|sse` on one loopback port; `restart()` keeps the port."""

    def __init__(self, mode: str) -> None:
        self.mode, self.port = mode, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["node", str(entry()), self.mode],
            env={**os.environ, "PORT": str(self.port)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # bounded: until it accepts connections
            if self.process.poll() is not None:
                raise RuntimeError(f"server-everything {self.mode} exited with {self.process.returncode}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"server-everything {self.mode} did not listen on {self.port} within 30 s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)

    def restart(self) -> None:
        self.stop()
        self.start()
