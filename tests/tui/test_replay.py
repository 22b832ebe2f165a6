"""Replay (read-only playback, --check) and the offline demo, over the bundled example session."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from formspec_consult.cli import cli
from formspec_consult.commands.wiring import server_specs
from formspec_consult.replay.check import check
from formspec_consult.replay.recorded_engine import RecordedEngine
from formspec_consult.replay.recording import RecordingError, load
from formspec_consult.replay.sources import EXAMPLE_SESSION, bundled_sessions
from formspec_consult.resources import package_path
from formspec_consult.store.review_flow import ReviewFlow
from formspec_consult.tui.replay.player import PlayerApp
from formspec_consult.tui.widgets.assistant_block import AssistantBlock
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput
from formspec_consult.tui.widgets.tool_call_entry import ToolCallEntry
from formspec_consult.tui.widgets.tool_calls import ToolCallsPane
from tests.helpers import copy_example
from tests.tui.conftest import SIZE, notices, opened, wait_until, widget_text

DRAFT = "modules/booking/transaction/queue_ticket/entity.yaml"


@pytest.fixture
def example() -> Path:
    return bundled_sessions() / EXAMPLE_SESSION


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")


def test_the_example_recording_reads_as_the_owners_steps(example: Path) -> None:
    steps = load(example).steps
    assert [s.kind for s in steps] == ["say", "say", "say", "command", "apply", "undo"]
    assert [s.text for s in steps[1:3]] == ["B", "A"]  # picked options, as typed
    assert steps[3].text == "/diff"  # logged by the engine as a `command` event
    assert steps[4].text == f"/apply {DRAFT}"


def test_a_folder_without_a_log_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match=r"give a session folder that holds events.jsonl"):
        load(tmp_path)


@pytest.mark.anyio
async def test_replay_plays_the_recording_read_only_with_its_tool_calls_and_drafts(example: Path) -> None:
    recording = load(example)
    engine = RecordedEngine(recording, speed=0)

    async def factory(resume: str | None, *, model: str | None = None) -> RecordedEngine:
        return engine

    app = PlayerApp(factory, recording.steps, autoplay=False, speed=0)
    async with app.run_test(size=SIZE) as pilot:
        assert app.query_one(PromptInput).disabled
        await wait_until(pilot, lambda: app.session_shown)
        for played in (1, 2, 3):  # the three conversation turns, stepped with `n`
            await pilot.press("n")
            def played_to(step: int = played) -> bool:
                return engine.position == step and not app._turn_running()

            await wait_until(pilot, played_to)
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT])
        assert pane.drafts[0].valid and "+    - {name: status, type: enum" in pane.drafts[0].diff
        await pilot.press("space")
        await wait_until(pilot, lambda: app.done, timeout=30)
        # Applied, then undone: the draft is back for review as the local server puts it, with its diff.
        await wait_until(pilot, lambda: [(d.path, d.badges) for d in pane.drafts] == [(DRAFT, ("new", "undone"))])
        assert "+    - {name: status, type: enum" in pane.drafts[0].diff
        replies = [b.text for b in app.query_one(ConversationView).blocks if isinstance(b, AssistantBlock)]
        assert len(replies) == 3 and "Numbered tickets it is." in replies[1]
        calls = app.query_one(ToolCallsPane).query(ToolCallEntry)
        assert [c.tool_name for c in calls] == ["list_business_templates", "propose_spec_file", "propose_spec_file"]
        assert f"Applied {DRAFT} (recorded)." in [getattr(b, "text", "") for b in app.query_one(ConversationView).blocks]
        await pilot.press("a")  # a review key in a replay is refused, and nothing is written
        app.query_one(DiffPane).post_message(DiffPane.ActionRequested("undo", None))
        await wait_until(pilot, lambda: any("read-only replay" in n for n in notices(app)))


@pytest.mark.anyio
async def test_replay_steps_one_at_a_time_when_paused(example: Path) -> None:
    recording = load(example)
    engine = RecordedEngine(recording, speed=0)

    async def factory(resume: str | None, *, model: str | None = None) -> RecordedEngine:
        return engine

    app = PlayerApp(factory, recording.steps, autoplay=False, speed=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session_shown)
        await pilot.press("n")
        await wait_until(pilot, lambda: engine.position == 1 and not app._turn_running())
        assert app.next_step == 1 and "paused" in app.sub_title
        await pilot.press("plus")
        assert app.speed == 0.5 and engine.speed == 0.5  # from 0, the step after the slowest
        await pilot.press("minus", "minus")
        assert app.speed == 0.25 and "×0.25" in app.sub_title


@pytest.mark.anyio
async def test_replay_check_passes_on_the_example_and_reports_a_changed_result(
    example: Path, tmp_path: Path, registry: None
) -> None:
    project = package_path("examples", "barbershop")
    divergence, steps = await check(load(example), project, server_specs)
    assert divergence is None and steps == 6

    tampered = tmp_path / "tampered"
    shutil.copytree(example, tampered)
    log = tampered / "events.jsonl"
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    for event in lines:
        if event.get("type") == "tool_result" and event.get("name") == "list_business_templates":
            event["result"] = '{"count": 0, "templates": []}'
    log.write_text("".join(json.dumps(e) + "\n" for e in lines), encoding="utf-8")
    divergence, _ = await check(load(tampered), project, server_specs)
    assert divergence is not None and "list_business_templates" in divergence.recorded


def test_replay_check_command_says_ok_and_names_a_missing_session(registry: None) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["replay", EXAMPLE_SESSION, "--check"])
    assert result.exit_code == 0, result.output
    assert "no divergence" in result.output
    missing = runner.invoke(cli, ["replay", "no-such-session", "--check"])
    assert missing.exit_code == 1 and "No session 'no-such-session'" in missing.output


@pytest.mark.anyio
async def test_the_demo_applies_and_undoes_for_real_on_a_copy_of_the_example(
    example: Path, tmp_path: Path, registry: None
) -> None:
    from formspec_consult.commands.launch import engine_factory_for
    from formspec_consult.providers import ReplayProvider

    project = copy_example(tmp_path)
    recording = load(example)
    provider = ReplayProvider.from_events(recording.raw)
    factory = engine_factory_for({"project": str(project)}, provider=provider, in_memory_server=True, preload=())
    app = PlayerApp(factory, recording.steps, speed=0)
    target = project / "spec" / DRAFT
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.done, timeout=60)
        assert app.engine is not None and app.engine.provider_name == "replay"
        log = [json.loads(line) for line in (app.engine.session_dir / "events.jsonl").read_text().splitlines()]
        done = [(e["type"], e.get("path")) for e in log if e["type"] in {"apply", "undo"}]
        assert done == [("apply", DRAFT), ("undo", DRAFT)]  # the local server really applied and undid
        assert not target.exists()  # the exact state before the apply: no such file
        results = [c for c in app.query_one(ToolCallsPane).query(ToolCallEntry) if c.tool_name == "propose_spec_file"]
        assert [c.status for c in results] == ["refused", "ok"]  # the gate refused the first draft, passed the second


@pytest.mark.anyio
async def test_the_demo_holds_at_the_review_step_showing_the_passed_draft_and_lets_the_viewer_accept_it(
    example: Path, tmp_path: Path, registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from formspec_consult.commands.launch import engine_factory_for
    from formspec_consult.providers import ReplayProvider
    from formspec_consult.tui.replay import player

    # No reading pauses; the review hold of the demo ends only when the viewer acts.
    monkeypatch.setattr(player, "reading_seconds", lambda step: 0.0)
    monkeypatch.setattr(player, "INTRO_S", 0.0)
    project = copy_example(tmp_path)
    recording = load(example)
    factory = engine_factory_for({"project": str(project)}, provider=ReplayProvider.from_events(recording.raw),
                                 in_memory_server=True, preload=())
    app = PlayerApp(factory, recording.steps, speed=1.0, review_hold=None)
    target = project / "spec" / DRAFT
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.holding, timeout=60)
        assert "goes on in" not in str(app.query_one(PromptInput).placeholder)  # no countdown: it waits
        pane = app.query_one(DiffPane)
        # The draft that passed the gate is listed with its badge, selected, its diff highlighted.
        await wait_until(pilot, lambda: [(d.path, d.badges) for d in pane.drafts] == [(DRAFT, ("new",))])
        assert "[new]" in widget_text(pane.query_one("#draft-list"))
        view = pane.query_one("#diff-view")
        added = [s for s in view.render_lines(view.size.region) if s.text.lstrip().startswith("+apiVersion")]
        assert added and any(seg.style and seg.style.color for seg in added[0])  # coloured by the diff lexer
        assert app.focused is pane.query_one("#draft-list")
        assert "press a to accept this draft, or space to continue" in str(app.query_one(PromptInput).placeholder)
        await pilot.press("a")  # the viewer accepts it: applied for real, the recorded apply is skipped
        await wait_until(pilot, lambda: app.done, timeout=60)
        assert any(n.startswith(f"You applied {DRAFT} yourself") for n in notices(app))
        assert not target.exists()  # the recorded /undo undid the viewer's apply
        await wait_until(pilot, lambda: [(d.path, d.status, d.state) for d in pane.drafts] == [(DRAFT, "new", "undone")])
        log = [json.loads(line) for line in (opened(app).session_dir / "events.jsonl").read_text().splitlines()]
        assert [(e["type"], e.get("path")) for e in log if e["type"] in {"apply", "undo"}] == [("apply", DRAFT), ("undo", DRAFT)]
        assert [e["name"] for e in log if e["type"] == "command"] == ["diff"]  # /diff, shown in the pane, is logged


@pytest.mark.anyio
async def test_playback_goes_on_under_the_help_screen_and_counts_down_the_review_hold(
    example: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from formspec_consult.tui.replay import player
    from formspec_consult.tui.screens.text_screen import TextScreen

    monkeypatch.setattr(player, "reading_seconds", lambda step: 0.0)
    monkeypatch.setattr(player, "INTRO_S", 0.0)
    recording = load(example)
    engine = RecordedEngine(recording, speed=0)

    async def factory(resume: str | None, *, model: str | None = None) -> RecordedEngine:
        return engine

    app = PlayerApp(factory, recording.steps, speed=1.0, review_hold=600.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.holding, timeout=60)
        main = app.screen
        app.push_screen(TextScreen("Help", "the viewer opened /help from the palette"))
        await wait_until(pilot, lambda: app.screen is not main)
        prompt = main.query_one(PromptInput)
        prompt.placeholder = ""
        # The playback clock belongs to the main screen and keeps running under the help screen:
        # the countdown reaches the main screen's input, not a query on the help screen.
        await wait_until(pilot, lambda: "goes on in" in str(prompt.placeholder), timeout=30)
        assert app.is_running and app.return_code is None
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is main)
        await pilot.press("space")  # go on from the review hold
        await wait_until(pilot, lambda: app.done, timeout=60)


def test_playback_waits_longer_after_longer_replies_and_the_demo_lasts_about_two_minutes(example: Path) -> None:
    from formspec_consult.replay.pacing import MIN_READ_S, reading_seconds, scaled, total_seconds
    from formspec_consult.replay.recording import Step
    from formspec_consult.store.agent_events import AssistantMessage

    short, long = Step("hi", "say", [AssistantMessage("Yes.")]), Step("hi", "say", [AssistantMessage("word " * 90)])
    assert reading_seconds(short) == MIN_READ_S and reading_seconds(long) > 3 * MIN_READ_S
    assert scaled(20.0, 4.0) == 5.0 and scaled(20.0, 0) == 0.0
    assert 90 <= total_seconds(load(example).steps) <= 150


@pytest.mark.anyio
async def test_the_replay_engines_review_answers_read_with_the_servers_records_at_every_step(example: Path) -> None:
    recording = load(example)
    engine = RecordedEngine(recording, speed=0)
    flow = ReviewFlow(engine.call_tool)
    seen: list[tuple[str, tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]] = []
    while not engine.finished:
        kind = recording.steps[engine.position].kind
        async for _ in engine.run_turn(""):
            pass
        listing, diffs = await flow.overview(), await flow.diffs()  # refused if a field drifted
        assert [d.path for d in diffs] == [d.path for d in listing.drafts]
        assert all(row.problems == len(d.problems) for row, d in zip(listing.drafts, diffs, strict=True))
        seen.append((kind, tuple((d.path, d.state) for d in listing.drafts),
                     tuple((s.path, s.state) for s in listing.settled)))
    assert seen[-3:] == [
        ("command", ((DRAFT, "pending"),), ()),
        ("apply", (), ((DRAFT, "applied"),)),
        ("undo", ((DRAFT, "undone"),), ()),  # back for review, as the local server puts it
    ]
    with pytest.raises(PermissionError, match="read-only replay"):
        await flow.apply(DRAFT)
