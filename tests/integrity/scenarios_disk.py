"""Disk and file-system faults: a full disk during an event append, a read-only project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from formspec_consult.store.events import EventLog, load_events
from tests.e2e.cli import cli_env, run_cli, write_script
from tests.e2e.project import make_project
from tests.integrity.scenarios import Observed, scenario


def _strict_read(path: Path) -> str:
    try:
        load_events(path)
    except Exception as exc:  # noqa: BLE001 - what a reader meets is the observation
        return f"refused: {exc}"
    return "ok"


@scenario
def event_append_on_a_full_disk(request: pytest.FixtureRequest) -> Observed:
    """An event bigger than the space left: the append fails whole, and the log goes on after."""
    disk = request.getfixturevalue("small_disk")
    path = disk.path / "session" / "events.jsonl"
    log = EventLog(path)
    log.append("notice", level="info", message="before the disk filled")
    size_before = path.stat().st_size
    disk.fill()
    error: Any = None
    try:
        log.append("notice", level="info", message="x" * 20_000)  # spans several free-less pages
    except OSError as exc:
        error = exc
    size_after_failure = path.stat().st_size
    disk.free()
    log.append("notice", level="info", message="after space returned")
    log.close()
    return {
        "error": str(error),
        "error_is_one_line": error is not None and "\n" not in str(error),
        "log_unchanged_by_failed_append": size_after_failure == size_before,
        "strict_read": _strict_read(path),
        "seqs": [event["seq"] for event in load_events(path)],
    }


def _project_on(disk_path: Path) -> Path:
    return make_project(disk_path / "shop")


@scenario
def headless_turn_on_a_full_disk(request: pytest.FixtureRequest) -> Observed:
    """A real `formspec-consult -p` whose reply does not fit on the disk, then --resume after space returns."""
    disk = request.getfixturevalue("small_disk")
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = _project_on(disk.path)
    env = cli_env(tmp_path)
    disk.fill(leave_bytes=300_000)
    huge = "This reply is far longer than the disk has room for. " * 11_000  # ≈ 600 kB > 300 kB left
    script = write_script(tmp_path / "huge.yaml", [huge])
    first = run_cli(["-m", f"scripted:{script}", "-p", "hello"], project, env)
    (folder,) = [p for p in (project / ".formspec" / "consult").iterdir() if p.is_dir()]
    strict_while_full = _strict_read(folder / "events.jsonl")
    disk.free()
    again = write_script(tmp_path / "again.yaml", ["Back again."])
    second = run_cli(["-m", f"scripted:{again}", "--resume", folder.name, "-p", "still there?"], project, env)
    events = load_events(folder / "events.jsonl")
    finished = {e.get("turn"): e.get("error") for e in events if e["type"] == "turn_finished"}
    return {
        "first_exit": first.returncode,
        "first_error": first.stderr,
        "traceback": "Traceback" in first.stderr or "Traceback" in second.stderr,
        "strict_read_while_full": strict_while_full,
        "second_exit": second.returncode,
        "second_reply": second.stdout.strip(),
        "turn_1_closed": finished.get(1),
        "strict_read_after": _strict_read(folder / "events.jsonl"),
    }


@scenario
def headless_in_a_read_only_project(request: pytest.FixtureRequest) -> Observed:
    """`formspec-consult -p` in a project on a read-only file system: the setup message, exit 2."""
    disk = request.getfixturevalue("small_disk")
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = _project_on(disk.path)
    disk.read_only()
    script = write_script(tmp_path / "s.yaml", ["hi"])
    result = run_cli(["-m", f"scripted:{script}", "-p", "hello"], project, cli_env(tmp_path))
    serve = run_cli(["mcp-serve", "--project", str(project)], project, cli_env(tmp_path), stdin="")
    disk.read_only(False)
    return {
        "exit": result.returncode,
        "message": result.stderr.strip(),
        "traceback": "Traceback" in result.stderr,
        "serve_exit": serve.returncode,
        "serve_message": serve.stderr.strip(),
        "serve_traceback": "Traceback" in serve.stderr,
    }


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]
