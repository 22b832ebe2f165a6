"""The app's start over the real Engine: the model's warm-up runs off the event loop while the
servers start, the status bar says connecting → loading the session → ready in that order, and
what the person types meanwhile is sent once the session is ready."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers import ScriptedProvider
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.assistant_block import AssistantBlock
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.prompt_input import PromptInput
from formspec_consult.tui.widgets.status_bar import StatusBar, StatusInfo
from tests.e2e.project import make_project
from tests.tui.conftest import SIZE, wait_until

pytestmark = pytest.mark.anyio


class SlowToWarm(ScriptedProvider):
    """A provider whose warm-up (litellm's import, for the real one) waits for the test."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies)
        self.release = threading.Event()
        self.warming = threading.Event()

    def warm(self) -> None:
        self.warming.set()
        if not self.release.wait(60):
            raise RuntimeError("the test never released the warm-up")


async def test_the_app_stays_usable_while_the_model_warms_up_and_says_ready_only_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    project = make_project(tmp_path / "shop")
    provider = SlowToWarm(["Hello! What do you sell?"])
    app = ConsultApp(engine_factory_for({"project": str(project)}, provider=provider, in_memory_server=True, preload=()))
    states: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        bar = app.query_one(StatusBar)

        def seen(info: StatusInfo) -> None:
            if not states or states[-1] != info.state:
                states.append(info.state)

        app.watch(bar, "info", seen, init=True)
        await wait_until(pilot, provider.warming.is_set, timeout=60)
        # The warm-up blocks its thread, not the app: the person can type, and it is queued.
        app.query_one(PromptInput).focus()
        await pilot.press(*"hi", "enter")
        await wait_until(pilot, lambda: app.queued == ["hi"])
        assert bar.info.state == "connecting…" and app.engine is None

        provider.release.set()
        await wait_until(pilot, lambda: bar.info.state == "ready" or bar.info.state == "thinking…", timeout=60)
        blocks = app.query_one(ConversationView)
        await wait_until(
            pilot, lambda: any(isinstance(b, AssistantBlock) and "What do you sell" in b.text for b in blocks.blocks),
            timeout=60,
        )
    assert states[:3] == ["connecting…", "loading the session…", "ready"]
    assert provider.requests and provider.requests[0][-1] == {"role": "user", "content": "hi"}


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
        assert app.query_one("#pane-tabs", Tabs).display is small
        assert app.query_one("#side").display is (not small)
        assert app.query_one("#conversation-pane").display
