"""The review commands a person runs without the TUI: reject with a reason (more follow)."""

from __future__ import annotations

from pathlib import Path

from formspec_consult.store.events import EventLog
from tests.e2e.cli import cli_env, run_cli, write_script
from tests.e2e.project import DRAFT_PATH
from tests.test_headless import propose_turn


def session_log(project: Path) -> Path:
    [log] = (project / ".formspec" / "consult").glob("*/events.jsonl")
    return log


def test_reject_with_a_reason_says_so_and_logs_the_reason_for_the_consultant(project: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", [propose_turn(), "Drafted."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "customers"], project, env).returncode == 0
    result = run_cli(["reject", DRAFT_PATH, "--reason", "we do not store phone numbers"], project, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"Rejected {DRAFT_PATH}; 0 drafts left.",
                                          'The consultant is told why on its next turn: "we do not store phone numbers".']
    rejects = [r for r in EventLog.records(session_log(project)) if r.type == "reject"]
    assert [(r.path, r.reason) for r in rejects] == [(DRAFT_PATH, "we do not store phone numbers")]


def test_a_reason_too_long_to_tell_is_refused_and_the_draft_stays(project: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", [propose_turn(), "Drafted."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "customers"], project, env).returncode == 0
    result = run_cli(["reject", DRAFT_PATH, "--reason", "x" * 2001], project, env)
    assert result.returncode == 1 and "say it in at most 2,000" in result.stderr
    assert not [r for r in EventLog.records(session_log(project)) if r.type == "reject"]
    listed = run_cli(["diff"], project, env)
    assert DRAFT_PATH in listed.stdout
