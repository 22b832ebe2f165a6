"""The app's start over the real Engine: the model's warm-up runs off the event loop while the
servers start, the status bar says connecting → loading the session → ready in that order — ready
before the model layer has loaded — and what the person types meanwhile is sent once it has."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers.base import ProviderError
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.assistant_block import AssistantBlock
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.prompt_input import PromptInput
from formspec_consult.tui.widgets.status_bar import StatusBar, StatusInfo, render_status
from tests.e2e.project import make_project
from tests.helpers import HeldWarmUp
from tests.tui.conftest import SIZE, wait_until

pytestmark = pytest.mark.anyio


def app_over_the_real_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: HeldWarmUp) -> ConsultApp:
    """The app over the real Engine (servers in-process) for a fresh project, with `provider`."""
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    project = make_project(tmp_path / "shop")
    return ConsultApp(engine_factory_for({"project": str(project)}, provider=provider, in_memory_server=True, preload=()))


async def test_the_app_says_ready_while_the_model_warms_up_and_sends_what_was_typed_once_it_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = HeldWarmUp(["Hello! What do you sell?"])
    app = app_over_the_real_engine(tmp_path, monkeypatch, provider)
    states: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        bar = app.query_one(StatusBar)

        def seen(info: StatusInfo) -> None:
            if not states or states[-1] != info.state:
                states.append(info.state)

        app.watch(bar, "info", seen, init=True)
        await wait_until(pilot, provider.warming.is_set, timeout=60)
        # The warm-up blocks its thread, not the app: the servers come up, the session is shown
        # and the bar says ready, the model marked as still starting.
        await wait_until(pilot, lambda: bar.info.state == "ready", timeout=60)
        assert app.engine is not None and bar.info.loading
        assert "(starting…)" in render_status(bar.info)
        # What the person sends meanwhile is queued (and said so), not sent.
        app.query_one(PromptInput).focus()
        await pilot.press(*"hi", "enter")
        await wait_until(pilot, lambda: app.queued == ["hi"])
        blocks = app.query_one(ConversationView)
        assert any("Queued until the consultant is connected: hi" in getattr(b, "text", "") for b in blocks.blocks)
        assert not provider.requests

        provider.release.set()
        await wait_until(
            pilot, lambda: any(isinstance(b, AssistantBlock) and "What do you sell" in b.text for b in blocks.blocks),
            timeout=60,
        )
        assert not bar.info.loading and bar.info.window_tokens > 0  # the model's figures joined the bar
    assert states[:3] == ["connecting…", "loading the session…", "ready"]
    assert provider.requests and provider.requests[0][-1] == {"role": "user", "content": "hi"}


async def test_quitting_a_new_session_before_its_model_has_loaded_leaves_nothing_and_promises_no_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = HeldWarmUp(["never said"])
    app = app_over_the_real_engine(tmp_path, monkeypatch, provider)
    try:
        async with app.run_test(size=SIZE) as pilot:
            bar = app.query_one(StatusBar)
            await wait_until(pilot, lambda: bar.info.state == "ready", timeout=60)
            assert app.engine is not None and bar.info.loading
            session_dir = app.engine.session_dir
            assert app.resume_hint() is None  # nothing of it would be left to resume
            await pilot.press("ctrl+q")
        assert not session_dir.exists() and app.resume_hint() is None
    finally:
        provider.release.set()


async def test_a_model_refused_after_ready_is_said_and_the_new_session_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = HeldWarmUp(["never said"], refuse=ProviderError("the model cannot call tools", hint="pick a model that can"))
    app = app_over_the_real_engine(tmp_path, monkeypatch, provider)
    async with app.run_test(size=SIZE) as pilot:
        bar = app.query_one(StatusBar)
        await wait_until(pilot, lambda: bar.info.state == "ready", timeout=60)
        assert app.engine is not None and app.engine.session_dir.is_dir()
        session_dir = app.engine.session_dir
        app.query_one(PromptInput).focus()
        await pilot.press(*"hi", "enter")
        await wait_until(pilot, lambda: app.queued == ["hi"])

        provider.release.set()
        await wait_until(pilot, lambda: bar.info.state == "not started", timeout=60)
        blocks = app.query_one(ConversationView)
        said = [getattr(b, "text", "") for b in blocks.blocks]
        assert any("Could not start" in t and "cannot call tools" in t for t in said)
        # said once: the toast points at the conversation; the shell gets it after the app (exit 2)
        assert not any("cannot call tools" in n for n in app.recent_notices)
        assert app.start_failure is not None and "cannot call tools" in app.start_failure
        assert app.engine is None and app.resume_hint() is None
        assert not session_dir.exists()  # the half-made session is gone
        # Sending now says the start failed instead of queueing for ever.
        await pilot.press(*"again", "enter")
        await pilot.pause()
        assert app.queued == ["hi"]
    assert not provider.requests


@pytest.mark.parametrize("size", [(80, 24), (130, 40)])
async def test_the_first_frame_is_laid_out_for_the_screen_before_the_side_panes_are_mounted(
    size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Tabs

    async def never_opens(resume: str | None, **_: object) -> None:
        raise AssertionError("the engine is not opened before the side panes are mounted")

    async def held_back(self: ConsultApp) -> None:  # the state of the first frame, kept still
        return None

    monkeypatch.setattr(ConsultApp, "_after_first_frame", held_back)
    app = ConsultApp(never_opens)  # type: ignore[arg-type]
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert not app.query("#diff-pane")  # still the first frame's widgets
        small = size == (80, 24)
        # A small screen shows one pane at a time from the first frame on: the tabs on top and
        # the conversation, not the wide layout's empty side column beside a cut-off prompt.
        assert app.screen.has_class("-compact") is small
        # the tabs: shown on a small screen; on a wide one not in the first frame (mounted just after)
        tabs = app.query("#pane-tabs").results(Tabs)
        assert [t.display for t in tabs] == ([True] if small else [])
        assert app.query_one("#side").display is (not small)
        assert app.query_one("#conversation-pane").display
