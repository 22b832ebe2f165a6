"""In a real terminal (tmux), a sentence typed right after `a` in the diffs pane is a message, not
review keys: the draft is applied once, nothing is undone or rejected, and the sentence is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import copy_example
from tests.tui.test_tmux_permission import DRAFT, SUPPLIER
from tests.tui.tmux import NEEDS_TMUX, app_env, consult_binary, fake_openai_server, tmux_app, wait_for

pytestmark = [pytest.mark.slow, NEEDS_TMUX]
SENTENCE = "sounds good, apply and undo nothing else"


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_a_sentence_typed_after_accepting_in_the_pane_is_sent_and_changes_nothing_else(
        tmp_path: Path, size: tuple[int, int]) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([
        {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT, "content": SUPPLIER}}]},
        {"text": "Drafted the supplier: review it with ctrl+r."},
        {"text": "Glad it suits you."},
    ]), encoding="utf-8")
    project = copy_example(tmp_path)
    env = app_env(tmp_path, LITELLM_LOCAL_MODEL_COST_MAP="True")
    with fake_openai_server(script) as url:
        command = f"{consult_binary()} --model fake --base-url {url} --context-window 32000 --allow-unvalidated"
        with tmux_app("fsc-keys", command, env=env, size=size, cwd=project) as pane:
            wait_for(lambda: "ready" in pane.screen() and "session" in pane.screen(), 120, "the app to connect")
            pane.send("we buy from suppliers", "Enter")
            wait_for(lambda: "review it with ctrl+r" in pane.screen(), 60, "the reply after the draft")
            pane.send("C-r")
            # the pane is armed: its top edge lights up and the footer lists its keys
            wait_for(lambda: "[new]" in pane.screen() and "Accept" in pane.screen(), 30, "the diffs pane, armed")
            pane.send("a")
            pane.send("-l", SENTENCE)  # typed on at once, as a person does after pressing a
            pane.send("Enter")
            wait_for(lambda: "Glad it suits you." in pane.screen(), 60, "the reply to the sentence")
            pane.quit()
    assert (project / "spec" / DRAFT).read_text(encoding="utf-8") == SUPPLIER  # applied, not undone
    log = [json.loads(line) for path in (project / ".formspec" / "consult").glob("*/events.jsonl")
           for line in path.read_text(encoding="utf-8").splitlines()]
    assert [(e["type"], e.get("path")) for e in log if e["type"] in {"apply", "undo", "reject"}] == [("apply", DRAFT)]
    assert [e["user_text"] for e in log if e["type"] == "turn_started"] == ["we buy from suppliers", SENTENCE]
