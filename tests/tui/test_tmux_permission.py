"""Smoke test: the approval prompt in a real terminal (tmux), over the real litellm provider and the
fake OpenAI-compatible server: the model proposes a draft and asks to apply it; the person denies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import copy_example
from tests.tui.tmux import NEEDS_TMUX, app_env, consult_binary, fake_openai_server, tmux_app, wait_for

pytestmark = [pytest.mark.slow, NEEDS_TMUX]
DRAFT = "modules/shop/master/supplier/entity.yaml"
SUPPLIER = ("apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: supplier, module: shop}\nspec:\n"
            "  version: v1\n  characteristic: master\n  display_field: name\n  fields:\n"
            "    - {name: name, type: string, required: true}\n")


@pytest.fixture
def fake_server(tmp_path: Path) -> Iterator[str]:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([
        {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT, "content": SUPPLIER}}]},
        {"tool_calls": [{"name": "apply_draft", "arguments": {"file": DRAFT}}]},
        {"text": "Then review it yourself with /diff."},
    ]), encoding="utf-8")
    with fake_openai_server(script) as url:
        yield url


def test_the_approval_prompt_shows_in_a_terminal_and_a_denial_leaves_the_project_untouched(
        tmp_path: Path, fake_server: str) -> None:
    project = copy_example(tmp_path)
    env = app_env(tmp_path, LITELLM_LOCAL_MODEL_COST_MAP="True")
    command = f"{consult_binary()} --model fake --base-url {fake_server} --context-window 32000 --allow-unvalidated"
    with tmux_app("fsc-perm", command, env=env, size=(100, 30), cwd=project) as pane:
        wait_for(lambda: "ready" in pane.screen() and "session" in pane.screen(), 120, "the app to connect")
        pane.send("we buy from suppliers", "Enter")
        wait_for(lambda: "Permission needed" in pane.screen(), 60, "the approval prompt")
        shown = pane.screen()
        assert "wants to apply the draft" in shown and "Allow once" in shown and "Deny" in shown
        assert "+kind: Entity" in shown  # the diff is visible in the prompt
        pane.send("d")
        wait_for(lambda: "review it yourself with /diff" in pane.screen(), 60, "the reply after the denial")
        assert "You declined" in pane.screen()
        pane.quit()
    assert not (project / "spec" / DRAFT).exists()
