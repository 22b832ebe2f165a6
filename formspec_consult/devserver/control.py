"""Start, stop and watch the dev server in its own process group.

Output goes to ``.formspec/consult/server.log``; ``.formspec/consult/server.pid`` records the
process so a later server instance can still report on it and stop it. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from formspec_consult.devserver.config import DevConfig

POLL_INTERVAL = 0.05
# One health request. A refused connection answers at once; only a server that is up but slow
# (a loaded machine) takes longer, and it must not be reported unreachable for it.
PROBE_TIMEOUT = 2.0


class DevServerError(RuntimeError):
    """The dev server cannot be started or controlled; the message says what to do."""


class DevServer:
    """The dev server of one project."""

    def __init__(self, project_root: Path, consult_dir: Path, config: DevConfig) -> None:
        self.root = project_root
        self.config = config
        self.log_path = consult_dir / "server.log"
        self.pid_path = consult_dir / "server.pid"
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def started_here(self) -> bool:
        """Whether this instance started the dev server that is (or was) running."""
        return self._proc is not None

    # -- queries -------------------------------------------------------------------------
    def pid(self) -> int | None:
        """The pid of the running dev server, or None."""
        if self._proc is not None:
            return self._proc.pid if self._proc.poll() is None else None
        try:
            info = json.loads(self.pid_path.read_text(encoding="utf-8"))
            pid, pgid = int(info["pid"]), int(info["pgid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        try:
            # Same process group as recorded: guards against a recycled pid.
            return pid if os.getpgid(pid) == pgid and not _is_zombie(pid) else None
        except ProcessLookupError:
            return None

    def health(self, timeout: float = PROBE_TIMEOUT) -> str:
        """``ok``, ``unhealthy (HTTP <code>)`` or ``unreachable``."""
        import httpx  # here: every local server start loads this module, few ask for the dev server

        try:
            with httpx.Client(timeout=timeout, trust_env=False) as client:
                response = client.get(self.config.health_url)
        except httpx.HTTPError:
            return "unreachable"
        return "ok" if response.status_code < 400 else f"unhealthy (HTTP {response.status_code})"

    def status(self) -> dict[str, Any]:
        """``{running, pid, health, managed, health_url, command, log}``.

        ``managed`` is False for a server someone started by hand (it answers on the health URL
        but has no pid file): it is reported as running, and stop/restart cannot control it.
        """
        pid = self.pid()
        health = self.health()
        return {
            "running": pid is not None or health != "unreachable",
            "pid": pid,
            "health": health if pid is not None or health != "unreachable" else "stopped",
            "managed": pid is not None,
            "health_url": self.config.health_url,
            "command": list(self.config.command),
            "log": str(self.log_path),
        }

    # -- control -------------------------------------------------------------------------
    def start(self) -> dict[str, Any]:
        """Start the command and wait (bounded) until the health URL answers."""
        if self.pid() is not None:
            raise DevServerError("The dev server is already running; use restart_server to restart it.")
        program = self.config.command[0]
        if shutil.which(program, path=os.environ.get("PATH")) is None and not Path(program).is_file():
            raise DevServerError(
                f"Cannot start the dev server: {program!r} was not found on PATH "
                f"(command from {self.config.source}: {' '.join(self.config.command)}). Install the "
                "FormSpec CLI, or set FORMSPEC_DEV_COMMAND / consult.dev_command in formspec-app.yaml."
            )
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            log.write(f"\n--- starting: {' '.join(self.config.command)} ---\n".encode())
            log.flush()
            self._proc = subprocess.Popen(
                list(self.config.command),
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        info = {"pid": self._proc.pid, "pgid": self._proc.pid, "command": list(self.config.command)}
        self.pid_path.write_text(json.dumps(info), encoding="utf-8")
        return self._wait_healthy()

    def _wait_healthy(self) -> dict[str, Any]:
        """Poll the health URL until it says ok, within two bounds: ``start_timeout`` for the server
        to answer at all (a loaded machine starts it slowly), then ``settle_timeout`` from its first
        answer for a server that answers "not healthy" to become healthy. So an unhealthy server is
        reported as such however long the machine took to start it."""
        assert self._proc is not None
        deadline = time.monotonic() + self.config.start_timeout
        answered = False  # once the server answers, the settle bound replaces the start bound
        health = "unreachable"
        while True:
            code = self._proc.poll()
            if code is not None:
                self._forget()
                raise DevServerError(
                    f"The dev server exited with code {code} while starting. Last log lines:\n{self.tail()}"
                )
            health = self.health()
            if health == "ok":
                break
            if health != "unreachable" and not answered:
                answered, deadline = True, time.monotonic() + self.config.settle_timeout
            if time.monotonic() >= deadline:
                break
            time.sleep(POLL_INTERVAL)
        return {
            "started": True,
            "pid": self._proc.pid,
            "health": health,
            "health_url": self.config.health_url,
        }

    def stop(self) -> dict[str, Any]:
        """End the whole process group: SIGTERM, then SIGKILL after ``stop_timeout``."""
        pid = self.pid()
        if pid is None:
            self._forget()
            if self.health() != "unreachable":
                return {
                    "stopped": False,
                    "reason": (
                        f"A dev server answers on {self.config.health_url} but was not started by "
                        "formspec-consult (no pid file); stop it where it was started."
                    ),
                }
            return {"stopped": False, "reason": "The dev server is not running."}
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGTERM)
        forced = not self._wait_gone(pid, self.config.stop_timeout)
        if forced:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            self._wait_gone(pid, 2.0)
        self._forget()
        return {"stopped": True, "pid": pid, "forced": forced}

    def _wait_gone(self, pid: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc is not None and self._proc.pid == pid:
                if self._proc.poll() is not None and not _group_alive(pid):
                    return True
            elif not _group_alive(pid):
                return True
            time.sleep(POLL_INTERVAL)
        return False

    def _forget(self) -> None:
        if self._proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=0.1)
        self._proc = None
        with contextlib.suppress(FileNotFoundError):
            self.pid_path.unlink()

    def tail(self, lines: int = 20) -> str:
        """The last lines of the dev-server log."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])


def _is_zombie(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is left in process group ``pgid``."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    # killpg also succeeds for zombies, which another parent may not have reaped yet: look closer.
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False
