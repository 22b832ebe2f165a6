"""The prompt takes what terminals and input methods send: the bytes go through Textual's own
terminal parser (as the driver feeds them) into the running app — wide CJK text committed by an
input method in one burst, combining marks, a bracketed multi-line paste with the CR line ends
terminals send (kept as lines, never sent), and ctrl+g's editor (its text back; a failed or
empty editor changes nothing)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from textual._xterm_parser import XTermParser
from textual.pilot import Pilot

from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.prompt_input import PromptInput
from tests.tui.conftest import SIZE, consult_app, notices, wait_until
from tests.tui.fakes import FakeEngine, factory_for

pytestmark = pytest.mark.anyio


async def typed(pilot: Pilot[None], data: str) -> None:
    """Feed `data` as a terminal sends it: through Textual's parser, its events to the app in order."""
    for message in list(XTermParser().feed(data)):
        pilot.app.post_message(message)
        await pilot.pause()


async def ready(pilot: Pilot[None]) -> tuple[PromptInput, FakeEngine]:
    app = consult_app(pilot)
    await wait_until(pilot, lambda: app.engine is not None and app.model_joined)
    prompt = app.query_one(PromptInput)
    prompt.focus()
    engine = app.engine
    assert isinstance(engine, FakeEngine)
    return prompt, engine


async def test_a_wide_text_committed_at_once_by_an_input_method_is_kept_whole_and_sent_on_enter() -> None:
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        prompt, engine = await ready(pilot)
        await typed(pilot, "早上好，我想")  # one commit of six characters, as an IME sends it
        await typed(pilot, "预约")
        assert prompt.value == "早上好，我想预约" and engine.sent == []
        assert prompt.cursor_position == len("早上好，我想预约")
        await typed(pilot, "\r")  # Enter, on its own
        await wait_until(pilot, lambda: engine.sent == ["早上好，我想预约"])


async def in_one_write(pilot, data: str) -> None:  # type: ignore[no-untyped-def]
    """Feed `data` as ONE read of the terminal: every event the parser makes is posted before the
    app runs any of them (Textual's driver does this for each read), then the app catches up."""
    for message in list(XTermParser().feed(data)):
        pilot.app.post_message(message)
    await pilot.pause()


@pytest.mark.parametrize(
    "write",
    [
        pytest.param("予約したいです\r", id="japanese-commit-then-enter"),
        pytest.param("预约\r", id="chinese-commit-then-enter"),
        pytest.param("예약할게요\r", id="hangul-commit-then-enter"),
        pytest.param("\x1b[200~Saya mau\rbooking\x1b[201~\r", id="paste-then-enter"),
    ],
)
async def test_an_input_method_s_commit_and_the_enter_in_one_write_send_the_whole_text_once(write: str) -> None:
    """Some input methods (and a fast typist's terminal) deliver the committed text and the Enter
    that confirms it in a single write: the whole text is sent, once, and nothing is left behind."""
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        prompt, engine = await ready(pilot)
        await typed(pilot, "早上好，")  # something typed before, so the commit lands after it
        await in_one_write(pilot, write)
        committed = write.removeprefix("\x1b[200~").removesuffix("\r").replace("\x1b[201~", "").replace("\r", "\n")
        await wait_until(pilot, lambda: engine.sent == ["早上好，" + committed])
        await pilot.pause()
        assert engine.sent == ["早上好，" + committed] and prompt.value == ""


async def test_combining_marks_and_hangul_stay_as_typed() -> None:
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        prompt, engine = await ready(pilot)
        await typed(pilot, "Cafe\u0301 한국어 ")
        assert prompt.value == "Cafe\u0301 한국어 " and prompt.cursor_position == len("Cafe\u0301 한국어 ")
        await typed(pilot, "\r")
        await wait_until(pilot, lambda: engine.sent == ["Cafe\u0301 한국어"])


async def test_a_bracketed_multi_line_paste_keeps_its_lines_and_sends_nothing() -> None:
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        prompt, engine = await ready(pilot)
        await typed(pilot, "\x1b[200~We sell:\rhaircuts\r\nshaves\x1b[201~")  # CR and CRLF, as terminals paste
        assert prompt.value == "We sell:\nhaircuts\nshaves" and engine.sent == []
        assert prompt.size.height >= 3  # the prompt grew to show the lines
        await typed(pilot, "\r")
        await wait_until(pilot, lambda: engine.sent == ["We sell:\nhaircuts\nshaves"])


async def test_ctrl_j_adds_a_line_by_hand() -> None:
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        prompt, engine = await ready(pilot)
        await pilot.press(*"one", "ctrl+j", *"two")
        assert prompt.value == "one\ntwo" and engine.sent == []


def editor(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.sh"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


async def test_ctrl_g_puts_what_the_editor_wrote_in_the_prompt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor(tmp_path, 'printf "%s\\nsecond line\\n" "$(cat "$1")" > "$1"'))
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        prompt, engine = await ready(pilot)
        await pilot.press(*"first line", "ctrl+g")
        await wait_until(pilot, lambda: prompt.value == "first line\nsecond line")
        assert engine.sent == []


@pytest.mark.parametrize(("body", "said"), [
    ("exit 3", "The editor exited with code 3: the message is left as it was."),
    (': > "$1"', "The editor left the message empty: it is left as it was."),
])
async def test_a_failed_or_empty_editor_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, said: str
) -> None:
    monkeypatch.setenv("VISUAL", editor(tmp_path, body))
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        prompt, _engine = await ready(pilot)
        await pilot.press(*"keep me", "ctrl+g")
        await wait_until(pilot, lambda: said in notices(app))
        assert prompt.value == "keep me"


async def test_ctrl_g_without_an_editor_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        prompt, _engine = await ready(pilot)
        await pilot.press(*"hi", "ctrl+g")
        await wait_until(pilot, lambda: any("Set $VISUAL or $EDITOR" in n for n in notices(app)))
        assert prompt.value == "hi"
