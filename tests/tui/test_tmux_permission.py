"""Smoke test: the approval prompt in a real terminal (tmux), over the real litellm provider and the
fake OpenAI-compatible server: the model proposes a draft and asks to apply it; the person denies."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from formspec_consult.resources import package_path
from tests.tui.test_tmux_smoke import ROOT, wait_for

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (tests/setup/30-tmux.sh)"),
]
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
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.openai_server", "--script", str(script), "--port", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/v1)", line)
        assert match, f"the fake server did not report its address: {line!r}"
        yield match.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_the_approval_prompt_shows_in_a_terminal_and_a_denial_leaves_the_project_untouched(
        tmp_path: Path, fake_server: str) -> None:
    project = tmp_path / "barbershop"
    shutil.copytree(package_path("examples", "barbershop"), project)
    session = f"fsc-perm-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               FORMSPEC_REGISTRY_DB=f"sqlite:///{tmp_path / 'registry.db'}", TERM="xterm-256color",
               LITELLM_LOCAL_MODEL_COST_MAP="True", PYTHONPATH=str(ROOT))
    binary = shutil.which("formspec-consult", path=str(Path(sys.executable).parent)) or "formspec-consult"
    command = f"{binary} --model fake --base-url {fake_server} --context-window 32000 --allow-unvalidated"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "30", "-c", str(project),
                    command], check=True, env=env)

    def screen() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout

    try:
        wait_for(lambda: "ready" in screen() and "session" in screen(), 120, "the app to connect")
        subprocess.run(["tmux", "send-keys", "-t", session, "we buy from suppliers", "Enter"], check=True)
        wait_for(lambda: "Permission needed" in screen(), 60, "the approval prompt")
        shown = screen()
        assert "wants to apply the draft" in shown and "Allow once" in shown and "Deny" in shown
        assert "+kind: Entity" in shown  # the diff is visible in the prompt
        subprocess.run(["tmux", "send-keys", "-t", session, "d"], check=True)
        wait_for(lambda: "review it yourself with /diff" in screen(), 60, "the reply after the denial")
        assert "You declined" in screen()
        subprocess.run(["tmux", "send-keys", "-t", session, "C-q"], check=True)
        wait_for(lambda: subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode != 0,
                 30, "the app to quit on ctrl+q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert not (project / "spec" / DRAFT).exists()
