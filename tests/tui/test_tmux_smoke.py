"""Smoke test: the real app in a real terminal (tmux), against the fake OpenAI-compatible server.

Starts `formspec-consult` on a copy of the example project with the litellm provider pointed at
`tests/fakes/openai_server.py` (run as a process), types a message with `send-keys` and reads
the screen with `capture-pane`. tmux comes from tests/setup/30-tmux.sh.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from formspec_consult.resources import package_path

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (tests/setup/30-tmux.sh)"),
]
ROOT = Path(__file__).resolve().parents[2]
REPLY = "Hello from the fake model! How do your customers book a chair?"


def wait_for(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """Poll a condition on another process, bounded; fail naming what never happened."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.1)  # another process is working; there is nothing to await in-process


@pytest.fixture
def fake_server(tmp_path: Path) -> Iterator[str]:
    script = tmp_path / "replies.yaml"
    script.write_text(f"- text: {REPLY!r}\n", encoding="utf-8")
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


def test_the_real_app_answers_a_typed_message_in_a_terminal(tmp_path: Path, fake_server: str) -> None:
    project = tmp_path / "barbershop"
    shutil.copytree(package_path("examples", "barbershop"), project)
    session = f"fsc-smoke-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               FORMSPEC_REGISTRY_DB=f"sqlite:///{tmp_path / 'registry.db'}", TERM="xterm-256color",
               LITELLM_LOCAL_MODEL_COST_MAP="True", PYTHONPATH=str(ROOT))
    command = (
        f"{shutil.which('formspec-consult', path=str(Path(sys.executable).parent)) or 'formspec-consult'}"
        f" --model fake --base-url {fake_server} --context-window 32000 --allow-unvalidated"
    )
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "36", "-c", str(project),
                    command], check=True, env=env)

    def screen() -> str:
        out = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True)
        return out.stdout

    try:
        wait_for(lambda: "ready" in screen() and "session" in screen(), 120, "the app to connect (status 'ready')")
        subprocess.run(["tmux", "send-keys", "-t", session, "I run a barbershop", "Enter"], check=True)
        wait_for(lambda: "Hello from the fake model!" in screen(), 60, "the streamed reply on screen")
        # the provider-reported usage replaces the local estimate once the turn ends
        wait_for(lambda: "reported" in screen(), 30, "the status bar to show reported usage")
        shown = screen()
        assert "I run a barbershop" in shown and "openai/fake" in shown
        subprocess.run(["tmux", "send-keys", "-t", session, "C-q"], check=True)
        wait_for(lambda: subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode != 0,
                 30, "the app to quit on ctrl+q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    sessions = list((project / ".formspec" / "consult").glob("*/transcript.md"))
    assert sessions and REPLY in sessions[0].read_text(encoding="utf-8")


def test_the_demo_plays_the_example_session_to_the_end_in_a_terminal(tmp_path: Path) -> None:
    session = f"fsc-demo-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "config"), TERM="xterm-256color",
               FORMSPEC_REGISTRY_DB=f"sqlite:///{tmp_path / 'registry.db'}", PYTHONPATH=str(ROOT))
    binary = shutil.which("formspec-consult", path=str(Path(sys.executable).parent)) or "formspec-consult"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "130", "-y", "40",
                    f"{binary} demo --dir {tmp_path / 'demo'} --speed 8"], check=True, env=env)

    def screen() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout

    try:
        # The demo waits at the review step until the viewer acts: space goes on.
        wait_for(lambda: "Review the draft in the diff pane" in screen(), 120, "the demo to hold at the review step")
        assert "goes on in" not in screen()
        subprocess.run(["tmux", "send-keys", "-t", session, "Space"], check=True)
        wait_for(lambda: "■ finished" in screen(), 120, "the demo to play every step")
        shown = screen()
        assert "Undid the apply of" in shown and "propose_spec_file" in shown
        subprocess.run(["tmux", "send-keys", "-t", session, "C-q"], check=True)
        wait_for(lambda: subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode != 0,
                 30, "the demo to quit on ctrl+q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    project = tmp_path / "demo" / "barbershop"
    assert not (project / "spec" / "modules/booking/transaction/queue_ticket/entity.yaml").exists()  # undone
    assert list((project / ".formspec" / "consult").glob("*/events.jsonl"))  # a real session was recorded
