"""`replay --check` names where two lines differ and takes `--project .`; the demo leaves nothing behind."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from formspec_consult.cli import cli
from formspec_consult.replay.check import Divergence
from formspec_consult.replay.sources import EXAMPLE_SESSION, bundled_sessions
from tests.helpers import copy_example


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")


def test_a_divergence_shows_both_lines_around_the_first_character_that_differs() -> None:
    same = '{"type": "tool_result", "name": "list_business_templates", ' + "x" * 300
    recorded = same + ' "result": "{\\"count\\": 13}"}'
    replayed = same + ' "result": "{\\"count\\": 0}"}'
    text = Divergence(42, recorded, replayed, 40).describe()
    assert text.startswith("line 42 of events.jsonl (replayed line 40), character") and "count\\\": 13" in text and "count\\\": 0" in text
    lines = text.splitlines()
    caret = next(line for line in lines if line.rstrip().endswith("first difference"))
    replayed_line = next(line for line in lines if line.startswith("  replayed: "))
    column = caret.index("^")
    recorded_line = next(line for line in lines if line.startswith("  recorded: "))
    assert replayed_line[column] == "0" and recorded_line[column] == "1"


def test_replay_check_works_with_the_project_given_as_dot(tmp_path: Path, registry: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    project = copy_example(tmp_path)
    monkeypatch.chdir(project)
    result = CliRunner().invoke(cli, ["replay", EXAMPLE_SESSION, "--check", "--project", "."])
    assert result.exit_code == 0, result.output
    assert "no divergence" in result.output


def test_the_demo_removes_its_temporary_folder_and_says_how_to_keep_one(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    from formspec_consult.commands import demo

    played: list[Path] = []
    monkeypatch.setattr(demo, "run_demo", lambda project, recording, **kw: played.append(project))
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    result = CliRunner().invoke(cli, ["demo"])
    assert result.exit_code == 0, result.output
    assert played and not played[0].exists() and not played[0].parent.exists()
    assert "--dir" in result.output
    kept = tmp_path / "kept"
    result = CliRunner().invoke(cli, ["demo", "--dir", str(kept)])
    assert result.exit_code == 0 and (kept / "barbershop").is_dir()


def _example_session_with(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of the bundled example session whose tool result carrying a `shown` (the model's
    cut view of a long result) is changed by `change`."""
    session = tmp_path / "session"
    shutil.copytree(bundled_sessions() / EXAMPLE_SESSION, session)
    events = session / "events.jsonl"
    lines = events.read_text(encoding="utf-8").splitlines()
    (at,) = [n for n, line in enumerate(lines) if '"shown"' in line]
    event = json.loads(lines[at])
    assert event["type"] == "tool_result"
    change(event)
    lines[at] = json.dumps(event, ensure_ascii=False)
    events.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return session


@pytest.mark.parametrize(("change", "diverges"), [
    (lambda event: event.pop("shown"), False),  # recorded before the field existed: not compared
    (lambda event: event.update(shown=event["shown"] + " (changed)"), True),  # recorded: compared
])
def test_replay_check_compares_an_optional_field_only_where_the_recording_has_it(
        tmp_path: Path, registry: None, change: Callable[[dict[str, Any]], None], diverges: bool) -> None:
    session = _example_session_with(tmp_path, change)
    result = CliRunner().invoke(cli, ["replay", str(session), "--check"])
    if diverges:
        assert result.exit_code == 1 and "DIVERGED" in result.output and "(changed)" in result.output, result.output
    else:
        assert result.exit_code == 0 and "no divergence" in result.output, result.output
