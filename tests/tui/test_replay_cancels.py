"""Replay of a session with a cancelled turn (Esc), apply/undo/reject and /compact: `--check` finds
no divergence and names the line of events.jsonl when there is one, its verdict on stdout; the
app's replay says "You cancelled" for the cancelled turn only."""

from __future__ import annotations

import json
from contextlib import aclosing
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.cli import cli
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers.scripted import ScriptedProvider
from formspec_consult.replay.recorded_engine import RecordedEngine
from formspec_consult.replay.recording import load
from formspec_consult.store.agent_events import TurnStarted
from formspec_consult.tui.replay.player import PlayerApp
from formspec_consult.tui.widgets.conversation import ConversationView
from tests.helpers import copy_example
from tests.tui.conftest import SIZE, wait_until
from tests.tui.test_tmux_permission import DRAFT, SUPPLIER


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(project, session folder) of a session: a turn, a turn cancelled as Esc cancels it, a draft,
    /apply, /undo, /reject, /compact and a last turn."""
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    project = copy_example(tmp_path)
    return project, anyio.run(record, project)


async def record(project: Path) -> Path:
    replies = ["What do you sell?",
               {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT, "content": SUPPLIER}}]},
               "Drafted the supplier.", "Noted.", "Noted too.",
               "## Goal\nSupplier records",  # /compact's summary request
               "You are welcome."]
    engine = await Engine.open(EngineOptions(project=project, provider=ScriptedProvider(replies),
                                             in_memory_server=True, servers=server_specs))
    try:
        for text in ["hello", "never mind", "we buy from suppliers", "we sell hair products", "and gift cards",
                     f"/apply {DRAFT}", "/undo", f"/reject {DRAFT}", "/compact", "thanks"]:
            async with aclosing(engine.run_turn(text)) as events:
                async for event in events:
                    if text == "never mind" and isinstance(event, TurnStarted):
                        break  # the app's Esc: the turn's generator is closed
        return engine.session_dir
    finally:
        await engine.aclose()


def kinds(folder: Path) -> list[str]:
    return [json.loads(line)["type"] for line in (folder / "events.jsonl").read_text().splitlines()]


def test_a_cancelled_turn_review_actions_and_a_compaction_replay_without_divergence(
        recorded: tuple[Path, Path]) -> None:
    project, folder = recorded
    steps = load(folder).steps
    assert [(s.text, s.cancelled) for s in steps if s.kind == "say"] == [
        ("hello", False), ("never mind", True), ("we buy from suppliers", False), ("we sell hair products", False),
        ("and gift cards", False), ("thanks", False)]
    assert {"apply", "undo", "reject", "command", "compaction"} <= set(kinds(folder))
    result = CliRunner().invoke(cli, ["replay", str(folder), "--check", "--project", str(project)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ok: 10 steps replayed, no divergence")


def test_a_divergence_names_the_line_of_events_jsonl_on_stdout(recorded: tuple[Path, Path]) -> None:
    project, folder = recorded
    log = folder / "events.jsonl"
    lines = log.read_text().splitlines()
    number = next(n for n, line in enumerate(lines, 1) if json.loads(line)["type"] == "tool_result")
    lines[number - 1] = lines[number - 1].replace('"ok":true', '"ok":false')
    log.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["replay", str(folder), "--check", "--project", str(project)])
    assert result.exit_code == 1
    assert result.stdout.startswith(f"DIVERGED at line {number} of events.jsonl")
    assert '"ok": false' in result.stdout and '"ok": true' in result.stdout
    assert "DIVERGED" not in result.stderr


@pytest.mark.anyio
async def test_the_app_replay_says_cancelled_only_for_the_cancelled_turn(recorded: tuple[Path, Path]) -> None:
    _, folder = recorded
    engine = RecordedEngine(load(folder), speed=0)

    async def factory(resume: str | None, *, model: str | None = None) -> RecordedEngine:
        return engine

    app = PlayerApp(factory, engine.recording.steps, speed=0, review_hold=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.done, timeout=60)
        texts = [getattr(b, "text", "") for b in app.query_one(ConversationView).blocks]
    assert texts.count("You cancelled the turn (Esc).") == 1
    cancelled = texts.index("You cancelled the turn (Esc).")
    assert texts[cancelled - 1] == "never mind"
    assert any("Rejected" in t for t in texts[cancelled:]) and texts[-1] == "You are welcome."


def test_the_cli_diff_lists_a_rejected_draft_as_the_pane_does_and_says_how_it_comes_back(
        recorded: tuple[Path, Path]) -> None:
    project, folder = recorded
    result = CliRunner().invoke(cli, ["--project", str(project), "diff", "--session", folder.name])
    assert result.exit_code == 0, result.output
    assert "No drafts under review" in result.stdout and f"{DRAFT}  [rejected]" in result.stdout
    assert "comes back when the consultant proposes it again" in result.stderr
