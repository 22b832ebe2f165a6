"""In a real terminal (tmux): what the person types before the app's first frame is not lost — it is
in the prompt once the app draws, and Enter typed with it sends it (queued until the model is there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import copy_example
from tests.tui.tmux import NEEDS_TMUX, app_env, consult_binary, tmux_app, wait_for

pytestmark = [pytest.mark.slow, NEEDS_TMUX]


def test_a_message_typed_before_the_first_frame_is_kept_and_sent(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([{"text": "Typed ahead and received."}]), encoding="utf-8")
    project = copy_example(tmp_path)
    command = f"{consult_binary()} --model scripted:{script}"
    with tmux_app("fsc-ahead", command, env=app_env(tmp_path), size=(100, 30), cwd=project) as pane:
        assert "Message the consultant" not in pane.screen()  # the interpreter is still starting
        pane.send("-l", "I run a barbershop")
        pane.send("Enter")
        wait_for(lambda: "Typed ahead and received." in pane.screen(), 90, "the reply to the typed-ahead message")
        assert "I run a barbershop" in pane.screen()
        pane.quit()
    log = [json.loads(line) for path in (project / ".formspec" / "consult").glob("*/events.jsonl")
           for line in path.read_text(encoding="utf-8").splitlines()]
    assert [e["user_text"] for e in log if e["type"] == "turn_started"] == ["I run a barbershop"]


def test_text_typed_before_the_first_frame_waits_in_the_prompt(tmp_path: Path) -> None:
    project = copy_example(tmp_path)
    command = f"{consult_binary()} --model scripted:{tmp_path / 'none.json'}"
    (tmp_path / "none.json").write_text("[]", encoding="utf-8")
    with tmux_app("fsc-ahead2", command, env=app_env(tmp_path), size=(80, 24), cwd=project) as pane:
        assert "Message the consultant" not in pane.screen()
        pane.send("-l", "half a thought")
        wait_for(lambda: "half a thought" in pane.screen() and "F2 Chat" in pane.screen(), 90,
                 "the typed-ahead text in the prompt")
        pane.quit()
