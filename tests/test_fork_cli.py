"""`formspec-consult --resume ID --fork` / `--continue --fork` and `sessions`, through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from formspec_consult.store.events import load_records
from formspec_consult.store.records import SessionStartedRecord
from tests.e2e.cli import cli_env, run_cli, write_script
from tests.e2e.project import CUSTOMER, DRAFT_PATH

pytestmark = pytest.mark.slow


def sessions_of(project: Path) -> list[str]:
    folder = project / ".formspec" / "consult"
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.exists() else []


def test_fork_without_a_session_to_fork_is_refused_and_writes_nothing(project: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", ["hi"])
    result = run_cli(["-m", f"scripted:{script}", "--fork", "-p", "hello"], project, cli_env(tmp_path))
    assert result.returncode == 2
    assert "--fork needs the session to fork: --resume ID --fork, or --continue --fork" in result.stderr
    assert sessions_of(project) == []


def test_fork_of_a_session_that_does_not_exist_is_refused_and_writes_nothing(project: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", ["Hello."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "hi"], project, env).returncode == 0
    before = sessions_of(project)
    result = run_cli(["-m", f"scripted:{script}", "--resume", "nope", "--fork", "-p", "hi"], project, env)
    assert result.returncode == 2 and "There is no session 'nope'" in result.stderr
    assert sessions_of(project) == before


@pytest.mark.timeout(400)
def test_resume_fork_starts_a_new_session_that_sessions_lists_as_forked(project: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    first = write_script(tmp_path / "a.yaml", [{"tool_calls": [{"name": "propose_spec_file",
                                                              "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]},
                                             "Drafted."])
    assert run_cli(["-m", f"scripted:{first}", "-p", "customers"], project, env).returncode == 0
    (source,) = sessions_of(project)
    source_log = (project / ".formspec" / "consult" / source / "events.jsonl").read_bytes()
    second = write_script(tmp_path / "b.yaml", ["Trying option B."])
    forked = run_cli(["-m", f"scripted:{second}", "--resume", source, "--fork", "-p", "option B", "--json"],
                     project, env)
    assert forked.returncode == 0, forked.stderr
    fork_id = json.loads(forked.stdout.splitlines()[0])["session_id"]
    assert fork_id != source and sorted(sessions_of(project)) == sorted([source, fork_id])
    assert (project / ".formspec" / "consult" / source / "events.jsonl").read_bytes() == source_log
    header = load_records(project / ".formspec" / "consult" / fork_id / "events.jsonl")[0]
    assert isinstance(header, SessionStartedRecord) and (header.forked_from, header.forked_at_turn) == (source, 1)
    rows = {row["id"]: row for row in map(json.loads, run_cli(["sessions", "--json"], project, env).stdout.splitlines())}
    assert (rows[fork_id]["forked_from"], rows[fork_id]["forked_at_turn"]) == (source, 1)
    assert rows[source]["forked_from"] is None
    assert rows[fork_id]["drafts_by_state"] == {"pending": 1} == rows[source]["drafts_by_state"]
    listing = run_cli(["sessions"], project, env).stdout
    assert f"forked from {source} at turn 1" in next(line for line in listing.splitlines() if line.startswith(fork_id))
