"""Smoke test: the real app in a real terminal (tmux), against the fake OpenAI-compatible server.

Starts `formspec-consult` on a copy of the example project with the litellm provider pointed at
`tests/fakes/openai_server.py` (run as a process), types a message with `send-keys` and reads
the screen with `capture-pane`. tmux comes from tests/setup/30-tmux.sh.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import copy_example
from tests.tui.tmux import NEEDS_TMUX, app_env, consult_binary, fake_openai_server, tmux_app, wait_for

pytestmark = [pytest.mark.slow, NEEDS_TMUX]
REPLY = "Hello from the fake model! How do your customers book a chair?"


@pytest.fixture
def fake_server(tmp_path: Path) -> Iterator[str]:
    script = tmp_path / "replies.yaml"
    script.write_text(f"- text: {REPLY!r}\n", encoding="utf-8")
    with fake_openai_server(script) as url:
        yield url


def test_the_real_app_answers_a_typed_message_in_a_terminal(tmp_path: Path, fake_server: str) -> None:
    project = copy_example(tmp_path)
    env = app_env(tmp_path, LITELLM_LOCAL_MODEL_COST_MAP="True")
    command = f"{consult_binary()} --model fake --base-url {fake_server} --context-window 32000 --allow-unvalidated"
    with tmux_app("fsc-smoke", command, env=env, size=(120, 36), cwd=project) as pane:
        wait_for(lambda: "ready" in pane.screen() and "session" in pane.screen(), 120,
                 "the app to connect (status 'ready')")
        pane.send("I run a barbershop", "Enter")
        wait_for(lambda: "Hello from the fake model!" in pane.screen(), 60, "the streamed reply on screen")
        # the provider-reported usage replaces the local estimate once the turn ends
        wait_for(lambda: "reported" in pane.screen(), 30, "the status bar to show reported usage")
        shown = pane.screen()
        assert "I run a barbershop" in shown and "openai/fake" in shown
        pane.quit()
    sessions = list((project / ".formspec" / "consult").glob("*/transcript.md"))
    assert sessions and REPLY in sessions[0].read_text(encoding="utf-8")


def test_the_demo_plays_the_example_session_to_the_end_in_a_terminal(tmp_path: Path) -> None:
    command = f"{consult_binary()} demo --dir {tmp_path / 'demo'} --speed 8"
    with tmux_app("fsc-demo", command, env=app_env(tmp_path), size=(130, 40)) as pane:
        # The demo waits at the review step until the viewer acts: space goes on.
        wait_for(lambda: "Review the draft in the diff pane" in pane.screen(), 120,
                 "the demo to hold at the review step")
        assert "goes on in" not in pane.screen()
        pane.send("Space")
        wait_for(lambda: "■ finished" in pane.screen(), 120, "the demo to play every step")
        shown = pane.screen()
        assert "Undid the apply of" in shown and "propose_spec_file" in shown
        pane.quit("the demo to quit on ctrl+q")
    project = tmp_path / "demo" / "barbershop"
    assert not (project / "spec" / "modules/booking/transaction/queue_ticket/entity.yaml").exists()  # undone
    assert list((project / ".formspec" / "consult").glob("*/events.jsonl"))  # a real session was recorded


@NEEDS_TMUX
def test_each_tmux_test_runs_on_a_private_tmux_server_that_is_gone_afterwards(tmp_path: Path) -> None:
    import subprocess

    with tmux_app("fsc-socket", "sleep 600", env=app_env(tmp_path), size=(80, 24)) as pane:
        assert pane.alive() and pane.socket != "default"
        default = subprocess.run(["tmux", "list-sessions", "-F", "#S"], capture_output=True, text=True)
        assert pane.name not in default.stdout  # not on the default server people and other runs use
        sessions = pane.tmux("list-sessions", "-F", "#S").stdout.split()
        assert sessions == [pane.name]
    assert pane.tmux("list-sessions").returncode != 0  # the private server was killed with its session


SIX = ["A) Walk-ins only", "B) Bookings and walk-ins", "C) Bookings only", "D) Members only",
       "E) By phone", "F) Through a partner site"]
PAY = ["A) At booking", "B) After the cut"]


def test_alt_f_and_alt_b_typed_in_a_terminal_pick_options_f_and_b(tmp_path: Path) -> None:
    # A terminal sends Alt+B as ESC b, which Textual reads as ctrl+left unless the app says otherwise.
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([{"text": "How do customers book?\n\n" + "\n".join(SIX)},
                                  {"text": "When do they pay?\n\n" + "\n".join(PAY)},
                                  {"text": "Noted both."}]), encoding="utf-8")
    project = copy_example(tmp_path)
    env = app_env(tmp_path, LITELLM_LOCAL_MODEL_COST_MAP="True")
    with fake_openai_server(script) as url:
        command = f"{consult_binary()} --model fake --base-url {url} --context-window 32000 --allow-unvalidated"
        with tmux_app("fsc-alt", command, env=env, size=(120, 40), cwd=project) as pane:
            wait_for(lambda: "ready" in pane.screen() and "session" in pane.screen(), 120, "the app to connect")
            pane.send("I run a barbershop", "Enter")
            # twice on screen: in the reply, and as the button of the options bar
            wait_for(lambda: pane.screen().count(SIX[5]) >= 2, 60, "the six options as buttons")
            pane.send("M-f")
            wait_for(lambda: pane.screen().count(PAY[1]) >= 2, 60, "alt+f to pick F and the next question")
            pane.send("M-b")
            wait_for(lambda: "Noted both." in pane.screen(), 60, "alt+b to pick B and the reply")
            pane.quit()
    assert decisions(project) == [("F", SIX[5]), ("B", PAY[1])]


def decisions(project: Path) -> list[tuple[str, str]]:
    """The options the person picked, as the session's event log records them."""
    found = []
    for log in (project / ".formspec" / "consult").glob("*/events.jsonl"):
        for line in log.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            if event.get("type") == "decision":
                found.append((event["answer"], event["option"]))
    return found
